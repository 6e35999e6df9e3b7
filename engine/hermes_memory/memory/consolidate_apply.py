"""Applying a consolidation merge at once, as the person worded it (the app's Consolidate view).

:func:`apply_merge` finds the group again in the stores as they are now (a group that no
longer exists, or whose entries moved, is refused with nothing written), keeps one entry
with the merged text and removes the others, each store through :func:`save_draft` (lock,
re-read, threat scan, budget, atomic write). A merge across MEMORY.md and USER.md writes
both or neither: when the second store refuses, the first is put back.

:func:`set_stores` is the undo and redo of such a change: every store back from what it
held after to what it held before (or the other way), again all or nothing.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from ..home import HermesHome
from .consolidate import consolidation_report
from .edits import save_draft
from .entries import FILE_NAMES, char_count
from .store import MemoryStore, StoreReadError

STALE_GROUP = (
    "These entries changed since the list was made, so nothing was merged. The list has "
    "been refreshed: check the group again."
)


def _find(home: HermesHome, group_id: str) -> dict[str, Any] | None:
    return next((g for g in consolidation_report(home)["groups"] if g["id"] == group_id), None)


def plan_merge(group: dict[str, Any], merged: str, stores: dict[str, Sequence[str]]) -> list[dict[str, Any]]:
    """Per store the group touches (the kept entry's store first): ``{"target", "before",
    "after"}``; raises ``LookupError`` when an entry is no longer where the group says."""
    entries = group["entries"]
    # the merged text takes the place of the entry it reads most like (the suggested one on
    # a tie): an editor open on the store then sees that entry edited and the others gone
    suggested = next(e for e in entries if e["fingerprint"] == group["keep"])
    keeper = max(
        entries,
        key=lambda e: (difflib.SequenceMatcher(None, e["text"], merged).ratio(), e is suggested),
    )
    targets = sorted({e["target"] for e in entries}, key=lambda t: t != keeper["target"])
    changes = []
    for target in targets:
        before = list(stores[target])
        after: list[str | None] = list(before)
        for entry in entries:
            if entry["target"] != target:
                continue
            index = entry["index"]
            if not (0 <= index < len(before)) or before[index] != entry["text"]:
                raise LookupError(entry["text"])
            after[index] = merged if entry is keeper else None
        changes.append({"target": target, "before": before, "after": [e for e in after if e is not None]})
    return changes


def set_stores(home: HermesHome, changes: Sequence[dict[str, Any]], *, reverse: bool = False) -> dict[str, Any]:
    """Make each store go from its ``before`` to its ``after`` (``reverse``: the other way),
    merging in what anyone else changed meanwhile; all stores or none."""
    store = MemoryStore(home)
    done: list[tuple[str, list[str], list[str]]] = []
    for change in changes:
        target = change["target"]
        start, end = (change["after"], change["before"]) if reverse else (change["before"], change["after"])
        result = save_draft(store, target, list(start), list(end), auto_merge=True)
        if not result.get("success"):
            for undo_target, undo_start, undo_end in reversed(done):  # put back what was written
                save_draft(store, undo_target, undo_end, undo_start, auto_merge=True)
            return {"ok": False, "message": f"{FILE_NAMES[target]}: {result.get('error') or 'the store refused it'}"}
        done.append((target, list(start), list(result.get("entries", end))))
    return {"ok": True, "message": "", "changes": changes}


def apply_merge(home: HermesHome, group_id: str, merged_text: str) -> dict[str, Any]:
    """Merge one group now: ``{"ok": True, "message", "merged_text", "changes": [{"target",
    "before", "after"}]}`` (``set_stores(changes, reverse=True)`` undoes it) or ``{"ok":
    False, "message", "stale"?}`` with nothing written."""
    merged = merged_text.strip()
    if not merged:
        return {"ok": False, "message": "The merged text is empty; nothing was merged."}
    group = _find(home, group_id)
    if group is None:
        return {"ok": False, "stale": True, "message": STALE_GROUP}
    store = MemoryStore(home)
    try:
        stores = {e["target"]: store.read_entries(e["target"]) for e in group["entries"]}
        changes = plan_merge(group, merged, stores)
    except StoreReadError as exc:
        return {"ok": False, "message": str(exc)}
    except LookupError:
        return {"ok": False, "stale": True, "message": STALE_GROUP}
    result = set_stores(home, changes)
    if not result["ok"]:
        return result
    saved = sum(char_count(c["before"]) - char_count(c["after"]) for c in changes)
    count = len(group["entries"])
    return {
        "ok": True,
        "merged_text": merged,
        "changes": changes,
        "message": f"Merged {count} entries into one ({saved:,} characters saved).",
    }
