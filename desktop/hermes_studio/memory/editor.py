"""The editor of one store (MEMORY.md or USER.md): cards, checks, saving, and disk changes.

Everything that touches the file goes through the engine on the Workspace's threads:
reads arrive as ``sig_store_status``; saves, merges, recreation and normalisation run on the
one writer thread. Checks while typing are engine calls too (pure and fast, debounced).

:class:`StoreEditor` lays the editor out, turns card edits and commands into document changes,
and runs the checks. Its helpers each do one job:
- :mod:`.disk_sync`: following the file on disk (load, folding agent changes in, conflicts,
  deletion, file banner); :mod:`.folding` computes the fold and resolves conflicts;
- :mod:`.saving`: writing (Save, refusals, why Save is off);
- :mod:`.conflicts`: the strip that shows an entry both sides changed, with the choices;
- :mod:`.actions`: the command row (toolbar, save state, Save) and when each is enabled;
- :mod:`.card_list`: the scrolling column of cards, in document order;
- :mod:`.previews`: the side tabs (the prompt block, the raw file);
- :mod:`.banner`: the message strips above the cards.
"""

from __future__ import annotations

import time

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.memory.edits import (
    ROUND_TRIP_DRIFT,
    DraftCheck,
    EntryCheck,
    check_draft,
)
from hermes_memory.memory.entries import FILE_NAMES
from hermes_memory.memory.status import StoreStatus

from ..workspace import Workspace
from .actions import EditorActions
from .banner import Banner
from .card import EntryCard, focus_card
from .card_list import CardList
from .conflicts import ConflictBar
from .disk_sync import DiskSync
from .meter import CapacityMeter
from .model import EntryDocument
from .previews import PreviewTabs
from .saving import Saver
from .style import editor_stylesheet

#: Quiet time after the last keystroke before the engine checks the draft.
CHECK_DELAY_MS = 150
#: How long the "updated from disk" and "saved" notes stay up.
NOTE_MS = 8000
#: A conflict with the agent waits until the person has not typed for this long.
PAUSE_MS = 1500
#: How long cards the agent added or changed stay highlighted.
ARRIVED_MS = 6000

TITLES = {
    "memory": ("Agent notes", "the agent's own notes: environment, conventions, lessons"),
    "user": ("User profile", "what the agent knows about the person it works for"),
}


class StoreEditor(QWidget):
    """Curate one store's entries as cards, within its budget, beside a live agent."""

    sig_dirty_changed = Signal(bool)
    sig_loaded = Signal()  # the first status was shown
    sig_checked = Signal()  # the engine checked the current draft
    sig_saved = Signal(dict)  # a save or merge was written (the engine's payload)
    sig_refused = Signal(str)  # the engine refused a write: its message
    sig_conflicts_shown = Signal(list)  # the Conflicts the person must decide (shown after a pause)
    sig_reloaded = Signal(str)  # changes on disk were folded in: the note shown
    sig_deleted = Signal()  # the file vanished under the editor
    sig_origin = Signal(str)  # a card's "Where this came from": its text as last read

    def __init__(self, workspace: Workspace, target: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.target = target
        self.file_name = FILE_NAMES[target]
        self.status: StoreStatus | None = None
        self.document = EntryDocument(self)
        self.selected: set[int] = set()
        self.current_uid: int | None = None
        self.check: DraftCheck | None = None
        self._check_cache: dict[str, EntryCheck] = {}
        self._check_waiting = False  # a check put off until the editor shows
        self.disk = DiskSync(self)
        self.saver = Saver(self)

        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.run_check)
        self._note_timer = QTimer(self)
        self._note_timer.setSingleShot(True)
        self._note_timer.setInterval(NOTE_MS)
        self.last_key = 0.0  # time.monotonic() of the last keystroke in a card
        self._pause_timer = QTimer(self)
        self._pause_timer.setSingleShot(True)
        self._pause_timer.timeout.connect(self.show_conflicts)
        self._arrived_timer = QTimer(self)
        self._arrived_timer.setSingleShot(True)
        self._arrived_timer.setInterval(ARRIVED_MS)
        self._arrived_timer.timeout.connect(self._clear_arrived)

        self._build()
        self._note_timer.timeout.connect(self.note_banner.hide)
        self.document.sig_structure_changed.connect(self._sync_cards)
        self.document.sig_text_changed.connect(self._sync_text)
        self.document.sig_dirty_changed.connect(self._on_dirty_changed)
        self.document.undo_stack.indexChanged.connect(self._on_undo_index)
        workspace.sig_store_status.connect(self._on_status)
        existing = workspace.statuses.get(target)
        if existing is not None:
            self._on_status(existing)
        self.setStyleSheet(editor_stylesheet(self))
        self.update_actions()

    # --- building -----------------------------------------------------------------------
    def _build(self) -> None:
        title, blurb = TITLES[self.target]
        self.title_label = QLabel(title, self)
        self.title_label.setObjectName("editorTitle")
        font = QFont(self.title_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.title_label.setFont(font)
        self.subtitle_label = QLabel(f"{self.file_name} — {blurb}", self)
        self.subtitle_label.setObjectName("editorSubtitle")
        self.meter = CapacityMeter(title, parent=self)

        heading = QHBoxLayout()
        heading.addWidget(self.title_label)
        heading.addSpacing(8)
        heading.addWidget(self.subtitle_label, 1, Qt.AlignmentFlag.AlignBottom)

        self.commands = EditorActions(self)
        # The command row's parts, by the names callers use.
        self.toolbar = self.commands.toolbar
        self.status_label = self.commands.status_label
        self.save_button = self.commands.save_button
        self.new_action = self.commands.new
        self.merge_action = self.commands.merge
        self.remove_action = self.commands.remove
        self.up_action = self.commands.up
        self.down_action = self.commands.down
        self.undo_action = self.commands.undo
        self.redo_action = self.commands.redo
        self.revert_action = self.commands.revert
        self.normalise_action = self.commands.normalise
        self.save_action = self.commands.save

        self.conflict_bar = ConflictBar(self)
        self.conflict_bar.sig_choice.connect(self.disk.resolve)
        self.note_banner = Banner(self)
        self.problem_banner = Banner(self)  # refusals and read errors
        self.file_banner = Banner(self)  # drift, deletion, disabled store

        self.card_list = CardList(
            self._wire_card, self, current=lambda: (self.document.cards, self.selected)
        )
        self.card_list.sig_dropped.connect(self._on_card_dropped)
        self.card_list.sig_built.connect(self._cards_built)
        # The column's parts, by the names callers use.
        self.scroll = self.card_list
        self.empty_label = self.card_list.empty_label

        # Side: the prompt preview and the raw file.
        self.previews = PreviewTabs(self)
        # The tabs' parts, by the names callers use.
        self.side_tabs = self.previews.tabs
        self.preview_caption = self.previews.preview_caption
        self.preview_text = self.previews.preview_text
        self.raw_caption = self.previews.raw_caption
        self.raw_text = self.previews.raw_text

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.card_list)
        self.splitter.addWidget(self.side_tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([640, 460])  # the preview's 46-character rules fit unwrapped

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 8)
        layout.setSpacing(6)
        layout.addLayout(heading)
        layout.addWidget(self.meter)
        layout.addLayout(self.commands.row)
        layout.addWidget(self.file_banner)
        layout.addWidget(self.problem_banner)
        layout.addWidget(self.conflict_bar)
        layout.addWidget(self.note_banner)
        layout.addWidget(self.splitter, 1)

    # --- status from disk (see .disk_sync) ---------------------------------------------
    def _on_status(self, status: StoreStatus) -> None:
        # A slot of the editor's own, so that the workspace's connection ends with the editor.
        self.disk.on_status(status)

    # --- checks ---------------------------------------------------------------------------
    def schedule_check(self) -> None:
        self._check_timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self._check_waiting:
            self.run_check()

    def run_check(self) -> None:
        """Ask the engine about the draft: findings, duplicates, usage, the prompt block.
        An editor hidden in a shown window (another tab) checks once it shows."""
        self._check_timer.stop()
        self._check_waiting = self.window().isVisible() and not self.isVisible()
        if self._check_waiting:
            self.update_actions()
            return
        limit = self.status.limit if self.status else 0
        texts = self.document.texts()
        if len(self._check_cache) > 4 * len(texts) + 64:
            self._check_cache.clear()
        check = check_draft(self.target, texts, limit, self.document.base, self._check_cache)
        self.check = check
        first_number = {}
        for index, entry in enumerate(check.entries):
            if entry.text and entry.text not in first_number:
                first_number[entry.text] = index + 1
        for index, card_state in enumerate(self.document.cards):
            card = self.card_list.cards.get(card_state.uid)
            if card is None:
                continue
            entry = check.entries[index]
            duplicate = entry.duplicate_of + 1 if entry.duplicate_of is not None else None
            card.show_check(entry, duplicate)
            card.set_state(check.changed[index])
        self.meter.set_projection(check.used if self.document.dirty else None)
        self.previews.show_check(
            self.target, check, self.status.enabled if self.status else True, self.document.dirty
        )
        self.update_actions()
        if self.problem_banner.property("cause") == "refusal" and (
            not self.document.dirty
            or (not check.blocking() and not check.over_budget)
        ):
            self.problem_banner.hide()  # what it was about is fixed
        self.sig_checked.emit()

    # --- cards ------------------------------------------------------------------------------
    def _sync_cards(self) -> None:
        """Make the card widgets match the document; forget ticks and focus on cards gone."""
        self.card_list.sync(self.document.cards, self.selected)
        if self.disk.conflicts and not self.conflict_bar.isHidden():
            marked = {uid for conflict in self.disk.conflicts for uid in conflict.uids}
            for uid, card in self.card_list.cards.items():
                card.set_conflict(uid in marked)
        wanted = {card.uid for card in self.document.cards}
        self.selected &= wanted
        if self.current_uid not in wanted:
            self.current_uid = None
        self.schedule_check()
        self.update_actions()

    def _cards_built(self) -> None:
        """Cards that waited for the column to show now exist: give them their marks."""
        if not self.alive():
            return
        if self.disk.conflicts and not self.conflict_bar.isHidden():
            marked = {uid for conflict in self.disk.conflicts for uid in conflict.uids}
            for uid, card in self.card_list.cards.items():
                card.set_conflict(uid in marked)
        self.run_check()

    def _wire_card(self, card: EntryCard) -> None:
        """Connect a card the card list just made: its edits become document changes."""
        card.sig_text_edited.connect(self._on_card_edited)
        card.sig_focused.connect(self._on_card_focused)
        card.sig_selection_toggled.connect(self._on_card_toggled)
        card.sig_move.connect(self._on_card_move)
        card.sig_drag.connect(self._on_card_drag)
        card.sig_remove.connect(lambda uid: self.document.remove([uid]))
        card.sig_strip_invisible.connect(self.document.strip_invisible)
        card.sig_origin.connect(lambda uid: self.sig_origin.emit(self.document.card(uid).text))

    def _sync_text(self, uid: int) -> None:
        card = self.card_list.cards.get(uid)
        if card is not None:
            card.set_text(self.document.card(uid).text)
        self.schedule_check()

    def _on_card_edited(self, uid: int, text: str) -> None:
        cards = self.card_list.cards
        if uid not in cards or cards[uid] is not self.sender():
            return
        # Typing goes on during a save: the save's result is folded onto it.
        self.last_key = time.monotonic()
        if self.disk.conflicts and self.conflict_bar.isHidden():
            self._pause_timer.start(PAUSE_MS)  # wait for the person to pause
        self.document.set_text(uid, text)
        self.schedule_check()

    def _on_card_focused(self, uid: int) -> None:
        self.current_uid = uid
        self.update_actions()

    def _on_card_toggled(self, uid: int, on: bool) -> None:
        if on:
            self.selected.add(uid)
        else:
            self.selected.discard(uid)
        self.update_actions()

    def _on_card_move(self, uid: int, delta: int) -> None:
        if self._can_edit() and self.document.move(uid, delta):
            self.focus_card(uid)

    def _on_card_drag(self, uid: int) -> None:
        if self._can_edit():
            self.card_list.start_drag(uid)

    def _on_card_dropped(self, uid: int, index: int) -> None:
        if self._can_edit() and self.document.move_to(uid, index):
            self.focus_card(uid)

    def focus_card(self, uid: int) -> None:
        if uid not in self.card_list.cards:
            self.card_list.ensure_built()
        card = self.card_list.cards.get(uid)
        if card is None:
            return
        self.current_uid = uid
        card.text_edit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.card_list.ensureWidgetVisible(card, 0, 24)

    def card_at(self, index: int) -> EntryCard:
        self.card_list.ensure_built()
        return self.card_list.cards[self.document.cards[index].uid]

    # --- editing commands -----------------------------------------------------------------
    def _current(self) -> int | None:
        focused = focus_card(QApplication.focusWidget())
        if focused is not None and focused.uid in self.card_list.cards:
            return focused.uid
        return self.current_uid if self.current_uid in self.card_list.cards else None

    def new_entry(self) -> int | None:
        if not self._can_edit():
            return None
        current = self._current()
        index = self.document.index_of(current) + 1 if current is not None else None
        uid = self.document.add_card(index)
        self.focus_card(uid)
        return uid

    def merge_selected(self) -> int | None:
        if not self._can_edit() or len(self.selected) < 2:
            return None
        uid = self.document.merge(self.selected)
        self.selected.clear()
        for card in self.card_list.cards.values():
            card.set_selected(False)
        if uid is not None:
            self.focus_card(uid)
        self.update_actions()
        return uid

    def remove_selected(self) -> None:
        if not self._can_edit():
            return
        doomed = set(self.selected) or ({self._current()} - {None})
        if not doomed:
            return
        order = [card.uid for card in self.document.cards]
        first = min(order.index(uid) for uid in doomed)
        self.document.remove(doomed)
        remaining = [card.uid for card in self.document.cards]
        if remaining:
            self.focus_card(remaining[min(first, len(remaining) - 1)])

    def move_current(self, delta: int) -> None:
        if not self._can_edit():
            return
        uid = self._current()
        if uid is None and len(self.selected) == 1:
            uid = next(iter(self.selected))
        if uid is not None and self.document.move(uid, delta):
            self.focus_card(uid)

    def revert(self) -> None:
        if self.busy:
            return
        self.document.revert()
        self.problem_banner.hide()

    def _can_edit(self) -> bool:
        return (
            not self.busy
            and self.status is not None
            and not self.status.error
        )

    # --- actions state ------------------------------------------------------------------------
    def alive(self) -> bool:
        """False once Qt has deleted the editor or its undo stack: late signals and worker
        results (the stack signals while it is destroyed, a save may finish after a close)
        must not touch them."""
        return (
            shiboken6.isValid(self)
            and shiboken6.isValid(self.document)
            and shiboken6.isValid(self.document.undo_stack)
        )

    def _on_undo_index(self, _index: int) -> None:
        self.update_actions()

    def _on_dirty_changed(self, dirty: bool) -> None:
        self.update_actions()
        self.schedule_check()
        self.sig_dirty_changed.emit(dirty)

    def update_actions(self) -> None:
        """Enable the commands for the editor's state; beside Save, say where saving stands."""
        if not self.alive():
            return
        current = self._current()
        status = self.status
        self.commands.update(
            editable=self._can_edit(),
            selected=len(self.selected),
            position=self.document.index_of(current) if current is not None else None,
            count=len(self.document.cards),
            dirty=self.document.dirty,
            drift=bool(status and status.drift == ROUND_TRIP_DRIFT and not status.error),
            busy=self.busy,
            on_disk=bool(status and status.exists),
            save_block=self.save_block_reason(),
        )
        count = len(self.disk.conflicts)
        if count and not self.busy:
            self.commands.set_state_text(
                f"{count} conflict{'s' if count > 1 else ''} with the agent to decide"
                + (" (shown above)" if not self.conflict_bar.isHidden() else ": Save shows it")
            )

    # --- notes and the merge view ---------------------------------------------------------------
    def show_note(self, text_html: str) -> None:
        self.note_banner.show_message("info", text_html)
        self._note_timer.start()

    def mark_arrived(self, uids) -> None:
        """Highlight the cards the agent just added or changed, for a few seconds."""
        for uid in uids:
            card = self.card_list.cards.get(uid)
            if card is not None:
                card.set_arrived(True)
        if uids:
            self._arrived_timer.start()

    def _clear_arrived(self) -> None:
        for card in self.card_list.cards.values():
            card.set_arrived(False)

    # --- conflicts with the agent (see .disk_sync and .conflicts) --------------------------
    def conflicts_changed(self) -> None:
        """The pending conflicts changed: refresh the strip, or wait for a pause to show it."""
        conflicts = self.disk.conflicts
        in_conflict = {uid for conflict in conflicts for uid in conflict.uids}
        for uid, card in self.card_list.cards.items():
            card.set_conflict(uid in in_conflict and not self.conflict_bar.isHidden())
        if not conflicts:
            self._pause_timer.stop()
            self.conflict_bar.hide()
        elif not self.conflict_bar.isHidden():
            self.show_conflicts()
        else:
            idle_ms = (time.monotonic() - self.last_key) * 1000
            if idle_ms >= PAUSE_MS:
                self.show_conflicts()
            else:
                self._pause_timer.start(int(PAUSE_MS - idle_ms))
        self.update_actions()

    def show_conflicts(self) -> None:
        """Show the first pending conflict (never taking focus from the card typed in)."""
        self._pause_timer.stop()
        conflicts = self.disk.conflicts
        if not conflicts:
            self.conflict_bar.hide()
            return
        numbers = {card.uid: index + 1 for index, card in enumerate(self.document.cards)}
        mine = tuple(
            card.text.strip() for card in self.document.cards if card.uid in conflicts[0].uids
        )
        self.conflict_bar.show_conflict(conflicts[0], len(conflicts), numbers, mine)
        in_conflict = {uid for conflict in conflicts for uid in conflict.uids}
        for uid, card in self.card_list.cards.items():
            card.set_conflict(uid in in_conflict)
        self.update_actions()
        self.sig_conflicts_shown.emit(list(conflicts))

    # --- writing and file-level actions (see .saving and .disk_sync) ---------------------------
    def save(self) -> None:
        """Save the draft: engine operations under the lock, never a blind overwrite."""
        self.saver.save()

    def save_block_reason(self) -> str | None:
        """Why Save is disabled now, or ``None`` when it is enabled."""
        return self.saver.block_reason()

    def recreate(self) -> None:
        self.disk.recreate()

    def accept_deletion(self) -> None:
        self.disk.accept_deletion()

    def normalise(self) -> None:
        self.disk.normalise()

    def restyle(self) -> None:
        """Follow a theme change: the stylesheet and the cards' colours come from the palette."""
        self.setStyleSheet(editor_stylesheet(self))
        for card in self.card_list.cards.values():
            card.apply_colours()
        self.meter.update()

    # --- queries --------------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.document.dirty

    @property
    def conflicts(self) -> list:
        return list(self.disk.conflicts)

    @property
    def busy(self) -> bool:
        return self.saver.busy

    def has_unsaved_work(self) -> bool:
        return self.document.dirty or bool(self.disk.conflicts)
