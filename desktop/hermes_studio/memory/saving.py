"""How a store editor writes: Save, and the engine's refusals.

Every write is an engine-face call run on the Workspace's one writer thread.
While it runs the editor is busy: Save and the structural commands are off, and statuses read
from disk wait until the write reports back; typing goes on (nothing typed is lost: what was
typed during the save is folded onto what was saved). The engine decides; a refusal is shown
as it says. A save that meets changes made on disk meanwhile is merged by the engine when
nothing conflicts; a conflict is handed to the editor to show.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_memory.memory.edits import ROUND_TRIP_DRIFT, DraftEntry, prepare_draft
from hermes_memory.memory.entries import preview

if TYPE_CHECKING:
    from .editor import StoreEditor


class Saver:
    """One editor's writes, and its busy state while one runs."""

    def __init__(self, editor: StoreEditor) -> None:
        self.editor = editor
        self.busy = False
        self._submitted: dict[int, str] = {}  # uid -> the stripped text the save was given
        self._submitted_base: tuple[str, ...] = ()  # the file as loaded when Save was pressed

    def block_reason(self) -> str | None:
        """Why Save is disabled now, or ``None`` when it is enabled."""
        editor = self.editor
        status = editor.status
        if status is None:
            return "The file is still loading."
        if self.busy:
            return "Saving…"
        if status.error:
            return f"{editor.file_name} cannot be read, so it will not be written."
        if not status.enabled:
            return "This store is disabled in config.yaml."
        if editor.disk.deleted:
            return f"{editor.file_name} was deleted: recreate it or accept the deletion."
        if status.drift == ROUND_TRIP_DRIFT:
            return "The file is not in canonical form: normalise it first."
        if not editor.document.dirty:
            return "No unsaved changes."
        check = editor.check
        if check is not None and [c.text for c in check.entries] == [
            t.strip() for t in editor.document.texts()
        ]:
            blocking = check.blocking()
            if blocking:
                index, message = blocking[0]
                return f"Entry #{index + 1} cannot be saved. {message}"
            if check.over_budget:
                return (
                    f"Over budget by {check.used - check.limit:,} characters: shorten, merge "
                    "or remove entries to save."
                )
        return None

    # --- the write cycle ----------------------------------------------------------------
    def write(self, method: str, params: dict[str, Any], on_done: Callable[[dict], None]) -> None:
        """Call ``method`` of the engine face on the writer thread; ``on_done`` gets its payload."""
        self._set_busy(True)
        future = self.editor.workspace.call(
            method, params, lambda result: self._written(result, on_done), write=self.editor.target
        )
        if future is None:  # the workspace is closed
            self._set_busy(False)

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.editor.update_actions()

    def _written(self, result: dict, on_done: Callable[[dict], None]) -> None:
        # The write is on disk either way; an editor closed meanwhile has nothing to show.
        if not self.editor.alive():
            return
        self._set_busy(False)
        on_done(result)
        self.editor.disk.catch_up()
        self.editor.update_actions()

    def refused(self, result: dict) -> None:
        """Show the engine's refusal, and go to the entry it names."""
        editor = self.editor
        message = str(result.get("error", "The engine refused the write."))
        entry = result.get("entry")
        quoted = f" (“{html.escape(preview(entry, 60))}”)" if isinstance(entry, str) else ""
        editor.problem_banner.show_message(
            "error", f"<b>Not saved.</b> {html.escape(message)}{quoted}"
        )
        editor.problem_banner.setProperty("cause", "refusal")
        index = result.get("entry_index")
        if isinstance(index, int) and 0 <= index < len(editor.document.cards):
            editor.focus_card(editor.document.cards[index].uid)
        editor.sig_refused.emit(message)

    # --- saving the draft ---------------------------------------------------------------
    def save(self) -> None:
        """Save the draft: engine operations under the lock, never a blind overwrite."""
        editor = self.editor
        if editor.disk.conflicts:
            editor.show_conflicts()  # the person decides first
            return
        editor.run_check()
        reason = self.block_reason()
        if reason is not None:
            if editor.document.dirty:
                editor.problem_banner.show_message("error", html.escape(reason))
                editor.problem_banner.setProperty("cause", "refusal")
            return
        document = editor.document
        self._submitted = {card.uid: card.text.strip() for card in document.cards}
        self._submitted_base = tuple(document.base)
        self.write("memory_save_draft", {"target": editor.target, "base": list(document.base),
                                         "drafts": plain_drafts(document.drafts())}, self._on_saved)

    def _on_saved(self, result: dict) -> None:
        editor = self.editor
        submitted, self._submitted = self._submitted, {}
        if result.get("success"):
            editor.problem_banner.hide()
            saved = result.get("entries", editor.document.saved_form())
            # Fold what was saved onto the cards: keystrokes typed during the save stay as
            # the person's edits, and what the agent wrote meanwhile arrives as its changes.
            origins = {
                card.uid: ((submitted[card.uid],) if submitted[card.uid] else ())
                if card.uid in submitted
                else card.origins
                for card in editor.document.cards
            }
            base = prepare_draft(submitted.values()) if submitted else list(editor.document.base)
            editor.disk.absorb(saved, base=base, origins=origins, quiet=True)
            editor.show_note(html.escape(result.get("message", "Saved.")))
            editor.schedule_check()
            # What the save changed, for the app's history: from the file as loaded to the
            # person's entries (an undo merges in whatever the agent wrote meanwhile).
            editor.sig_saved.emit({**result, "before": list(self._submitted_base), "after": base})
            return
        if result.get("conflict"):
            # Someone changed the same entries meanwhile: take their side in, show the conflict.
            editor.disk.absorb(result.get("current_entries", ()))
            editor.show_conflicts()
            return
        self.refused(result)


def plain_drafts(drafts: list[DraftEntry]) -> list[dict[str, Any]]:
    """The cards as the engine face takes them: each text and the base entries it came from."""
    return [{"text": d.text, "origins": None if d.origins is None else list(d.origins)} for d in drafts]
