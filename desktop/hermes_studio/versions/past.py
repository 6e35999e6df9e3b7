"""The Memory tab as it was: both stores at the scrubber's date, read-only, with
"Restore this version" for each.

It sits above the editors; while the graph's playhead is in the past it hides them and
shows the entries history recorded for that date (the same ``history_replay`` answer the
graph uses). "Back to now" returns the playhead to now and brings the editors back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from hermes_memory.memory.entries import ENTRY_DELIMITER, FILE_NAMES, TARGETS

from ..undo import History
from ..workspace import Workspace
from . import render, restoring


class PastStores(QFrame):
    """MEMORY.md and USER.md at a date, read-only."""

    sig_back_to_now = Signal()
    sig_restored = Signal(object)

    def __init__(self, workspace: Workspace, undo: History | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pastStores")
        self.workspace = workspace
        self.undo = undo
        self.when: float | None = None
        self.state: dict[str, Any] | None = None
        self.hidden_while_shown: list[QWidget] = []
        self.title = QLabel()
        self.title.setObjectName("pastTitle")
        self.title.setWordWrap(True)
        self.back_button = QPushButton("Back to now")
        self.back_button.clicked.connect(self.sig_back_to_now)
        self.outcome = QLabel()
        self.outcome.setObjectName("pastOutcome")
        self.outcome.setWordWrap(True)
        self.outcome.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.views: dict[str, QPlainTextEdit] = {}
        self.captions: dict[str, QLabel] = {}
        self.restore_buttons: dict[str, QPushButton] = {}
        grid = QGridLayout(self)
        grid.addWidget(self.title, 0, 0)
        grid.addWidget(self.back_button, 0, 1, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.outcome, 1, 0, 1, 2)
        for column, target in enumerate(TARGETS):
            caption = QLabel()
            caption.setWordWrap(True)
            view = QPlainTextEdit()
            view.setReadOnly(True)
            view.setObjectName(f"past-{target}")
            view.setAccessibleName(f"{FILE_NAMES[target]} as it was")
            button = QPushButton(f"Restore this version of {FILE_NAMES[target]}")
            button.clicked.connect(lambda _checked=False, t=target: self.restore(t))
            self.captions[target], self.views[target], self.restore_buttons[target] = caption, view, button
            grid.addWidget(caption, 2, column)
            grid.addWidget(view, 3, column)
            grid.addWidget(button, 4, column)
        grid.setRowStretch(3, 1)
        self.hide()

    def attach(self, editors: QWidget, layout_owner: QWidget) -> None:
        """Sit above ``editors`` in ``layout_owner``'s layout; hide them while shown."""
        layout_owner.layout().insertWidget(0, self, 1)
        self.hidden_while_shown = [editors]

    def show_state(self, when: float | None, state: dict[str, Any] | None) -> None:
        """The stores at ``when`` (``None``: now, the editors come back)."""
        self.when, self.state = when, state
        if when is None:
            self.hide()
            for widget in self.hidden_while_shown:
                widget.show()
            return
        for widget in self.hidden_while_shown:
            widget.hide()
        self.show()
        self.title.setText(f"<b>Memory as it was on {render.when_text(when)}</b> — read-only, "
                           "from the recorded history. Drag the graph's timeline, or go back to now.")  # fmt: skip
        self.outcome.clear()
        if not state or not state.get("ok"):
            reason = (state or {}).get("error") or "no answer"
            for target in TARGETS:
                self.captions[target].setText(f"{FILE_NAMES[target]}: history could not be read ({reason}).")
                self.views[target].setPlainText("")
                self.restore_buttons[target].setEnabled(False)
            return
        for target in TARGETS:
            store = state.get(target) or {}
            version = store.get("version")
            entries = [e["text"] for e in store.get("entries") or []]
            if version is None:
                self.captions[target].setText(f"{FILE_NAMES[target]}: no version recorded by then.")
            else:
                self.captions[target].setText(
                    f"{FILE_NAMES[target]}: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}, "
                    f"{int(store.get('chars') or 0):,} chars · version of {render.when_text(store.get('ts'))}")
            self.views[target].setPlainText(ENTRY_DELIMITER.join(entries))
            self.restore_buttons[target].setEnabled(version is not None)

    def version(self, target: str) -> str | None:
        return ((self.state or {}).get(target) or {}).get("version")

    def restore(self, target: str, on_done: Callable[[dict], None] | None = None) -> None:
        version = self.version(target)
        if version is None:
            return
        label = f"restore {FILE_NAMES[target]} to {render.when_text(self.when)}"
        self.restore_buttons[target].setEnabled(False)

        def done(result: dict[str, Any]) -> None:
            self.restore_buttons[target].setEnabled(self.version(target) is not None)
            if result.get("ok"):
                undo = " Edit ▸ Undo takes it back." if result.get("undo") else ""
                self.outcome.setText(f"{result.get('message') or 'Restored.'}{undo}")
            else:
                self.outcome.setText(f"Not restored: {result.get('error') or result.get('message')}")
            self.sig_restored.emit(result)
            if on_done is not None:
                on_done(result)

        restoring.restore(self.workspace, self.undo, version, target, label, done)
