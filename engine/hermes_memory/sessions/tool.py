"""The agent-facing ``session_search`` tool: four shapes (spec §9.3) and a summary mode.

The shape follows from the arguments, in this order:

* **scroll** (``session_id`` + ``around_message_id``): a window of messages around one;
* **read** (``session_id``): the whole session, or its first 20 and last 10 messages;
* **browse** (no query): recent sessions by last activity;
* **discover** (a query): up to ``limit`` sessions, best match first, the first one
  hydrated in full (window plus bookends) and the rest compact (the matching message).

``mode="summary"`` (aliases ``summarize``, ``deep``) runs the discover selection, then
asks the auxiliary model from ``config.yaml`` to summarise each matched session (see
:mod:`.summary`); without a model, or when a call fails, each session gets a raw preview.

Every answer is a JSON-serialisable dict with ``success``; failures are
``{"success": false, "error": ...}`` and never exceptions.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..config import load_config
from ..home import HermesHome, HomeError
from .errors import SessionStoreError
from .present import DEFAULT_PROFILE, format_when, present_message, session_link
from .search import DEMOTED_SOURCES, DEMOTION_SCAN, add_snippets, scan_messages
from .store import SessionStore
from .summary import (
    SummaryJob,
    SummarySettings,
    format_transcript,
    settings_from_config,
    summarise_all,
)

HIDDEN_SOURCES = ("kanban", "subagent", "tool")
DISCOVER_SCAN_LIMIT = DEMOTION_SCAN
LIMIT_RANGE = (1, 10)
WINDOW_RANGE = (1, 20)
DISCOVER_WINDOW, DISCOVER_BOOKEND = 5, 3
WINDOW_CHARS, BOOKEND_CHARS = 4000, 1200
READ_HEAD, READ_TAIL = 20, 10
DEFAULT_ROLES = ("user", "assistant")
#: A session that ended for one of these reasons has left the agent's live context, so
#: its own lineage may search it again. The spec names "compression", "new_session" and
#: "the gateway reset set" without listing the latter; these names are our reading of it.
COMPRESSION_END = "compression"
FRESH_RESET_REASONS = frozenset(
    {"new_session", "reset", "session_reset", "idle_reset", "daily_reset", "gateway_reset"}
)
SUMMARY_MODES = frozenset({"summary", "summarize", "summarise", "deep"})
FAST_MODES = frozenset({"", "fast", "discover", "adaptive", "auto", "guided", "anchor", "drill"})

DbSource = HermesHome | str | os.PathLike[str] | SessionStore


def _clamp(value: Any, low: int, high: int, default: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = default
    return max(low, min(high, number))


def _roles(role_filter: str | Iterable[str] | None) -> list[str]:
    if role_filter is None:
        return list(DEFAULT_ROLES)
    if isinstance(role_filter, str):
        roles = [part.strip() for part in role_filter.split(",")]
    else:
        roles = [str(part).strip() for part in role_filter]
    return [role for role in roles if role] or list(DEFAULT_ROLES)


def _error(message: str) -> dict[str, Any]:
    return {"success": False, "error": message}


@dataclass
class _Call:
    """What one tool call knows: the store, whose profile it is, and what to keep out."""

    store: SessionStore
    home: HermesHome | None
    profile: str | None
    current_session_id: str | None = None
    lineage: set[str] = field(default_factory=set)
    allowed: set[str] | None = None  # None: no scope restriction
    _sessions: dict[str, dict | None] = field(default_factory=dict)
    _roots: dict[str, str] = field(default_factory=dict)
    #: Parents already known from search rows (their join carries them).
    parents: dict[str, str | None] = field(default_factory=dict)

    def session(self, session_id: str) -> dict[str, Any] | None:
        if session_id not in self._sessions:
            self._sessions[session_id] = self.store.get_session(session_id)
        return self._sessions[session_id]

    def prefetch(self, session_ids: Iterable[str]) -> None:
        """Read the rows of the sessions not read yet in one query."""
        wanted = [sid for sid in session_ids if sid not in self._sessions]
        if wanted:
            found = self.store.get_sessions(wanted)
            for sid in wanted:
                self._sessions[sid] = found.get(sid)

    def _parent(self, session_id: str) -> str | None:
        if session_id in self.parents:
            return self.parents[session_id]
        return (self.session(session_id) or {}).get("parent_session_id")

    def root(self, session_id: str) -> str:
        return self.store.resolve_root(session_id, self._roots, parent_of=self._parent)

    def link(self, session_id: str) -> str:
        return session_link(session_id, self.profile)

    def left_live_context(self, session_id: str) -> bool:
        session = self.session(session_id) or {}
        reason = session.get("end_reason")
        return reason == COMPRESSION_END or reason in FRESH_RESET_REASONS

    def hidden_by_lineage(self, session_id: str, compacted: bool = False) -> bool:
        """True for a hit that is already in the agent's live context."""
        if session_id not in self.lineage:
            return False
        return not (compacted or self.left_live_context(session_id))

    def in_scope(self, session_id: str) -> bool:
        return self.allowed is None or session_id in self.allowed

    def meta(self, session_id: str) -> dict[str, Any]:
        session = self.session(session_id) or {}
        return {
            "when": format_when(session.get("started_at")),
            "source": session.get("source"),
            "model": session.get("model"),
            "title": session.get("title"),
        }


def _profile_home(home: HermesHome, profile: str) -> HermesHome:
    if profile == DEFAULT_PROFILE:
        return HermesHome.resolve(home.root)
    return home.with_profile(profile)


def _profile_name(home: HermesHome | None) -> str | None:
    if home is None:
        return None
    return home.profile or DEFAULT_PROFILE


# --- shapes ----------------------------------------------------------------------------
_EMPTY_VIEW = {"bookend_start": [], "messages": [], "bookend_end": [],
               "messages_before": 0, "messages_after": 0}  # fmt: skip


def _hydrate(
    call: _Call, session_id: str, anchor_id: int | None, *, full: bool,
    in_context: dict[int, tuple[dict[str, Any], int, int]] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The messages shown for one result; ``in_context`` holds the compact ones, read
    together beforehand (:meth:`SessionStore.get_messages_in_context`)."""
    store = call.store
    empty = dict(_EMPTY_VIEW)
    if anchor_id is None:
        return {**empty, "messages_after": store.count_messages(session_id)}
    if full:
        size = (call.session(session_id) or {}).get("message_count")
        view = store.get_anchored_view(
            session_id, anchor_id, window=DISCOVER_WINDOW, bookend=DISCOVER_BOOKEND,
            size_hint=size if isinstance(size, int) else None,
        )  # fmt: skip
        if not view:
            return empty
        return {
            "bookend_start": [present_message(m, BOOKEND_CHARS) for m in view["bookend_start"]],
            "messages": [
                present_message(m, WINDOW_CHARS, anchor_id=anchor_id) for m in view["window"]
            ],
            "bookend_end": [present_message(m, BOOKEND_CHARS) for m in view["bookend_end"]],
            "messages_before": view["messages_before"],
            "messages_after": view["messages_after"],
        }
    if in_context is None:
        in_context = store.get_messages_in_context([anchor_id])
    found = in_context.get(anchor_id)  # the message and both counts at once
    if found is None:
        return empty
    anchor, before, after = found
    return {
        **empty,
        "messages": [present_message(anchor, WINDOW_CHARS, anchor_id=anchor_id)],
        "messages_before": before,
        "messages_after": after,
    }


def _first_message_id(call: _Call, session_id: str, roles: list[str]) -> int | None:
    marks = ",".join("?" * len(roles))
    row = call.store.query_one(
        f"""SELECT m.id FROM messages m
            WHERE m.session_id = ? AND m.role IN ({marks}) AND {call.store.visible()}
            ORDER BY m.timestamp, m.id LIMIT 1""",
        (session_id, *roles),
    )
    return row[0] if row else None


@dataclass
class _Pick:
    session_id: str
    root: str
    message_id: int | None
    matched_role: str
    hit: dict[str, Any] | None = None


def _select(
    call: _Call, query: str, roles: list[str], limit: int, sort: str | None
) -> tuple[list[_Pick], Any, int]:
    """Discover's selection: title match, 300-row scan, demotion, lineage and root dedup."""
    store = call.store
    picks: list[_Pick] = []
    roots: set[str] = set()

    title = query.strip().strip("\"'`").strip()
    title_sid = store.resolve_session_by_title(title) if title else None
    if title_sid and call.in_scope(title_sid) and not call.hidden_by_lineage(title_sid):
        session = call.session(title_sid) or {}
        if session.get("source") not in HIDDEN_SOURCES:
            root = call.root(title_sid)
            roots.add(root)
            picks.append(
                _Pick(title_sid, root, _first_message_id(call, title_sid, roles), "session_title")
            )

    outcome = scan_messages(
        store,
        query,
        exclude_sources=HIDDEN_SOURCES,
        role_filter=roles,
        sort=sort,
        scan_limit=DISCOVER_SCAN_LIMIT,
        fields=("id", "session_id", "role", "timestamp", "source", "compacted",
                "parent_session_id"),
    )  # fmt: skip
    examined: set[str] = set()
    deferred: list[dict[str, Any]] = []

    def consider(hit: dict[str, Any]) -> None:
        sid = hit["session_id"]
        call.parents.setdefault(sid, hit["parent_session_id"])
        if not call.in_scope(sid) or call.hidden_by_lineage(sid, bool(hit.get("compacted"))):
            return
        root = call.root(sid)
        if root not in roots:
            roots.add(root)
            picks.append(_Pick(sid, root, hit["id"], hit["role"], hit))

    # Demoted (automation) hits go after all others, BM25 order kept within each group:
    # the same as a stable sort of the scanned rows, but it can stop as soon as `limit`
    # interactive sessions are found instead of reading all 300 rows.
    for hit in outcome.iter_rows():
        if len(picks) >= limit:
            break
        examined.add(hit["session_id"])
        if hit["source"] in DEMOTED_SOURCES:
            deferred.append(hit)
        else:
            consider(hit)
    for hit in deferred:
        if len(picks) >= limit:
            break
        consider(hit)
    outcome.close()
    sessions_searched = len(examined)
    add_snippets(store, outcome, [pick.hit for pick in picks if pick.hit is not None])
    return picks, outcome, sessions_searched


def _index_status(call: _Call, outcome: Any) -> dict[str, Any] | None:
    if outcome.path != "fts+like":
        return None
    total = call.store.query_one("SELECT count(*) FROM messages")[0] or 1
    done = max(0, total - outcome.unindexed)
    return {"percent": round(100 * done / total, 1), "note": outcome.note}


def _snippet(pick: _Pick, session: dict[str, Any], query: str) -> str:
    if pick.matched_role == "session_title":
        title = session.get("title") or query.strip().strip("\"'`").strip()
        return f"Session title matched: {title}"
    return (pick.hit or {}).get("snippet") or ""


def _discover(
    call: _Call, query: str, roles: list[str], limit: int, sort: str | None, detail: str
) -> dict[str, Any]:
    picks, outcome, searched = _select(call, query, roles, limit, sort)
    call.prefetch(pick.session_id for pick in picks)
    compact = [] if detail == "full" else [p.message_id for p in picks[1:] if p.message_id is not None]
    in_context = call.store.get_messages_in_context(compact)
    results = []
    for position, pick in enumerate(picks):
        full = position == 0 or detail == "full"
        session = call.session(pick.session_id) or {}
        entry: dict[str, Any] = {
            "session_id": pick.session_id,
            **call.meta(pick.session_id),
            "matched_role": pick.matched_role,
            "match_message_id": pick.message_id,
            "snippet": _snippet(pick, session, query),
            **_hydrate(call, pick.session_id, pick.message_id, full=full, in_context=in_context),
            "detail": "full" if full else "compact",
            "link": call.link(pick.session_id),
        }
        if session.get("parent_session_id"):
            entry["parent_session_id"] = session["parent_session_id"]
        results.append(entry)
    response: dict[str, Any] = {
        "success": True,
        "mode": "discover",
        "query": query,
        "detail": detail,
        "results": results,
        "count": len(results),
        "sessions_searched": searched,
        "search_path": outcome.path,
    }
    if outcome.note:
        response["note"] = outcome.note
    status = _index_status(call, outcome)
    if status:
        response["index_rebuild"] = status
    if not results:
        response["message"] = "No matching sessions found."
    return response


def _summary(
    call: _Call, query: str, roles: list[str], limit: int, sort: str | None,
    settings: SummarySettings,
) -> dict[str, Any]:  # fmt: skip
    picks, outcome, searched = _select(call, query, roles, limit, sort)
    jobs = []
    for pick in picks:
        root = call.session(pick.root) or {}
        transcript = format_transcript(call.store.get_messages_as_conversation(pick.root))
        jobs.append(SummaryJob(query, root.get("source") or "", root.get("started_at"), transcript))
    summaries = summarise_all(jobs, settings)
    results = []
    for pick, summary in zip(picks, summaries, strict=True):
        entry = {
            "session_id": pick.root,
            **call.meta(pick.root),
            "link": call.link(pick.root),
            "match_message_id": pick.message_id,
            "summary": summary.summary,
            "summary_status": summary.status,
        }
        if pick.session_id != pick.root:
            entry["matched_session_id"] = pick.session_id
        if summary.error:
            entry["summary_error"] = summary.error
        results.append(entry)
    response: dict[str, Any] = {
        "success": True,
        "mode": "summary",
        "query": query,
        "results": results,
        "count": len(results),
        "sessions_searched": searched,
        "search_path": outcome.path,
        "summarizer": {"model": settings.model, "configured": settings.configured},
    }
    if not results:
        response["message"] = "No matching sessions found."
    return response


def _browse(call: _Call, limit: int) -> dict[str, Any]:
    skip = {call.current_session_id} if call.current_session_id else set()
    if call.current_session_id:
        root = call.root(call.current_session_id)
        if (call.session(root) or {}).get("end_reason") == COMPRESSION_END:
            skip.add(root)
    items: list[dict[str, Any]] = []
    offset, page = 0, 50
    while len(items) < limit:
        batch = call.store.list_sessions(limit=page, offset=offset, exclude_sources=HIDDEN_SOURCES)
        for session in batch:
            if session["id"] in skip or not call.in_scope(session["id"]):
                continue
            items.append({
                "session_id": session["id"],
                "link": call.link(session["id"]),
                "title": session.get("title"),
                "source": session["source"],
                "started_at": session["started_at"],
                "last_active": session["last_active"],
                "when": format_when(session["last_active"]),
                "message_count": session.get("message_count") or 0,
                "preview": session["preview"],
            })  # fmt: skip
            if len(items) >= limit:
                break
        if len(batch) < page:
            break
        offset += page
    return {"success": True, "mode": "browse", "results": items, "count": len(items)}


def _find_in_other_profiles(call: _Call, session_id: str) -> tuple[SessionStore, str] | None:
    """A read-only store of another profile that holds ``session_id``, with its name."""
    if call.home is None:
        return None
    root = HermesHome.resolve(call.home.root)
    homes = [(DEFAULT_PROFILE, root)] + [(p, root.with_profile(p)) for p in root.list_profiles()]
    for name, home in homes:
        if home.path == call.home.path:
            continue
        try:
            other = SessionStore(home.state_db, home=home)
        except SessionStoreError:
            continue
        try:
            if other.get_session(session_id) is not None:
                return other, name
        except SessionStoreError:
            pass
        other.close()
    return None


def _read(call: _Call, session_id: str, cross_profile: bool) -> dict[str, Any]:
    if call.session(session_id) is None:
        other = _find_in_other_profiles(call, session_id) if cross_profile else None
        if other is None:
            return _error(f"No session {session_id!r} in this history.")
        store, found_in = other
        try:
            response = _read_session(_Call(store, home=None, profile=found_in), session_id)
        finally:
            store.close()
        return {**response, "profile": found_in}
    if not call.in_scope(session_id):
        return _error("That session is outside this conversation's scope (use scope='all').")
    return _read_session(call, session_id)


def _read_session(call: _Call, session_id: str) -> dict[str, Any]:
    messages = call.store.get_messages(session_id)
    total = len(messages)
    truncated = total > READ_HEAD + READ_TAIL
    shown = messages[:READ_HEAD] + messages[-READ_TAIL:] if truncated else messages
    session = call.session(session_id) or {}
    response: dict[str, Any] = {
        "success": True,
        "mode": "read",
        "session_id": session_id,
        "link": call.link(session_id),
        "session_meta": {
            **call.meta(session_id),
            "started_at": session.get("started_at"),
            "ended_at": session.get("ended_at"),
            "end_reason": session.get("end_reason"),
            "parent_session_id": session.get("parent_session_id"),
        },
        "messages": [present_message(m, WINDOW_CHARS) for m in shown],
        "message_count": total,
        "truncated": truncated,
    }
    if truncated:
        response["omitted"] = total - len(shown)
        response["hint"] = (
            f"Showing the first {READ_HEAD} and last {READ_TAIL} of {total} messages. "
            "To read the middle, call again with session_id and around_message_id."
        )
    return response


def _scroll(call: _Call, session_id: Any, around_message_id: Any, window: int) -> dict[str, Any]:
    if not isinstance(session_id, str) or not session_id.strip():
        return _error("scroll requires session_id")
    session_id = session_id.strip()
    try:
        anchor_id = int(around_message_id)
    except (TypeError, ValueError):
        return _error("scroll requires integer around_message_id")
    if call.session(session_id) is None:
        return _error(f"No session {session_id!r} in this history.")
    anchor = call.store.get_message(anchor_id)
    if anchor is None:
        return _error(f"Message {anchor_id} does not exist.")
    warning = None
    if anchor["session_id"] != session_id:
        if call.root(anchor["session_id"]) != call.root(session_id):
            return _error(f"Message {anchor_id} is not part of session {session_id!r}.")
        warning = (
            f"Message {anchor_id} lives in {anchor['session_id']}, a continuation of "
            f"{session_id}; showing it from there."
        )
        session_id = anchor["session_id"]
    if not call.in_scope(session_id):
        return _error("That session is outside this conversation's scope (use scope='all').")
    if call.hidden_by_lineage(session_id, bool(anchor.get("compacted"))):
        return _error(
            "scroll rejected: anchor lives in the current session lineage "
            "(already in your active context)"
        )
    view = call.store.get_messages_around(session_id, anchor_id, window)
    response: dict[str, Any] = {
        "success": True,
        "mode": "scroll",
        "session_id": session_id,
        "around_message_id": anchor_id,
        "session_meta": call.meta(session_id),
        "window": window,
        "messages": [
            present_message(m, WINDOW_CHARS, anchor_id=anchor_id) for m in view.get("window", [])
        ],
        "messages_before": view.get("messages_before", 0),
        "messages_after": view.get("messages_after", 0),
        "link": call.link(session_id),
    }
    if warning:
        response["warning"] = warning
    return response


# --- the tool --------------------------------------------------------------------------
def session_search(
    db: DbSource,
    query: str = "",
    role_filter: str | Iterable[str] | None = None,
    limit: int = 3,
    *,
    current_session_id: str | None = None,
    session_id: str | None = None,
    around_message_id: int | str | None = None,
    window: int = 5,
    sort: str | None = None,
    profile: str | None = None,
    detail: str = "adaptive",
    scope: str | None = None,
    current_platform: str | None = None,
    current_session_key: str | None = None,
    mode: str | None = None,
    summary_settings: SummarySettings | None = None,
) -> dict[str, Any]:
    """Search, read or browse past sessions; returns a JSON-serialisable dict.

    ``db`` is a :class:`HermesHome` (needed for ``profile=``, cross-profile reads and
    summary settings from config.yaml), a path to a ``state.db`` or an open
    :class:`SessionStore`. ``summary_settings`` overrides the config for ``mode="summary"``.
    """
    mode_name = (mode or "").strip().lower()
    if mode_name not in SUMMARY_MODES and mode_name not in FAST_MODES:
        return _error(f"Unknown mode {mode!r}: use 'fast' or 'summary'.")
    if session_id and "/" in str(session_id):
        # Session ids never contain '/', so 'profile/id' names a profile.
        profile, session_id = str(session_id).split("/", 1)
    scoped = (current_platform or "").lower() == "telegram" and (scope or "current") != "all"
    if profile and scoped:
        return _error("Reading another profile's history needs scope='all'.")

    home = db.home if isinstance(db, SessionStore) else db if isinstance(db, HermesHome) else None
    store: SessionStore | None = None
    owned = not isinstance(db, SessionStore)
    try:
        if profile:
            if home is None:
                return _error("profile= needs a Hermes home, not a bare database path.")
            home = _profile_home(home, profile)
            store, owned = SessionStore.open(home), True
        else:
            store = SessionStore.open(db)
        call = _Call(store, home, _profile_name(home), current_session_id)
        if current_session_id:
            call.lineage = store.lineage(current_session_id)
        if scoped:
            call.allowed = set(call.lineage)
            if current_session_key and "session_key" in store.schema.session_columns:
                rows = store.query(
                    "SELECT id FROM sessions WHERE session_key = ?", (current_session_key,)
                )
                call.allowed |= {row[0] for row in rows}

        limit = _clamp(limit, *LIMIT_RANGE, default=3)
        if session_id is not None and around_message_id is not None:
            return _scroll(call, session_id, around_message_id,
                           _clamp(window, *WINDOW_RANGE, default=5))  # fmt: skip
        if session_id:
            return _read(call, str(session_id), cross_profile=not scoped and not profile)
        query = (query or "").strip()
        sort = sort if sort in ("newest", "oldest") else None
        if mode_name in SUMMARY_MODES:
            if not query:
                return _error("Query cannot be empty.")
            if summary_settings is None:
                summary_settings = (
                    settings_from_config(load_config(home).data) if home else SummarySettings()
                )
            return _summary(call, query, _roles(role_filter), limit, sort, summary_settings)
        if not query:
            return _browse(call, limit)
        detail = "full" if detail == "full" else "adaptive"
        return _discover(call, query, _roles(role_filter), limit, sort, detail)
    except (SessionStoreError, HomeError) as exc:
        return _error(str(exc))
    finally:
        if store is not None and owned:
            store.close()
