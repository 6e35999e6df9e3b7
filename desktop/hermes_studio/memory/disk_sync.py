"""How a store editor follows its file on disk (Spyder's policy, entry by entry).

Reads arrive from the Workspace as ``StoreStatus``. When the file changes on disk, what only
the agent changed is folded into the cards at once (:mod:`.folding`), silently, with a short
note and a highlight on what arrived; the card being typed in keeps its text, caret,
selection, scroll and undo history. An entry both sides changed is a conflict: it is kept as
the person wrote it, and shown once they pause (or press Save), with the choices.
A deleted file offers to recreate it from the editor, or to accept the deletion.

The file's own state shows in the meter, the raw view and the file banner: a read error
(nothing is written until it reads again), a disabled store, or drift (normalise it here).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from hermes_memory.memory.edits import ROUND_TRIP_DRIFT
from hermes_memory.memory.status import StoreStatus

from .folding import Conflict, Fold, describe_fold, plan_fold, resolve_conflict
from .saving import plain_drafts

if TYPE_CHECKING:
    from .editor import StoreEditor


class DiskSync:
    """Turns each status read from disk into the editor's reaction."""

    def __init__(self, editor: StoreEditor) -> None:
        self.editor = editor
        self.loaded = False  # the first status was shown
        self.deleted = False  # the file vanished and the person has not chosen what to do
        self.pending: StoreStatus | None = None  # arrived while a write was running
        self.conflicts: list[Conflict] = []  # entries both sides changed, awaiting a choice

    def on_status(self, status: StoreStatus) -> None:
        editor = self.editor
        if status.target != editor.target:
            return
        if editor.busy:
            self.pending = status  # handled once our write reports back
            return
        previous = editor.status
        editor.status = status
        self.show_file_state(status)
        if status.error:
            editor.update_actions()
            return
        entries = tuple(status.entries)
        document = editor.document
        if not self.loaded:
            self.loaded = True
            document.load(entries)
            editor.run_check()
            editor.sig_loaded.emit()
            return
        if not status.exists and (
            self.deleted or (previous is not None and previous.exists) or document.base
        ):
            if not self.deleted:
                self._file_deleted()
            return
        if status.exists and self.deleted:
            self.deleted = False
            editor.file_banner.hide()
            self.show_file_state(status)
        if entries == document.base:
            editor.update_actions()
            editor.schedule_check()
            return
        self.absorb(entries)

    def catch_up(self) -> None:
        """After a write reports back: take the status that arrived while it ran."""
        pending, self.pending = self.pending, None
        if pending is not None:
            self.on_status(pending)

    def absorb(
        self,
        entries: Sequence[str],
        *,
        base: Sequence[str] | None = None,
        origins: Mapping[int, tuple[str, ...] | None] | None = None,
        quiet: bool = False,
    ) -> Fold:
        """Fold ``entries`` (on disk now) into the cards; record any conflicts.

        ``base`` and ``origins`` say what the cards were made from when that is not the
        editor's base (after a save: the texts the save was given)."""
        editor = self.editor
        document = editor.document
        bar = editor.card_list.verticalScrollBar()
        scroll = bar.value()
        fold = plan_fold(
            editor.target,
            document.base if base is None else base,
            document.cards,
            entries,
            origins,
        )
        document.fold(fold)
        if bar.value() != scroll:
            editor.card_list.restore_scroll(scroll)
        self._take_conflicts(fold)
        editor.mark_arrived(fold.arrived)
        if fold.changes_anything and not quiet:
            note = describe_fold(fold)
            mine = " Your edits are kept." if document.dirty else ""
            highlighted = " (highlighted)" if fold.arrived else ""
            editor.show_note(f"Updated from disk: {html.escape(note)}{highlighted}.{mine}")
            editor.sig_reloaded.emit(note)
        editor.schedule_check()
        editor.update_actions()
        return fold

    # --- conflicts ----------------------------------------------------------------------
    def _take_conflicts(self, fold: Fold) -> None:
        alive = {card.uid for card in self.editor.document.cards}
        on_disk = set(fold.base)
        kept = [
            conflict
            for conflict in self.conflicts
            if (not conflict.item.mine or alive.intersection(conflict.uids))
            and (not conflict.item.theirs or on_disk.intersection(conflict.item.theirs))
        ]
        for new in fold.conflicts:
            kept = [
                old
                for old in kept
                if not set(old.uids) & set(new.uids) and (new.uids or old.key != new.key)
            ]
            kept.append(new)
        if kept != self.conflicts:
            self.conflicts = kept
            self.editor.conflicts_changed()

    def resolve(self, conflict: Conflict, choice: str) -> None:
        """Apply the person's choice for ``conflict`` as one undoable step."""
        editor = self.editor
        if conflict not in self.conflicts:
            return
        document = editor.document
        labels = {"mine": "Keep my version", "theirs": "Use the agent's version",
                  "both": "Keep both versions"}
        cards = resolve_conflict(document.cards, conflict, choice, document.base)
        document.replace_cards(cards, labels[choice])
        self.conflicts.remove(conflict)
        editor.conflicts_changed()
        editor.update_actions()

    # --- the file's state ---------------------------------------------------------------
    def show_file_state(self, status: StoreStatus) -> None:
        """Meter, raw view and the file banner (disabled store, drift, read error)."""
        editor = self.editor
        file_name = editor.file_name
        editor.meter.set_usage(
            status.used, status.limit, enabled=status.enabled, error=status.error,
            file_name=file_name,
        )
        editor.previews.show_file(status, file_name)
        if status.error:
            kept = " Your edits are kept;" if editor.document.cards else ""
            editor.problem_banner.show_message(
                "error",
                f"<b>{html.escape(file_name)} cannot be read.</b> "
                f"{html.escape(status.error)}{kept} Nothing will be written until it can be "
                f"read. <b>What to do:</b> fix the file (it must be UTF-8 text you can read; "
                f"see {html.escape(str(status.path))}); the editor reloads it by itself.",
                closable=False,
            )
            editor.card_list.set_empty_text(
                f"Nothing to show: {file_name} cannot be read (see above)."
            )
            editor.problem_banner.setProperty("cause", "unreadable")
            return
        editor.card_list.set_empty_text(None)
        if editor.problem_banner.property("cause") == "unreadable":
            editor.problem_banner.hide()  # readable again
        if self.deleted:
            return
        if not status.enabled:
            setting = "memory_enabled" if editor.target == "memory" else "user_profile_enabled"
            editor.file_banner.show_message(
                "info",
                f"<b>This store is disabled</b> in config.yaml (memory.{setting}: false): the "
                "agent neither reads nor writes it, and the editor cannot save it.",
                closable=False,
            )
        elif status.drift == ROUND_TRIP_DRIFT:
            editor.file_banner.show_message(
                "warning",
                f"<b>{file_name} is not in canonical form</b>: its text would not survive "
                "a rewrite as §-separated entries (see the Raw file tab). The agent refuses to "
                "replace or remove entries in it, and saving here is blocked for the same "
                "reason. “Normalise” rewrites it cleanly after keeping a backup.",
                [
                    (
                        "Normalise…",
                        "Back up the file, then rewrite it canonically",
                        editor.normalise,
                    )
                ],
                closable=False,
            )
        elif status.drift:
            editor.file_banner.show_message(
                "warning",
                f"<b>One entry of {file_name} is larger than the whole budget</b> "
                f"({status.limit:,} chars), probably text pasted in by hand. The agent refuses "
                "to replace or remove entries until it is fixed: split it into several cards "
                "(or shorten it) here and save.",
                closable=False,
            )
        else:
            editor.file_banner.hide()

    def normalise(self) -> None:
        self.editor.saver.write("memory_normalise", {"target": self.editor.target}, self._on_normalised)

    def _on_normalised(self, result: dict) -> None:
        editor = self.editor
        if result.get("success"):
            editor.show_note(
                f"{editor.file_name} rewritten in canonical form; the previous text was backed "
                f"up next to it ({editor.file_name}.bak.*)."
            )
            editor.sig_saved.emit(result)
        else:
            editor.saver.refused(result)

    # --- deletion -----------------------------------------------------------------------
    def _file_deleted(self) -> None:
        editor = self.editor
        self.deleted = True
        has_content = bool(editor.document.saved_form())
        actions = [
            (
                "Accept deletion",
                "Clear the editor; the file stays deleted until you save new entries",
                editor.accept_deletion,
            )
        ]
        if has_content:
            actions.insert(
                0,
                (
                    "Recreate file",
                    f"Write the editor's entries to a new {editor.file_name}",
                    editor.recreate,
                ),
            )
        editor.file_banner.show_message(
            "warning",
            f"<b>{editor.file_name} was deleted on disk.</b> The editor still holds its "
            "entries"
            + (" and your unsaved edits" if editor.document.dirty else "")
            + ": recreate the file from them, or accept the deletion.",
            actions,
            closable=False,
        )
        editor.update_actions()
        editor.sig_deleted.emit()

    def recreate(self) -> None:
        editor = self.editor
        editor.saver.write("memory_recreate", {"target": editor.target,
                                               "drafts": plain_drafts(editor.document.drafts())},
                           self._on_recreated)

    def _on_recreated(self, result: dict) -> None:
        editor = self.editor
        if result.get("success"):
            self.deleted = False
            editor.file_banner.hide()
            editor.document.rebase(result.get("entries", ()))
            editor.show_note(f"{editor.file_name} recreated from the editor.")
            editor.sig_saved.emit(result)
        else:
            editor.saver.refused(result)

    def accept_deletion(self) -> None:
        editor = self.editor
        self.deleted = False
        editor.file_banner.hide()
        editor.document.load(())
        if editor.status is not None:
            self.show_file_state(editor.status)
        editor.update_actions()
