"""The Memory tab's "Consolidate" view: near-duplicate and overlapping entries, merged in one step.

The engine finds the groups (``consolidate_groups``: similarity, characters saved, which
store) and the stale entries (superseded by a later entry, or never referenced by sessions
for months). The person picks a group, edits the merged wording in an entry card checked
as they type exactly as the editor checks (the scanner, the ``§`` line, the budget), sees
each store's projected meter ("1,783 → 1,402 / 2,200"), and applies it: one engine call
(``consolidate_apply``) on the writer thread that writes every store the group touches, or
none. ``sig_applied`` carries the engine's record of the change, which the window puts on
the app-wide undo stack (``consolidate_revert`` undoes and redoes it).

Every engine call goes through :meth:`Workspace.call`, so the view works on any home.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.memory.edits import DraftCheck, EntryCheck, check_draft
from hermes_memory.memory.entries import FILE_NAMES

from ..workspace import Change, Workspace
from .banner import Banner
from .card import EntryCard
from .meter import CapacityMeter

#: Quiet time after the last keystroke before the merged text is checked (as in the editor).
CHECK_DELAY_MS = 150
STORE_TITLES = {"memory": "Agent notes", "user": "User profile"}
KIND_WORDS = {"duplicate": "Duplicates", "overlap": "Overlap"}
#: The merged-text card is not one of the editor's cards: a fixed uid it never hands out.
MERGED_UID = 0


def group_title(group: dict[str, Any]) -> str:
    """One line for the list: kind, similarity, characters saved, which store(s)."""
    stores = sorted({entry["target"] for entry in group["entries"]})
    where = " + ".join(STORE_TITLES.get(t, t) for t in stores)
    return (
        f"{KIND_WORDS.get(group['kind'], group['kind'])} · {round(group['score'] * 100)} % similar · "
        f"{len(group['entries'])} entries · saves {group['saves']:,} chars · {where}"
    )


def meter_line(used: int, after: int, limit: int) -> str:
    return f"{used:,} → {after:,} / {limit:,}"


class ConsolidateView(QWidget):
    """Groups of similar entries, the merged wording with live checks, and Apply."""

    sig_loaded = Signal()  # a fresh list of groups is shown
    sig_checked = Signal()  # the merged text was checked
    sig_applied = Signal(dict)  # the engine's result of a merge that was written
    sig_refused = Signal(str)  # the engine refused a merge: its message

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.report: dict[str, Any] | None = None
        self.group: dict[str, Any] | None = None
        self.check: dict[str, DraftCheck] = {}
        self.applying = False
        self._stale_list = True  # the groups must be (re)loaded when the view shows
        self._loading = False
        self._check_cache: dict[str, EntryCheck] = {}
        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.run_check)
        self._build()
        workspace.sig_changed.connect(self._on_change)
        workspace.sig_store_status.connect(self._on_status)

    # --- building -----------------------------------------------------------------------
    def _build(self) -> None:
        title = QLabel("Consolidate", self)
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        title.setFont(font)
        self.summary_label = QLabel("Looking for similar entries…", self)
        self.summary_label.setObjectName("consolidateSummary")
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.setToolTip("Look for similar and stale entries again")
        self.refresh_button.clicked.connect(self.refresh)
        heading = QHBoxLayout()
        heading.addWidget(title)
        heading.addSpacing(8)
        heading.addWidget(self.summary_label, 1, Qt.AlignmentFlag.AlignBottom)
        heading.addWidget(self.refresh_button)

        self.group_list = QListWidget(self)
        self.group_list.setAccessibleName("Groups of similar entries")
        self.group_list.currentRowChanged.connect(self._group_chosen)
        self.stale_caption = QLabel("Stale entries", self)
        self.stale_list = QListWidget(self)
        self.stale_list.setAccessibleName("Stale entries")
        self.stale_list.setWordWrap(True)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("Similar entries", self))
        left_layout.addWidget(self.group_list, 3)
        left_layout.addWidget(self.stale_caption)
        left_layout.addWidget(self.stale_list, 2)

        self.entries_label = QLabel(self)
        self.entries_label.setWordWrap(True)
        self.entries_label.setTextFormat(Qt.TextFormat.RichText)
        self.entries_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.meters: dict[str, CapacityMeter] = {}
        self.meter_labels: dict[str, QLabel] = {}
        self.meters_layout = QVBoxLayout()
        self.merged_card = EntryCard(MERGED_UID, "", self)
        for part in (
            self.merged_card.grip, self.merged_card.select_box, self.merged_card.up_button,
            self.merged_card.down_button, self.merged_card.remove_button,
        ):
            part.hide()  # one text, not a card among others
        self.merged_card.number_label.setText("Merged entry")
        self.merged_card.text_edit.setAccessibleName("Merged entry")
        self.merged_card.sig_text_edited.connect(lambda _uid, _text: self._check_timer.start())
        self.merged_card.sig_strip_invisible.connect(self._strip_invisible)
        self.problem_label = QLabel(self)
        self.problem_label.setWordWrap(True)
        self.problem_label.setObjectName("consolidateProblem")
        self.apply_button = QPushButton("Apply merge", self)
        self.apply_button.setToolTip("Write the merged entry in place of the group (undo with Ctrl+Z)")
        self.apply_button.clicked.connect(self.apply)
        self.banner = Banner(self)
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.entries_label)
        right_layout.addLayout(self.meters_layout)
        right_layout.addWidget(self.merged_card)
        right_layout.addWidget(self.problem_label)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.apply_button)
        right_layout.addLayout(row)
        right_layout.addStretch(1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 8)
        layout.addLayout(heading)
        layout.addWidget(self.banner)
        layout.addWidget(self.splitter, 1)
        self._show_group(None)

    # --- loading the groups ---------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self._stale_list:
            self.refresh()

    def _on_change(self, change: Change) -> None:
        if change.kind in ("memory", "user", "config", "sessions"):
            self._stale_list = True
            if self.isVisible() and not self.applying:
                self.refresh()

    def _on_status(self, _status: object) -> None:
        if self.group is not None:
            self._check_timer.start()  # the projection is made from the stores' entries

    def refresh(self) -> None:
        """Ask the engine for the groups and stale entries again (on the reader thread)."""
        self._stale_list = False
        if self._loading:
            self._stale_list = True  # once this load is in, another one
            return
        self._loading = True
        self.workspace.call("consolidate_groups", {}, self._loaded)

    def _loaded(self, report: dict[str, Any]) -> None:
        self._loading = False
        if self._stale_list and self.isVisible():
            self.refresh()
            return
        self.report = report
        chosen = self.group["id"] if self.group else None
        typed = self.merged_card.text() if self.group else None
        blocked = self.group_list.blockSignals(True)
        self.group_list.clear()
        for group in report.get("groups", []):
            item = QListWidgetItem(group_title(group))
            item.setData(Qt.ItemDataRole.UserRole, group["id"])
            item.setToolTip("\n".join(f"[{e['file']}] {e['text']}" for e in group["entries"]))
            self.group_list.addItem(item)
        self.group_list.blockSignals(blocked)
        self.stale_list.clear()
        for stale in report.get("stale", []):
            entry = stale.get("entry", {})
            item = QListWidgetItem(
                f"⚑ {FILE_NAMES.get(entry.get('target'), '')} #{int(entry.get('index', 0)) + 1}: "
                f"{entry.get('text', '')}\n    {stale.get('message', '')}"
            )
            self.stale_list.addItem(item)
        self.stale_caption.setText(f"Stale entries ({self.stale_list.count()})")
        count, saves = len(report.get("groups", [])), int(report.get("saves", 0))
        errors = report.get("errors") or {}
        if errors:
            self.summary_label.setText(" ".join(str(message) for message in errors.values()))
        elif count:
            self.summary_label.setText(
                f"{count} group{'s' if count != 1 else ''} of similar entries; merging all would save "
                f"about {saves:,} characters."
            )
        else:
            self.summary_label.setText("No similar entries: nothing to consolidate.")
        ids = [g["id"] for g in report.get("groups", [])]
        row = ids.index(chosen) if chosen in ids else (0 if ids else -1)
        self.group_list.setCurrentRow(row)
        self._show_group(report["groups"][row] if row >= 0 else None, keep_text=typed if row >= 0 and
                         ids[row] == chosen else None)
        self.sig_loaded.emit()

    # --- one group --------------------------------------------------------------------------
    def _group_chosen(self, row: int) -> None:
        groups = (self.report or {}).get("groups", [])
        self._show_group(groups[row] if 0 <= row < len(groups) else None)

    def _show_group(self, group: dict[str, Any] | None, keep_text: str | None = None) -> None:
        self.group = group
        for target in list(self.meters):
            self.meters.pop(target).deleteLater()
            self.meter_labels.pop(target).deleteLater()
        if group is None:
            self.entries_label.setText("Pick a group on the left to merge its entries into one.")
            self.merged_card.setEnabled(False)
            self.merged_card.set_text("")
            self.problem_label.clear()
            self.apply_button.setEnabled(False)
            return
        lines = []
        for entry in group["entries"]:
            keep = " (kept)" if entry["fingerprint"] == group["keep"] else ""
            lines.append(
                f"<b>{html.escape(entry['file'])} #{entry['index'] + 1}{keep}</b>: {html.escape(entry['text'])}"
            )
        self.entries_label.setText("<br>".join(lines))
        for target in sorted({e["target"] for e in group["entries"]}):
            label = QLabel(self)
            meter = CapacityMeter(STORE_TITLES.get(target, target), parent=self)
            self.meter_labels[target], self.meters[target] = label, meter
            self.meters_layout.addWidget(label)
            self.meters_layout.addWidget(meter)
        self.merged_card.setEnabled(True)
        if keep_text is None:
            kept = next(e for e in group["entries"] if e["fingerprint"] == group["keep"])
            keep_text = kept["text"]
        self.merged_card.set_text(keep_text)
        self.run_check()

    def _strip_invisible(self, _uid: int) -> None:
        from hermes_memory.memory.scan import strip_invisible

        self.merged_card.text_edit.setPlainText(strip_invisible(self.merged_card.text()))

    # --- checks (as the editor's) -----------------------------------------------------------------
    def projected(self, target: str, merged: str) -> tuple[list[str], list[str]] | None:
        """The store's entries now and after the merge, or None when they are not known."""
        status = self.workspace.statuses.get(target)
        if status is None or self.group is None:
            return None
        before = list(status.entries)
        after: list[str | None] = list(before)
        keep = next(e for e in self.group["entries"] if e["fingerprint"] == self.group["keep"])
        for entry in self.group["entries"]:
            if entry["target"] != target:
                continue
            index = entry["index"]
            if not (0 <= index < len(before)) or before[index] != entry["text"]:
                return None  # the store changed since the list: it is being refreshed
            after[index] = merged if entry is keep else None
        return before, [text for text in after if text is not None]

    def run_check(self) -> None:
        """Check the merged text and the stores it would give, as the editor checks a draft."""
        self._check_timer.stop()
        self.check = {}
        group = self.group
        if group is None:
            return
        merged = self.merged_card.text().strip()
        problems: list[str] = []
        keeper_target = next(e["target"] for e in group["entries"] if e["fingerprint"] == group["keep"])
        for target, meter in self.meters.items():
            status = self.workspace.statuses.get(target)
            projection = self.projected(target, merged)
            if status is None or projection is None:
                self.meter_labels[target].setText(f"{STORE_TITLES[target]}: waiting for the store…")
                problems.append("The stores changed since the list was made; it is being refreshed.")
                continue
            before, after = projection
            check = check_draft(target, after, status.limit, before, self._check_cache)
            self.check[target] = check
            meter.set_usage(status.used, status.limit, enabled=status.enabled, file_name=FILE_NAMES[target])
            meter.set_projection(check.used)
            self.meter_labels[target].setText(
                f"{STORE_TITLES[target]} ({FILE_NAMES[target]}): {meter_line(status.used, check.used, status.limit)}"
            )
            if check.over_budget:
                problems.append(check.budget_message() or "Over budget.")
            if target == keeper_target and merged in after:
                self.merged_card.show_check(check.entries[after.index(merged)])
            problems.extend(message for _index, message in check.blocking())
        if not merged:
            problems.insert(0, "The merged entry is empty.")
        self.problem_label.setText(" ".join(dict.fromkeys(problems)))
        self.apply_button.setEnabled(not problems and not self.applying)
        self.sig_checked.emit()

    # --- applying -----------------------------------------------------------------------------
    def apply(self) -> None:
        """Write the merge through the engine (one writer job for every store it touches)."""
        if self.group is None or self.applying:
            return
        self.run_check()
        if not self.apply_button.isEnabled():
            return
        group, merged = self.group, self.merged_card.text().strip()
        targets = sorted({e["target"] for e in group["entries"]})
        self.applying = True
        self.apply_button.setEnabled(False)

        def done(result: dict[str, Any]) -> None:
            self.applying = False
            if result.get("ok"):
                for target in targets:  # the Workspace re-reads the store it wrote; the other too
                    if target != write:
                        self.workspace.refresh_store(target)
                self.banner.show_message("info", html.escape(str(result.get("message", "Merged."))))
                result = dict(result, label=f"merge {len(group['entries'])} entries")
                self.sig_applied.emit(result)
            else:
                message = str(result.get("message") or "The merge was refused; nothing was written.")
                self.banner.show_message("warning", html.escape(message))
                self.sig_refused.emit(message)
            self.refresh()

        write = "memory" if "memory" in targets else targets[0]
        self.workspace.call(
            "consolidate_apply", {"group_id": group["id"], "merged_text": merged}, done, write=write
        )
