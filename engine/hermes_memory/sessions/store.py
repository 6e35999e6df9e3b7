"""Read-only access to a Hermes ``state.db``.

:class:`SessionStore` opens the file with a ``mode=ro`` URI plus ``PRAGMA query_only``,
so nothing we do can change a live agent's history. It answers the plain questions
(sessions, messages, lineage, windows around a message); search lives in
:mod:`.search` and the agent-facing tool in :mod:`.tool`.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..home import HermesHome
from ..pausing import state_db_wait_here
from .errors import (
    SessionDBInvalid,
    SessionDBMissing,
    describe_sqlite_error,
    translate_sqlite_errors,
)
from .schema import SchemaInfo, detect_schema

#: Upstream's read busy timeout: long enough to ride out an agent's write, short enough
#: that a person waiting on a search gets an answer.
DEFAULT_BUSY_TIMEOUT = 5.0

#: Leading text of the synthetic messages context compaction inserts.
COMPACTION_PREFIXES = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")

#: Sessions up to this many visible messages are read whole for an anchored view.
SMALL_SESSION = 32  # beyond ~35 messages the six targeted queries are faster


def _anchored_view_in(
    messages: Sequence[Mapping[str, Any]], anchor_id: int, window: int, bookend: int,
    roles: Sequence[str] | None,
) -> dict[str, Any] | None:
    """:meth:`SessionStore.get_anchored_view` computed over a whole (small) session.

    The same rules as the SQL path, SQLite's included: ``trim()`` strips spaces only.
    None when it cannot tell the same answer (an anchor that is not visible, values of
    types SQLite would compare in its own way): the caller then asks SQLite.
    """
    if not all(
        isinstance(m["timestamp"], int | float) and isinstance(m["id"], int)
        and (m["content"] is None or isinstance(m["content"], str))
        for m in messages
    ):
        return None
    keys = [(m["timestamp"], m["id"]) for m in messages]
    at = next((i for i, m in enumerate(messages) if m["id"] == anchor_id), None)
    if at is None:
        return None

    def kept(m: dict[str, Any]) -> bool:
        return roles is None or m["role"] in roles

    before = [m for m in messages[:at] if kept(m)][-window:] if window > 0 else []
    after = [m for m in messages[at + 1 :] if kept(m)][:window] if window > 0 else []
    first = keys.index((before[0]["timestamp"], before[0]["id"])) if before else at
    last = keys.index((after[-1]["timestamp"], after[-1]["id"])) if after else at

    def bookend_worthy(m: dict[str, Any]) -> bool:
        content = m["content"]
        return (kept(m) and content is not None and content.strip(" ") != ""
                and not content.startswith(COMPACTION_PREFIXES))  # fmt: skip

    start = [m for m in messages[:first] if bookend_worthy(m)][:bookend] if bookend > 0 else []
    end = [m for m in messages[last + 1 :] if bookend_worthy(m)] if bookend > 0 else []
    return {
        "window": [*before, messages[at], *after],
        "messages_before": first,
        "messages_after": len(messages) - last - 1,
        "bookend_start": start,
        "bookend_end": end[-bookend:] if bookend > 0 else [],
    }


def db_path_for(source: HermesHome | str | os.PathLike[str]) -> Path:
    if isinstance(source, HermesHome):
        return source.state_db
    return Path(source)


def _decode_json(text: Any) -> Any:
    if not text or not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_UNIQUE, _PLAIN = "unique", "plain"  # the kinds of title index a lookup can seek
#: Index seeks one title lookup may make before it reads every title instead.
_MAX_TITLE_SEEKS = 64


def nocase_equal(a: str, b: str) -> bool:
    """SQLite's NOCASE equality (ASCII letters fold, nothing else) for text without NUL."""
    return len(a) == len(b) and a.translate(_ASCII_LOWER) == b.translate(_ASCII_LOWER)


def next_case_variant(text: str, after: str, *, strictly: bool) -> str | None:
    """The first string in binary order at (or, ``strictly``, after) ``after`` that
    differs from ``text`` only in the case of ASCII letters; None if there is none.

    Capitals sort before small letters, so the smallest variant of a tail is the tail in
    capitals. Walk ``after`` while a variant can follow it; where it cannot (or past
    the end), the answer raises the last position that can still be raised."""
    upper, lower = text.translate(_ASCII_UPPER), text.translate(_ASCII_LOWER)
    size = len(text)

    def raised_before(end: int) -> str | None:
        # the rightmost capital before ``end`` turned small, the rest as capitals
        for j in range(min(end, len(after)) - 1, -1, -1):
            if after[j] == upper[j] != lower[j]:
                return after[:j] + lower[j] + upper[j + 1 :]
        return None

    for i in range(size):
        if i == len(after):
            return after + upper[i:]  # ``after`` is a proper prefix: the smallest tail
        char = after[i]
        if char == upper[i] or char == lower[i]:
            continue
        if upper[i] > char:
            return after[:i] + upper[i:]
        if lower[i] > char:
            return after[:i] + lower[i] + upper[i + 1 :]
        return raised_before(i)
    if len(after) == size and not strictly:
        return after  # ``after`` is a variant itself
    return raised_before(size)


def _quoted(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


class SessionStore:
    """One read-only connection to a ``state.db``; use it as a context manager."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float | None = None,
        home: HermesHome | None = None,
    ) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout = state_db_wait_here(DEFAULT_BUSY_TIMEOUT) if busy_timeout is None else busy_timeout
        self.home = home
        if not self.path.exists():
            raise SessionDBMissing(
                f"No session history at {self.path}: the agent has not recorded a session "
                "in this home yet."
            )
        if not self.path.is_file():
            raise SessionDBInvalid(f"{self.path} is not a file, so it cannot be a session database.")
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        with self.errors():
            self.conn = sqlite3.connect(
                uri, uri=True, timeout=busy_timeout, check_same_thread=False
            )
        try:
            with self.errors():
                self.conn.row_factory = sqlite3.Row
                self.conn.execute("PRAGMA query_only = ON")
                self.schema: SchemaInfo = detect_schema(self.conn)
        except BaseException:
            self.conn.close()
            raise
        if not {"sessions", "messages"} <= self.schema.tables:
            self.conn.close()
            raise SessionDBInvalid(
                f"{self.path} is an SQLite database but not a Hermes session store "
                "(it has no sessions and messages tables)."
            )

    @classmethod
    def open(
        cls,
        source: HermesHome | str | os.PathLike[str] | SessionStore,
        *,
        busy_timeout: float | None = None,
    ) -> SessionStore:
        if isinstance(source, SessionStore):
            return source
        home = source if isinstance(source, HermesHome) else None
        return cls(db_path_for(source), busy_timeout=busy_timeout, home=home)

    def errors(self):
        """Context manager turning sqlite3 errors into readable SessionStoreErrors."""
        return translate_sqlite_errors(self.path, self.busy_timeout)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- low level ----------------------------------------------------------------------
    # (try/except rather than self.errors(): these run a dozen times per search)
    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise describe_sqlite_error(self.path, exc, self.busy_timeout) from exc

    def query_one(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        try:
            return self.conn.execute(sql, params).fetchone()
        except sqlite3.Error as exc:
            raise describe_sqlite_error(self.path, exc, self.busy_timeout) from exc

    def visible(self, alias: str = "m", *, include_inactive: bool = False) -> str:
        return self.schema.visibility_sql(alias, include_inactive=include_inactive)

    @functools.cache  # noqa: B019 - one small entry per alias; the store lives as long
    def _session_columns(self, alias: str = "s") -> str:
        wanted = [
            "id", "source", "user_id", "model", "parent_session_id", "started_at", "ended_at",
            "end_reason", "message_count", "tool_call_count", "input_tokens", "output_tokens",
            "title", "archived", "pinned", "session_key",
        ]  # fmt: skip
        return ", ".join(f"{alias}.{c}" for c in wanted if c in self.schema.session_columns)

    @functools.cache  # noqa: B019
    def _message_columns(self, alias: str = "m") -> str:
        wanted = [
            "id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name",
            "timestamp", "token_count", "finish_reason", "active", "compacted", "display_kind",
        ]  # fmt: skip
        return ", ".join(f"{alias}.{c}" for c in wanted if c in self.schema.message_columns)

    # --- sessions -----------------------------------------------------------------------
    def get_session(self, session_id: str) -> dict[str, Any] | None:
        row = self.query_one(
            f"SELECT {self._session_columns()} FROM sessions s WHERE s.id = ?", (session_id,)
        )
        if row is None:
            return None
        session = dict(row)
        session.setdefault("title", None)
        return session

    def get_sessions(self, session_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """:meth:`get_session` for several ids in one query; ids not found are left out."""
        ids = list(dict.fromkeys(session_ids))
        if not ids:
            return {}
        rows = self.query(
            f"SELECT {self._session_columns()} FROM sessions s "
            f"WHERE s.id IN ({','.join('?' * len(ids))})",
            ids,
        )
        sessions = {}
        for row in rows:
            session = dict(row)
            session.setdefault("title", None)
            sessions[session["id"]] = session
        return sessions

    def list_sessions(
        self,
        *,
        limit: int = 20,
        offset: int = 0,
        exclude_sources: Iterable[str] = (),
        include_children: bool = True,
    ) -> list[dict[str, Any]]:
        """Sessions by last activity (newest first), with ``last_active`` and a preview.

        Ranking every session by its latest message would read the whole table (a second
        for a million messages), so candidates come from two cheap walks: the newest
        messages by id (ids grow with time) until enough distinct sessions are seen, and
        the newest sessions by ``started_at`` (for sessions with no messages yet). Their
        exact ``last_active`` then decides the order.
        """
        limit, offset = max(0, int(limit)), max(0, int(offset))
        wanted = limit + offset
        if wanted == 0:
            return []
        where, params = ["1"], []
        excluded = list(exclude_sources)
        if excluded:
            where.append(f"s.source NOT IN ({','.join('?' * len(excluded))})")
            params.extend(excluded)
        if not include_children:
            where.append("s.parent_session_id IS NULL")
        filters = " AND ".join(where)

        candidates: dict[str, None] = {}
        with self.errors():
            cursor = self.conn.execute(
                f"""SELECT m.session_id FROM messages m JOIN sessions s ON s.id = m.session_id
                    WHERE {filters} ORDER BY m.id DESC""",
                params,
            )
            try:
                for (session_id,) in cursor:
                    candidates.setdefault(session_id, None)
                    if len(candidates) >= wanted:
                        break
            finally:
                cursor.close()
        for row in self.query(
            f"SELECT s.id FROM sessions s WHERE {filters} ORDER BY s.started_at DESC LIMIT ?",
            (*params, wanted),
        ):
            candidates.setdefault(row[0], None)
        if not candidates:
            return []
        ids = list(candidates)
        # The correlated max() walks idx_messages_session backwards: one seek per session.
        rows = self.query(
            f"""
            SELECT {self._session_columns()},
                   (SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id)
                       AS last_active
            FROM sessions s
            WHERE s.id IN ({','.join('?' * len(ids))})
            ORDER BY COALESCE(last_active, s.started_at) DESC, s.id
            LIMIT ? OFFSET ?
            """,
            (*ids, limit, offset),
        )
        sessions = []
        for row in rows:
            session = dict(row)
            session.setdefault("title", None)
            session["last_active"] = session["last_active"] or session["started_at"]
            session["preview"] = self.session_preview(session["id"])
            sessions.append(session)
        return sessions

    def session_preview(self, session_id: str, chars: int = 120) -> str:
        row = self.query_one(
            f"""SELECT m.content FROM messages m
                WHERE m.session_id = ? AND m.role = 'user' AND {self.visible()}
                  AND m.content IS NOT NULL AND trim(m.content) != ''
                ORDER BY m.timestamp, m.id LIMIT 1""",
            (session_id,),
        )
        if row is None:
            return ""
        text = " ".join(str(row[0]).split())
        return text if len(text) <= chars else text[: chars - 1] + "…"

    def resolve_session_by_title(self, title: str) -> str | None:
        """The newest session whose title matches exactly (case-insensitive), if any.

        Every ``session_search`` call asks this, so it must not read every session.
        With an index on ``title`` in binary order (upstream keeps a unique one), the
        titles that NOCASE calls equal (they differ only in the case of ASCII letters)
        are found by seeking: the first title at or after the next possible variant is
        read, and either matches or tells where the next variant can be. Only those
        titles' sessions are then compared by start time. Without such an index (or
        for a title with a NUL, which NOCASE compares in its own way) it is a scan.
        """
        if "title" not in self.schema.session_columns or not title.strip():
            return None
        wanted = title.strip()
        found = self._case_variants_present(wanted) if "\x00" not in wanted else None
        if found is None:
            row = self.query_one(
                "SELECT id FROM sessions WHERE title = ? COLLATE NOCASE "
                "ORDER BY started_at DESC LIMIT 1",
                (wanted,),
            )
            return row[0] if row else None
        if not found:
            return None
        if len(found) == 1 and self._title_index == _UNIQUE:
            return found[0][1]  # the one session with that title
        titles = [title for title, _id in found]
        row = self.query_one(
            f"SELECT id FROM sessions WHERE title COLLATE BINARY IN ({','.join('?' * len(titles))}) "
            "ORDER BY started_at DESC LIMIT 1",
            titles,
        )
        return row[0] if row else None

    def _case_variants_present(self, wanted: str) -> list[tuple[str, Any]] | None:
        """``(title, id)`` of the first session of each title in the database that
        differs from ``wanted`` only in ASCII case, found by index seeks; None when that
        cannot be done cheaply (then scan)."""
        if not self._title_index:
            return None
        highest = wanted.translate(_ASCII_LOWER)
        found: list[tuple[str, Any]] = []
        low: str | None = wanted.translate(_ASCII_UPPER)
        execute = self.conn.execute
        try:
            for _ in range(_MAX_TITLE_SEEKS):
                if low is None:
                    return found
                row = execute(
                    "SELECT title, id FROM sessions WHERE title >= ? COLLATE BINARY "
                    "AND title <= ? COLLATE BINARY ORDER BY title COLLATE BINARY LIMIT 1",
                    (low, highest),
                ).fetchone()
                if row is None:
                    return found
                seen = row[0]
                if not isinstance(seen, str):
                    return None
                matched = nocase_equal(seen, wanted)
                if matched:
                    found.append((seen, row[1]))
                low = next_case_variant(wanted, seen, strictly=matched)
        except (sqlite3.Error, UnicodeError):
            return None
        return None  # too many seeks: a scan is the surer bound

    @functools.cached_property
    def _title_index(self) -> str | None:
        """``_UNIQUE`` or ``_PLAIN`` when an index leads with ``title`` in binary order,
        usable for the seeks of :meth:`resolve_session_by_title` (upstream's is unique
        and partial, on the titles that are not NULL, which any range implies); else None."""
        try:
            usable = []
            for index in self.conn.execute("PRAGMA index_list(sessions)").fetchall():
                name, unique, partial = index[1], index[2], index[4]
                columns = self.conn.execute(f"PRAGMA index_xinfo({_quoted(name)})").fetchall()
                first = columns[0] if columns else None
                if first is None or first[2] != "title" or str(first[4]).upper() != "BINARY":
                    continue
                if partial:
                    sql = self.conn.execute(
                        "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", (name,)
                    ).fetchone()
                    where = " ".join(str(sql[0] if sql else "").split()).lower()
                    if not where.endswith("where title is not null"):
                        continue
                # unique on the title alone: one session per title
                usable.append(_UNIQUE if unique and sum(1 for c in columns if c[5]) == 1 else _PLAIN)
        except sqlite3.Error:
            return None
        return _UNIQUE if _UNIQUE in usable else (_PLAIN if usable else None)

    # --- lineage ------------------------------------------------------------------------
    def resolve_root(
        self,
        session_id: str,
        cache: dict[str, str] | None = None,
        parent_of: Callable[[str], str | None] | None = None,
    ) -> str:
        """Walk ``parent_session_id`` up to the root; cycles and dangling links stop it.

        ``parent_of`` may supply the parent from rows the caller already holds.
        """
        if cache is not None and session_id in cache:
            return cache[session_id]
        seen: list[str] = []
        current = session_id
        while current not in seen:
            seen.append(current)
            if cache is not None and current in cache:
                current = cache[current]
                break
            if parent_of is not None:
                parent = parent_of(current)
            else:
                row = self.query_one(
                    "SELECT parent_session_id FROM sessions WHERE id = ?", (current,)
                )
                parent = row[0] if row else None
            if not parent:
                break
            current = parent
        if cache is not None:
            for sid in seen:
                cache[sid] = current
        return current

    def lineage(self, session_id: str) -> set[str]:
        """Every session sharing ``session_id``'s root: the root and all its descendants."""
        root = self.resolve_root(session_id)
        rows = self.query(
            """
            WITH RECURSIVE tree(id) AS (
                SELECT ?
                UNION
                SELECT s.id FROM sessions s JOIN tree ON s.parent_session_id = tree.id
            )
            SELECT id FROM tree
            """,
            (root,),
        )
        return {row[0] for row in rows} | {session_id}

    # --- messages -----------------------------------------------------------------------
    def _message_dict(self, row: sqlite3.Row) -> dict[str, Any]:
        message = dict(row)
        if "tool_calls" in message:
            message["tool_calls"] = _decode_json(message["tool_calls"])
        return message

    def get_message(self, message_id: int) -> dict[str, Any] | None:
        row = self.query_one(
            f"SELECT {self._message_columns()} FROM messages m WHERE m.id = ?", (int(message_id),)
        )
        return self._message_dict(row) if row else None

    def get_messages(
        self, session_id: str, *, include_inactive: bool = False
    ) -> list[dict[str, Any]]:
        """Visible messages of one session ordered by ``(timestamp, id)``, tool calls decoded."""
        rows = self.query(
            f"""SELECT {self._message_columns()} FROM messages m
                WHERE m.session_id = ? AND {self.visible(include_inactive=include_inactive)}
                ORDER BY m.timestamp, m.id""",
            (session_id,),
        )
        return [self._message_dict(row) for row in rows]

    def count_messages(self, session_id: str) -> int:
        row = self.query_one(
            f"SELECT count(*) FROM messages m WHERE m.session_id = ? AND {self.visible()}",
            (session_id,),
        )
        return int(row[0]) if row else 0

    def get_messages_as_conversation(self, session_id: str) -> list[dict[str, Any]]:
        """OpenAI-format dicts: role and content, plus tool fields when present."""
        conversation = []
        for message in self.get_messages(session_id):
            item: dict[str, Any] = {"role": message["role"], "content": message["content"]}
            for key in ("tool_call_id", "tool_name", "tool_calls"):
                if message.get(key):
                    item[key] = message[key]
            conversation.append(item)
        return conversation

    def neighbours(
        self, session_id: str, timestamp: float, message_id: int, *, before: bool, count: int,
        roles: Sequence[str] | None = None, include_inactive: bool = False,
    ) -> list[dict[str, Any]]:
        """Up to ``count`` visible messages strictly before/after ``(timestamp, id)``, in order."""
        if count <= 0:
            return []
        op, direction = ("<", "DESC") if before else (">", "ASC")
        role_sql, params = "", [session_id, timestamp, message_id]
        if roles:
            role_sql = f" AND m.role IN ({','.join('?' * len(roles))})"
            params.extend(roles)
        rows = self.query(
            f"""SELECT {self._message_columns()} FROM messages m
                WHERE m.session_id = ? AND (m.timestamp, m.id) {op} (?, ?)
                  AND {self.visible(include_inactive=include_inactive)}{role_sql}
                ORDER BY m.timestamp {direction}, m.id {direction}
                LIMIT ?""",
            (*params, count),
        )
        messages = [self._message_dict(row) for row in rows]
        return messages[::-1] if before else messages

    def count_outside(
        self, session_id: str, first: dict[str, Any], last: dict[str, Any]
    ) -> tuple[int, int]:
        """Visible messages before ``first`` and after ``last`` by ``(timestamp, id)``.

        One pass over the session's rows instead of one count for each side.
        """
        row = self.query_one(
            f"""SELECT coalesce(sum((m.timestamp, m.id) < (?, ?)), 0),
                       coalesce(sum((m.timestamp, m.id) > (?, ?)), 0)
                FROM messages m WHERE m.session_id = ? AND {self.visible()}""",
            (first["timestamp"], first["id"], last["timestamp"], last["id"], session_id),
        )
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def get_message_in_context(self, message_id: int) -> tuple[dict[str, Any], int, int] | None:
        """One message with how many visible messages of its session come before and after."""
        return self.get_messages_in_context([message_id]).get(int(message_id))

    def get_messages_in_context(
        self, message_ids: Iterable[int]
    ) -> dict[int, tuple[dict[str, Any], int, int]]:
        """:meth:`get_message_in_context` for several messages in one query, by id."""
        ids = list(dict.fromkeys(int(i) for i in message_ids))
        if not ids:
            return {}
        beyond = "m.session_id = x.session_id AND {} AND (m.timestamp, m.id) {op} (x.timestamp, x.id)"
        rows = self.query(
            f"""SELECT {self._message_columns("x")},
                  (SELECT count(*) FROM messages m WHERE {beyond.format(self.visible(), op="<")}),
                  (SELECT count(*) FROM messages m WHERE {beyond.format(self.visible(), op=">")})
                FROM messages x WHERE x.id IN ({','.join('?' * len(ids))})""",
            ids,
        )
        found = {}
        for row in rows:
            *columns, before, after = tuple(row)
            message = self._message_dict(dict(zip(row.keys()[:-2], columns, strict=True)))
            found[message["id"]] = (message, int(before), int(after))
        return found

    def get_messages_around(
        self, session_id: str, message_id: int, window: int = 5
    ) -> dict[str, Any]:
        """``{window, messages_before, messages_after}``; ``{}`` if the id is not in the session.

        ``window`` lists up to ``window`` messages either side of the anchor plus the anchor;
        the two counts say how many visible messages lie beyond the window on each side.
        """
        anchor = self.get_message(message_id)
        if anchor is None or anchor["session_id"] != session_id:
            return {}
        return self._window(session_id, anchor, window, None)

    def _window(
        self, session_id: str, anchor: dict[str, Any], window: int, roles: list[str] | None
    ) -> dict[str, Any]:
        """Up to ``window`` messages (of ``roles``) either side of ``anchor``, the anchor,
        and how many visible messages lie beyond on each side."""
        before = self.neighbours(
            session_id, anchor["timestamp"], anchor["id"], before=True, count=window, roles=roles
        )
        after = self.neighbours(
            session_id, anchor["timestamp"], anchor["id"], before=False, count=window, roles=roles
        )
        first, last = (before or [anchor])[0], (after or [anchor])[-1]
        messages_before, messages_after = self.count_outside(session_id, first, last)
        return {
            "window": [*before, anchor, *after],
            "messages_before": messages_before,
            "messages_after": messages_after,
        }

    def get_anchored_view(
        self,
        session_id: str,
        around_message_id: int,
        window: int = 5,
        bookend: int = 3,
        keep_roles: Sequence[str] = ("user", "assistant"),
        *,
        size_hint: int | None = None,
    ) -> dict[str, Any]:
        """A window around one message plus the session's first and last few messages.

        The window keeps only ``keep_roles`` (the anchor always stays); bookends are the
        first and last ``bookend`` non-empty, non-compaction messages outside the window.
        ``{}`` when the anchor is not in the session. ``size_hint`` (the session row's
        ``message_count``) only saves a wasted read of a long session; a wrong one costs
        time, never the answer.
        """
        roles = list(keep_roles) or None
        small = size_hint is None or int(size_hint) <= SMALL_SESSION
        whole = self._small_session(session_id) if small else None
        if whole is not None:
            view = _anchored_view_in(whole, int(around_message_id), window, bookend, roles)
            if view is not None:  # only the rows shown become dicts
                for part in ("window", "bookend_start", "bookend_end"):
                    view[part] = [self._message_dict(row) for row in view[part]]
                return view
        anchor = self.get_message(around_message_id)
        if anchor is None or anchor["session_id"] != session_id:
            return {}
        view = self._window(session_id, anchor, window, roles)
        first, last = view["window"][0], view["window"][-1]
        view["bookend_start"] = self._bookend(session_id, first, roles, bookend, at_start=True)
        view["bookend_end"] = self._bookend(session_id, last, roles, bookend, at_start=False)
        return view

    def _small_session(self, session_id: str) -> list[sqlite3.Row] | None:
        """All visible messages of a session of at most :data:`SMALL_SESSION` messages,
        in ``(timestamp, id)`` order; None for a longer one. One query instead of six
        for the anchored view of a typical session."""
        rows = self.query(
            f"""SELECT {self._message_columns()} FROM messages m
                WHERE m.session_id = ? AND {self.visible()}
                ORDER BY m.timestamp, m.id LIMIT ?""",
            (session_id, SMALL_SESSION + 1),
        )
        return None if len(rows) > SMALL_SESSION else rows

    def _bookend(
        self,
        session_id: str,
        edge: dict[str, Any],
        roles: Sequence[str] | None,
        count: int,
        *,
        at_start: bool,
    ) -> list[dict[str, Any]]:
        if count <= 0:
            return []
        # Outside the window: strictly before its first message (start) or after its last.
        op, direction = ("<", "ASC") if at_start else (">", "DESC")
        role_sql, params = "", [session_id, edge["timestamp"], edge["id"]]
        if roles:
            role_sql = f" AND m.role IN ({','.join('?' * len(roles))})"
            params.extend(roles)
        not_compaction = " AND ".join(
            f"substr(m.content, 1, {len(prefix)}) != ?" for prefix in COMPACTION_PREFIXES
        )
        params.extend(COMPACTION_PREFIXES)
        rows = self.query(
            f"""SELECT {self._message_columns()} FROM messages m
                WHERE m.session_id = ? AND (m.timestamp, m.id) {op} (?, ?)
                  AND {self.visible()}{role_sql}
                  AND m.content IS NOT NULL AND trim(m.content) != ''
                  AND {not_compaction}
                ORDER BY m.timestamp {direction}, m.id {direction}
                LIMIT ?""",
            (*params, count),
        )
        messages = [self._message_dict(row) for row in rows]
        return messages if at_start else messages[::-1]
