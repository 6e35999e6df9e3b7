"""How a store editor writes: Save, the merge panel's save, and the engine's refusals.

Every write is an engine call run on the Workspace's one writer thread (see :mod:`.workers`).
While it runs the editor is busy: cards are read-only, Save is off, and statuses read from
disk wait until the write reports back. The engine decides; a refusal is shown as it says.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_memory.memory.edits import ROUND_TRIP_DRIFT, MergeProposal
from hermes_memory.memory.entries import preview

from .workers import Work, merge_work, save_work

if TYPE_CHECKING:
    from .editor import StoreEditor


class Saver:
    """One editor's writes, and its busy state while one runs."""

    def __init__(self, editor: StoreEditor) -> None:
        self.editor = editor
        self.busy = False

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
        if editor.merging:
            return "Resolve the merge first."
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
        return None

    # --- the write cycle ----------------------------------------------------------------
    def write(self, work: Work, on_done: Callable[[dict], None]) -> None:
        """Run ``work`` on the writer thread; ``on_done`` gets the engine's payload."""
        self._set_busy(True)
        future = self.editor.workspace.write(
            self.editor.target, work, lambda result: self._written(result, on_done)
        )
        if future is None:  # the workspace is closed
            self._set_busy(False)

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        for card in self.editor.card_list.cards.values():
            card.text_edit.setReadOnly(busy)
        self.editor.merge_panel.set_busy(busy)
        self.editor.update_actions()

    def _written(self, result: dict, on_done: Callable[[dict], None]) -> None:
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
        index = result.get("entry_index")
        if isinstance(index, int) and 0 <= index < len(editor.document.cards):
            editor.focus_card(editor.document.cards[index].uid)
        editor.sig_refused.emit(message)

    # --- saving the draft ---------------------------------------------------------------
    def save(self) -> None:
        """Save the draft: engine operations under the lock, never a blind overwrite."""
        editor = self.editor
        editor.run_check()
        reason = self.block_reason()
        if reason is not None:
            if editor.document.dirty:
                editor.problem_banner.show_message("error", html.escape(reason))
            return
        document = editor.document
        work = save_work(editor.workspace.home, editor.target, document.base, document.drafts())
        self.write(work, self._on_saved)

    def _on_saved(self, result: dict) -> None:
        editor = self.editor
        if result.get("success"):
            editor.problem_banner.hide()
            editor.document.rebase(result.get("entries", editor.document.saved_form()))
            editor.show_note(html.escape(result.get("message", "Saved.")))
            editor.schedule_check()
            editor.sig_saved.emit(result)
            return
        if isinstance(result.get("merge"), MergeProposal):
            editor.show_merge(result["merge"])
            return
        self.refused(result)

    # --- saving a merge -----------------------------------------------------------------
    def save_merge(self, proposal: MergeProposal, choices: dict) -> None:
        self.write(merge_work(self.editor.workspace.home, proposal, choices), self._on_merge_saved)

    def _on_merge_saved(self, result: dict) -> None:
        editor = self.editor
        if result.get("success"):
            editor.hide_merge()
            editor.problem_banner.hide()
            editor.document.load(result.get("entries", ()))
            editor.show_note(html.escape(result.get("message", "Merged and saved.")))
            editor.sig_saved.emit(result)
            return
        if isinstance(result.get("merge"), MergeProposal):
            editor.show_merge(result["merge"], keep=editor.merge_panel.choices())
            return
        # Entry numbers count the merged result, not the editor's cards: name the text.
        self.refused({k: v for k, v in result.items() if k != "entry_index"})
