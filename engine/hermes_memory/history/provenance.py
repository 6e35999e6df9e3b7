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

import json
import os
from operator import itemgetter
from typing import Any

from ..home import HermesHome
from ..memory.entries import TARGETS, fingerprint
from ..skills.usage import read_usage, to_epoch
from .ledger import ledger_path
from .recording import FOREGROUND, UNKNOWN
from .storage import (
    HistoryError,
    HistoryStore,
    apply_delta,
    content_hash,
    materialise,
    parse_log,
    valid_event,
)
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
    # imported here: the learning graph imports this module for GraphProvenance only
    from ..memory.store import StoreReadError, read_store_file

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
        from ..sessions.errors import SessionStoreError
        from ..sessions.provenance import memory_provenance

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


def _skill_rows(home: HermesHome, store: HistoryStore) -> list[list[Any]] | None:
    """Every version's summary row from history's summary index (``log-index.json``),
    brought up to date in memory with what was appended since (an index that only lags
    behind the log is not rewritten here); None when the index does not hold together.

    A missing or outdated index (one from an older version, or made before imports or a
    ledger change) is rebuilt from the logs and written, as ``history log`` does: replaying
    history costs about the same once, and every later build reads the index instead."""
    from .log_index import _extend, _read_index, _rebuild, _write_index, index_path
    from .log_index import _identity as index_identity

    index = _read_index(index_path(store))
    if (
        index is None
        or index.get("imported") != index_identity(store.imports_path)
        or index.get("ledger") != index_identity(ledger_path(home))
    ):
        index = None
    if index is not None:
        try:
            result = _extend(store, index)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None  # an index that does not hold together
        if result is not None:
            return result[0]["rows"]
    index, _transient = _rebuild(store, home)  # the log was rewritten, or no usable index
    _write_index(store, index)
    return index["rows"]


#: The bytes every skill version's line holds (the engine writes compact JSON); a memory
#: version's line never does.
_SKILL_LINE_MARK = b'"kind":"skill"'


def _memory_events(store: HistoryStore, path: os.PathLike[str]) -> list[dict[str, Any]]:
    """The memory versions of one log, in file order, with their full entry lists
    (versions whose edits cannot be replayed are marked ``_broken``): the log parsed
    without its skill lines, which make up most of a large home's history."""
    data = store._read_bytes(path)
    if _SKILL_LINE_MARK in data:
        data = b"\n".join(line for line in data.split(b"\n") if _SKILL_LINE_MARK not in line)
    events = [event for event in parse_log(data, os.path.basename(path)).events if event["kind"] != "skill"]
    materialise(events)
    return events


class GraphProvenance:
    """``history`` keys for graph nodes. The event log only grows, so a rebuild after a
    write reads just the lines appended since the last one; the whole history is re-read
    only when the import log or the curator ledger changed, or the log was rewritten."""

    def __init__(self, home: HermesHome):
        self.home = home
        self._fixed: tuple | None = None  # identities of the import log and the ledger
        self._log: tuple[int, int] | None = None  # (inode, bytes read) of events.jsonl
        self._heads: dict[str, list[str] | None] = {}  # each store's newest entry hashes
        self._skills: dict[str, dict[str, Any]] = {}
        self._first: dict[str, dict[str, Any]] = {}  # entry fingerprint -> when it got its text
        self._tables = 0  # bumped whenever the tables above may have changed
        self._attached: int | None = None  # what _tables was when attach last ran

    def _refresh(self) -> None:
        store = HistoryStore(self.home)
        fixed = (_identity(store.imports_path), _identity(ledger_path(self.home)))
        try:
            st = os.stat(store.events_path)
            log: tuple[int, int] | None = (st.st_ino, st.st_size)
        except OSError:
            log = None
        if fixed == self._fixed and log is not None and self._log is not None \
                and log[0] == self._log[0] and log[1] >= self._log[1]:  # fmt: skip
            if log[1] > self._log[1]:
                self._tables += 1
                self._read_appended(store, log[0])
            return
        self._tables += 1
        self._fixed, self._log = fixed, log
        self._skills, self._first, self._heads = {}, {}, {}
        if log is None and fixed == (None, None):
            return
        rows = _skill_rows(self.home, store)
        if rows is not None:
            try:
                self._take_skill_rows(rows)
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                self._skills, rows = {}, None  # an index that does not hold together
        if rows is None:  # an index that does not hold together: the whole history, as the log does
            timeline = Timeline(self.home)
            for event in timeline.events:
                self._take(event, event.get("entries"))
            for event in timeline._files[1]:  # the newest of each store in the log, for its edits
                if event["kind"] != "skill":
                    self._heads[event["kind"]] = event.get("entries")
            return
        imported, logged = _memory_events(store, store.imports_path), _memory_events(store, store.events_path)
        for event in sorted([*imported, *logged], key=itemgetter("ts")):  # stable, as the Timeline's
            if not event.get("_broken"):
                self._take(event, event.get("entries"))
        for event in logged:
            self._heads[event["kind"]] = event.get("entries")

    def _take_skill_rows(self, rows: list[list[Any]]) -> None:
        """:meth:`_take` for every skill version, from the summary index's rows
        (``[id, ts, kind, action, origin, session, sessions, extras, skill, ...]``)."""
        skills = self._skills
        get = skills.get
        for row in rows:
            if row[2] != "skill":
                continue
            name, ts, origin, session, sessions = row[8], row[1], row[4] or UNKNOWN, row[5], row[6]
            known = get(name)
            if known is None:
                found = [session] if session else []
                skills[name] = {"firstSeen": ts, "by": [origin], "sessions": found, "versions": 1,
                                "lastChanged": ts, "lastBy": origin}  # fmt: skip
            else:
                known["lastChanged"], known["lastBy"] = ts, origin
                known["versions"] += 1
                if origin not in known["by"]:
                    known["by"].append(origin)
                found = known["sessions"]
                if session and session not in found:
                    found.append(session)
            if sessions:
                for session in sessions:
                    if session and session not in found:
                        found.append(session)

    def _read_appended(self, store: HistoryStore, inode: int) -> None:
        assert self._log is not None
        try:
            with open(store.events_path, "rb") as handle:
                handle.seek(self._log[1])
                data = handle.read()
        except OSError:
            return
        complete = data[: data.rfind(b"\n") + 1]  # a line still being written waits
        self._log = (inode, self._log[1] + len(complete))
        for line in complete.decode("utf-8", "replace").split("\n"):
            try:
                event = json.loads(line) if line.strip() else None
            except ValueError:
                continue
            if event is None or valid_event(event) is not None:
                continue
            hashes = None
            if event["kind"] != "skill":
                base = self._heads.get(event["kind"])
                hashes = event.get("entries") or (apply_delta(base, event["delta"]) if base else None)
                self._heads[event["kind"]] = hashes
            self._take(event, hashes)

    def _take(self, event: dict[str, Any], hashes: list[str] | None) -> None:
        origin = event.get("origin") or UNKNOWN
        if event["kind"] == "skill":
            known = self._skills.get(event["skill"])
            if known is None:
                known = self._skills[event["skill"]] = {
                    "firstSeen": event["ts"], "by": [], "sessions": [], "versions": 0}  # fmt: skip
            known.update(lastChanged=event["ts"], lastBy=origin, versions=known["versions"] + 1)
            if origin not in known["by"]:
                known["by"].append(origin)
            known["sessions"] += [s for s in _sessions([event]) if s not in known["sessions"]]
            return
        for digest in hashes or ():
            if digest[:12] not in self._first:
                self._first[digest[:12]] = {"lastChanged": event["ts"], "lastBy": origin,
                                            "sessions": _sessions([event]), "version": event["id"]}  # fmt: skip

    def attach(self, payload: dict[str, Any], new_nodes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Add a ``history`` key to the nodes history knows (other keys untouched); an
        unreadable history leaves the graph without it rather than without a graph.

        ``new_nodes``: the nodes of ``payload`` that were not in the payload given to the
        last call (the others are the same dicts, with the key that call gave them). While
        history is unchanged since that call, only those are looked at."""
        try:
            self._refresh()
        except HistoryError:
            self._fixed = self._log = None
            self._skills, self._first, self._heads = {}, {}, {}
            self._tables += 1
            return payload
        unchanged = new_nodes is not None and self._attached == self._tables
        self._attached = self._tables
        if not self._skills and not self._first:
            return payload
        for node in new_nodes if unchanged else payload.get("nodes", ()):
            if node.get("kind") == "skill":
                found = self._skills.get(node.get("id"))
            else:
                found = self._first.get(node.get("fingerprint"))
            if found is not None:
                node["history"] = found
        return payload
