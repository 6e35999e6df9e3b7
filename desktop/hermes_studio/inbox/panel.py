"""The Inbox tab: the staged writes on the left, the selected one on the right, and the
actions (approve, reject, edit then approve; bulk on a multi-selection, confirmed once).

Live: the Workspace reports ``Change("pending")`` when a record file appears or goes, and
the panel re-lists on the reader thread (the count first, so the badge moves at once).
Decisions run on the writer thread; each outcome is reported in place, in the banner and
on the item if it is still queued. A refusal leaves the record queued, so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListView,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStatusBar,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..waiting import wait_until_ready
from ..workspace import Change, Workspace
from . import workers
from .details import InboxDetails, _label
from .model import InboxModel

#: Changes that can make a queued write stale or change its meter.
RELIST_KINDS = {"pending", "memory", "user", "skills", "config"}
TAB_TITLE = "Inbox"
AGE_TICK_MS = 30_000


def tab_title(count: int | None) -> str:
    return f"{TAB_TITLE} ({count})" if count else TAB_TITLE


def _outcome(result: dict[str, Any]) -> str:
    if result.get("ok"):
        return str(result.get("message") or "Done.")
    return f"Refused: {result.get('error') or result.get('message') or 'no reason given'}"


class InboxPanel(QWidget):
    sig_count_changed = Signal(int)  # records waiting, as soon as known
    sig_loaded = Signal()  # a listing is shown
    sig_decided = Signal(object)  # the engine's answer to a decision the person made
    sig_ready = Signal()  # the first listing and its selected item's preview are shown

    def __init__(self, workspace: Workspace, parent: QWidget | None = None, *, start: bool = True) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.home = workspace.home
        self.count: int | None = None
        self.outcomes: dict[str, str] = {}  # pending id -> what happened to it last
        self.busy = False
        self._listing = False
        self._relist = False
        self._shown_id: str | None = None
        self.ready = False

        self.header = _label(self, "inboxHeader")
        self.banner = _label(self, "inboxBanner", selectable=True)
        self.model = InboxModel(self)
        self.list = QListView(self)
        self.list.setModel(self.model)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setWordWrap(True)
        self.list.setUniformItemSizes(False)
        self.list.setSpacing(2)
        self.list.installEventFilter(self)
        self.details = InboxDetails(self)

        self.approve_button = QPushButton("&Approve", self)
        self.approve_button.setToolTip("Write it (Ctrl+Enter); on a selection, approve them all")
        self.reject_button = QPushButton("&Reject", self)
        self.reject_button.setToolTip("Drop it without writing (Delete); it stays in the log")
        self.edit_button = QPushButton("Edit then approve…", self)
        self.edit_button.setToolTip("Change what it writes, checked as you type (F2)")
        actions = QHBoxLayout()
        for button in (self.approve_button, self.reject_button, self.edit_button):
            actions.addWidget(button)
        actions.addStretch(1)

        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(actions)
        right_layout.addWidget(self.details, 1)
        splitter = QSplitter(self)
        splitter.addWidget(self.list)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([420, 680])
        layout = QVBoxLayout(self)
        layout.addWidget(self.header)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)
        self.banner.hide()

        self.list.selectionModel().selectionChanged.connect(self._selection_changed)
        self.approve_button.clicked.connect(self.approve_selected)
        self.reject_button.clicked.connect(self.reject_selected)
        self.edit_button.clicked.connect(self.details.start_editing)
        self.details.sig_check_edit.connect(self._check_edit)
        self.details.sig_approve_edit.connect(self._approve_edit)
        self.details.cancel_edit_button.clicked.connect(self._edit_closed)
        workspace.sig_changed.connect(self._on_change)
        self._ages = QTimer(self)  # "7 min ago" keeps counting without a re-list
        self._ages.setInterval(AGE_TICK_MS)
        self._ages.timeout.connect(self.model.refresh_ages)
        self._ages.start()
        self._update_buttons()
        if start:  # else the window asks once the graph is drawn (refresh)
            self.refresh()

    # --- tab badge and status bar -----------------------------------------------------------
    def install(self, tabs: QTabWidget, status_bar: QStatusBar) -> None:
        """Add the tab (its title carries the count) and the count beside the status meters."""
        tabs.addTab(self, tab_title(self.count))
        status = InboxStatus(self, status_bar)
        status.sig_open.connect(lambda: tabs.setCurrentWidget(self))
        status_bar.addPermanentWidget(status)

        def retitle(count: int) -> None:
            index = tabs.indexOf(self)
            if index >= 0:
                tabs.setTabText(index, tab_title(count))

        self.sig_count_changed.connect(retitle)

    # --- engine calls on the Workspace's threads -------------------------------------------
    def _alive(self, callback: Callable[[dict], None]) -> Callable[[dict], None]:
        """Drop an answer that arrives after the panel is gone (its window closed first)."""
        return lambda result: callback(result) if shiboken6.isValid(self.list) else None

    def _read(self, work: workers.Call, callback: Callable[[dict], None]) -> None:
        method, params = work
        self.workspace.call(method, params, self._alive(lambda r: callback(workers.answered(r))))

    def _write(self, work: workers.Call, callback: Callable[[dict], None]) -> None:
        method, params = work
        self.workspace.call(method, params, self._alive(lambda r: callback(workers.answered(r))),
                            write="pending")

    # --- loading --------------------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        if change.kind in RELIST_KINDS:
            self.refresh()

    def refresh(self) -> None:
        """Re-count and re-list on the reader thread; changes during a listing list again."""
        if self._listing:
            self._relist = True
            return
        self._listing = True
        self._read(workers.count_work(), self._counted)
        self._read(workers.list_work(), self._listed)

    def _set_count(self, count: int) -> None:
        if count != self.count:
            self.count = count
            self.sig_count_changed.emit(count)

    def _counted(self, result: dict[str, Any]) -> None:
        if result.get("ok"):
            self._set_count(int(result.get("count", 0)))

    def _listed(self, result: dict[str, Any]) -> None:
        self._listing = False
        if self._relist:
            self._relist = False
            self.refresh()
        if not result.get("ok"):
            self.header.setText(f"The queue could not be read: {result.get('error')}")
            return
        selected = self.selected_ids()
        items = result.get("items", [])
        self.model.set_items(items)
        self._set_count(len(items))
        self.header.setText(self._header_text(result))
        editing = self._shown_id if self.details.editing else None
        if editing and self.model.row_of(editing) < 0:
            self._shown_id = None  # keep the person's text on screen; it has nothing to save to
            self.details.orphan_edit("This write was decided elsewhere while you edited it, so "
                                     "the edit cannot be approved; your text is kept here to copy.")  # fmt: skip
            self._report(f"'{editing}' left the queue (decided by the agent or another program).")
            self._update_buttons()
        elif not (self.details.editing and self.details.shown is None):  # not an orphaned edit
            self._restore_selection(selected)
        self.sig_loaded.emit()
        if not items:
            self._mark_ready()

    def _header_text(self, listing: dict[str, Any]) -> str:
        count = len(listing.get("items", []))
        gate = listing.get("gate") or {}
        gated = [name for name in ("memory", "skills") if gate.get(name)]
        approval = (f"The agent stages {' and '.join(gated)} writes for approval."
                    if gated else "Write approval is off (the agent writes directly); reviews still stage here.")  # fmt: skip
        waiting = "Nothing waiting." if not count else f"{count} staged write{'s' * (count != 1)} waiting."
        problems = " ".join(listing.get("problems") or [])
        return " ".join(part for part in (waiting, approval, problems) if part)

    def _restore_selection(self, ids: list[str]) -> None:
        selection = self.list.selectionModel()
        rows = [self.model.row_of(ident) for ident in ids]
        rows = [row for row in rows if row >= 0] or ([0] if self.model.items else [])
        with _blocked(selection):
            for row in rows:
                selection.select(self.model.index(row), QItemSelectionModel.SelectionFlag.Select)
            if rows:
                selection.setCurrentIndex(self.model.index(rows[0]),
                                          QItemSelectionModel.SelectionFlag.NoUpdate)  # fmt: skip
        self._selection_changed()

    # --- selection and details --------------------------------------------------------------
    def selected_ids(self) -> list[str]:
        rows = sorted(index.row() for index in self.list.selectionModel().selectedRows())
        return [self.model.items[row]["id"] for row in rows if row < len(self.model.items)]

    def selected_items(self) -> list[dict[str, Any]]:
        return [self.model.items[self.model.row_of(ident)] for ident in self.selected_ids()]

    def _selection_changed(self, *_args) -> None:
        self._update_buttons()
        items = self.selected_items()
        if len(items) != 1:
            self._shown_id = None
            self.details.show_nothing(
                f"{len(items)} staged writes selected: Approve or Reject decides them all."
                if items else "The inbox is empty: nothing the agent staged is waiting."
                if not self.model.items else "Select a staged write to see it."
            )  # fmt: skip
            return
        item = items[0]
        if self._shown_id != item["id"] or self.details.shown is None:
            self.details.show_item(item, self.outcomes.get(item["id"], ""))
        self._shown_id = item["id"]
        ident = item["id"]
        self._read(workers.show_work(ident), lambda r: self._shown(ident, r))

    def _shown(self, ident: str, result: dict[str, Any]) -> None:
        if self._shown_id != ident or self.details.editing:
            return
        if result.get("ok"):
            self.details.show_item(result, self.outcomes.get(ident, ""))
        self._mark_ready()

    def _mark_ready(self) -> None:
        if not self.ready:
            self.ready = True
            self.sig_ready.emit()

    def wait_ready(self, timeout_ms: int = 3000) -> bool:
        """Run the event loop until the first listing is shown (for screenshots)."""
        return wait_until_ready(lambda: self.ready, self.sig_ready, timeout_ms)

    def _update_buttons(self) -> None:
        items = self.selected_items()
        idle = not self.busy
        self.approve_button.setEnabled(idle and any(not i.get("broken") for i in items))
        self.reject_button.setEnabled(idle and bool(items))
        self.edit_button.setEnabled(idle and len(items) == 1 and not items[0].get("broken"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is self.list and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            if ctrl and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.approve_selected()
                return True
            if key == Qt.Key.Key_Delete:
                self.reject_selected()
                return True
            if key == Qt.Key.Key_F2 and self.edit_button.isEnabled():
                self.details.start_editing()
                return True
        return super().eventFilter(watched, event)

    # --- deciding ---------------------------------------------------------------------------
    def confirm_bulk(self, approve: bool, items: list[dict[str, Any]], skipped: int = 0) -> bool:
        """One confirmation for a multi-selection, naming the action; Cancel is the default."""
        verb = "Approve" if approve else "Reject"
        box = QMessageBox(self)
        box.setObjectName("inboxConfirm")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(f"{verb} {len(items)} staged writes")
        what = "write them to memory and skills" if approve else "drop them without writing"
        lines = "\n".join(f"• {i.get('summary')}" for i in items[:8])
        more = f"\n… and {len(items) - 8} more" if len(items) > 8 else ""
        if skipped:
            more += f"\n\n{skipped} broken record{'s' * (skipped != 1)} cannot be approved and stay queued."
        box.setText(f"{verb} {len(items)} staged writes? This will {what}.\n\n{lines}{more}")
        confirm = box.addButton(f"{verb} {len(items)}", QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.exec()
        box.deleteLater()
        return box.clickedButton() is confirm

    def approve_selected(self) -> None:
        self._decide(approve=True)

    def reject_selected(self) -> None:
        self._decide(approve=False)

    def _decide(self, approve: bool) -> None:
        items = self.selected_items()
        skipped = sum(1 for i in items if i.get("broken")) if approve else 0
        if approve:
            items = [i for i in items if not i.get("broken")]
        if self.busy or not items:
            return
        if len(items) > 1:
            if not self.confirm_bulk(approve, items, skipped):
                self._report("Nothing was changed.")
                return
            work = workers.decide_many_work([i["id"] for i in items], approve)
        elif approve:
            ops = self.details.chosen_ops() if self._shown_id == items[0]["id"] else None
            if ops == []:
                self._report("Tick at least one operation to approve (or Reject the write).")
                return
            work = workers.approve_work(items[0]["id"], ops)
        else:
            work = workers.reject_work(items[0]["id"])
        self._run(work)

    def _approve_edit(self, ident: str, text: str) -> None:
        if not self.busy:
            self._run(workers.edit_and_approve_work(ident, text))

    def _run(self, work: workers.Call) -> None:
        self.busy = True
        self._update_buttons()
        self._report("Working…")
        self._write(work, self._decided)

    def _decided(self, result: dict[str, Any]) -> None:
        self.busy = False
        decisions = result.get("decisions")
        if decisions is None:
            decisions = [result]
        for decision in decisions:
            if decision.get("id"):
                self.outcomes[str(decision["id"])] = _outcome(decision)
        if len(decisions) == 1:
            self._report(_outcome(decisions[0]))
        else:
            done = sum(1 for d in decisions if d.get("ok"))
            refused = [f"{d.get('id')}: {_outcome(d)}" for d in decisions if not d.get("ok")]
            self._report(f"{done} of {len(decisions)} decided." + ("\n" + "\n".join(refused)
                                                                   if refused else ""))  # fmt: skip
        if not result.get("ok") and self.details.editing:
            self.details.check.setText(_outcome(result))
        elif self.details.editing:
            self.details.stop_editing()
        self._update_buttons()
        self.sig_decided.emit(result)
        self.refresh()  # the watcher will also see it; this keeps the list right if it cannot

    def _report(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.setVisible(bool(message))
        if self._shown_id is not None:
            self.details.outcome.setText(self.outcomes.get(self._shown_id, ""))
            self.details.outcome.setVisible(bool(self.details.outcome.text()))

    def _edit_closed(self) -> None:
        if self._shown_id is None:  # the edited write had left the queue
            self._restore_selection(self.selected_ids())

    def _check_edit(self, ident: str, text: str) -> None:
        self._read(workers.check_edit_work(ident, text),
                            lambda check: self.details.show_check(ident, text, check))  # fmt: skip


class _blocked:
    """Silence a QObject's signals for a block (selection restored without re-showing)."""

    def __init__(self, obj: QObject) -> None:
        self.obj = obj

    def __enter__(self) -> None:
        self.previous = self.obj.blockSignals(True)

    def __exit__(self, *exc) -> None:
        self.obj.blockSignals(self.previous)


class InboxStatus(QToolButton):
    """The status bar's count of staged writes, beside the memory meters; a click opens it."""

    sig_open = Signal()

    def __init__(self, panel: InboxPanel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inboxStatus")
        self.setAutoRaise(True)
        self.setToolTip("Staged writes waiting for approval; click to open the Inbox")
        self.clicked.connect(self.sig_open)
        panel.sig_count_changed.connect(self.show_count)
        self.show_count(panel.count or 0)

    def show_count(self, count: int) -> None:
        self.setText(f"Inbox: {count}" if count else "Inbox: empty")
