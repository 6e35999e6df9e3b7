"""The engine's one face for the desktop (and, later, for a remote home over ``serve``).

Plain functions over a :class:`~hermes_memory.home.HermesHome`, taking and returning plain,
JSON-serialisable data (dicts, lists, strings, numbers). The desktop calls them in-process
for a local home; a remote home will carry the same calls as JSON lines. Nothing here
imports Qt, and nothing here keeps state between calls: every call re-reads the disk.

Each flow keeps its own section below; the work itself lives in the flow's package.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .home import HermesHome
from .memory.edits import save_draft
from .memory.entries import FILE_NAMES
from .memory.store import MemoryStore, StoreReadError


# --- memory stores -------------------------------------------------------------------
def set_entries(
    home: HermesHome, target: str, expected: Sequence[str], entries: Sequence[str]
) -> dict[str, Any]:
    """Make the store hold ``entries`` where it held ``expected`` (an undo or redo of a save).

    What anyone changed since ``expected`` is merged in when it does not conflict; a conflict
    refuses with nothing written. ``{"ok", "message", "entries"}``.
    """
    result = save_draft(MemoryStore(home), target, list(expected), list(entries), auto_merge=True)
    if result.get("success"):
        return {"ok": True, "message": str(result.get("message", "Saved.")),
                "entries": list(result.get("entries", ()))}
    return {"ok": False, "message": str(result.get("error") or "the store refused it")}


def _edit_entries(home: HermesHome, target: str, change) -> dict[str, Any]:
    store = MemoryStore(home)
    try:
        current = store.read_entries(target)
    except StoreReadError as exc:
        return {"ok": False, "message": str(exc)}
    draft, message = change(list(current))
    if draft is None:
        return {"ok": False, "message": message}
    if draft == current:
        return {"ok": True, "message": message}
    result = save_draft(store, target, current, draft)
    if result.get("success"):
        return {"ok": True, "message": message}
    return {"ok": False, "message": str(result.get("error") or "the store refused it")}


def insert_entry(home: HermesHome, target: str, position: int, text: str) -> dict[str, Any]:
    """Put ``text`` back at ``position`` (clamped), under the lock, budget and scanner."""
    name = FILE_NAMES[target]

    def change(current: list[str]):
        if text in current:
            return current, f"the entry is already in {name}"
        at = max(0, min(position, len(current)))
        return current[:at] + [text] + current[at:], f"put the entry back in {name}"

    return _edit_entries(home, target, change)


def remove_entry(home: HermesHome, target: str, text: str) -> dict[str, Any]:
    """Remove the entry that reads exactly ``text``."""
    name = FILE_NAMES[target]

    def change(current: list[str]):
        if text not in current:
            return None, f"that entry is no longer in {name}"
        return [entry for entry in current if entry != text], f"deleted memory from {name}"

    return _edit_entries(home, target, change)


def swap_entry(home: HermesHome, target: str, old: str, new: str) -> dict[str, Any]:
    """Replace the entry that reads exactly ``old`` with ``new``, in place."""
    name = FILE_NAMES[target]

    def change(current: list[str]):
        if old not in current:
            return None, f"that entry changed in {name} since; nothing was replaced"
        return [new if entry == old else entry for entry in current], f"edited memory in {name}"

    return _edit_entries(home, target, change)


# --- skills and the learning graph ---------------------------------------------------

# --- the staged-write queue (pending/) -----------------------------------------------

# --- history and provenance (history/) -----------------------------------------------

# --- session history (sessions/) -----------------------------------------------------
