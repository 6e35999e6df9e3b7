"""The History tab: every recorded version of a store, a skill or one entry, a diff
between any two, and Restore as one undoable step.

Pick what to look at in the "Versions of" box (MEMORY.md, USER.md, a skill, or an entry
opened from its card or graph node). The list shows each version's date, what it did,
who made it (origin) and in which session. One selected version shows what it changed
(or, with "Compare with now", what changed since); two selected show the diff between
them. Restore (Ctrl+Enter) goes through the engine's normal write path on the writer
thread and lands on the app's undo stack.

Live: the Workspace records each change on disk as versions (the agent's writes), then
says so with a ``history`` change, and the list is read again; all engine calls go through
:meth:`Workspace.call`, so nothing here touches the disk.
"""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QAbstractListModel, QEvent, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.history.recording import ORIGIN_LABELS
from hermes_memory.memory.entries import FILE_NAMES, TARGETS

from ..undo import History
from ..waiting import wait_until_ready
from ..workspace import Change, Workspace
from . import render, restoring

#: Changes after which the list may be out of date.
RELOAD_KINDS = {"memory", "user", "skills", "history"}
RELOAD_MS = 150
#: Versions listed at a time (newest first); "Show older versions" lists more.
PAGE = 500
COMPARE_BEFORE, COMPARE_NOW = 0, 1
COLUMNS = ("When", "Change", "Origin", "Session")


def _label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class SubjectModel(QAbstractListModel):
    """The "Versions of" choices over a plain list: ten thousand skills are one reset,
    not ten thousand items made and measured on the UI thread (that took 200 ms)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.choices: list[tuple[str, tuple]] = []  # (text, subject)
        self.rows: dict[tuple, int] = {}

    def set_choices(self, choices: list[tuple[str, tuple]]) -> None:
        self.beginResetModel()
        self.choices = choices
        self.rows = {subject: row for row, (_text, subject) in reversed(list(enumerate(choices)))}
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 (Qt API)
        return 0 if parent.isValid() else len(self.choices)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.choices):
            return None
        text, subject = self.choices[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return text
        if role == Qt.ItemDataRole.UserRole:
            return subject
        return None


class VersionsPanel(QWidget):
    """The History tab over one :class:`Workspace`; ``undo`` is the app's undo stack."""

    sig_loaded = Signal()  # a list of versions (or the reason there is none) is shown
    sig_diff_shown = Signal()
    sig_restored = Signal(object)  # the engine's answer to a restore
    sig_ready = Signal()  # the first list and its diff are shown

    def __init__(self, workspace: Workspace, undo: History | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyPanel")
        self.workspace = workspace
        self.undo = undo
        self.subject: tuple = ("store", "memory")
        self.items: list[dict[str, Any]] = []  # the versions listed, newest first
        self.lineage: dict[str, Any] | None = None  # for an entry subject
        self.error: str | None = None
        self.busy = False
        self.ready = False
        self._serial = 0
        self._diff_serial = 0
        self._skills: list[str] = []
        self.limit = PAGE
        self.total = 0

        self.header = _label("historyHeader")
        self.banner = _label("historyBanner")
        self.banner.hide()
        self.subject_box = QComboBox(self)
        self.subject_box.setObjectName("historySubject")
        self.subject_box.setAccessibleName("Versions of")
        self.subject_box.setMinimumWidth(260)
        self.subject_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.subject_box.setMinimumContentsLength(32)  # (not measured over every choice)
        self.subjects = SubjectModel(self.subject_box)
        self.subject_box.setModel(self.subjects)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("historyVersions")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setColumnWidth(0, 140)
        self.tree.setColumnWidth(1, 260)
        self.tree.installEventFilter(self)
        self.compare_box = QComboBox(self)
        self.compare_box.setObjectName("historyCompare")
        self.compare_box.addItems(["with the version before", "with now"])
        self.compare_box.setToolTip("Select two versions (Ctrl+click) to compare them with each other")
        self.restore_button = QPushButton("&Restore this version", self)
        self.restore_button.setToolTip("Bring this version back (Ctrl+Enter); Edit ▸ Undo takes it back")
        self.more_button = QPushButton("Show older versions", self)
        self.more_button.setObjectName("historyMore")
        self.more_button.hide()
        self.more_button.clicked.connect(self.show_more)
        self.diff_view = QTextBrowser(self)
        self.diff_view.setObjectName("historyDiff")
        self.diff_view.setOpenLinks(False)

        top = QHBoxLayout()
        top.addWidget(QLabel("Versions of"))
        top.addWidget(self.subject_box)
        top.addStretch(1)
        actions = QHBoxLayout()
        actions.addWidget(QLabel("Compare"))
        actions.addWidget(self.compare_box)
        actions.addStretch(1)
        actions.addWidget(self.restore_button)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(actions)
        right_layout.addWidget(self.diff_view, 1)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.tree, 1)
        left_layout.addWidget(self.more_button)
        self.splitter = QSplitter(self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setSizes([560, 560])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.header)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)

        self._fill_subjects()
        self.subject_box.activated.connect(self._subject_chosen)
        self.tree.itemSelectionChanged.connect(self._show_diff)
        self.compare_box.currentIndexChanged.connect(lambda _i: self._show_diff())
        self.restore_button.clicked.connect(self.restore_selected)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(RELOAD_MS)
        self._reload_timer.timeout.connect(self.reload)
        workspace.sig_changed.connect(self._on_change)
        self._update_buttons()
        self.header.setText("Reading history…")
        self._reload_timer.start()

    # --- engine calls ---------------------------------------------------------------------
    def _alive(self) -> bool:
        return shiboken6.isValid(self) and shiboken6.isValid(self.tree)

    def _call(self, method: str, params: dict[str, Any], done, write: str | None = None) -> None:
        def answered(result: Any) -> None:
            if self._alive():
                done(result if isinstance(result, dict) else {"ok": False, "error": "no answer"})

        self.workspace.call(method, params, answered, write=write)

    def _on_change(self, change: Change) -> None:
        # Someone else's write is listed once the Workspace has recorded it (kind "history").
        relist = change.kind == "history" or (change.origin == "app" and change.kind in RELOAD_KINDS)
        if self._alive() and relist:
            self._reload_timer.start()

    # --- subjects -------------------------------------------------------------------------
    def _fill_subjects(self, entry: tuple | None = None) -> None:
        box = self.subject_box
        blocked = box.blockSignals(True)
        choices = [(entry[3], entry)] if entry is not None else []
        choices += [(f"{FILE_NAMES[target]} (whole store)", ("store", target)) for target in TARGETS]
        choices += [(f"skill: {name}", ("skill", name)) for name in self._skills]
        if self.subject[0] == "skill" and self.subject[1] not in self._skills:
            choices.append((f"skill: {self.subject[1]}", self.subject))
        self.subjects.set_choices(choices)
        box.setCurrentIndex(self.subjects.rows.get(self.subject, 0))
        box.blockSignals(blocked)

    def _subject_chosen(self, index: int) -> None:
        subject = self.subject_box.itemData(index)
        if subject and subject != self.subject:
            self.subject = subject
            self.limit = PAGE
            self.reload()

    def show_store(self, target: str) -> None:
        self._show_subject(("store", target))

    def show_skill(self, name: str) -> None:
        self._show_subject(("skill", name))

    def show_entry(self, target: str, fingerprint: str, text: str = "") -> None:
        """The versions of one entry (its lineage through edits), by fingerprint."""
        title = f"entry: {render.preview(text, 48)}" if text else f"entry {fingerprint}"
        self._show_subject(("entry", target, fingerprint, title))

    def show_node(self, node_id: str, label: str = "") -> None:
        """The History of a graph node: a memory card's entry, or a skill."""
        parts = node_id.split(":")
        if parts[0] == "memory" and len(parts) == 4:
            self.show_entry("user" if parts[1] == "profile" else "memory", parts[3], label)
        else:
            self.show_skill(node_id)

    def _show_subject(self, subject: tuple) -> None:
        self.subject = subject
        self.limit = PAGE
        self._fill_subjects(subject if subject[0] == "entry" else None)
        self.reload()

    # --- listing --------------------------------------------------------------------------
    def reload(self) -> None:
        self._serial += 1
        serial = self._serial
        kind = self.subject[0]
        if kind == "store":
            method, params = "history_log", {"kind": self.subject[1], "limit": self.limit}
        elif kind == "skill":
            method, params = "history_log", {"kind": "skill", "skill": self.subject[1], "limit": self.limit}
        else:
            method, params = "history_entry_lineage", {"fingerprint": self.subject[2]}
        self._call(method, params, lambda result: self._listed(serial, result))
        self._call("history_replay", {}, self._skills_known)

    def _skills_known(self, result: dict[str, Any]) -> None:
        names = sorted(s["name"] for s in result.get("skills") or [] if s.get("name"))
        if result.get("ok") and names != self._skills:
            self._skills = names
            entry = self.subject if self.subject[0] == "entry" else None
            self._fill_subjects(entry)

    def _listed(self, serial: int, result: dict[str, Any]) -> None:
        if serial != self._serial:
            return  # a newer listing is on its way
        selected = [item["id"] for item in self.selected_items()]
        self.error = None if result.get("ok") else str(result.get("error") or "unknown error")
        if self.error is not None:
            self.items, self.lineage = [], None
            if self.subject[0] == "entry":
                self.header.setText(f"{self.error} (an entry not saved yet has no history; "
                                    "the store's versions are in the box above).")  # fmt: skip
            else:
                self.header.setText(f"Could not read the history: {self.error}\n"
                                    "Nothing was changed; the rest of the app works as usual.")  # fmt: skip
        elif self.subject[0] == "entry":
            self.lineage = result
            self.items = self._entry_items(result)[::-1]
            state = "still in memory" if result.get("current") else "no longer in memory"
            self.header.setText(f"{len(self.items)} step{'s' * (len(self.items) != 1)} in this entry's "
                                f"history ({FILE_NAMES.get(result.get('target'), '')}, {state}).")  # fmt: skip
        else:
            self.lineage = None
            self.items = list(result.get("events") or [])
            total = self.total = int(result.get("total", len(self.items)))
            shown = f" (the newest {len(self.items):,} listed)" if total > len(self.items) else ""
            header = f"{total:,} recorded version{'s' * (total != 1)}{shown}." if total else (
                "No versions recorded yet: history starts with the next change (or "
                "'hermes-memory history import-sessions' backfills it from past sessions).")  # fmt: skip
            problems = result.get("problems") or []
            if problems:
                header += f" {len(problems)} damaged line(s) of the history were skipped: {problems[0]}"
            self.header.setText(header)
        self.more_button.setVisible(self.subject[0] != "entry" and self.error is None
                                    and self.total > len(self.items))  # fmt: skip
        self._fill_tree(selected)
        self.sig_loaded.emit()
        if not self.items:
            self._show_diff()

    def show_more(self) -> None:
        """List the next page of older versions too."""
        self.limit += PAGE
        self.reload()

    def _entry_items(self, lineage: dict[str, Any]) -> list[dict[str, Any]]:
        items = []
        for position, step in enumerate(lineage.get("steps") or []):
            origin = step.get("origin") or "unknown"
            items.append({**step, "id": step["version"], "step": step["kind"], "kind": lineage.get("target"),
                          "origin_label": ORIGIN_LABELS.get(origin, origin), "position": position})  # fmt: skip
        return items

    def _fill_tree(self, selected: list[str]) -> None:
        tree = self.tree
        blocked = tree.blockSignals(True)
        tree.clear()
        rows = []
        for item in self.items:
            row = QTreeWidgetItem([render.when_text(item.get("ts")), render.change_text(item),
                                   render.origin_text(item), render.session_text(item)])  # fmt: skip
            row.setToolTip(1, str(item.get("text") or item.get("id")))
            rows.append(row)
        tree.addTopLevelItems(rows)
        chosen = [i for i, item in enumerate(self.items) if item["id"] in selected] or ([0] if rows else [])
        for index in chosen:
            rows[index].setSelected(True)
        if chosen:
            tree.setCurrentItem(rows[chosen[0]], 0, tree.selectionModel().SelectionFlag.NoUpdate)
        tree.blockSignals(blocked)
        self._show_diff()

    def selected_items(self) -> list[dict[str, Any]]:
        rows = sorted(self.tree.indexOfTopLevelItem(row) for row in self.tree.selectedItems())
        return [self.items[row] for row in rows if 0 <= row < len(self.items)]

    def select_rows(self, *rows: int) -> None:
        """Select these rows of the list (newest first), as a click and Ctrl+clicks do."""
        self.tree.clearSelection()
        for row in rows:
            self.tree.topLevelItem(row).setSelected(True)

    # --- diffs ----------------------------------------------------------------------------
    def _show_diff(self) -> None:
        self._update_buttons()
        self._diff_serial += 1
        serial = self._diff_serial
        chosen = sorted(self.selected_items(), key=lambda item: item.get("ts") or 0)
        if self.error is not None or not chosen:
            message = "Select a version to see what it changed." if self.items else ""
            self.diff_view.setPlainText(message if self.error is None else "")
            return self._diff_done()
        if len(chosen) > 2:
            self.diff_view.setPlainText("Select one version, or two to compare them.")
            return self._diff_done()
        if self.subject[0] == "entry":
            return self._entry_diff(chosen)
        older = chosen[0]
        if len(chosen) == 2:
            params = {"version_id": older["id"], "other_id": chosen[1]["id"]}
            title = f"From {render.when_text(older['ts'])} to {render.when_text(chosen[1]['ts'])}"
        elif self.compare_box.currentIndex() == COMPARE_NOW:
            params = {"version_id": older["id"], "other_id": "now"}
            title = f"From {render.when_text(older['ts'])} to now"
        else:
            params = {"version_id": older["id"]}
            title = f"What the version of {render.when_text(older['ts'])} changed"

        def shown(result: dict[str, Any]) -> None:
            if serial == self._diff_serial:
                self.diff_view.setHtml(render.diff_html(result, title))
                self._diff_done()

        self._call("history_diff", params, shown)

    def _entry_text(self, item: dict[str, Any]) -> str | None:
        return None if item.get("step") == "removed" else item.get("text")

    def _entry_diff(self, chosen: list[dict[str, Any]]) -> None:
        older = chosen[0]
        if len(chosen) == 2:
            before, after = self._entry_text(older), self._entry_text(chosen[1])
            title = f"From {render.when_text(older['ts'])} to {render.when_text(chosen[1]['ts'])}"
        elif self.compare_box.currentIndex() == COMPARE_NOW:
            before = self._entry_text(older)
            after = (self.lineage or {}).get("current_text")
            title = f"From {render.when_text(older['ts'])} to now"
        else:
            step = older.get("step")
            before = older.get("text") if step == "removed" else older.get("before")
            after = self._entry_text(older)
            title = f"{str(step).capitalize()} on {render.when_text(older['ts'])}"
        self.diff_view.setHtml(render.text_diff_html(before, after, title))
        self._diff_done()

    def _diff_done(self) -> None:
        self.sig_diff_shown.emit()
        if not self.ready:
            self.ready = True
            self.sig_ready.emit()

    def wait_ready(self, timeout_ms: int = 5000) -> bool:
        """Run the event loop until the first list and diff are shown (for screenshots)."""
        return wait_until_ready(lambda: self.ready, self.sig_ready, timeout_ms)

    # --- restoring ------------------------------------------------------------------------
    def _restore_target(self) -> tuple[dict[str, Any], str | None] | None:
        """The version to restore and, for an entry, its fingerprint (a "removed" step
        restores the text from the step before it)."""
        chosen = self.selected_items()
        if len(chosen) != 1 or self.error is not None:
            return None
        item = chosen[0]
        if self.subject[0] != "entry":
            return item, None
        if item.get("step") == "removed":
            earlier = [i for i in self.items if i["position"] == item["position"] - 1]
            return (earlier[0], earlier[0]["fingerprint"]) if earlier else None
        return item, item["fingerprint"]

    def _update_buttons(self) -> None:
        target = self._restore_target()
        self.restore_button.setEnabled(target is not None and not self.busy)
        self.restore_button.setText("&Restore this text of the entry" if self.subject[0] == "entry"
                                    else "&Restore this version")  # fmt: skip
        self.compare_box.setEnabled(len(self.selected_items()) == 1)

    def restore_selected(self) -> None:
        target = self._restore_target()
        if target is None or self.busy:
            return
        item, entry = target
        kind = str(item.get("kind"))
        what = f"an entry of {FILE_NAMES[kind]}" if entry else (
            f"skill {item.get('skill')}" if kind == "skill" else FILE_NAMES.get(kind, kind))  # fmt: skip
        label = f"restore {what} to {render.when_text(item.get('ts'))}"
        self.busy = True
        self._update_buttons()
        self._report("Restoring…")
        restoring.restore(self.workspace, self.undo, str(item["id"]), kind, label, self._restored, entry)

    def _restored(self, result: dict[str, Any]) -> None:
        if not self._alive():
            return
        self.busy = False
        if result.get("ok"):
            undo = " Edit ▸ Undo takes it back." if result.get("undo") else ""
            self._report(f"{result.get('message') or 'Restored.'}{undo}")
        else:
            self._report(f"Not restored: {result.get('error') or result.get('message')}")
        self._update_buttons()
        self.sig_restored.emit(result)
        self._reload_timer.start()

    def _report(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.setVisible(bool(message))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt API)
        if watched is self.tree and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            if ctrl and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.restore_selected()
                return True
        return super().eventFilter(watched, event)
