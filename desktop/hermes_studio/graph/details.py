"""The details pane beside the graph, and the editor dialog for a skill or a memory entry.

The pane shows what the payload knows at once (counts, dates, relations) and the full
text once the Workspace has read it (``node_detail``); it asks for actions through
signals and never writes anything itself. :class:`DetailsFeed` does that feeding for
the panel.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.home import HermesHome

from ..memory.meter import CapacityMeter
from . import actions
from .actions import memory_problem, skill_body, skill_problem
from .model import MEMORY, GraphData, format_date, source_label

if TYPE_CHECKING:
    from hermes_memory.memory.status import StoreStatus

    from ..workspace import Workspace


def _label(text: str = "", *, wrap: bool = True, selectable: bool = True) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(wrap)
    label.setTextFormat(Qt.TextFormat.PlainText)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _when(value: Any) -> str:
    return format_date(value) if isinstance(value, int | float) else "never"


class DetailsPane(QWidget):
    sig_pin = Signal(str, bool)  # node id, pinned
    sig_edit = Signal(str)
    sig_archive = Signal(str)
    sig_delete = Signal(str)
    sig_open_node = Signal(str)
    sig_origin = Signal(str)  # node id: open the session(s) it came from
    sig_history = Signal(str)  # node id: show its versions in the History tab

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("detailsPane")
        self.setMinimumWidth(300)
        self.node: dict[str, Any] | None = None
        self.detail: dict[str, Any] | None = None
        self.stack = QStackedWidget(self)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 8, 10, 8)
        outer.addWidget(self.stack)

        self.hint = QLabel(
            "Select a node to see what the agent learned.<br><br>● skill &nbsp; ◆ memory card"
            "<br><br>Click a node, or use the arrow keys; Enter opens it, Esc clears."
        )
        self.hint.setWordWrap(True)
        self.hint.setTextFormat(Qt.TextFormat.RichText)
        self.hint.setObjectName("detailsHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.hint.linkActivated.connect(self._related_clicked)
        self.stack.addWidget(self.hint)

        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = _label()
        title_font = QFont(self.title.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.3)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.badges = _label()
        self.badges.setObjectName("detailsBadges")
        layout.addWidget(self.title)
        layout.addWidget(self.badges)

        buttons = QHBoxLayout()
        self.pin_button = QPushButton("Pin")
        self.pin_button.setToolTip("Pinned skills are never archived or deleted automatically")
        self.edit_button = QPushButton("Edit…")
        self.archive_button = QPushButton("Archive…")
        self.delete_button = QPushButton("Delete…")
        self.origin_button = QPushButton("Where this came from")
        self.origin_button.setToolTip("Open the session(s) that wrote it, at the message (Sessions tab)")
        self.history_button = QPushButton("History")
        self.history_button.setToolTip("Its versions, with dates, origin and session; diff and restore")
        self.history_button.clicked.connect(lambda: self._emit(self.sig_history))
        for button in (self.pin_button, self.edit_button, self.archive_button, self.delete_button,
                       self.origin_button, self.history_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.pin_button.clicked.connect(self._pin_clicked)
        self.edit_button.clicked.connect(lambda: self._emit(self.sig_edit))
        self.archive_button.clicked.connect(lambda: self._emit(self.sig_archive))
        self.delete_button.clicked.connect(lambda: self._emit(self.sig_delete))
        self.origin_button.clicked.connect(lambda: self._emit(self.sig_origin))

        self.form = QFormLayout()
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.fields: dict[str, QLabel] = {}
        for key in ("Category", "Source", "Directory", "Created by", "Learned", "Uses", "Views",
                    "Patches", "File", "Fingerprint", "Written"):
            value = _label()
            self.fields[key] = value
            self.form.addRow(key, value)
        layout.addLayout(self.form)

        self.related_title = _label("Related", selectable=False)
        bold = QFont(self.related_title.font())
        bold.setBold(True)
        self.related_title.setFont(bold)
        self.related = QLabel()
        self.related.setWordWrap(True)
        self.related.setTextFormat(Qt.TextFormat.RichText)
        self.related.linkActivated.connect(self._related_clicked)
        layout.addWidget(self.related_title)
        layout.addWidget(self.related)

        self.readonly_note = _label()
        self.readonly_note.setObjectName("readOnlyNote")
        layout.addWidget(self.readonly_note)

        rule = QFrame()
        rule.setFrameShape(QFrame.Shape.HLine)
        layout.addWidget(rule)
        self.body = QTextBrowser()
        self.body.setOpenExternalLinks(True)
        self.body.setObjectName("detailsBody")
        layout.addWidget(self.body, 1)
        self.stack.addWidget(page)
        self.page = page
        self.clear()

    # --- content ---------------------------------------------------------------------------
    def set_overview(self, text: str) -> None:
        """The summary shown while nothing is selected (rich text; ``node:`` links open nodes)."""
        self.hint.setText(text)

    def clear(self) -> None:
        self.node = None
        self.detail = None
        self.stack.setCurrentWidget(self.hint)

    def node_id(self) -> str | None:
        return None if self.node is None else str(self.node.get("id"))

    def show_node(self, node: dict[str, Any], neighbours: list[tuple[str, str]], time: float | None) -> None:
        """Show what the payload says about ``node``; the text follows in :meth:`show_detail`."""
        same = self.node_id() == str(node.get("id"))
        self.node = node
        if not same:
            self.detail = None
        memory = node.get("kind") == "memory"
        self.title.setText(str(node.get("label") or node.get("id")))
        badges = [source_label(node)]
        if not memory:
            badges.insert(0, str(node.get("category")))
            if node.get("pinned"):
                badges.append("pinned")
            if node.get("state") not in (None, "active"):
                badges.append(str(node.get("state")))
        self.badges.setText(" · ".join(badges))
        values = {
            "Category": str(node.get("category")),
            "Source": source_label(node) + (f" ({node.get('provenance')})" if node.get("provenance") else ""),
            "Directory": str(node.get("directory") or ""),
            "Created by": str(node.get("createdBy") or "a person (foreground)"),
            "Learned": format_date(time),
            "Uses": f"{int(node.get('useCount') or 0)} · last {_when(node.get('lastUsedAt'))}",
            "Views": f"{int(node.get('viewCount') or 0)} · last {_when(node.get('lastViewedAt'))}",
            "Patches": f"{int(node.get('patchCount') or 0)} · last {_when(node.get('lastPatchedAt'))}",
            "File": str(node.get("file") or ""),
            "Fingerprint": str(node.get("fingerprint") or ""),
            "Written": format_date(time),
        }
        skill_rows = ("Category", "Source", "Directory", "Created by", "Learned", "Uses", "Views", "Patches")
        memory_rows = ("File", "Fingerprint", "Written")
        for key, label in self.fields.items():
            shown = key in (memory_rows if memory else skill_rows)
            label.setText(values[key])
            self.form.setRowVisible(label, shown)
        links = ", ".join(
            f"<a href='node:{html.escape(node_id)}'>{html.escape(label)}</a>"
            for node_id, label in neighbours
        )
        self.related_title.setText("Linked skills" if memory else "Related skills")
        self.related.setText(links or "<i>none</i>")
        self.pin_button.setVisible(not memory)
        self.archive_button.setVisible(not memory)
        self.delete_button.setVisible(memory)
        self.pin_button.setText("Unpin" if node.get("pinned") else "Pin")
        editable = memory or node.get("source") not in ("base", "external")
        self.pin_button.setEnabled(editable)
        self.archive_button.setEnabled(editable and not node.get("pinned"))
        self.archive_button.setToolTip(
            "Unpin the skill before archiving it" if node.get("pinned") else "Move the skill to the archive (restorable)"
        )
        self.edit_button.setEnabled(False)  # until the text has been read
        if not same or self.detail is None:
            self.readonly_note.setText("")
            self.body.setPlainText("Loading…")
        else:
            self.show_detail(self.detail)
        self.stack.setCurrentWidget(self.page)

    def show_detail(self, detail: dict[str, Any]) -> None:
        if self.node is None or str(detail.get("request_id", detail.get("id"))) != self.node_id():
            return
        self.detail = detail
        if not detail.get("ok"):
            self.body.setPlainText(str(detail.get("message")))
            self.edit_button.setEnabled(False)
            return
        content = str(detail.get("content") or "")
        if detail.get("kind") == "skill":
            self.body.setMarkdown(skill_body(content))
            read_only = detail.get("readOnly")
            self.readonly_note.setText(f"Read-only: {read_only}" if read_only else "")
            self.edit_button.setEnabled(not read_only)
        else:
            self.body.setPlainText(content)
            self.readonly_note.setText("")
            self.edit_button.setEnabled(True)

    # --- signals ---------------------------------------------------------------------------
    def _emit(self, signal: Signal) -> None:
        node_id = self.node_id()
        if node_id is not None:
            signal.emit(node_id)

    def _pin_clicked(self) -> None:
        node_id = self.node_id()
        if node_id is not None and self.node is not None:
            self.sig_pin.emit(node_id, not bool(self.node.get("pinned")))

    def _related_clicked(self, link: str) -> None:
        if link.startswith("node:"):
            self.sig_open_node.emit(link[5:])


class DetailsFeed:
    """Puts a node into the pane: the payload's facts at once, then its full text from the
    Workspace's reader. Only the node asked for last is shown; a late answer for an earlier
    one is dropped (``serial`` counts the requests)."""

    def __init__(self, pane: DetailsPane, workspace: Workspace, home: HermesHome, alive: Callable[[], bool]) -> None:
        self.pane = pane
        self.workspace = workspace
        self.home = home
        self.alive = alive  # False once the panel is closed or deleted
        self.serial = 0

    def show(self, data: GraphData, node_id: str) -> None:
        node = data.node(node_id)
        if node is None:
            self.pane.clear()
            return
        index = data.index[node_id]
        neighbours = [
            (data.ids[i], data.labels[i])
            for i in data.neighbours[index]
            if data.kind[i] != MEMORY or data.kind[index] != MEMORY
        ]
        time = data.times[index]
        self.pane.show_node(node, neighbours, None if np.isnan(time) else float(time))
        self._read(node_id)

    def _read(self, node_id: str) -> None:
        self.serial += 1
        serial = self.serial

        def done(result: dict[str, Any]) -> None:
            if not self.alive() or serial != self.serial:
                return
            result = dict(result)
            result["request_id"] = node_id
            self.pane.show_detail(result)

        self.workspace.call("graph_node_detail", {"node_id": node_id}, done)

    def when_loaded(self, then: Callable[[], None]) -> None:
        """Call ``then`` once the text asked for last is in the pane (the reader answers in
        order), unless another node has been asked for since."""
        serial = self.serial

        def ready() -> None:
            if serial == self.serial and self.pane.detail is not None:
                then()

        self.workspace.read(lambda: None, lambda _r: ready())


class EditorDialog(QDialog):
    """Edit a whole SKILL.md or one memory entry, checked by the engine as you type.

    A memory entry gets the store editor's live checks: its count, the store's meter after
    saving (from ``status``, the store as last read) and the threat scanner's findings; a
    SKILL.md gets the agent's validation. Save is off while the engine would refuse the
    text, with the reason shown. ``sig_save(text)`` asks the panel to save through the
    engine; the dialog stays open until :meth:`saved` (closes) or :meth:`refused`.
    """

    sig_save = Signal(str)

    def __init__(
        self,
        node: dict[str, Any],
        content: str,
        parent: QWidget | None = None,
        status: StoreStatus | None = None,
    ) -> None:
        super().__init__(parent)
        self.node = node
        self.node_id = str(node.get("id"))
        self.memory = node.get("kind") == "memory"
        self.original = content
        self.status = status
        what = "memory entry" if self.memory else "SKILL.md"
        self.setWindowTitle(f"Edit {what} — {node.get('label')}")
        self.resize(720, 560)
        layout = QVBoxLayout(self)
        note = _label(
            f"Saved through the engine: {'the budget and the threat scanner apply' if self.memory else 'the agent’s SKILL.md rules apply, and the name must stay'}.",
            selectable=False,
        )
        layout.addWidget(note)
        self.meter = CapacityMeter(str(node.get("file") or "Memory"), parent=self)
        layout.addWidget(self.meter)
        self.meter.setVisible(False)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setPlainText(content)
        self.editor.setAccessibleName(f"{what} text")
        layout.addWidget(self.editor, 1)
        self.count_label = _label(selectable=False)
        layout.addWidget(self.count_label)
        self.count_label.setVisible(self.memory)
        self.findings = _label()
        self.findings.setObjectName("editorFindings")
        self.findings.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.findings)
        self.problem = _label()
        self.problem.setObjectName("editorProblem")
        self.problem.setStyleSheet("color: #c2372f; font-weight: 600;")
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(150)
        self._check_timer.timeout.connect(self.check)
        self.editor.textChanged.connect(self._check_timer.start)
        self.set_status(status)

    def set_status(self, status: StoreStatus | None) -> None:
        """The store as last read (the meter's base); other stores' statuses are ignored."""
        if status is not None and (
            not self.memory or status.target != actions.write_kind(self.node_id)
        ):
            return
        self.status = status
        if status is not None:
            self.meter.set_usage(status.used, status.limit, enabled=status.enabled,
                                 error=status.error, file_name=str(self.node.get("file") or ""))
        self.meter.setVisible(self.memory and status is not None and not status.error)
        self.check()

    def text(self) -> str:
        return self.editor.toPlainText()

    def check(self) -> str | None:
        """Show why the engine would refuse the text now (``None`` when it would not)."""
        text = self.text()
        if self.memory:
            problem = self._check_memory(text)
        else:
            problem = skill_problem(text, self.node_id)
            self.findings.setText("")
        self.problem.setText(f"Cannot be saved: {problem}" if problem else "")
        self.save_button.setEnabled(problem is None)
        self.save_button.setToolTip(problem or "Save through the engine, under the file lock")
        return problem

    def _check_memory(self, text: str) -> str | None:
        from hermes_memory.memory.edits import check_draft, check_entry  # (not needed to start)

        check = check_entry(text)
        self.count_label.setText(f"{check.chars:,} chars")
        lines = [
            f"<b>{html.escape(f.id)}</b>: {html.escape(f.explanation)}"
            for f in check.pattern_findings
        ]
        if check.invisible:
            lines.append(f"<b>{len(check.invisible)} invisible character(s)</b>: they hide "
                         "text from you but not from the model.")
        self.findings.setText("<br>".join(lines))
        problem = memory_problem(text)
        status = self.status
        if status is None or status.error:
            return problem
        entries = list(status.entries)
        original = self.original.strip()
        if original in entries:
            entries[entries.index(original)] = text
        else:
            entries.append(text)
        draft = check_draft(status.target, entries, status.limit, status.entries)
        self.meter.set_projection(draft.used)
        if problem is None and draft.over_budget:
            problem = (
                f"over budget by {draft.used - draft.limit:,} characters "
                f"({draft.used:,}/{draft.limit:,}): shorten it"
            )
        return problem

    def _save(self) -> None:
        self._check_timer.stop()
        if self.check() is not None:
            return
        self.buttons.setEnabled(False)
        self.sig_save.emit(self.text())

    def refused(self, message: str) -> None:
        self.buttons.setEnabled(True)
        self.problem.setText(f"Not saved: {message}")

    def saved(self) -> None:
        self._check_timer.stop()
        self.accept()

    def done(self, result: int) -> None:  # noqa: D102 - stop the timer with the dialog
        self._check_timer.stop()
        super().done(result)
