"""The editor of one store (MEMORY.md or USER.md): cards, checks, saving, and disk changes.

Everything that touches the file goes through the engine on the Workspace's threads:
reads arrive as ``sig_store_status``; saves, merges, recreation and normalisation run on the
one writer thread. Checks while typing are engine calls too (pure and fast, debounced).

When the file changes on disk (Spyder's policy, entry by entry):
- clean editor: reload silently, keep the scroll position, show a short note;
- unsaved edits: never overwrite, never discard: show the engine's three-way merge;
- file deleted: offer to recreate it from the editor, or to accept the deletion.
"""

from __future__ import annotations

import html

import shiboken6
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QFontDatabase, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.memory.edits import (
    ROUND_TRIP_DRIFT,
    DraftCheck,
    EntryCheck,
    MergeProposal,
    check_draft,
    describe_change,
    merge_entries,
    prompt_preview,
)
from hermes_memory.memory.entries import FILE_NAMES, preview
from hermes_memory.memory.status import StoreStatus

from ..workspace import Workspace
from .card import EntryCard, focus_card
from .merge_panel import MergePanel
from .meter import CapacityMeter
from .model import EntryDocument
from .style import colours_for
from .workers import merge_work, normalise_work, recreate_work, save_work

#: Quiet time after the last keystroke before the engine checks the draft.
CHECK_DELAY_MS = 150
#: How long the "updated from disk" and "saved" notes stay up.
NOTE_MS = 8000
#: Widest the save-state text beside the Save button may be (pixels); longer text elides.
STATE_WIDTH = 380

TITLES = {
    "memory": ("Agent notes", "the agent's own notes: environment, conventions, lessons"),
    "user": ("User profile", "what the agent knows about the person it works for"),
}


class Banner(QFrame):
    """A one-line message with optional action buttons (info, warning or error)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("banner")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons_layout = QHBoxLayout()
        self.buttons_layout.setContentsMargins(0, 0, 0, 0)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Dismiss")
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.label, 1)
        layout.addLayout(self.buttons_layout)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(
        self,
        level: str,
        text_html: str,
        actions: list[tuple[str, str, object]] | None = None,
        closable: bool = True,
    ) -> None:
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        self.label.setText(text_html)
        while self.buttons_layout.count():
            item = self.buttons_layout.takeAt(0)
            if item.widget():
                item.widget().hide()
                item.widget().deleteLater()
        for label, tip, slot in actions or []:
            button = QPushButton(label, self)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            self.buttons_layout.addWidget(button)
        self.close_button.setVisible(closable)
        self.show()

    def text(self) -> str:
        return self.label.text()

    def button(self, label: str) -> QPushButton:
        for index in range(self.buttons_layout.count()):
            widget = self.buttons_layout.itemAt(index).widget()
            if isinstance(widget, QPushButton) and widget.text() == label:
                return widget
        raise KeyError(label)


class StoreEditor(QWidget):
    """Curate one store's entries as cards, within its budget, beside a live agent."""

    sig_dirty_changed = Signal(bool)
    sig_loaded = Signal()  # the first status was shown
    sig_checked = Signal()  # the engine checked the current draft
    sig_saved = Signal(dict)  # a save or merge was written (the engine's payload)
    sig_refused = Signal(str)  # the engine refused a write: its message
    sig_merge_shown = Signal(object)  # a MergeProposal the person must resolve
    sig_reloaded = Signal(str)  # a clean reload from disk: the note shown
    sig_deleted = Signal()  # the file vanished under the editor

    def __init__(self, workspace: Workspace, target: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        self.target = target
        self.file_name = FILE_NAMES[target]
        self.status: StoreStatus | None = None
        self.document = EntryDocument(self)
        self.cards: dict[int, EntryCard] = {}
        self.selected: set[int] = set()
        self.current_uid: int | None = None
        self.check: DraftCheck | None = None
        self._check_cache: dict[str, EntryCheck] = {}
        self._busy = False
        self._pending_status: StoreStatus | None = None
        self._deleted = False
        self._has_loaded = False
        self._save_block_reason: str | None = "Nothing to save yet."

        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(CHECK_DELAY_MS)
        self._check_timer.timeout.connect(self.run_check)
        self._note_timer = QTimer(self)
        self._note_timer.setSingleShot(True)
        self._note_timer.setInterval(NOTE_MS)

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
        self._apply_style()
        self._update_actions()

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

        self.toolbar = QToolBar(self)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self._build_actions()

        self.status_label = QLabel(self)
        self.status_label.setObjectName("saveState")
        self.save_button = QToolButton(self)
        self.save_button.setDefaultAction(self.save_action)
        self.save_button.setObjectName("saveButton")
        toolbar_row = QHBoxLayout()
        toolbar_row.setContentsMargins(0, 0, 0, 0)
        toolbar_row.addWidget(self.toolbar, 1)
        toolbar_row.addWidget(self.status_label)
        toolbar_row.addWidget(self.save_button)

        self.note_banner = Banner(self)
        self.problem_banner = Banner(self)  # refusals and read errors
        self.file_banner = Banner(self)  # drift, deletion, disabled store

        # Cards.
        self.cards_widget = QWidget(self)
        self.cards_widget.setObjectName("cardsArea")
        self.cards_layout = QVBoxLayout(self.cards_widget)
        self.cards_layout.setContentsMargins(4, 4, 8, 4)
        self.cards_layout.setSpacing(8)
        self.empty_label = QLabel(
            "No entries yet. Press Ctrl+N (or “New entry”) to write the first one.", self
        )
        self.empty_label.setObjectName("emptyState")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cards_layout.addWidget(self.empty_label)
        self.cards_layout.addStretch(1)
        self.scroll = QScrollArea(self)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.cards_widget)

        # Side: the prompt preview and the raw file.
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.preview_caption = QLabel(self)
        self.preview_caption.setWordWrap(True)
        self.preview_caption.setObjectName("caption")
        self.preview_text = QPlainTextEdit(self)
        self.preview_text.setReadOnly(True)
        self.preview_text.setFont(mono)
        self.preview_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.preview_text.setPlaceholderText(
            "Nothing: an empty store adds no block to the prompt."
        )
        preview_page = QWidget(self)
        preview_layout = QVBoxLayout(preview_page)
        preview_layout.setContentsMargins(6, 6, 6, 6)
        preview_layout.addWidget(self.preview_caption)
        preview_layout.addWidget(self.preview_text, 1)

        self.raw_caption = QLabel(self)
        self.raw_caption.setWordWrap(True)
        self.raw_caption.setObjectName("caption")
        self.raw_text = QPlainTextEdit(self)
        self.raw_text.setReadOnly(True)
        self.raw_text.setFont(mono)
        self.raw_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        raw_page = QWidget(self)
        raw_layout = QVBoxLayout(raw_page)
        raw_layout.setContentsMargins(6, 6, 6, 6)
        raw_layout.addWidget(self.raw_caption)
        raw_layout.addWidget(self.raw_text, 1)

        self.side_tabs = QTabWidget(self)
        self.side_tabs.setDocumentMode(True)
        self.side_tabs.addTab(preview_page, "What the agent sees next session")
        self.side_tabs.addTab(raw_page, "Raw file")

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.scroll)
        self.splitter.addWidget(self.side_tabs)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([640, 460])  # the preview's 46-character rules fit unwrapped

        self.merge_panel = MergePanel(self)
        self.merge_panel.sig_save.connect(self._save_merge)
        self.merge_panel.sig_adopt.connect(self._adopt_merge)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.splitter)
        self.stack.addWidget(self.merge_panel)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 8)
        layout.setSpacing(6)
        layout.addLayout(heading)
        layout.addWidget(self.meter)
        layout.addLayout(toolbar_row)
        layout.addWidget(self.file_banner)
        layout.addWidget(self.problem_banner)
        layout.addWidget(self.note_banner)
        layout.addWidget(self.stack, 1)

    def _action(self, text: str, tip: str, slot, shortcuts: list[str] | None = None) -> QAction:
        action = QAction(text, self)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
            keys = ", ".join(QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText) for s in shortcuts)
            tip = f"{tip} ({keys})"
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        self.new_action = self._action(
            "New entry", "Add an empty entry after the current one", self.new_entry, ["Ctrl+N"]
        )
        self.merge_action = self._action(
            "Merge", "Join the ticked entries into one entry to edit", self.merge_selected,
            ["Ctrl+M"],
        )
        self.remove_action = self._action(
            "Remove", "Remove the ticked entries, or the current one", self.remove_selected,
            ["Delete"],
        )
        self.up_action = self._action(
            "Move up", "Move the current entry up", lambda: self.move_current(-1), ["Alt+Up"]
        )
        self.down_action = self._action(
            "Move down", "Move the current entry down", lambda: self.move_current(1),
            ["Alt+Down"],
        )
        stack = self.document.undo_stack
        self.undo_action = self._action("Undo", "Undo the last change", stack.undo, ["Ctrl+Z"])
        self.redo_action = self._action(
            "Redo", "Redo the change you undid", stack.redo, ["Ctrl+Shift+Z", "Ctrl+Y"]
        )
        self.revert_action = self._action(
            "Revert to disk",
            "Throw away unsaved edits and show the file as it is on disk (undoable)",
            self.revert,
        )
        self.normalise_action = self._action(
            "Normalise…",
            "Rewrite the file in canonical form (a backup is kept next to it)",
            self.normalise,
        )
        self.save_action = self._action(
            "Save", "Save your edits under the file lock", self.save, ["Ctrl+S"]
        )
        for action in (
            self.new_action, self.merge_action, self.remove_action, None, self.up_action,
            self.down_action, None, self.undo_action, self.redo_action, None,
            self.revert_action, self.normalise_action,
        ):
            if action is None:
                self.toolbar.addSeparator()
            else:
                self.toolbar.addAction(action)
        self.addAction(self.save_action)  # the shortcut works with focus anywhere inside

    def _apply_style(self) -> None:
        colours = colours_for(self)
        palette = self.palette()
        base = palette.color(palette.ColorRole.Base).name()
        window = palette.color(palette.ColorRole.Window)
        border = (window.darker(118) if window.lightness() >= 128 else window.lighter(150)).name()
        muted = palette.color(palette.ColorRole.PlaceholderText).name()
        accent = palette.color(palette.ColorRole.Highlight).name()
        accent_text = palette.color(palette.ColorRole.HighlightedText).name()
        self.setStyleSheet(
            f"""
            QWidget#cardsArea {{ background: transparent; }}
            QFrame#entryCard {{ background: {base}; border: 1px solid {border};
                                border-radius: 6px; }}
            QFrame#entryCard[changed="true"] {{ border-left: 4px solid {accent}; }}
            QFrame#entryCard[problem="true"] {{ border: 1px solid {colours.over};
                                               border-left: 4px solid {colours.over}; }}
            QFrame#entryCard QTextEdit {{ background: {base}; }}
            QLabel#cardNumber {{ color: {muted}; font-weight: 600; }}
            QLabel#cardCount, QLabel#caption, QLabel#editorSubtitle, QLabel#saveState,
            QLabel#emptyState {{ color: {muted}; }}
            QLabel#cardFindings {{ color: {palette.color(palette.ColorRole.Text).name()}; }}
            QFrame#banner {{ border-radius: 5px; border: 1px solid {border}; }}
            QFrame#banner[level="info"] {{ background: {colours.info_bg}; }}
            QFrame#banner[level="warning"] {{ background: {colours.warning_bg}; }}
            QFrame#banner[level="error"] {{ background: {colours.error_bg}; }}
            QFrame#mergeItem {{ background: {base}; border: 1px solid {border};
                                border-radius: 6px; }}
            QToolButton#saveButton {{ background: {accent}; color: {accent_text};
                                      border-radius: 4px; padding: 4px 16px;
                                      font-weight: 600; }}
            QToolButton#saveButton:disabled {{ background: {border}; color: {muted}; }}
            """
        )

    # --- status from disk ----------------------------------------------------------------
    def _on_status(self, status: StoreStatus) -> None:
        if status.target != self.target:
            return
        if self._busy:
            self._pending_status = status  # handled once our write reports back
            return
        previous = self.status
        self.status = status
        self._show_file_state(status)
        if status.error:
            self._update_actions()
            return
        entries = tuple(status.entries)
        if not self._has_loaded:
            self._has_loaded = True
            self._load(entries)
            self.sig_loaded.emit()
            return
        if not status.exists and (
            self._deleted or (previous is not None and previous.exists) or self.document.base
        ):
            if not self._deleted:
                self._file_deleted()
            return
        if status.exists and self._deleted:
            self._deleted = False
            self.file_banner.hide()
            self._show_file_state(status)
        if entries == self.document.base:
            self._update_actions()
            self.schedule_check()
            return
        if self.stack.currentWidget() is self.merge_panel:
            self._show_merge(
                merge_entries(self.target, self.document.base, self.document.drafts(), entries),
                keep=self.merge_panel.choices(),
            )
            return
        if not self.document.dirty:
            self._reload(entries)
        else:
            self._show_merge(
                merge_entries(self.target, self.document.base, self.document.drafts(), entries)
            )

    def _load(self, entries: tuple[str, ...]) -> None:
        self.document.load(entries)
        self.run_check()

    def _reload(self, entries: tuple[str, ...]) -> None:
        """Clean editor: take the disk's entries, keep the scroll position, leave a note."""
        note = describe_change(self.document.base, entries)
        scroll = self.scroll.verticalScrollBar().value()
        self.document.load(entries)
        self._restore_scroll(scroll)
        self.show_note(f"Updated from disk: {note}.")
        self.run_check()
        self.sig_reloaded.emit(note)

    def _restore_scroll(self, value: int) -> None:
        bar = self.scroll.verticalScrollBar()
        self.cards_widget.adjustSize()
        bar.setValue(value)
        QTimer.singleShot(0, self, lambda: bar.setValue(value))

    def _file_deleted(self) -> None:
        self._deleted = True
        has_content = bool(self.document.saved_form())
        actions = [
            (
                "Accept deletion",
                "Clear the editor; the file stays deleted until you save new entries",
                self.accept_deletion,
            )
        ]
        if has_content:
            actions.insert(
                0,
                (
                    "Recreate file",
                    f"Write the editor's entries to a new {self.file_name}",
                    self.recreate,
                ),
            )
        self.file_banner.show_message(
            "warning",
            f"<b>{self.file_name} was deleted on disk.</b> The editor still holds its "
            "entries"
            + (" and your unsaved edits" if self.document.dirty else "")
            + ": recreate the file from them, or accept the deletion.",
            actions,
            closable=False,
        )
        self._update_actions()
        self.sig_deleted.emit()

    def _show_file_state(self, status: StoreStatus) -> None:
        """Meter, raw view and the file banner (disabled store, drift, read error)."""
        self.meter.set_usage(
            status.used, status.limit, enabled=status.enabled, error=status.error,
            file_name=self.file_name,
        )
        self.raw_text.setPlainText(status.raw)
        if status.error:
            self.raw_caption.setText(f"{self.file_name} cannot be shown: {status.error}")
            self.problem_banner.show_message(
                "error",
                f"<b>{html.escape(self.file_name)} cannot be read.</b> "
                f"{html.escape(status.error)} Your edits are kept; nothing will be written "
                "until the file can be read again.",
                closable=False,
            )
            return
        if self.problem_banner.property("level") == "error" and "cannot be read" in (
            self.problem_banner.text()
        ):
            self.problem_banner.hide()
        where = str(status.path)
        if status.exists:
            self.raw_caption.setText(
                f"{where} exactly as on disk: {len(status.raw):,} characters, "
                f"{len(status.entries)} entries."
            )
        else:
            self.raw_caption.setText(f"{where} does not exist yet; saving creates it.")
        if self._deleted:
            return
        if not status.enabled:
            setting = "memory_enabled" if self.target == "memory" else "user_profile_enabled"
            self.file_banner.show_message(
                "info",
                f"<b>This store is disabled</b> in config.yaml (memory.{setting}: false): the "
                "agent neither reads nor writes it, and the editor cannot save it.",
                closable=False,
            )
        elif status.drift == ROUND_TRIP_DRIFT:
            self.file_banner.show_message(
                "warning",
                f"<b>{self.file_name} is not in canonical form</b>: its text would not survive "
                "a rewrite as §-separated entries (see the Raw file tab). The agent refuses to "
                "replace or remove entries in it, and saving here is blocked for the same "
                "reason. “Normalise” rewrites it cleanly after keeping a backup.",
                [("Normalise…", "Back up the file, then rewrite it canonically", self.normalise)],
                closable=False,
            )
        elif status.drift:
            self.file_banner.show_message(
                "warning",
                f"<b>One entry of {self.file_name} is larger than the whole budget</b> "
                f"({status.limit:,} chars), probably text pasted in by hand. The agent refuses "
                "to replace or remove entries until it is fixed: split it into several cards "
                "(or shorten it) here and save.",
                closable=False,
            )
        else:
            self.file_banner.hide()

    # --- checks ---------------------------------------------------------------------------
    def schedule_check(self) -> None:
        self._check_timer.start()

    def run_check(self) -> None:
        """Ask the engine about the draft: findings, duplicates, usage, the prompt block."""
        self._check_timer.stop()
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
            card = self.cards.get(card_state.uid)
            if card is None:
                continue
            entry = check.entries[index]
            duplicate = entry.duplicate_of + 1 if entry.duplicate_of is not None else None
            card.show_check(entry, duplicate)
            card.set_state(check.changed[index])
        self.meter.set_projection(check.used if self.document.dirty else None)
        self._update_preview(check)
        self._update_actions()
        self.sig_checked.emit()

    def _update_preview(self, check: DraftCheck) -> None:
        enabled = self.status.enabled if self.status else True
        dirty = self.document.dirty
        block = prompt_preview(self.target, list(check.saved_entries), check.limit)
        self.preview_text.setPlainText(block)
        if not enabled:
            caption = (
                "The agent does not load this store: it is disabled in config.yaml. Were it "
                "enabled, its block would read:"
            )
        elif dirty:
            caption = (
                "After you save: the block the agent's system prompt will hold next session, "
                "rendered by the engine (flagged entries become [BLOCKED: …] placeholders)."
            )
        else:
            caption = (
                "The block the agent's system prompt will hold next session, rendered by the "
                "engine (flagged entries become [BLOCKED: …] placeholders)."
            )
        self.preview_caption.setText(caption)

    # --- cards ------------------------------------------------------------------------------
    def _sync_cards(self) -> None:
        """Make the card widgets match the document (reusing widgets by uid)."""
        wanted = [card.uid for card in self.document.cards]
        for uid in list(self.cards):
            if uid not in wanted:
                widget = self.cards.pop(uid)
                widget.hide()
                self.cards_layout.removeWidget(widget)
                widget.deleteLater()
        self.selected &= set(wanted)
        if self.current_uid not in wanted:
            self.current_uid = None
        # Take every card out and put them back in document order.
        for uid in wanted:
            if uid in self.cards:
                self.cards_layout.removeWidget(self.cards[uid])
        for position, card_state in enumerate(self.document.cards):
            widget = self.cards.get(card_state.uid)
            if widget is None:
                widget = self._make_card(card_state.uid, card_state.text)
            else:
                widget.set_text(card_state.text)
            widget.set_number(position + 1, len(wanted))
            widget.set_selected(card_state.uid in self.selected)
            self.cards_layout.insertWidget(position + 1, widget)  # after the empty label
            widget.show()
        self.empty_label.setVisible(not wanted)
        self.schedule_check()
        self._update_actions()

    def _make_card(self, uid: int, text: str) -> EntryCard:
        card = EntryCard(uid, text, self.cards_widget)
        card.sig_text_edited.connect(self._on_card_edited)
        card.sig_focused.connect(self._on_card_focused)
        card.sig_selection_toggled.connect(self._on_card_toggled)
        card.sig_move.connect(self._on_card_move)
        card.sig_remove.connect(lambda uid: self.document.remove([uid]))
        card.sig_strip_invisible.connect(self.document.strip_invisible)
        card.text_edit.setReadOnly(self._busy)
        self.cards[uid] = card
        return card

    def _sync_text(self, uid: int) -> None:
        card = self.cards.get(uid)
        if card is not None:
            card.set_text(self.document.card(uid).text)
        self.schedule_check()

    def _on_card_edited(self, uid: int, text: str) -> None:
        if self._busy or uid not in self.cards or self.cards[uid] is not self.sender():
            return
        self.document.set_text(uid, text)
        self.schedule_check()

    def _on_card_focused(self, uid: int) -> None:
        self.current_uid = uid
        self._update_actions()

    def _on_card_toggled(self, uid: int, on: bool) -> None:
        if on:
            self.selected.add(uid)
        else:
            self.selected.discard(uid)
        self._update_actions()

    def _on_card_move(self, uid: int, delta: int) -> None:
        if self._can_edit() and self.document.move(uid, delta):
            self.focus_card(uid)

    def focus_card(self, uid: int) -> None:
        card = self.cards.get(uid)
        if card is None:
            return
        self.current_uid = uid
        card.text_edit.setFocus(Qt.FocusReason.OtherFocusReason)
        self.scroll.ensureWidgetVisible(card, 0, 24)

    def card_at(self, index: int) -> EntryCard:
        return self.cards[self.document.cards[index].uid]

    # --- editing commands -----------------------------------------------------------------
    def _current(self) -> int | None:
        focused = focus_card(QApplication.focusWidget())
        if focused is not None and focused.uid in self.cards:
            return focused.uid
        return self.current_uid if self.current_uid in self.cards else None

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
        for card in self.cards.values():
            card.set_selected(False)
        if uid is not None:
            self.focus_card(uid)
        self._update_actions()
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
        if self._busy:
            return
        self.document.revert()
        self.problem_banner.hide()

    def _can_edit(self) -> bool:
        return (
            not self._busy
            and self.status is not None
            and not self.status.error
            and self.stack.currentWidget() is not self.merge_panel
        )

    # --- actions state ------------------------------------------------------------------------
    def _on_undo_index(self, _index: int) -> None:
        if shiboken6.isValid(self.document) and shiboken6.isValid(self.document.undo_stack):
            self._update_actions()  # (the stack also signals while it is being destroyed)

    def _on_dirty_changed(self, dirty: bool) -> None:
        self._update_actions()
        self.schedule_check()
        self.sig_dirty_changed.emit(dirty)

    def save_block_reason(self) -> str | None:
        """Why Save is disabled now, or ``None`` when it is enabled."""
        status = self.status
        if status is None:
            return "The file is still loading."
        if self._busy:
            return "Saving…"
        if status.error:
            return f"{self.file_name} cannot be read, so it will not be written."
        if not status.enabled:
            return "This store is disabled in config.yaml."
        if self.stack.currentWidget() is self.merge_panel:
            return "Resolve the merge first."
        if self._deleted:
            return f"{self.file_name} was deleted: recreate it or accept the deletion."
        if status.drift == ROUND_TRIP_DRIFT:
            return "The file is not in canonical form: normalise it first."
        if not self.document.dirty:
            return "No unsaved changes."
        check = self.check
        if check is not None and [c.text for c in check.entries] == [
            t.strip() for t in self.document.texts()
        ]:
            blocking = check.blocking()
            if blocking:
                index, message = blocking[0]
                return f"Entry #{index + 1} cannot be saved. {message}"
        return None

    def _update_actions(self) -> None:
        editable = self._can_edit()
        current = self._current()
        self.new_action.setEnabled(editable)
        self.merge_action.setEnabled(editable and len(self.selected) >= 2)
        self.merge_action.setToolTip(
            "Join the ticked entries into one entry to edit (Ctrl+M)"
            if len(self.selected) >= 2
            else "Tick two or more entries to merge them into one (Ctrl+M)"
        )
        self.remove_action.setEnabled(editable and bool(self.selected or current is not None))
        index = self.document.index_of(current) if current is not None else None
        self.up_action.setEnabled(editable and index is not None and index > 0)
        self.down_action.setEnabled(
            editable and index is not None and index < len(self.document.cards) - 1
        )
        stack = self.document.undo_stack
        self.undo_action.setEnabled(editable and stack.canUndo())
        self.redo_action.setEnabled(editable and stack.canRedo())
        self.undo_action.setToolTip(
            f"Undo: {stack.undoText().lower()} (Ctrl+Z)" if stack.canUndo() else "Nothing to undo"
        )
        self.redo_action.setToolTip(
            f"Redo: {stack.redoText().lower()} (Ctrl+Shift+Z)"
            if stack.canRedo()
            else "Nothing to redo"
        )
        self.revert_action.setEnabled(editable and self.document.dirty)
        drift = bool(
            self.status and self.status.drift == ROUND_TRIP_DRIFT and not self.status.error
        )
        self.normalise_action.setVisible(drift)
        self.normalise_action.setEnabled(drift and not self._busy)
        reason = self.save_block_reason()
        self._save_block_reason = reason
        self.save_action.setEnabled(reason is None)
        self.save_action.setToolTip(
            "Save your edits under the file lock (Ctrl+S)" if reason is None else reason
        )
        self.save_button.setToolTip(self.save_action.toolTip())
        if self._busy:
            state = "Saving…"
        elif self.document.dirty:
            state = "Unsaved changes" if reason is None else reason
        else:
            state = "All changes saved" if self.status and self.status.exists else ""
        self._set_state_text(state)

    def _set_state_text(self, text: str) -> None:
        """The save state beside the Save button, elided to fit; the full text is the tip."""
        metrics = self.status_label.fontMetrics()
        self.status_label.setText(
            metrics.elidedText(text, Qt.TextElideMode.ElideRight, STATE_WIDTH)
        )
        self.status_label.setToolTip(text)

    # --- writing --------------------------------------------------------------------------------
    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        for card in self.cards.values():
            card.text_edit.setReadOnly(busy)
        self.merge_panel.set_busy(busy)
        self._update_actions()

    def _write(self, work, on_done) -> None:
        self._set_busy(True)
        future = self.workspace.write(self.target, work, lambda result: self._written(result, on_done))
        if future is None:  # the workspace is closed
            self._set_busy(False)

    def _written(self, result: dict, on_done) -> None:
        self._set_busy(False)
        on_done(result)
        pending, self._pending_status = self._pending_status, None
        if pending is not None:
            self._on_status(pending)
        self._update_actions()

    def save(self) -> None:
        """Save the draft: engine operations under the lock, never a blind overwrite."""
        self.run_check()
        reason = self.save_block_reason()
        if reason is not None:
            if self.document.dirty:
                self.problem_banner.show_message("error", html.escape(reason))
            return
        work = save_work(
            self.workspace.home, self.target, self.document.base, self.document.drafts()
        )
        self._write(work, self._on_saved)

    def _on_saved(self, result: dict) -> None:
        if result.get("success"):
            self.problem_banner.hide()
            self.document.rebase(result.get("entries", self.document.saved_form()))
            self.show_note(html.escape(result.get("message", "Saved.")))
            self.schedule_check()
            self.sig_saved.emit(result)
            return
        if isinstance(result.get("merge"), MergeProposal):
            self._show_merge(result["merge"])
            return
        self._refused(result)

    def _refused(self, result: dict) -> None:
        message = str(result.get("error", "The engine refused the write."))
        entry = result.get("entry")
        quoted = f" (“{html.escape(preview(entry, 60))}”)" if isinstance(entry, str) else ""
        self.problem_banner.show_message(
            "error", f"<b>Not saved.</b> {html.escape(message)}{quoted}"
        )
        index = result.get("entry_index")
        if isinstance(index, int) and 0 <= index < len(self.document.cards):
            self.focus_card(self.document.cards[index].uid)
        self.sig_refused.emit(message)

    def show_note(self, text_html: str) -> None:
        self.note_banner.show_message("info", text_html)
        self._note_timer.start()

    # --- merging --------------------------------------------------------------------------------
    def _show_merge(self, proposal: MergeProposal, keep: dict[str, str] | None = None) -> None:
        limit = self.status.limit if self.status else 0
        self.merge_panel.set_proposal(proposal, limit, keep)
        self.stack.setCurrentWidget(self.merge_panel)
        self.note_banner.hide()
        self._update_actions()
        self.sig_merge_shown.emit(proposal)

    def _hide_merge(self) -> None:
        self.stack.setCurrentWidget(self.splitter)
        self._update_actions()

    def save_merge(self) -> None:
        """Save the merge panel's proposal with its current choices."""
        if self.merge_panel.proposal is not None:
            self._save_merge(self.merge_panel.proposal, self.merge_panel.choices())

    def _save_merge(self, proposal: MergeProposal, choices: dict) -> None:
        self._write(merge_work(self.workspace.home, proposal, choices), self._on_merge_saved)

    def _on_merge_saved(self, result: dict) -> None:
        if result.get("success"):
            self._hide_merge()
            self.problem_banner.hide()
            self.document.load(result.get("entries", ()))
            self.show_note(html.escape(result.get("message", "Merged and saved.")))
            self.sig_saved.emit(result)
            return
        if isinstance(result.get("merge"), MergeProposal):
            self._show_merge(result["merge"], keep=self.merge_panel.choices())
            return
        # Entry numbers count the merged result, not the editor's cards: name the text.
        self._refused({k: v for k, v in result.items() if k != "entry_index"})

    def _adopt_merge(self, proposal: MergeProposal, choices: dict) -> None:
        """Keep editing: the merged entries become the draft, against the disk's entries."""
        self.document.adopt(proposal.theirs, proposal.resolve(choices))
        self._hide_merge()
        self.show_note("Merged into the editor. Review it, then save.")

    # --- file-level actions ------------------------------------------------------------------
    def recreate(self) -> None:
        self._write(
            recreate_work(self.workspace.home, self.target, self.document.drafts()),
            self._on_recreated,
        )

    def _on_recreated(self, result: dict) -> None:
        if result.get("success"):
            self._deleted = False
            self.file_banner.hide()
            self.document.rebase(result.get("entries", ()))
            self.show_note(f"{self.file_name} recreated from the editor.")
            self.sig_saved.emit(result)
        else:
            self._refused(result)

    def accept_deletion(self) -> None:
        self._deleted = False
        self.file_banner.hide()
        self.document.load(())
        if self.status is not None:
            self._show_file_state(self.status)
        self._update_actions()

    def normalise(self) -> None:
        self._write(normalise_work(self.workspace.home, self.target), self._on_normalised)

    def _on_normalised(self, result: dict) -> None:
        if result.get("success"):
            self.show_note(
                f"{self.file_name} rewritten in canonical form; the previous text was backed "
                f"up next to it ({self.file_name}.bak.*)."
            )
            self.sig_saved.emit(result)
        else:
            self._refused(result)

    # --- queries --------------------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.document.dirty

    @property
    def merging(self) -> bool:
        return self.stack.currentWidget() is self.merge_panel

    @property
    def busy(self) -> bool:
        return self._busy

    def has_unsaved_work(self) -> bool:
        return self.document.dirty or self.merging

