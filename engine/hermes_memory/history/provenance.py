"""Provenance you can act on: for each memory entry and each skill, where it came from.

First seen, last changed, by whom (agent, background review, this app, by hand,
unknown) and in which sessions, combining three sources:

* history (our versions: an entry's lineage through its replaces, a skill's chain);
* ``state.db`` (the agent's ``memory`` calls that wrote the entry's text);
* upstream's curator ledger (skill mutations with their actor and session), already
  part of the skill chains, and ``.usage.json`` (``created_by``, ``created_at``).

:class:`GraphProvenance` is the cheap form the learning graph attaches to its nodes: it
reads history and the ledger only (``state.db`` already dates the cards) and is re-read
only when one of those files changes.
"""

from __future__ import annotations

import os
from typing import Any

from ..home import HermesHome
from ..memory.entries import TARGETS, fingerprint
from ..memory.store import StoreReadError, read_store_file
from ..sessions.errors import SessionStoreError
from ..sessions.provenance import memory_provenance
from ..skills.usage import read_usage, to_epoch
from .ledger import ledger_path
from .recording import FOREGROUND, UNKNOWN
from .storage import HistoryStore, content_hash
from .timeline import Timeline


def _sessions(events: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    for event in events:
        for session in [event.get("session"), *(event.get("sessions") or ())]:
            if session and session not in found:
                found.append(session)
    return found


def _entry_from_history(timeline: Timeline, target: str, entry: str) -> dict[str, Any]:
    digest = content_hash(entry)
    if not any(digest in e["entries"] for e in timeline.chain(target)):
        return {}
    lineage = timeline.lineage(digest[:12]) or {"steps": []}
    steps = [s for s in lineage["steps"] if s["kind"] != "removed"]
    if not steps:
        return {}
    return {
        "first_seen": steps[0]["ts"],
        "last_changed": steps[-1]["ts"],
        "first_by": steps[0]["origin"],
        "last_by": steps[-1]["origin"],
        "by": list(dict.fromkeys(s["origin"] for s in steps)),
        "sessions": [s for s in dict.fromkeys(s["session"] for s in steps) if s],
        "versions": [s["version"] for s in steps],
    }


def memory_entries(home: HermesHome) -> list[tuple[str, str]]:
    found = []
    for target in TARGETS:
        try:
            found += [(target, e) for e in read_store_file(home.store_file(target)).entries]
        except StoreReadError:
            continue
    return found


def entry_provenance(home: HermesHome, timeline: Timeline | None = None) -> list[dict[str, Any]]:
    """One record per current memory entry."""
    timeline = timeline or Timeline(home)
    entries = memory_entries(home)
    from_db: dict[str, Any] = {}
    if home.state_db.is_file() and entries:
        try:
            from_db = memory_provenance(home, [e for _, e in entries])
        except SessionStoreError:
            from_db = {}
    rows = []
    for target, entry in entries:
        known = _entry_from_history(timeline, target, entry)
        db = from_db.get(entry)
        db_events = [e for e in db.events if (e.target or "memory") == target] if db else []
        firsts = [t for t in (known.get("first_seen"), db_events[0].timestamp if db_events else None) if t]
        lasts = [t for t in (known.get("last_changed"), db_events[-1].timestamp if db_events else None) if t]
        by = list(known.get("by", []))
        if db_events and FOREGROUND not in by:
            by = [b for b in by if b != UNKNOWN] + [FOREGROUND]
        sessions = list(dict.fromkeys([*known.get("sessions", []), *(e.session_id for e in db_events)]))
        last_by = known.get("last_by")
        if db_events and (last_by in (None, UNKNOWN) or db_events[-1].timestamp >= (known.get("last_changed") or 0)):
            last_by = FOREGROUND
        rows.append({
            "target": target,
            "fingerprint": fingerprint(entry),
            "entry": entry,
            "first_seen": min(firsts) if firsts else None,
            "last_changed": max(lasts) if lasts else None,
            "by": by or [UNKNOWN],
            "last_by": last_by or UNKNOWN,
            "sessions": sessions,
            "platforms": list(dict.fromkeys(e.source for e in db_events if e.source)),
            "versions": known.get("versions", []),
        })  # fmt: skip
    return rows


def skill_provenance(home: HermesHome, timeline: Timeline | None = None) -> list[dict[str, Any]]:
    """One record per skill history, the ledger or ``.usage.json`` knows of."""
    timeline = timeline or Timeline(home)
    usage = read_usage(home)
    rows = []
    for name in sorted(set(timeline.skill_names()) | set(usage.records)):
        chain = timeline.chain("skill", name)
        record = usage.record(name)
        created = to_epoch(record.get("created_at"))
        patched = to_epoch(record.get("last_patched_at"))
        firsts = [t for t in (chain[0]["ts"] if chain else None, created) if t]
        lasts = [t for t in (chain[-1]["ts"] if chain else None, patched) if t]
        by = list(dict.fromkeys(e.get("origin") or UNKNOWN for e in chain))
        if record.get("created_by") == "agent" and FOREGROUND not in by:
            by.append(FOREGROUND)
        rows.append({
            "skill": name,
            "first_seen": min(firsts) if firsts else None,
            "last_changed": max(lasts) if lasts else None,
            "by": by or [UNKNOWN],
            "last_by": (chain[-1].get("origin") if chain else None) or UNKNOWN,
            "created_by": record.get("created_by"),
            "sessions": _sessions(chain),
            "versions": [e["id"] for e in chain],
            "state": timeline.skill_fields(chain[-1])["state"] if chain else record.get("state"),
        })  # fmt: skip
    return rows


def provenance(home: HermesHome) -> dict[str, Any]:
    timeline = Timeline(home)
    return {
        "entries": entry_provenance(home, timeline),
        "skills": skill_provenance(home, timeline),
        "problems": timeline.problems,
    }


# --- the graph's extra keys ----------------------------------------------------------
def _identity(path: os.PathLike[str]) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class GraphProvenance:
    """``history`` keys for graph nodes, recomputed only when history or the ledger changed."""

    def __init__(self, home: HermesHome):
        self.home = home
        self._key: tuple | None = None
        self._skills: dict[str, dict[str, Any]] = {}
        self._first: dict[str, dict[str, Any]] = {}  # entry fingerprint -> its story

    def _refresh(self) -> None:
        store = HistoryStore(self.home)
        key = (_identity(store.events_path), _identity(ledger_path(self.home)))
        if key == self._key:
            return
        self._key = key
        self._skills, self._first = {}, {}
        if key == (None, None):
            return
        timeline = Timeline(self.home)
        for name in timeline.skill_names():
            chain = timeline.chain("skill", name)
            self._skills[name] = {
                "firstSeen": chain[0]["ts"], "lastChanged": chain[-1]["ts"],
                "by": list(dict.fromkeys(e.get("origin") or UNKNOWN for e in chain)),
                "lastBy": chain[-1].get("origin") or UNKNOWN, "sessions": _sessions(chain),
                "versions": len(chain),
            }  # fmt: skip
        # Per entry text: the version that first held it and the one before, by chain.
        for target in TARGETS:
            seen: set[str] = set()
            for event in timeline.chain(target):
                for digest in event["entries"]:
                    if digest not in seen:
                        seen.add(digest)
                        self._first[digest[:12]] = {
                            "lastChanged": event["ts"], "lastBy": event.get("origin") or UNKNOWN,
                            "sessions": _sessions([event]), "version": event["id"],
                        }  # fmt: skip

    def attach(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Add a ``history`` key to the nodes history knows (other keys untouched)."""
        self._refresh()
        if not self._skills and not self._first:
            return payload
        for node in payload.get("nodes", ()):
            if node.get("kind") == "skill":
                found = self._skills.get(node.get("id"))
            else:
                found = self._first.get(node.get("fingerprint"))
            if found is not None:
                node["history"] = found
        return payload
