"""Deleting many memory cards of the learning graph at once, all or nothing.

Each store file (MEMORY.md, USER.md) is changed in one locked cycle of the store (lock,
re-read, remove every named entry by fingerprint, one atomic write), so a batch is at most
two writes. A card whose entry changed since the graph was read refuses the whole batch
("refresh the graph"); when the second file refuses, the first is put back. The result
keeps each file's entries before and after, which is what an undo needs: making the file
hold ``before`` again where it holds ``after`` (:func:`set_stores`, merging anything
written meanwhile).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..home import HermesHome
from ..memory.edits import save_draft
from ..memory.entries import FILE_NAMES, fingerprint
from ..memory.store import MemoryStore, StoreRefusal, for_people
from .memory_cards import parse_memory_id

STALE = "memory node id is stale — refresh the graph (the entry changed or was removed since it was read)"


def _group(ids: Sequence[str]) -> dict[str, set[str]] | str:
    if not isinstance(ids, list | tuple) or not ids:
        return "give the ids of the memory cards to delete"
    wanted: dict[str, set[str]] = {}
    for node_id in ids:
        try:
            parsed = parse_memory_id(node_id)
        except ValueError as exc:
            return str(exc)
        if parsed.fingerprint is None:
            return f"'{node_id}' names an entry by position only; refresh the graph and try again"
        wanted.setdefault(parsed.target, set()).add(parsed.fingerprint)
    return wanted


def delete_memory_nodes(home: HermesHome, ids: Sequence[str]) -> dict[str, Any]:
    """Remove the entries behind the memory card ``ids``: ``{"ok", "message", "deleted",
    "stores": {target: {"before": [...], "after": [...]}}}`` or ``{"ok": False, "message"}``
    with nothing changed."""
    wanted = _group(ids)
    if isinstance(wanted, str):
        return {"ok": False, "message": wanted}
    store = MemoryStore(home)
    stores: dict[str, dict[str, list[str]]] = {}
    for target in sorted(wanted):
        fingerprints = wanted[target]

        def change(entries: list[str], fingerprints: set[str] = fingerprints, target: str = target):
            found = {fingerprint(entry) for entry in entries} & fingerprints
            if found != fingerprints:
                raise StoreRefusal({"success": False, "error": STALE})
            after = [entry for entry in entries if fingerprint(entry) not in fingerprints]
            stores[target] = {"before": list(entries), "after": after}
            return after, f"deleted {len(entries) - len(after)} from {FILE_NAMES[target]}"

        result = store.mutate(target, change, drift_guard=True)
        if not result.get("success"):
            stores.pop(target, None)
            undone = set_stores(home, _reverse(stores)) if stores else {"ok": True}
            message = f"{FILE_NAMES[target]}: {for_people(str(result.get('error') or 'refused'))}"
            message += " — nothing was deleted" if undone["ok"] else f"; {undone['message']}"
            return {"ok": False, "message": message}
    deleted = sum(len(s["before"]) - len(s["after"]) for s in stores.values())
    files = " and ".join(FILE_NAMES[t] for t in stores)
    return {"ok": True, "deleted": deleted, "stores": stores,
            "message": f"deleted {deleted} memor{'y' if deleted == 1 else 'ies'} from {files}"}


def _reverse(stores: dict[str, dict[str, list[str]]]) -> dict[str, dict[str, list[str]]]:
    return {target: {"before": s["after"], "after": s["before"]} for target, s in stores.items()}


def set_stores(home: HermesHome, stores: dict[str, dict[str, Sequence[str]]]) -> dict[str, Any]:
    """Make each store hold ``after`` where it held ``before`` (an undo or redo of
    :func:`delete_memory_nodes`), merging what anyone wrote since; all or nothing."""
    store = MemoryStore(home)
    done: list[str] = []
    for target in sorted(stores):
        if target not in FILE_NAMES:
            return {"ok": False, "message": f"unknown store {target!r}"}
        before, after = list(stores[target]["before"]), list(stores[target]["after"])
        result = save_draft(store, target, before, after, auto_merge=True)
        if not result.get("success"):
            for back in reversed(done):
                save_draft(store, back, list(stores[back]["after"]), list(stores[back]["before"]),
                           auto_merge=True)
            return {"ok": False,
                    "message": f"{FILE_NAMES[target]}: {result.get('error') or 'the store refused it'}"}
        done.append(target)
    return {"ok": True, "message": " and ".join(FILE_NAMES[t] for t in done) + " updated"}
