"""One change in the feed: what changed, who and when, its diff, and Undo / Pin / Show."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from . import render


def _label(parent: QWidget, name: str, rich: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ChangeCard(QFrame):
    sig_undo = Signal(object)  # the change
    sig_pin = Signal(object)
    sig_show = Signal(object)

    def __init__(self, change: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.change = change
        self.setObjectName("changeCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = _label(self, "changeTitle")
        self.title.setText(render.title(change))
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.meta = _label(self, "changeMeta")
        self.meta.setText(render.meta(change))
        self.flag = _label(self, "changeFlag")
        if change.get("flagged"):
            who = change.get("origin_label") or change.get("origin")
            self.flag.setText(f"⚑ Pinned skill changed by {who}, not by you: check it, or Undo.")
            self.flag.setStyleSheet("color: #d9822b; font-weight: bold;")
        self.flag.setVisible(bool(change.get("flagged")))
        self.diff = _label(self, "changeDiff", rich=True)
        self.diff.setText(render.diff_html(change))
        self.outcome = _label(self, "changeOutcome")
        self.outcome.hide()

        self.undo_button = QPushButton("Undo", self)
        self.undo_button.setToolTip("Put back what was there before this change (Edit ▸ Undo takes it back)")
        self.undo_button.setEnabled(bool(change.get("undoable")))
        self.pin_button = QPushButton("Pin", self)
        self.pin_button.setToolTip("Keep this skill: the curator never archives a pinned skill")
        skill = change.get("kind") == "skill"
        self.pin_button.setVisible(skill and not change.get("pinned") and change.get("verb") != "archived")
        self.show_button = QPushButton("Show in graph", self)
        self.show_button.setVisible(bool(change.get("nodes")) and change.get("verb") != "archived")
        self.undo_button.clicked.connect(lambda: self.sig_undo.emit(self.change))
        self.pin_button.clicked.connect(lambda: self.sig_pin.emit(self.change))
        self.show_button.clicked.connect(lambda: self.sig_show.emit(self.change))

        buttons = QHBoxLayout()
        for button in (self.undo_button, self.pin_button, self.show_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(3)
        for widget in (self.title, self.flag, self.meta, self.diff, self.outcome):
            layout.addWidget(widget)
        layout.addLayout(buttons)

    def set_busy(self, busy: bool) -> None:
        for button in (self.undo_button, self.pin_button):
            button.setEnabled(not busy and (button is not self.undo_button or bool(self.change.get("undoable"))))

    def set_outcome(self, text: str, ok: bool, *, undone: bool = False, pinned: bool = False) -> None:
        self.outcome.setText(text)
        self.outcome.setStyleSheet("" if ok else "color: #d73a49;")
        self.outcome.show()
        self.set_busy(False)
        if undone:
            self.undo_button.setEnabled(False)
            self.undo_button.setText("Undone")
        if pinned:
            self.pin_button.setEnabled(False)
            self.pin_button.setText("Pinned")
