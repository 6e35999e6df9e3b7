"""One staged write in full: what it is, why it may not apply, its diff and meter, the
operations of a batch (untick some to approve only the rest), and an editor with live checks.

The pane only shows what the engine said and emits what the person asked for; the panel
runs the engine calls on the Workspace's threads.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from .model import age_text, current_age
from .render import diff_html, meter_text

#: Quiet time after a keystroke before the engine re-checks the edit.
CHECK_DELAY_MS = 150
_TEXT_FIELDS = {"add": "content", "replace": "content", "create": "content", "edit": "content",
                "write_file": "file_content"}  # fmt: skip


def edit_text(shown: dict[str, Any]) -> str:
    """What the editor starts from: the one text a simple write writes, else its payload."""
    payload = shown.get("payload") or {}
    field = _TEXT_FIELDS.get(str(payload.get("action")))
    if field and isinstance(payload.get(field), str):
        return payload[field]
    return json.dumps(payload, indent=2, ensure_ascii=False)


def _label(parent: QWidget, name: str = "", *, selectable: bool = False) -> QLabel:
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if name:
        label.setObjectName(name)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class InboxDetails(QWidget):
    sig_check_edit = Signal(str, str)  # (pending id, text): run the engine's live checks
    sig_approve_edit = Signal(str, str)  # (pending id, text): save the edit, then approve it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.shown: dict[str, Any] | None = None
        self.title = _label(self, "inboxTitle", selectable=True)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.meta = _label(self, "caption", selectable=True)
        self.state = _label(self, "inboxState", selectable=True)
        self.state.setStyleSheet("color: #b35900;")
        self.outcome = _label(self, "inboxOutcome", selectable=True)

        self.ops_box = QGroupBox("Operations: untick any to keep them queued", self)
        self.ops_layout = QVBoxLayout(self.ops_box)
        self.op_boxes: list[QCheckBox] = []

        self.diff = QTextBrowser(self)
        self.diff.setOpenLinks(False)
        self.meter = _label(self, "inboxMeter")

        self.editor = QPlainTextEdit(self)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setPlaceholderText("The text this write should write instead.")
        self.check = _label(self, "inboxCheck")
        self.approve_edit_button = QPushButton("Approve edited", self)
        self.cancel_edit_button = QPushButton("Cancel edit", self)
        self.edit_box = QWidget(self)
        edit_layout = QVBoxLayout(self.edit_box)
        edit_layout.setContentsMargins(0, 0, 0, 0)
        edit_layout.addWidget(QLabel("Edit, then approve (checked as you type):", self.edit_box))
        edit_layout.addWidget(self.editor, 1)
        edit_layout.addWidget(self.check)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_edit_button)
        buttons.addWidget(self.approve_edit_button)
        edit_layout.addLayout(buttons)
        self.edit_box.hide()

        layout = QVBoxLayout(self)
        for widget in (self.title, self.meta, self.state, self.outcome, self.ops_box):
            layout.addWidget(widget)
        layout.addWidget(self.diff, 2)
        layout.addWidget(self.meter)
        layout.addWidget(self.edit_box, 1)

        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self._request_check)
        self.editor.textChanged.connect(self._check_timer.start)
        self.approve_edit_button.clicked.connect(self._approve_edit)
        self.cancel_edit_button.clicked.connect(self.stop_editing)
        self.show_nothing("The inbox is empty: nothing the agent staged is waiting.")

    # --- showing ------------------------------------------------------------------------
    def show_nothing(self, message: str) -> None:
        self.shown = None
        self.title.setText(message)
        for label in (self.meta, self.state, self.outcome, self.meter):
            label.clear()
        self.state.hide()
        self._set_ops([])
        self.diff.clear()
        self.diff.hide()
        self.stop_editing()

    def show_item(self, shown: dict[str, Any], outcome: str = "") -> None:
        """Show an item (``pending_show``'s answer, or a listed item while that loads)."""
        same = self.shown is not None and self.shown.get("id") == shown.get("id")
        self.shown = shown
        self.title.setText(str(shown.get("summary") or shown.get("id")))
        kind = "Memory write" if shown.get("kind") == "memory" else "Skill write"
        target = shown.get("target") or "?"
        session = shown.get("session_id") or "no session recorded"
        created = shown.get("created") or ""
        self.meta.setText(
            f"{kind} to {target} · from the {shown.get('origin_label')} · "
            f"{age_text(current_age(shown))} {f'({created})' if created else ''} · "
            f"session: {session} · id {shown.get('id')}"
        )
        self.state.setText(self._state_line(shown))
        self.state.setVisible(bool(self.state.text()))
        self.outcome.setText(outcome)
        self.outcome.setVisible(bool(outcome))
        if not same:
            self._set_ops(shown.get("ops") or [])
            self.stop_editing()
        self.diff.setVisible(not shown.get("broken"))
        if "diff" in shown:
            self.diff.setHtml(diff_html(shown))
        self.meter.setText(meter_text(shown))

    @staticmethod
    def _state_line(shown: dict[str, Any]) -> str:
        if shown.get("broken"):
            return f"Broken record: {shown.get('broken_reason')}. Reject it to set it aside."
        if shown.get("stale"):
            return f"Stale: {shown.get('stale_reason')}"
        if shown.get("failed"):
            return f"Approving it was refused before: {shown.get('last_error')}"
        if shown.get("refusal"):
            return f"It would be refused now: {shown.get('refusal')}"
        return ""

    def _set_ops(self, ops: list[dict[str, Any]]) -> None:
        for box in self.op_boxes:
            box.deleteLater()
        self.op_boxes = []
        for op in ops if len(ops) > 1 else []:
            box = QCheckBox(f"{op['n']}. {op.get('text')}", self.ops_box)
            box.setChecked(True)
            box.setProperty("op", op["n"])
            self.ops_layout.addWidget(box)
            self.op_boxes.append(box)
        self.ops_box.setVisible(bool(self.op_boxes))

    def chosen_ops(self) -> list[int] | None:
        """The ticked ops of a batch (None: not a batch, or all of them ticked)."""
        if not self.op_boxes:
            return None
        ticked = [int(box.property("op")) for box in self.op_boxes if box.isChecked()]
        return None if len(ticked) == len(self.op_boxes) else ticked

    # --- editing ------------------------------------------------------------------------
    @property
    def editing(self) -> bool:
        return not self.edit_box.isHidden()

    def start_editing(self) -> None:
        if self.shown is None or self.shown.get("broken") or "payload" not in self.shown:
            return
        self.editor.setPlainText(edit_text(self.shown))
        self.edit_box.show()
        self.editor.setFocus()

    def stop_editing(self) -> None:
        self._check_timer.stop()
        self.edit_box.hide()
        self.check.clear()

    def orphan_edit(self, message: str) -> None:
        """The edited write left the queue: keep the text, refuse to approve it."""
        self._check_timer.stop()
        self.shown = None
        self.state.setText(message)
        self.state.show()
        self.check.setText(message)
        self.approve_edit_button.setEnabled(False)

    def _request_check(self) -> None:
        if self.shown is not None and self.editing:
            self.approve_edit_button.setEnabled(False)
            self.sig_check_edit.emit(str(self.shown["id"]), self.editor.toPlainText())

    def show_check(self, pending_id: str, text: str, check: dict[str, Any]) -> None:
        """The engine's checks of ``text``; ignored if the person has typed on since."""
        if self.shown is None or self.shown.get("id") != pending_id or not self.editing:
            return
        if text != self.editor.toPlainText():
            return
        if not check.get("ok"):
            self.check.setText(f"Cannot be saved: {check.get('error')}")
            self.approve_edit_button.setEnabled(False)
            return
        parts = [f"{check.get('chars', 0):,} characters"]
        meter = (check.get("meter_after") or {}).get("text")
        if meter:
            parts.append(f"after approval {meter}")
        findings = check.get("findings") or []
        if check.get("scanned"):
            parts.append("scanner: " + "; ".join(f["explanation"] for f in findings) if findings
                         else "scanner: nothing flagged")  # fmt: skip
        reason = check.get("reason")
        verdict = f"Would be refused: {reason}" if not check.get("would_apply") else "Would apply."
        self.check.setText(" · ".join(parts) + "\n" + verdict)
        self.approve_edit_button.setEnabled(not check.get("problem"))

    def _approve_edit(self) -> None:
        if self.shown is not None and self.editing:
            self.sig_approve_edit.emit(str(self.shown["id"]), self.editor.toPlainText())
