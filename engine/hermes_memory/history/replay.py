"""Replaying history at a date, fast enough to follow a scrubber, and stepping a restore back.

A scrubber asks for the state at one date after another. Reading the history folder for
each step would cost a full parse per step, so :func:`replay` keeps the last
:class:`~.timeline.Timeline` per home, keyed by the identity (device, inode, size, mtime)
of every file it read; any append, rewrite or ledger line makes a new read. The cache only
serves reads: writes never use it.

:func:`step` makes a store or skill go from one recorded version to another (the undo and
redo of a restore): memory through the editor's merge, so whatever the agent wrote since
is kept; a skill only when it is still as the first version left it.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ..home import HermesHome
from ..memory.entries import TARGETS
from .ledger import ledger_path
from .storage import HistoryStore
from .timeline import NOW, Timeline

_cache: dict[str, tuple[tuple, Timeline]] = {}
_cache_lock = threading.Lock()


def _identity(home: HermesHome) -> tuple:
    store = HistoryStore(home)
    key = []
    for path in (store.events_path, store.imports_path, store.blobs_path, ledger_path(home)):
        try:
            info = os.stat(path)
            key.append((info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns))
        except OSError:
            key.append(None)
    return tuple(key)


def timeline(home: HermesHome) -> Timeline:
    """The home's history, re-read only when one of its files changed identity."""
    identity = _identity(home)
    name = str(home.path)
    with _cache_lock:
        cached = _cache.get(name)
        if cached is not None and cached[0] == identity:
            return cached[1]
    fresh = Timeline(home)
    fresh.rebuild_all()
    with _cache_lock:
        _cache[name] = (identity, fresh)
    return fresh


def replay(home: HermesHome, when: float | None) -> dict[str, Any]:
    """Both stores' entries (text and fingerprint) and every skill's state at ``when``,
    with the span of the history and the versions that applied then."""
    line = timeline(home)
    with _cache_lock:  # the timeline fills its blob cache lazily
        state = line.state_at(when, texts=True)
    for target in TARGETS:
        store = state[target]
        event = line.get(store["version"]) if store["version"] else None
        hashes = line.hashes(event) if event else []
        store["entries"] = [{"fingerprint": digest[:12], "text": text}
                            for digest, text in zip(hashes, store["entries"], strict=True)]  # fmt: skip
        store["ts"] = event["ts"] if event else None
    for skill in state["skills"]:
        skill.pop("md", None)
    events = line.events
    return {"ok": True, **state, "first": events[0]["ts"] if events else None,
            "last": events[-1]["ts"] if events else None, "versions": len(events),
            "problems": list(line.problems)}  # fmt: skip


def step(home: HermesHome, from_id: str, to_id: str) -> dict[str, Any]:
    """Make the store or skill that is at version ``from_id`` be as at ``to_id``."""
    from . import service

    line = Timeline(home)
    start, goal = line.get(from_id), line.get(to_id)
    if start is None or goal is None:
        return {"ok": False, "error": f"History no longer has version {from_id if start is None else to_id}."}
    if start["kind"] in TARGETS:
        from ..api import set_entries

        result = set_entries(home, start["kind"], line.entries(start), line.entries(goal))
        if result.get("ok"):
            return result
        return {**result, "error": result.get("message") or "the store refused it"}
    now = service.diff(home, from_id, NOW)
    if not now.get("ok"):
        return now
    if not now.get("empty"):
        return {"ok": False, "error": f"'{start['skill']}' changed since; nothing was undone "
                                      "(the History tab shows what changed)."}  # fmt: skip
    return service.restore(home, to_id)


def _head(home: HermesHome, kind: str, skill: str | None) -> str | None:
    match = {"kind": kind, **({"skill": skill} if kind == "skill" else {})}
    event = HistoryStore(home).last_event(match)
    return event["id"] if event else None


def restore_undoable(home: HermesHome, version_id: str, entry: str | None = None) -> dict[str, Any]:
    """Restore like ``history_restore``, and say how to undo it: ``undo`` is
    ``{"from_id", "to_id"}`` for :func:`step` (``None`` when nothing was written), and
    ``write`` the kind of change (``memory``, ``user`` or ``skills``)."""
    from . import service

    event = Timeline(home, lazy=True).get(version_id)
    if event is None:
        return {"ok": False, "error": f"No history version '{version_id}'. 'history log' lists them."}
    kind, skill = event["kind"], event.get("skill")
    before = _head(home, kind, skill)
    result = service.restore(home, version_id, entry)
    after = _head(home, kind, skill)
    undo = None
    if result.get("ok") and after is not None and after != before:
        line = Timeline(home, lazy=True)
        new = line.get(after)
        parent = line.parent(new) if new else None
        if parent is not None:
            undo = {"from_id": after, "to_id": parent["id"]}
    return {**result, "undo": undo, "write": "skills" if kind == "skill" else kind}
