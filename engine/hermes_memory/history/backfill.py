"""``history import-sessions``: the agent's past memory writes, from ``state.db``.

Every ``memory`` call the agent made (and that was not refused) is replayed in time order
on a reconstruction of the two stores, starting empty as a new home does, and each call
that changed a store becomes a version with its session id, platform and time. Only
calls older than the first version recorded otherwise are imported (later ones were seen
by captures and engine writes, which attribute them to their sessions), so a home has
history from its first session. Running it again adds only what is new: each imported
version keeps the key of its call.

A reconstruction is a best effort: a ``replace`` whose text is not found (an entry
written before the history, or by hand) adds its new text, a ``remove`` that finds
nothing changes nothing. The next capture records any difference from the real file.
"""

from __future__ import annotations

import math
from typing import Any

from ..home import HermesHome
from ..memory.entries import TARGETS
from ..sessions.errors import SessionStoreError
from ..sessions.provenance import MemoryCall, memory_calls
from .recording import FOREGROUND, hashes_of, memory_event, next_depth
from .storage import HistoryError, HistoryStore

IMPORT_ACTION = "import"


def replay(entries: list[str], ops: list[tuple[str, str | None, str | None, str | None]]) -> list[str]:
    """``entries`` after one call's ops, as the memory tool applied them (tolerantly)."""
    working = list(entries)
    for action, _target, content, old_text in ops:
        if action == "add":
            if content and content not in working:
                working.append(content)
            continue
        if not old_text:
            continue
        match = next((i for i, e in enumerate(working) if e == old_text), None)
        if match is None:
            match = next((i for i, e in enumerate(working) if old_text in e), None)
        if action == "remove":
            if match is not None:
                del working[match]
        elif content:
            if match is None:
                if content not in working:
                    working.append(content)
            elif content in working and working[match] != content:
                del working[match]
            else:
                working[match] = content
    return working


def _by_target(call: MemoryCall) -> dict[str, list]:
    groups: dict[str, list] = {}
    for op in call.ops:
        groups.setdefault(op[1] or "memory", []).append(op)
    return groups


def import_sessions(home: HermesHome) -> dict[str, Any]:
    """Backfill versions from the session history; a summary of what was added."""
    try:
        calls = memory_calls(home)
    except SessionStoreError as exc:
        return {"ok": False, "error": str(exc), "imported": 0}
    store = HistoryStore(home)
    try:
        with store.locked():
            log = store.read_events(full=False)  # times and kinds are all this needs
            imported = store.read_events(imported=True, full=False)
            cutoff = {
                target: min((e["ts"] for e in log.events
                             if e["kind"] == target and e.get("action") != IMPORT_ACTION), default=math.inf)
                for target in TARGETS
            }  # fmt: skip
            done = {e["key"] for e in imported.events if isinstance(e.get("key"), str)}
            known = {h for e in imported.events
                     for h in e.get("entries") or [h for op in e.get("delta") or () for h in op[2]]}  # fmt: skip
            parents: dict[str, tuple[list[str], int]] = {}
            stores: dict[str, list[str]] = {target: [] for target in TARGETS}
            events: list[dict[str, Any]] = []
            blobs: dict[str, str] = {}
            later = 0
            for call in calls:
                for target, ops in _by_target(call).items():
                    if target not in stores:
                        continue
                    if call.timestamp >= cutoff[target]:
                        later += 1
                        continue
                    after = replay(stores[target], ops)
                    if after == stores[target]:
                        continue
                    stores[target] = after
                    key = f"{call.session_id}/{call.message_id}/{call.call_id or ''}/{target}"
                    if key in done:
                        continue
                    parent, depth = parents.get(target, (None, 0))
                    event = memory_event(
                        target, after, None, origin=FOREGROUND, action=IMPORT_ACTION,
                        ts=call.timestamp, blobs=blobs, known=known, parent=parent, depth=depth,
                        session=call.session_id, platform=call.source, key=key,
                    )  # fmt: skip
                    parents[target] = (hashes_of(after), next_depth(event, depth))
                    known.update(parents[target][0])
                    events.append(event)
            store.append(events, blobs, imported=True)
    except HistoryError as exc:
        return {"ok": False, "error": str(exc), "imported": 0}
    return {
        "ok": True,
        "imported": len(events),
        "calls": len(calls),
        "sessions": len({e["session"] for e in events}),
        "left_to_captures": later,
    }
