"""Memory changes during a review: planned with the real tool, written only on commit.

:class:`PlanningMemoryStore` is a :class:`MemoryStore` whose one write path,
:meth:`~MemoryStore.mutate`, works on an in-memory copy instead of the file. The review's
``memory`` tool calls therefore go through the engine's own dispatcher and store logic
(validation, scanner, matching, budgets, messages), and each change that would have been
written is handed to a callback as ``(target, removed_entries, added_entries)``.

The change is written later, through the staged-write queue's write path (at the end of
an apply-mode run, or when a person approves the proposal).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config import MemoryConfig
from ..home import HermesHome
from ..memory import entries as fmt
from ..memory.store import (
    MAX_CONSOLIDATION_FAILURES_PER_TURN,
    MemoryStore,
    StoreFile,
    StoreReadError,
    StoreRefusal,
    detect_drift,
    read_store_file,
)

#: ``(target, removed, added) -> extra payload fields`` (e.g. the pending id)
ChangeCallback = Callable[[str, list[str], list[str]], dict[str, Any]]


class PlanningMemoryStore(MemoryStore):
    """The stores of one home as a review sees them: the files plus its own planned edits."""

    def __init__(
        self,
        home: HermesHome,
        on_change: ChangeCallback,
        config: MemoryConfig | None = None,
        *,
        note: str = "",
    ):
        super().__init__(home, config)
        self._on_change = on_change
        self._planned: dict[str, list[str]] = {}
        self._failures = 0
        self._note = note

    def read_entries(self, target: str) -> list[str]:
        """The entries with this review's planned changes applied (never written)."""
        if target in self._planned:
            return list(self._planned[target])
        return read_store_file(self.path(target)).entries

    def planned_entries(self, target: str) -> list[str]:
        return self.read_entries(target)

    def mutate(
        self,
        target: str,
        change: Callable[[list[str]], tuple[list[str], str]],
        *,
        drift_guard: bool = True,
        check_file: Callable[[StoreFile], None] | None = None,
    ) -> dict:
        """Run ``change`` on the planned entries and report it; the file is not touched."""
        refusal = self.disabled_refusal(target)
        if refusal:
            return refusal
        try:
            on_disk = read_store_file(self.path(target))
        except StoreReadError as exc:
            return {"success": False, "error": str(exc)}
        try:
            if check_file is not None:
                check_file(on_disk)
        except StoreRefusal as refusal:
            return refusal.payload
        if drift_guard and detect_drift(on_disk, self.limit(target)):
            # The real store would back the file up here; a review never writes, it refuses.
            return {
                "success": False,
                "error": f"{fmt.FILE_NAMES[target]} on disk has content that would not survive "
                "a rewrite by the memory tool (a manual edit or a shell append?). A person has "
                "to tidy it first; leave this store unchanged in this review.",
            }
        base = self._planned.get(target, on_disk.entries)
        working = list(base)
        try:
            new_entries, message = change(working)
        except StoreRefusal as refusal:
            if refusal.counts_as_failure:
                return self._count(refusal.payload)
            return refusal.payload
        extra: dict[str, Any] = {}
        planned = False
        if new_entries is not working:
            new_entries = fmt.dedupe(new_entries)
            kept = set(new_entries)
            old = set(base)
            removed = [entry for entry in base if entry not in kept]
            added = [entry for entry in new_entries if entry not in old]
            if removed or added:
                self._planned[target] = new_entries
                extra = self._on_change(target, removed, added) or {}
                planned = True
        else:
            new_entries = base
        self._failures = 0
        payload = {
            "success": True,
            "done": True,
            "target": target,
            "usage": fmt.usage_summary(fmt.char_count(new_entries), self.limit(target)),
            "entry_count": len(new_entries),
            "message": message,
        }
        if self._note and planned:
            payload["note"] = self._note
        payload.update(extra)
        return payload

    def _count(self, payload: dict) -> dict:
        """The per-turn consolidation cap (spec §2.6); the whole review is one turn."""
        self._failures += 1
        if self._failures > MAX_CONSOLIDATION_FAILURES_PER_TURN:
            return {
                "success": False,
                "done": True,
                "error": f"Memory consolidation failed {self._failures} times in this review. "
                "Stop calling the memory tool; leave memory as it is.",
            }
        return payload
