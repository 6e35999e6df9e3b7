"""``search_messages``: full-text search over a session database, with honest fallbacks.

Routing (spec §8.5): Latin text goes to ``messages_fts`` (BM25 order, ``>>>``/``<<<``
snippets of 40 tokens); CJK text to ``messages_fts_cjk``, then ``messages_fts_trigram``,
then a LIKE scan; a Latin query with no hits is retried on those two indexes; tool-role
and reasoning searches, a missing index and an index that fails (corrupt, stale content
rows) use a LIKE scan. When the index is behind the table (messages added while a
rebuild is pending, or without triggers), the unindexed tail is scanned with LIKE and
appended. :class:`SearchOutcome` says which path ran and why.

Every query runs in two phases: pick the page of message ids first, then compute
snippets and context for that page only. ``snippet()`` and neighbour lookups are the
expensive parts, and the session_search tool scans 300 rows but shows at most ten.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import describe_sqlite_error
from .fts_query import contains_cjk, query_terms, sanitize_fts5_query
from .schema import CJK_TABLE, FTS_TABLE, TRIGRAM_TABLE, SchemaInfo
from .store import SessionStore

SNIPPET_TOKENS = 40
CONTEXT_CHARS = 200
HIGHLIGHT_OPEN, HIGHLIGHT_CLOSE, ELLIPSIS = ">>>", "<<<", "..."

DEFAULT_FIELDS = (
    "id", "session_id", "role", "snippet", "timestamp", "tool_name", "source", "model",
    "session_started", "context",
)  # fmt: skip
#: Extra fields a caller may ask for by name.
OPTIONAL_FIELDS = ("content", "active", "compacted", "title", "parent_session_id", "end_reason")

# Columns selected in phase one, by field name (None: computed in phase two).
_COLUMN_FOR_FIELD = {
    "id": "m.id",
    "session_id": "m.session_id",
    "role": "m.role",
    "timestamp": "m.timestamp",
    "tool_name": "m.tool_name",
    "source": "s.source",
    "model": "s.model",
    "session_started": "s.started_at",
    "content": "m.content",
    "active": "m.active",
    "compacted": "m.compacted",
    "title": "s.title",
    "parent_session_id": "s.parent_session_id",
    "end_reason": "s.end_reason",
}

#: Automation sessions rank after interactive ones (upstream #19434 demotes cron; webhook
#: and scheduler runs are the same kind of unattended traffic).
DEMOTED_SOURCES = ("cron", "webhook", "scheduler")
#: How many best rows demotion reorders (upstream's discover scan size).
DEMOTION_SCAN = 300

PATH_FTS, PATH_FTS_GAP, PATH_CJK, PATH_TRIGRAM, PATH_LIKE, PATH_NONE = (
    "fts", "fts+like", "cjk", "trigram", "like", "none",
)  # fmt: skip


@dataclass
class SearchOutcome:
    """The hits of one search and the path that produced them.

    Iterating, ``len()`` and indexing go to :attr:`hits`, so callers that only want the
    rows can treat the outcome as the list upstream returned.
    """

    hits: list[dict[str, Any]]
    path: str
    note: str = ""
    #: How to make snippets for more rows later (see :func:`add_snippets`).
    match_table: str | None = None
    match_query: str = ""
    terms: list[str] = field(default_factory=list)
    #: Messages the FTS index has not caught up with (``fts+like`` path only).
    unindexed: int = 0
    #: Rows not read yet (lazy scans only); :meth:`iter_rows` yields hits, then these.
    pending: Iterator[dict[str, Any]] | None = None

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        yield from self.hits
        if self.pending is not None:
            yield from self.pending

    def close(self) -> None:
        """Release a lazy scan's cursor (reading stopped before the end)."""
        if self.pending is not None:
            self.pending.close()
            self.pending = None

    def __iter__(self):
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, index):
        return self.hits[index]

    def __bool__(self) -> bool:
        return bool(self.hits)


def _prepend(first: dict[str, Any], rest: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    yield first
    yield from rest  # closing this generator closes `rest` too


class _IndexUnusable(Exception):
    """An FTS table exists but cannot answer (corrupt, missing content rows...)."""


def _as_list(value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [str(part).strip() for part in value if str(part).strip()]


def _like_pattern(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


# --- snippets made in Python (paths where FTS5 snippet() is not available) -----------------
def make_snippet(text: str | None, terms: Sequence[str], tokens: int = SNIPPET_TOKENS) -> str:
    """A ``>>>term<<<`` highlighted excerpt of about ``tokens`` words around the first hit."""
    if not text:
        return ""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if not words:
        return ""
    pattern = (
        re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.I)
        if terms
        else None
    )
    first = pattern.search(text) if pattern else None
    hit_at = first.start() if first else 0
    index = next((i for i, (start, end) in enumerate(words) if end > hit_at), 0)
    lead = min(index, tokens // 4)
    begin_word = index - lead
    end_word = min(len(words), begin_word + tokens)
    begin, end = words[begin_word][0], words[end_word - 1][1]
    # A CJK paragraph is a single "word": cut by characters instead.
    if end - begin > tokens * 12:
        begin = max(begin, hit_at - tokens * 3)
        end = min(end, hit_at + tokens * 9)
    excerpt = text[begin:end]
    if pattern:
        excerpt = pattern.sub(lambda m: f"{HIGHLIGHT_OPEN}{m.group(0)}{HIGHLIGHT_CLOSE}", excerpt)
    prefix = ELLIPSIS if begin > 0 else ""
    suffix = ELLIPSIS if end < len(text) else ""
    return f"{prefix}{excerpt}{suffix}"


@functools.lru_cache(maxsize=128)
def _select_list(schema: SchemaInfo, fields: tuple[str, ...]) -> str:
    """Phase one's column list for ``fields`` (a column the schema lacks is NULL); the
    same few combinations come back on every search, so they are built once."""
    selected = []
    for name in fields:
        column = _COLUMN_FOR_FIELD.get(name)
        if column is None:
            continue
        table, col = column.split(".")
        columns = schema.message_columns if table == "m" else schema.session_columns
        selected.append(f"{column} AS {name}" if col in columns else f"NULL AS {name}")
    for needed in ("m.id AS id", "m.session_id AS session_id", "m.timestamp AS timestamp"):
        if needed.split(" AS ")[1] not in fields:
            selected.append(needed)
    if ("context" in fields or "snippet" in fields) and "content" not in fields:
        selected.append("m.content AS content")
    return ", ".join(selected)


class _Search:
    """One search_messages call: shared filters, then the routes in order."""

    def __init__(
        self,
        store: SessionStore,
        query: str,
        *,
        sources: list[str],
        excluded: list[str],
        roles: list[str],
        limit: int,
        offset: int,
        sort: str | None,
        include_inactive: bool,
        fields: tuple[str, ...],
        include_reasoning: bool,
        rank_window: int | None = None,
    ) -> None:
        self.store = store
        self.rank_window = rank_window if rank_window and rank_window > 0 else None
        self.ranked_window = False  # set once a bounded ranking actually cut the matches
        self.schema = store.schema
        self.query = query
        self.fts_query = sanitize_fts5_query(query)
        self.terms = query_terms(query)
        self.roles = roles
        self.limit = limit
        self.offset = offset
        self.sort = sort if sort in ("newest", "oldest") else None
        self.include_reasoning = include_reasoning
        self.fields = fields

        where = [store.visible(include_inactive=include_inactive)]
        params: list[Any] = []
        if sources:
            where.append(f"s.source IN ({','.join('?' * len(sources))})")
            params.extend(sources)
        if excluded:
            where.append(f"s.source NOT IN ({','.join('?' * len(excluded))})")
            params.extend(excluded)
        if roles:
            where.append(f"m.role IN ({','.join('?' * len(roles))})")
            params.extend(roles)
        self.where = " AND ".join(where)
        self.params = params

        self.select = _select_list(self.schema, fields)

    # --- running SQL ------------------------------------------------------------------
    # (try/except rather than store.errors(): these run several times per search)
    def _rows(self, sql: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        try:
            return [dict(row) for row in self.store.conn.execute(sql, params)]
        except sqlite3.Error as exc:
            raise self._described(exc) from exc

    def _described(self, exc: sqlite3.Error) -> Exception:
        return describe_sqlite_error(self.store.path, exc, self.store.busy_timeout)

    def _index_rows(self, sql: str, params: Sequence[Any], *, lazy: bool = False, raw: bool = False):
        """Run an FTS query; lock errors propagate, anything else means "index unusable".

        With ``lazy`` the rows come from the open cursor as the caller iterates: FTS5
        ranks every match on the first step, but joining and reading each row costs
        more, and a caller that stops early (discover) saves that for the rest. With
        ``raw`` they are the cursor's own rows, no dicts made.
        """
        try:
            cursor = self.store.conn.execute(sql, params)
            if raw:
                return cursor.fetchall()
            if not lazy:
                return [dict(row) for row in cursor]
        except sqlite3.DatabaseError as exc:
            lowered = str(exc).lower()
            if "locked" in lowered or "busy" in lowered:
                raise self._described(exc) from exc
            raise _IndexUnusable(str(exc)) from exc
        return self._drain(cursor)

    def _drain(self, cursor: sqlite3.Cursor) -> Iterator[dict[str, Any]]:
        try:
            for row in cursor:
                yield dict(row)
        except sqlite3.Error as exc:
            raise self._described(exc) from exc
        finally:
            cursor.close()  # also when the reader stops early (generator closed)

    def _order(self, ranked: bool) -> str:
        if self.sort == "newest":
            return "m.timestamp DESC, m.id DESC" + (", rank" if ranked else "")
        if self.sort == "oldest":
            return "m.timestamp ASC, m.id ASC" + (", rank" if ranked else "")
        return "rank" if ranked else "m.timestamp DESC, m.id DESC"

    def _match_rows(
        self, table: str, match: str, limit: int, offset: int, *, lazy: bool = False
    ):
        window, params = "", [match]
        cutoff = self._window_cutoff(table, match)
        if cutoff is not None:
            window = f" AND {table}.rowid >= ?"
            params.append(cutoff)
        sql = f"""
            SELECT {self.select}
            FROM {table}
            JOIN messages m ON m.id = {table}.rowid
            JOIN sessions s ON s.id = m.session_id
            WHERE {table} MATCH ?{window} AND {self.where}
            ORDER BY {self._order(ranked=True)}
            LIMIT ? OFFSET ?"""
        return self._index_rows(sql, (*params, *self.params, limit, offset), lazy=lazy)

    def _window_cutoff(self, table: str, match: str) -> int | None:
        """The lowest rowid of the newest ``rank_window`` matches, when there are more.

        BM25 order makes FTS5 score every match before the first row comes out, which
        for a common word in a million messages takes seconds; read newest first off the
        index, the cut costs a few thousand steps. Queries with fewer matches are ranked
        whole, so their results do not change.
        """
        if self.rank_window is None or table != FTS_TABLE or self.sort is not None:
            return None
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"
        rows = self._index_rows(sql, (match, self.rank_window - 1), raw=True)
        if not rows:
            return None
        self.ranked_window = True
        return rows[0][0]

    def _ranked_rows(self, table: str, match: str, limit: int) -> Iterator[dict[str, Any]]:
        """The best ``limit`` filtered rows by rank, read as the caller iterates.

        FTS5 ranks its matches on its own first (a bare ``MATCH ... ORDER BY rank``, the
        cost of the floor), and only the ids the caller reaches are joined to their
        messages and sessions and filtered, a few at a time. A query with thousands of
        matches no longer joins them all before the first row comes out. Filtered-out
        ids are made up for from the next, larger page of ranked ids, so the rows are the
        same as ``WHERE MATCH AND filters ORDER BY rank LIMIT limit``.
        """
        ranked_sql = f"SELECT rowid AS id FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ? OFFSET ?"
        join_sql = f"""
            SELECT {self.select}
            FROM messages m JOIN sessions s ON s.id = m.session_id
            WHERE m.id IN ({{marks}}) AND {self.where}"""
        yielded, offset, page = 0, 0, self.FIRST_PAGE
        while yielded < limit:
            try:
                ids = [row[0] for row in self._index_rows(ranked_sql, (match, page, offset), raw=True)]
            except _IndexUnusable:
                if offset == 0:
                    raise  # the caller falls back to a substring scan
                return  # failing on a later page: keep the rows already given

            offset += len(ids)
            for start in range(0, len(ids), self.JOIN_BATCH):
                batch = ids[start : start + self.JOIN_BATCH]
                found = {row["id"]: row for row in self._rows(
                    join_sql.format(marks=",".join("?" * len(batch))), (*batch, *self.params)
                )}  # fmt: skip
                for message_id in batch:
                    if message_id in found and yielded < limit:
                        yielded += 1
                        yield found[message_id]
            if len(ids) < page:
                return  # FTS5 has no more matches
            page *= 4  # each further page ranks again: few, growing pages

    #: Ranked ids read first (discover usually stops within them) and per join.
    FIRST_PAGE, JOIN_BATCH = 20, 10

    def _like_rows(self, limit: int, offset: int, min_id: int | None = None) -> list[dict]:
        if not self.terms:
            return []
        columns = ["m.content"]
        if self.schema.is_modern:
            columns += [f"m.{c}" for c in ("tool_name", "tool_calls")
                        if c in self.schema.message_columns]
        if self.include_reasoning:
            columns += [f"m.{c}" for c in sorted(self.schema.message_columns)
                        if c.startswith("reasoning")]
        clauses, params = [], []
        for term in self.terms:
            clauses.append("(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns) + ")")
            params.extend([_like_pattern(term)] * len(columns))
        if min_id is not None:  # only the tail the index has not reached
            clauses.append("m.id > ?")
            params.append(min_id)
        sql = f"""
            SELECT {self.select}
            FROM messages m JOIN sessions s ON s.id = m.session_id
            WHERE {' AND '.join(clauses)} AND {self.where}
            ORDER BY {self._order(ranked=False)}
            LIMIT ? OFFSET ?"""
        return self._rows(sql, (*params, *self.params, limit, offset))

    def _index_gap(self) -> tuple[int, int] | None:
        """``(last indexed id, unindexed count)`` when the FTS index is behind the table."""
        if not self.schema.has_docsize:
            return None
        last_message, last_indexed = self.store.query_one(
            "SELECT (SELECT id FROM messages ORDER BY id DESC LIMIT 1), "
            f"(SELECT id FROM {FTS_TABLE}_docsize ORDER BY id DESC LIMIT 1)"
        )
        if last_message is None:
            return None
        indexed = last_indexed or 0
        if last_message <= indexed:
            return None
        with self.store.errors():
            missing = self.store.conn.execute(
                "SELECT count(*) FROM messages WHERE id > ?", (indexed,)
            ).fetchone()[0]
        return indexed, int(missing)

    # --- routes -----------------------------------------------------------------------
    def _secondary(self) -> tuple[list[dict], str, str, str] | None:
        """Try the CJK-bigram then the trigram index: (rows, path, table, match) or None."""
        if self.schema.has_cjk and self.fts_query:
            try:
                rows = self._match_rows(CJK_TABLE, self.fts_query, self.limit, self.offset)
                if rows:
                    return rows, PATH_CJK, CJK_TABLE, self.fts_query
            except _IndexUnusable:
                pass  # e.g. this SQLite lacks the cjk_unicode61 tokenizer
        # Trigram matching needs three characters per term.
        if self.schema.has_trigram and self.terms and all(len(t) >= 3 for t in self.terms):
            match = " ".join('"' + t.replace('"', "") + '"' for t in self.terms)
            try:
                rows = self._match_rows(TRIGRAM_TABLE, match, self.limit, self.offset)
                if rows:
                    return rows, PATH_TRIGRAM, TRIGRAM_TABLE, match
            except _IndexUnusable:
                pass
        return None

    def run(self, *, lazy: bool = False) -> SearchOutcome:
        """The outcome; with ``lazy``, :attr:`SearchOutcome.pending` may hold the rows."""
        if not self.fts_query and not self.terms:
            return SearchOutcome([], PATH_NONE, "Nothing searchable in the query.")
        outcome = self._route(lazy)
        outcome.terms = self.terms
        return outcome

    def _like(self, note: str) -> SearchOutcome:
        return SearchOutcome(self._like_rows(self.limit, self.offset), PATH_LIKE, note)

    def _route(self, lazy: bool) -> SearchOutcome:
        schema = self.schema
        if self.include_reasoning or ("tool" in self.roles and schema.is_modern):
            return self._like("Tool-role and reasoning searches scan the messages directly.")
        if contains_cjk(self.query):
            found = self._secondary()
            if found:
                rows, path, table, match = found
                return SearchOutcome(rows, path, "", table, match)
            return self._like("CJK text searched by substring scan.")
        if not schema.has_fts:
            return self._like("This database has no full-text index; used a substring scan.")
        if not self.fts_query:
            return self._like("The query has no indexable words; used a substring scan.")
        try:
            gap = self._index_gap()
            if gap is None and lazy:
                if self.sort is None and self.offset == 0:
                    pending = self._ranked_rows(FTS_TABLE, self.fts_query, self.limit)
                else:
                    pending = self._match_rows(
                        FTS_TABLE, self.fts_query, self.limit, self.offset, lazy=True
                    )
                # No empty-result retry on other indexes here: peek at the first row.
                first = next(pending, None)
                if first is not None:
                    return SearchOutcome(
                        [], PATH_FTS, "", FTS_TABLE, self.fts_query,
                        pending=_prepend(first, pending),
                    )  # fmt: skip
                outcome = SearchOutcome([], PATH_FTS, "", FTS_TABLE, self.fts_query)
            elif gap is None:
                rows = self._match_rows(FTS_TABLE, self.fts_query, self.limit, self.offset)
                outcome = SearchOutcome(rows, PATH_FTS, "", FTS_TABLE, self.fts_query)
            else:
                indexed, missing = gap
                wanted = self.limit + self.offset
                rows = self._match_rows(FTS_TABLE, self.fts_query, wanted, 0)
                rows += self._like_rows(wanted, 0, min_id=indexed)
                outcome = SearchOutcome(
                    rows[self.offset : self.offset + self.limit],
                    PATH_FTS_GAP,
                    f"The full-text index is missing {missing:,} newer message(s); "
                    "those were scanned directly.",
                    FTS_TABLE,
                    self.fts_query,
                    unindexed=missing,
                )
        except _IndexUnusable as exc:
            return self._like(f"The full-text index could not be used ({exc}); used a substring scan.")
        if not outcome.hits and self.offset == 0:
            found = self._secondary()
            if found:
                rows, path, table, match = found
                return SearchOutcome(rows, path, "", table, match)
        return outcome

    # --- phase two: snippets and context for the page only -----------------------------
    def finish(self, outcome: SearchOutcome) -> None:
        if "snippet" in self.fields:
            add_snippets(self.store, outcome, outcome.hits)
        if "context" in self.fields:
            for hit in outcome.hits:
                hit["context"] = _context(self.store, hit)
        wanted = set(self.fields) | {"id", "session_id"}
        for i, hit in enumerate(outcome.hits):
            for flag in ("active", "compacted"):
                if flag in hit and hit[flag] is not None:
                    hit[flag] = bool(hit[flag])
            outcome.hits[i] = {k: v for k, v in hit.items() if k in wanted}


def add_snippets(store: SessionStore, outcome: SearchOutcome, hits: list[dict[str, Any]]) -> None:
    """Fill ``hit["snippet"]`` for ``hits`` the way the outcome's path makes them.

    FTS5's own ``snippet()`` for main-index hits; a Python excerpt for everything else
    (LIKE rows, trigram and CJK hits, the unindexed tail).
    """
    if not hits:
        return
    by_id: dict[int, str] = {}
    if outcome.match_table == FTS_TABLE and outcome.match_query:
        ids = [hit["id"] for hit in hits]
        sql = (
            f"SELECT rowid, snippet({FTS_TABLE}, 0, '{HIGHLIGHT_OPEN}', '{HIGHLIGHT_CLOSE}', "
            f"'{ELLIPSIS}', {SNIPPET_TOKENS}) FROM {FTS_TABLE} "
            f"WHERE {FTS_TABLE} MATCH ? AND rowid IN ({','.join('?' * len(ids))})"
        )
        try:
            with store.errors():
                by_id = dict(store.conn.execute(sql, (outcome.match_query, *ids)).fetchall())
        except Exception:  # noqa: BLE001 - a snippet is decoration; fall back to Python
            by_id = {}
    missing = [hit for hit in hits if hit["id"] not in by_id and "content" not in hit]
    contents: dict[int, str] = {}
    if missing:
        ids = [hit["id"] for hit in missing]
        contents = dict(
            store.query(
                f"SELECT id, content FROM messages WHERE id IN ({','.join('?' * len(ids))})", ids
            )
        )
    for hit in hits:
        if hit["id"] in by_id and by_id[hit["id"]]:
            hit["snippet"] = by_id[hit["id"]]
        else:
            text = hit.get("content", contents.get(hit["id"]))
            hit["snippet"] = make_snippet(text, outcome.terms)


def _context(store: SessionStore, hit: dict[str, Any]) -> list[dict[str, Any]]:
    """The hit and its visible neighbours by ``(timestamp, id)``, 200 characters each."""
    session_id, ts, mid = hit["session_id"], hit["timestamp"], hit["id"]
    before = store.neighbours(session_id, ts, mid, before=True, count=1)
    after = store.neighbours(session_id, ts, mid, before=False, count=1)
    content = hit.get("content")
    if content is None:
        row = store.query_one("SELECT content FROM messages WHERE id = ?", (mid,))
        content = row[0] if row else None
    own = {"id": mid, "role": hit.get("role"), "content": content}
    return [
        {"id": m["id"], "role": m["role"], "content": (m.get("content") or "")[:CONTEXT_CHARS]}
        for m in (*before, own, *after)
    ]


def scan_messages(
    store: SessionStore,
    query: str,
    *,
    exclude_sources: str | Iterable[str] | None = None,
    role_filter: str | Iterable[str] | None = None,
    sort: str | None = None,
    scan_limit: int = DEMOTION_SCAN,
    fields: Iterable[str] = ("id", "session_id", "role", "timestamp", "source"),
) -> SearchOutcome:
    """The best ``scan_limit`` rows for a caller that reads them one by one and stops early.

    Read them with :meth:`SearchOutcome.iter_rows`; they carry the phase-one ``fields``
    only (no snippet or context: use :func:`add_snippets` on the rows you keep).
    """
    if not query or not str(query).strip():
        return SearchOutcome([], PATH_NONE, "Empty query.")
    chosen = tuple(f for f in fields if f not in ("snippet", "context"))
    return _Search(
        store,
        str(query),
        sources=[],
        excluded=_as_list(exclude_sources),
        roles=_as_list(role_filter),
        limit=max(0, int(scan_limit)),
        offset=0,
        sort=sort,
        include_inactive=False,
        fields=chosen,
        include_reasoning=False,
    ).run(lazy=True)


def search_messages(
    store: SessionStore,
    query: str,
    source_filter: str | Iterable[str] | None = None,
    exclude_sources: str | Iterable[str] | None = None,
    role_filter: str | Iterable[str] | None = None,
    limit: int = 20,
    offset: int = 0,
    sort: str | None = None,
    include_inactive: bool = False,
    fields: Iterable[str] | None = None,
    include_reasoning: bool = False,
    *,
    demote_sources: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """The hits of :func:`search_outcome` as a plain list, as upstream's returns."""
    return search_outcome(
        store, query, source_filter, exclude_sources, role_filter, limit, offset, sort,
        include_inactive, fields, include_reasoning, demote_sources=demote_sources,
    ).hits  # fmt: skip


def search_outcome(
    store: SessionStore,
    query: str,
    source_filter: str | Iterable[str] | None = None,
    exclude_sources: str | Iterable[str] | None = None,
    role_filter: str | Iterable[str] | None = None,
    limit: int = 20,
    offset: int = 0,
    sort: str | None = None,
    include_inactive: bool = False,
    fields: Iterable[str] | None = None,
    include_reasoning: bool = False,
    *,
    demote_sources: Iterable[str] | None = None,
    rank_window: int | None = None,
) -> SearchOutcome:
    """Search visible messages (spec §8.5, modern signature); the hits and how.

    ``fields`` picks the keys of each hit (default :data:`DEFAULT_FIELDS`, including the
    ±1 ``context``); :data:`OPTIONAL_FIELDS` may be added. ``sort`` is ``newest``,
    ``oldest`` or anything else for relevance. A blank query gives no hits.

    ``demote_sources`` (e.g. :data:`DEMOTED_SOURCES`) moves hits from those sources after
    all others, keeping the order within each group; as upstream's discover does, the
    reordering covers the best :data:`DEMOTION_SCAN` rows (or the page, if larger).

    ``rank_window`` bounds the relevance order of the main index: BM25 then ranks only the
    newest ``rank_window`` matches (by message id), and the note says so. A query with
    fewer matches is ranked whole and answers as without it. Upstream ranks every match;
    the agent's tool keeps that, a person typing in a search box gets this.
    """
    if not query or not str(query).strip():
        return SearchOutcome([], PATH_NONE, "Empty query.")
    chosen = tuple(fields) if fields is not None else DEFAULT_FIELDS
    unknown = set(chosen) - set(DEFAULT_FIELDS) - set(OPTIONAL_FIELDS)
    if unknown:
        raise ValueError(f"Unknown search field(s): {', '.join(sorted(unknown))}")
    limit, offset = max(0, int(limit)), max(0, int(offset))
    demoted = set(_as_list(demote_sources))
    if demoted and "source" not in chosen:
        chosen = (*chosen, "source")
    search = _Search(
        store,
        str(query),
        sources=_as_list(source_filter),
        excluded=_as_list(exclude_sources),
        roles=_as_list(role_filter),
        limit=max(DEMOTION_SCAN, limit + offset) if demoted else limit,
        offset=0 if demoted else offset,
        sort=sort,
        include_inactive=include_inactive,
        fields=chosen,
        include_reasoning=include_reasoning,
        rank_window=rank_window,
    )
    outcome = search.run()
    if search.ranked_window and not outcome.note and outcome.path == PATH_FTS:
        outcome.note = f"Best matches among the newest {rank_window:,} matching messages."
    if demoted:
        ranked = sorted(outcome.hits, key=lambda hit: hit["source"] in demoted)  # stable
        outcome.hits = ranked[offset : offset + limit]
    search.finish(outcome)
    return outcome
