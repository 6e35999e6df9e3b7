"""The command palette (Ctrl+K): every action by name, and a jump to any skill or entry.

Type a few letters: the list keeps the items whose words start with, or contain, what was
typed (every typed word must match), best first; Enter runs the highlighted one. Actions
come from the window's :class:`~hermes_studio.commands.CommandRegistry`; the jump targets
(skills and memory entries) from the graph and the memory editors, as plain (label, run)
pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

#: Most items listed at once (the rest are a few more letters away).
MAX_ITEMS = 200


@dataclass(frozen=True)
class PaletteItem:
    label: str  # what is shown and matched
    detail: str  # the shortcut, or what kind of thing it is
    run: Callable[[], object]
    enabled: bool = True


def score(query: str, text: str) -> int | None:
    """How well ``text`` matches ``query`` (lower is better); None when it does not."""
    words = query.lower().split()
    haystack = text.lower()
    total = 0
    for word in words:
        position = haystack.find(word)
        if position < 0:
            return None
        at_word_start = position == 0 or not haystack[position - 1].isalnum()
        total += position + (0 if at_word_start else 50)
    return total


class CommandPalette(QDialog):
    """A filter box over a list of :class:`PaletteItem`."""

    def __init__(self, items: Sequence[PaletteItem], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Command palette")
        self.setModal(True)
        self.resize(560, 420)
        self.items = list(items)
        self.query = QLineEdit(self)
        self.query.setPlaceholderText("Type an action, a skill or a memory entry…")
        self.query.setAccessibleName("Search actions, skills and entries")
        self.list = QListWidget(self)
        self.list.setAccessibleName("Matches")
        self.hint = QLabel("Enter runs the highlighted item · Esc closes", self)
        self.hint.setObjectName("caption")
        layout = QVBoxLayout(self)
        layout.addWidget(self.query)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        self.query.textChanged.connect(self._filter)
        self.query.installEventFilter(self)
        self.list.itemActivated.connect(self._run)
        self._filter("")

    def shown(self) -> list[PaletteItem]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def _filter(self, text: str) -> None:
        ranked = []
        for order, item in enumerate(self.items):
            found = score(text, f"{item.label} {item.detail}") if text.strip() else 0
            if found is not None:
                ranked.append((found, order, item))
        ranked.sort(key=lambda entry: entry[:2])
        self.list.clear()
        for _, _, item in ranked[:MAX_ITEMS]:
            row = QListWidgetItem(f"{item.label}    {item.detail}".rstrip())
            row.setData(Qt.ItemDataRole.UserRole, item)
            if not item.enabled:
                row.setFlags(row.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                row.setText(row.text() + "    (not available now)")
            self.list.addItem(row)
        for index in range(self.list.count()):
            if self.list.item(index).flags() & Qt.ItemFlag.ItemIsEnabled:
                self.list.setCurrentRow(index)
                break

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.query and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                self.list.keyPressEvent(event)  # move through the list while typing
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                current = self.list.currentItem()
                if current is not None:
                    self._run(current)
                return True
        return super().eventFilter(watched, event)

    def _run(self, row: QListWidgetItem) -> None:
        item: PaletteItem = row.data(Qt.ItemDataRole.UserRole)
        if not item.enabled:
            return
        self.accept()
        item.run()
