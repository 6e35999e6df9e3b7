"""The session history as a person browses it: search as you type, readable transcripts,
where an entry or a skill came from, and reverting what one session taught as a change
that can be undone and redone.

Everything returns plain, JSON-able dicts with ``ok``; a missing, locked or damaged
``state.db`` and a vanished session answer ``{"ok": False, "state": ..., "error": ...}``
(``state`` is one of :data:`STATES`) instead of raising, so a view can say which it is.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..home import HermesHome
from ..memory.entries import FILE_NAMES, TARGETS, fingerprint
from ..memory.store import StoreReadError, read_store_file
from .errors import (
    SessionDBCorrupt,
    SessionDBInvalid,
    SessionDBLocked,
    SessionDBMissing,
    SessionStoreError,
    describe_sqlite_error,
)
from .fts_query import contains_cjk, query_terms, sanitize_fts5_query
from .provenance import memory_provenance, write_ops
from .schema import FTS_TABLE
from .search import DEMOTED_SOURCES, PATH_FTS, SearchOutcome, add_snippets, search_outcome
from .store import SessionStore

#: What a refusal's ``state`` can be.
STATES = ("missing", "locked", "invalid", "corrupt", "vanished", "error")
#: Searching while typing must not wait long on an agent holding the database.
SEARCH_BUSY_TIMEOUT = 1.0
SEARCH_FIELDS = ("id", "session_id", "role", "snippet", "timestamp", "source", "title",
                 "session_started")  # fmt: skip
#: Best-match order ranks the newest this many matches (a common word would otherwise
#: make FTS5 score every match in the history on each keystroke); see search_outcome.
BEST_MATCH_WINDOW = 5000
#: A transcript shows this many messages at most, each capped (the rest is said, not shown).
TRANSCRIPT_MESSAGES = 2000
MESSAGE_CHARS = 20_000
ARGUMENT_CHARS = 4_000
#: Tool calls that write what the agent learns, and what they write.
WRITE_TOOLS = {"memory": "memory", "skill_manage": "skill"}


def refusal(exc: SessionStoreError) -> dict[str, Any]:
    state = ("missing" if isinstance(exc, SessionDBMissing) else
             "locked" if isinstance(exc, SessionDBLocked) else
             "invalid" if isinstance(exc, SessionDBInvalid) else
             "corrupt" if isinstance(exc, SessionDBCorrupt) else "error")  # fmt: skip
    return {"ok": False, "state": state, "error": str(exc)}


def _vanished(home: HermesHome, session_id: str) -> dict[str, Any]:
    return {"ok": False, "state": "vanished", "session_id": session_id,
            "error": f"Session {session_id} is no longer in {home.state_db}: the agent (or a "
                     "clean-up) removed it. What it taught stays in history."}  # fmt: skip


def _guarded(function):
    def wrapped(home: HermesHome, *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return function(home, *args, **kwargs)
        except SessionStoreError as exc:
            return refusal(exc)

    wrapped.__doc__, wrapped.__name__ = function.__doc__, function.__name__
    return wrapped


# --- search and listing ----------------------------------------------------------------
@_guarded
def search(home: HermesHome, query: str, limit: int = 30, order: str = "newest") -> dict[str, Any]:
    """Messages matching ``query`` (any typed text), each with its session, a ``>>>hit<<<``
    snippet and its time. ``order="best"`` is the engine's relevance search (BM25 over the
    newest :data:`BEST_MATCH_WINDOW` matches, cron and webhook runs after conversations); ``"newest"`` (the default, for typing) lists the
    newest matches first, which FTS5 reads straight off its index: no ranking of every
    match, so a common word in a million messages answers as fast as a rare one."""
    with SessionStore.open(home, busy_timeout=SEARCH_BUSY_TIMEOUT) as store:
        outcome = _newest(store, query, limit) if order == "newest" else None
        if outcome is None:  # relevance asked for, or a route only the full search has
            outcome = search_outcome(store, query, limit=limit, fields=SEARCH_FIELDS,
                                     demote_sources=DEMOTED_SOURCES,
                                     rank_window=BEST_MATCH_WINDOW)  # fmt: skip
    hits = outcome.hits
    return {"ok": True, "query": query, "order": order if outcome.path == PATH_FTS else "best",
            "path": outcome.path, "note": outcome.note, "count": len(hits),
            "sessions": len({h["session_id"] for h in hits}), "results": hits}  # fmt: skip


def _newest(store: SessionStore, query: str, limit: int) -> SearchOutcome | None:
    """The newest ``limit`` visible matches from the main index, or None when the query
    needs another route (CJK text, no usable index, an index behind the table)."""
    match = sanitize_fts5_query(query)
    schema = store.schema
    if not match or contains_cjk(query) or not schema.has_fts:
        return None
    if schema.has_docsize:
        last = store.query_one(f"SELECT (SELECT max(id) FROM messages), (SELECT max(id) FROM {FTS_TABLE}_docsize)")
        if last is None or (last[0] or 0) > (last[1] or 0):
            return None  # messages the index has not reached: the full search scans them
    columns = {"title": "s.title"} if "title" in schema.session_columns else {}
    select = ", ".join(["m.id AS id", "m.session_id AS session_id", "m.role AS role",
                        "m.timestamp AS timestamp", "s.source AS source", "s.started_at AS session_started",
                        columns.get("title", "NULL") + " AS title"])  # fmt: skip
    hits: list[dict[str, Any]] = []
    offset, page = 0, max(1, limit) * 2
    try:
        while len(hits) < limit:
            ids = [row[0] for row in store.conn.execute(
                f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? ORDER BY rowid DESC LIMIT ? OFFSET ?",
                (match, page, offset))]  # fmt: skip
            if ids:
                marks = ",".join("?" * len(ids))
                found = {row["id"]: dict(row) for row in store.query(
                    f"SELECT {select} FROM messages m JOIN sessions s ON s.id = m.session_id "
                    f"WHERE m.id IN ({marks}) AND {store.visible()}", ids)}  # fmt: skip
                hits += [found[i] for i in ids if i in found][: limit - len(hits)]
            if len(ids) < page:
                break
            offset += len(ids)
    except sqlite3.DatabaseError as exc:
        if "locked" in str(exc).lower() or "busy" in str(exc).lower():
            raise describe_sqlite_error(store.path, exc, store.busy_timeout) from exc
        return None  # an index that cannot answer: the full search falls back
    outcome = SearchOutcome(hits, PATH_FTS, "", FTS_TABLE, match, terms=query_terms(query))
    add_snippets(store, outcome, hits)
    return outcome


@_guarded
def recent(home: HermesHome, limit: int = 50) -> dict[str, Any]:
    """The most recently active sessions (what the tab lists before anything is typed)."""
    with SessionStore.open(home, busy_timeout=SEARCH_BUSY_TIMEOUT) as store:
        sessions = store.list_sessions(limit=limit)
    return {"ok": True, "count": len(sessions), "sessions": sessions}


# --- transcripts -----------------------------------------------------------------------
def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _capped(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - 1] + "…"


def _write_of(name: str, arguments: Any) -> dict[str, Any] | None:
    """What a ``memory`` or ``skill_manage`` call writes, in words; None for other tools."""
    kind = WRITE_TOOLS.get(name)
    if kind is None or not isinstance(arguments, dict):
        return None
    if kind == "memory":
        lines = []
        for action, target, content, old_text in write_ops(arguments):
            store = FILE_NAMES.get(target or "memory", str(target))
            lines.append(f"{action} {'in' if action == 'replace' else 'to' if action == 'add' else 'from'} "
                         f"{store}: {content or old_text or ''}".strip())  # fmt: skip
        return {"kind": "memory", "label": "\n".join(lines) or "memory call with no operation"}
    action, skill = arguments.get("action", "change"), arguments.get("name", "?")
    target = arguments.get("file_path") or "SKILL.md"
    return {"kind": "skill", "skill": str(skill),
            "label": f"{action} skill '{skill}'" + (f" ({target})" if action != "create" else "")}


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("tool_calls")
    if isinstance(calls, dict):
        calls = [calls]
    if not isinstance(calls, list):
        return []
    found = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        name = str(function.get("name") or "?")
        arguments = _json(function.get("arguments"))
        shown = arguments if isinstance(arguments, str) else json.dumps(arguments, indent=2, ensure_ascii=False)
        found.append({"id": call.get("id"), "name": name, "arguments": _capped(shown or "", ARGUMENT_CHARS),
                      "write": _write_of(name, arguments)})  # fmt: skip
    return found


def _failed(content: Any) -> bool:
    result = _json(content)
    return isinstance(result, dict) and (result.get("success") is False or "error" in result)


@_guarded
def transcript(home: HermesHome, session_id: str) -> dict[str, Any]:
    """One session as a readable transcript: ``{"session", "messages": [{"id", "role",
    "timestamp", "content", "tool_name", "calls": [{"id", "name", "arguments", "write"}],
    "result_of", "failed", "write"}], "total", "shown", "writes"}``; a message that writes
    memory or a skill (or answers such a call) has ``write`` set."""
    with SessionStore.open(home) as store:
        session = store.get_session(session_id)
        if session is None:
            return _vanished(home, session_id)
        messages = store.get_messages(session_id)
    writes: dict[str, dict[str, Any]] = {}
    rows, write_count = [], 0
    for message in messages[:TRANSCRIPT_MESSAGES]:
        calls = _calls(message)
        row: dict[str, Any] = {
            "id": message["id"], "role": message.get("role"), "timestamp": message.get("timestamp"),
            "content": _capped(str(message["content"]), MESSAGE_CHARS) if message.get("content") else "",
            "tool_name": message.get("tool_name"), "calls": calls, "write": None,
        }  # fmt: skip
        for call in calls:
            if call["write"]:
                row["write"] = row["write"] or call["write"]["kind"]
                if call["id"]:
                    writes[str(call["id"])] = call["write"]
        if row["write"]:
            write_count += 1
        call_id = message.get("tool_call_id")
        if message.get("role") == "tool" and call_id:
            row["result_of"] = str(call_id)
            row["failed"] = _failed(message.get("content"))
            if str(call_id) in writes:
                row["write"] = writes[str(call_id)]["kind"]
        rows.append(row)
    return {"ok": True, "session": session, "messages": rows, "total": len(messages),
            "shown": len(rows), "writes": write_count}  # fmt: skip


# --- where an entry or a skill came from -----------------------------------------------
def _entry_text(home: HermesHome, target: str, fp: str) -> str | None:
    try:
        entries = read_store_file(home.store_file(target)).entries
    except StoreReadError:
        return None
    return next((entry for entry in entries if fingerprint(entry) == fp), None)


def _skill_messages(store: SessionStore, session_id: str, skill: str) -> list[tuple[int, float, str]]:
    """``(message id, time, action)`` of the ``skill_manage`` calls on ``skill`` in a session."""
    rows = store.query(
        "SELECT id, timestamp, tool_calls FROM messages WHERE session_id = ? AND role = 'assistant' "
        "AND tool_calls LIKE '%skill_manage%' ORDER BY timestamp, id", (session_id,))  # fmt: skip
    found = []
    for row in rows:
        for call in _calls({"tool_calls": _json(row["tool_calls"])}):
            write = call["write"]
            if write and write["kind"] == "skill" and write.get("skill") == skill:
                found.append((row["id"], float(row["timestamp"] or 0), write["label"].split(" ")[0]))
    return found


def origins(home: HermesHome, target: str | None = None, fingerprint_: str | None = None,
            skill: str | None = None, text: str | None = None) -> dict[str, Any]:  # fmt: skip
    """The sessions that wrote a memory entry (``target`` + ``fingerprint_`` or its ``text``)
    or a skill, each at the message that wrote it: ``{"ok", "what", "origins": [{"session_id",
    "message_id", "timestamp", "action", "source", "title", "exists"}], "note"}``."""
    from ..history.provenance import _entry_from_history, skill_provenance
    from ..history.timeline import Timeline

    found: list[dict[str, Any]] = []
    sessions: list[str] = []
    if skill:
        what = f"skill '{skill}'"
        row = next((r for r in skill_provenance(home) if r["skill"] == skill), None)
        sessions = list(row["sessions"]) if row else []
    else:
        if target not in TARGETS:
            return {"ok": False, "state": "error", "error": f"Unknown store {target!r}."}
        text = text if text is not None else _entry_text(home, target, fingerprint_ or "")
        if not text:
            return {"ok": False, "state": "error",
                    "error": f"That entry is no longer in {FILE_NAMES[target]}."}  # fmt: skip
        what = f"this {FILE_NAMES[target]} entry"
        sessions = list(_entry_from_history(Timeline(home), target, text).get("sessions", ()))
    note = None
    try:
        with SessionStore.open(home) as store:
            if not skill:
                events = memory_provenance(store, [text])[text].events
                found = [{"session_id": e.session_id, "message_id": e.message_id, "timestamp": e.timestamp,
                          "action": e.action, "source": e.source}
                         for e in events if (e.target or "memory") == target]  # fmt: skip
            for session_id in sessions:
                if any(item["session_id"] == session_id for item in found):
                    continue
                calls = _skill_messages(store, session_id, skill) if skill else []
                message_id, ts, action = calls[0] if calls else (None, None, None)
                found.append({"session_id": session_id, "message_id": message_id, "timestamp": ts,
                              "action": action, "source": None})  # fmt: skip
            for item in found:
                session = store.get_session(item["session_id"])
                item["exists"] = session is not None
                item["title"] = (session or {}).get("title")
                item["source"] = item["source"] or (session or {}).get("source")
                if item["timestamp"] is None and session is not None:
                    item["timestamp"] = session.get("started_at")
    except SessionStoreError as exc:
        note = str(exc)
        found = found or [{"session_id": s, "message_id": None, "timestamp": None, "action": None,
                           "source": None, "title": None, "exists": None} for s in sessions]  # fmt: skip
    if not found and note is None:
        note = f"No recorded session wrote {what}: a person typed it, or it predates the history."
    return {"ok": True, "what": what, "origins": found, "note": note}


# --- what a session taught, with links, and reverting it as one change -----------------
def lesson(home: HermesHome, session_id: str) -> dict[str, Any]:
    """What ``session_id`` taught, as links: ``{"ok", "entries": [{"target", "file", "text",
    "change" ("added"/"changed"/"removed"), "node_id" (None when no longer there)}],
    "skills": [{"skill", "actions", "created", "node_id"}], "note", "calls"}``."""
    from ..history import service
    from ..learning.memory_cards import memory_cards

    taught = service.taught(home, session_id)
    if not taught.get("ok"):
        return taught
    cards = {(card.target, card.entry): card.id for card in memory_cards(home)[0]}

    def node_of(target: str, text: str) -> str | None:
        return cards.get((target, text))  # the graph's id of its card, while it is there

    entries = []
    for target in TARGETS:
        net = taught["memory"][target]
        items = [("added", t) for t in net["added"]] + [("changed", p["after"]) for p in net["changed"]]
        items += [("removed", t) for t in net["removed"]]
        entries += [{"target": target, "file": FILE_NAMES[target], "text": text, "change": change,
                     "node_id": None if change == "removed" else node_of(target, text)}
                    for change, text in items]  # fmt: skip
    skills = [{"skill": s["skill"], "actions": s["actions"], "created": s["created"],
               "unchanged_since": s["unchanged_since"], "node_id": s["skill"]}
              for s in taught["skills"]]  # fmt: skip
    return {"ok": True, "session": session_id, "entries": entries, "skills": skills,
            "note": taught.get("note"), "calls": len(taught.get("calls") or ())}  # fmt: skip


def revert_as_change(home: HermesHome, session_id: str) -> dict[str, Any]:
    """Revert what ``session_id`` taught (as ``history`` does), and describe the result as a
    ``change`` that :func:`apply_change` can undo and redo: per store the entries before
    and after, per skill the versions before and after."""
    from ..history import service
    from ..history.storage import HistoryStore
    from ..history.timeline import Timeline

    before = service.taught(home, session_id)
    result = service.revert(home, session_id, dry_run=False)
    timeline = Timeline(home)
    memory = []
    for target, outcome in (result.get("memory") or {}).items():
        version = timeline.get(outcome.get("version") or "")
        parent = timeline.parent(version) if version else None
        if version and parent:
            memory.append({"target": target, "before": timeline.entries(parent),
                           "after": timeline.entries(version)})  # fmt: skip
    skills = []
    last = {s["skill"]: s["versions"][-1] for s in before.get("skills", ()) if s.get("versions")}
    history = HistoryStore(home)
    for item in result.get("skills") or ():
        name = item["skill"]
        if "ok" not in item or name not in last:
            continue
        # an archive is marked as the revert's; a restore inside it as the restore's
        after = history.last_event({"kind": "skill", "skill": name, "reverts": session_id}) \
            or history.last_event({"kind": "skill", "skill": name})
        if after and after["id"] != last[name]:
            skills.append({"skill": name, "before": last[name], "after": after["id"]})
    result["change"] = {"session": session_id, "memory": memory, "skills": skills}
    return result


def apply_change(home: HermesHome, change: dict[str, Any], direction: str = "undo") -> dict[str, Any]:
    """Put a reverted session's lesson back (``undo``) or revert it again (``redo``): each
    store through the merging save (what the agent wrote since is kept), each skill by
    restoring its recorded version. All-or-nothing per store; the first refusal stops."""
    from .. import api
    from ..history import service

    forward = direction == "redo"
    done = []
    for item in change.get("memory") or ():
        old, new = (item["before"], item["after"]) if forward else (item["after"], item["before"])
        outcome = api.set_entries(home, item["target"], old, new)
        if not outcome.get("ok"):
            return {"ok": False, "error": f"{FILE_NAMES[item['target']]}: {outcome.get('message')}",
                    "done": done}  # fmt: skip
        done.append(FILE_NAMES[item["target"]])
    for item in change.get("skills") or ():
        outcome = service.restore(home, item["after"] if forward else item["before"])
        if not outcome.get("ok"):
            return {"ok": False, "error": f"skill '{item['skill']}': {outcome.get('error')}", "done": done}
        done.append(f"skill '{item['skill']}'")
    verb = "reverted again" if forward else "put back"
    return {"ok": True, "message": f"session {change.get('session')}: {verb} in {', '.join(done) or 'nothing'}",
            "done": done}  # fmt: skip
