"""The SQLite fact store behind the holographic provider (spec §10, "Schema", "Connection").

The schema matches the upstream ``memory_store.db`` so either implementation can open
the other's database. Every store object in a process that points at the same file
shares ONE autocommit connection and ONE re-entrant lock (reference-counted): SQLite has
a single writer, and separate connections per store raced each other into
"database is locked".
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....fileio import resolve_write_target
from ....memory.scan import first_threat_message
from . import hrr
from .entities import extract_entities

logger = logging.getLogger(__name__)

HELPFUL_DELTA = 0.05
UNHELPFUL_DELTA = -0.10
FACT_COLUMNS = (
    "fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, "
    "created_at, updated_at"
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    fact_id         INTEGER PRIMARY KEY AUTOINCREMENT,
    content         TEXT NOT NULL UNIQUE,
    category        TEXT DEFAULT 'general',
    tags            TEXT DEFAULT '',
    trust_score     REAL DEFAULT 0.5,
    retrieval_count INTEGER DEFAULT 0,
    helpful_count   INTEGER DEFAULT 0,
    created_at      TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at      TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    hrr_vector      BLOB
);
CREATE TABLE IF NOT EXISTS entities (
    entity_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL,
    entity_type TEXT DEFAULT 'unknown',
    aliases     TEXT DEFAULT '',
    created_at  TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE IF NOT EXISTS fact_entities (
    fact_id   INTEGER REFERENCES facts(fact_id),
    entity_id INTEGER REFERENCES entities(entity_id),
    PRIMARY KEY (fact_id, entity_id)
);
CREATE INDEX IF NOT EXISTS idx_facts_trust    ON facts(trust_score DESC);
CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(category);
CREATE INDEX IF NOT EXISTS idx_entities_name  ON entities(name);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts
    USING fts5(content, tags, content=facts, content_rowid=fact_id);
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags)
        VALUES ('delete', old.fact_id, old.content, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags)
        VALUES ('delete', old.fact_id, old.content, old.tags);
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TABLE IF NOT EXISTS memory_banks (
    bank_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_name  TEXT NOT NULL UNIQUE,
    vector     BLOB NOT NULL,
    dim        INTEGER NOT NULL,
    fact_count INTEGER DEFAULT 0,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
"""


class BlockedFact(ValueError):
    """A fact the threat scanner refuses: recalled facts reach the model's context, so they
    get the same strict scan as a memory entry. The message says why."""


def check_fact(content: str) -> None:
    """Raise :class:`BlockedFact` if ``content`` must not be stored."""
    problem = first_threat_message(content, "strict")
    if problem:
        raise BlockedFact(problem)


def clamp_trust(value: float) -> float:
    return max(0.0, min(1.0, value))


@dataclass
class _SharedConnection:
    connection: sqlite3.Connection
    lock: threading.RLock = field(default_factory=threading.RLock)
    references: int = 0
    schema_ready: bool = False


def _use_wal(connection: sqlite3.Connection) -> None:
    """WAL where the filesystem supports it; network filesystems fall back to a rollback journal."""
    try:
        mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    except sqlite3.DatabaseError:
        mode = None
    if str(mode).lower() != "wal":
        logger.info("memory_store.db: WAL unavailable here; using a rollback journal")
        connection.execute("PRAGMA journal_mode=DELETE")


#: The files SQLite writes beside the database; a link planted as one is followed too.
SIDE_FILES = ("", "-wal", "-shm", "-journal")


def check_db_path(path: Path) -> None:
    """Refuse a database inside a Hermes home that a symbolic link (the file, one of
    SQLite's side files, or a folder on the way) leads out of the home, as every engine
    write is refused (:func:`~hermes_memory.fileio.resolve_write_target`); raises
    :class:`~hermes_memory.fileio.UnsafeFileError` before anything is created. A path
    configured outside every home is the user's choice and is left alone."""
    for suffix in SIDE_FILES:
        resolve_write_target(path.with_name(path.name + suffix))


class FactStore:
    """Facts with entities, trust and HRR vectors in one SQLite file."""

    _shared: dict[str, _SharedConnection] = {}
    _shared_guard = threading.Lock()

    def __init__(
        self, db_path: str | Path, default_trust: float = 0.5, hrr_dim: int = 1024
    ) -> None:
        self.db_path = Path(db_path).expanduser()
        check_db_path(self.db_path)
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        self.default_trust = clamp_trust(default_trust)
        self.hrr_dim = hrr_dim
        self._capacity_warned: set[str] = set()
        try:
            self._key = str(self.db_path.resolve())
        except OSError:
            self._key = str(self.db_path)
        with FactStore._shared_guard:
            shared = FactStore._shared.get(self._key)
            if shared is None:
                connection = sqlite3.connect(
                    self._key, timeout=10.0, isolation_level=None, check_same_thread=False
                )
                connection.row_factory = sqlite3.Row
                shared = FactStore._shared[self._key] = _SharedConnection(connection)
            shared.references += 1
        self._shared_entry: _SharedConnection | None = shared
        with shared.lock:
            if not shared.schema_ready:
                _use_wal(shared.connection)
                shared.connection.executescript(SCHEMA)
                columns = {row[1] for row in shared.connection.execute("PRAGMA table_info(facts)")}
                if "hrr_vector" not in columns:  # databases from before vectors existed
                    shared.connection.execute("ALTER TABLE facts ADD COLUMN hrr_vector BLOB")
                shared.schema_ready = True

    @property
    def vectors_enabled(self) -> bool:
        """Whether fact vectors and category banks are maintained (NumPy present and on)."""
        return hrr.numpy_available()

    # --- connection ---------------------------------------------------------------------
    @property
    def _entry(self) -> _SharedConnection:
        if self._shared_entry is None:
            raise RuntimeError("the fact store is closed")
        return self._shared_entry

    @property
    def connection(self) -> sqlite3.Connection:
        return self._entry.connection

    @property
    def lock(self) -> threading.RLock:
        return self._entry.lock

    def close(self) -> None:
        """Release this store's reference; the last one closes the connection. Idempotent."""
        with FactStore._shared_guard:
            shared, self._shared_entry = self._shared_entry, None
            if shared is None:
                return
            shared.references -= 1
            if shared.references <= 0:
                FactStore._shared.pop(self._key, None)
                shared.connection.close()

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """The lock plus one transaction: a fact, its entity links and its vector land
        together or not at all, and one commit (one WAL sync) replaces several."""
        with self.lock:
            connection = self.connection
            if connection.in_transaction:  # nested: the outer write commits
                yield
                return
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")

    def __enter__(self) -> FactStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- facts --------------------------------------------------------------------------
    def add_fact(self, content: str, category: str = "general", tags: str = "") -> int:
        """Insert a fact and return its id; an exact duplicate returns the existing id unchanged."""
        content = (content or "").strip()
        if not content:
            raise ValueError("content must not be empty")
        check_fact(content)
        with self._writing():
            try:
                cursor = self.connection.execute(
                    "INSERT INTO facts (content, category, tags, trust_score) VALUES (?, ?, ?, ?)",
                    (content, category, tags or "", self.default_trust),
                )
            except sqlite3.IntegrityError:
                row = self.connection.execute(
                    "SELECT fact_id FROM facts WHERE content = ?", (content,)
                ).fetchone()
                return int(row["fact_id"])
            fact_id = int(cursor.lastrowid)
            self._link_entities(fact_id, content)
            self._store_vector(fact_id, content)
            self._rebuild_bank(category)
            return fact_id

    def get_fact(self, fact_id: int) -> dict[str, Any] | None:
        with self.lock:
            row = self.connection.execute(
                f"SELECT {FACT_COLUMNS} FROM facts WHERE fact_id = ?", (fact_id,)
            ).fetchone()
        return dict(row) if row else None

    def count_facts(self) -> int:
        with self.lock:
            return int(self.connection.execute("SELECT COUNT(*) FROM facts").fetchone()[0])

    def update_fact(
        self,
        fact_id: int,
        content: str | None = None,
        trust_delta: float | None = None,
        tags: str | None = None,
        category: str | None = None,
    ) -> bool:
        """Change what is given; trust is clamped to [0, 1]. False when the fact does not exist."""
        with self._writing():
            row = self.connection.execute(
                "SELECT trust_score, category FROM facts WHERE fact_id = ?", (fact_id,)
            ).fetchone()
            if row is None:
                return False
            assignments = ["updated_at = CURRENT_TIMESTAMP"]
            params: list[Any] = []
            if content is not None:
                content = content.strip()
                if not content:
                    raise ValueError("content must not be empty")
                check_fact(content)
                assignments.append("content = ?")
                params.append(content)
            if tags is not None:
                assignments.append("tags = ?")
                params.append(tags)
            if category is not None:
                assignments.append("category = ?")
                params.append(category)
            if trust_delta is not None:
                assignments.append("trust_score = ?")
                params.append(clamp_trust(row["trust_score"] + trust_delta))
            self.connection.execute(
                f"UPDATE facts SET {', '.join(assignments)} WHERE fact_id = ?", (*params, fact_id)
            )
            if content is not None:
                self.connection.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
                self._link_entities(fact_id, content)
                self._store_vector(fact_id, content)
            # Both banks: the fact may have left its old category (upstream rebuilt only the new one).
            for bank_category in {row["category"], category or row["category"]}:
                self._rebuild_bank(bank_category)
            return True

    def remove_fact(self, fact_id: int) -> bool:
        with self._writing():
            row = self.connection.execute(
                "SELECT category FROM facts WHERE fact_id = ?", (fact_id,)
            ).fetchone()
            if row is None:
                return False
            self.connection.execute("DELETE FROM fact_entities WHERE fact_id = ?", (fact_id,))
            self.connection.execute("DELETE FROM facts WHERE fact_id = ?", (fact_id,))
            self._rebuild_bank(row["category"])
            return True

    def list_facts(
        self, category: str | None = None, min_trust: float = 0.0, limit: int = 50
    ) -> list[dict[str, Any]]:
        """Facts by trust, highest first."""
        sql = f"SELECT {FACT_COLUMNS} FROM facts WHERE trust_score >= ?"
        params: list[Any] = [min_trust]
        if category is not None:
            sql += " AND category = ?"
            params.append(category)
        sql += " ORDER BY trust_score DESC, fact_id ASC LIMIT ?"
        params.append(limit)
        with self.lock:
            return [dict(row) for row in self.connection.execute(sql, params)]

    def search_facts(
        self, query: str, category: str | None = None, min_trust: float = 0.3, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Plain full-text search by FTS rank, then trust; counts a retrieval on each hit."""
        from .retrieval import fts_match_expression  # retrieval imports this module

        match = fts_match_expression(query)
        if not match:
            return []
        sql = (
            "SELECT f.fact_id, f.content, f.category, f.tags, f.trust_score, f.retrieval_count, "
            "f.helpful_count, f.created_at, f.updated_at FROM facts_fts "
            "JOIN facts f ON f.fact_id = facts_fts.rowid "
            "WHERE facts_fts MATCH ? AND f.trust_score >= ?"
        )
        params: list[Any] = [match, min_trust]
        if category is not None:
            sql += " AND f.category = ?"
            params.append(category)
        sql += " ORDER BY facts_fts.rank, f.trust_score DESC LIMIT ?"
        params.append(limit)
        with self.lock:
            results = [dict(row) for row in self.connection.execute(sql, params)]
            if results:
                ids = [fact["fact_id"] for fact in results]
                self.connection.execute(
                    "UPDATE facts SET retrieval_count = retrieval_count + 1 "
                    f"WHERE fact_id IN ({','.join('?' * len(ids))})",
                    ids,
                )
                for fact in results:
                    fact["retrieval_count"] += 1
        return results

    def record_feedback(self, fact_id: int, helpful: bool) -> dict[str, Any]:
        """Helpful: trust +0.05 and one more helpful vote; unhelpful: trust −0.10.

        Raises ``KeyError`` for an unknown fact.
        """
        with self._writing():
            row = self.connection.execute(
                "SELECT trust_score, helpful_count FROM facts WHERE fact_id = ?", (fact_id,)
            ).fetchone()
            if row is None:
                raise KeyError(f"fact_id {fact_id} not found")
            old_trust = float(row["trust_score"])
            new_trust = clamp_trust(old_trust + (HELPFUL_DELTA if helpful else UNHELPFUL_DELTA))
            increment = 1 if helpful else 0
            self.connection.execute(
                "UPDATE facts SET trust_score = ?, helpful_count = helpful_count + ?, "
                "updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?",
                (new_trust, increment, fact_id),
            )
            return {
                "fact_id": fact_id,
                "old_trust": old_trust,
                "new_trust": new_trust,
                "helpful_count": int(row["helpful_count"]) + increment,
            }

    # --- entities -------------------------------------------------------------------------
    def fact_entity_names(self, fact_id: int) -> list[str]:
        with self.lock:
            rows = self.connection.execute(
                "SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id "
                "WHERE fe.fact_id = ? ORDER BY e.entity_id",
                (fact_id,),
            ).fetchall()
        return [row["name"] for row in rows]

    def _resolve_entity(self, name: str) -> int:
        """An existing entity by name (case-insensitive), then by alias, else a new one."""
        row = self.connection.execute(
            "SELECT entity_id FROM entities WHERE name LIKE ? ESCAPE '\\'", (_like_literal(name),)
        ).fetchone()
        if row is None:
            row = self.connection.execute(
                "SELECT entity_id FROM entities "
                "WHERE ',' || aliases || ',' LIKE '%,' || ? || ',%' ESCAPE '\\'",
                (_like_literal(name),),
            ).fetchone()
        if row is not None:
            return int(row["entity_id"])
        return int(
            self.connection.execute("INSERT INTO entities (name) VALUES (?)", (name,)).lastrowid
        )

    def _link_entities(self, fact_id: int, content: str) -> None:
        for name in extract_entities(content):
            self.connection.execute(
                "INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)",
                (fact_id, self._resolve_entity(name)),
            )

    # --- vectors -------------------------------------------------------------------------
    def _store_vector(self, fact_id: int, content: str) -> None:
        if not self.vectors_enabled:
            return
        vector = hrr.encode_fact(content, self.fact_entity_names(fact_id), self.hrr_dim)
        self.connection.execute(
            "UPDATE facts SET hrr_vector = ? WHERE fact_id = ?",
            (hrr.phases_to_bytes(vector), fact_id),
        )

    def _rebuild_bank(self, category: str) -> None:
        """``cat:<category>``: the bundle of that category's fact vectors."""
        if not self.vectors_enabled:
            return
        bank = f"cat:{category}"
        blobs = [
            row["hrr_vector"]
            for row in self.connection.execute(
                "SELECT hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL",
                (category,),
            )
        ]
        if not blobs:
            self.connection.execute("DELETE FROM memory_banks WHERE bank_name = ?", (bank,))
            return
        if (
            hrr.snr_estimate(self.hrr_dim, len(blobs), warn=False) < 2.0
            and category not in self._capacity_warned
        ):
            self._capacity_warned.add(category)  # once per store, not on every later write
            hrr.snr_estimate(self.hrr_dim, len(blobs))
        vector = hrr.bundle_rows(hrr.stored_phase_matrix(blobs, self.hrr_dim))
        self.connection.execute(
            "INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at) "
            "VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP) ON CONFLICT(bank_name) DO UPDATE SET "
            "vector = excluded.vector, dim = excluded.dim, fact_count = excluded.fact_count, "
            "updated_at = excluded.updated_at",
            (bank, hrr.phases_to_bytes(vector), self.hrr_dim, len(blobs)),
        )

    def rebuild_all_vectors(self, dim: int | None = None) -> int:
        """Recompute every fact vector and bank from text (after a dim change or migration)."""
        if not self.vectors_enabled:
            return 0
        with self._writing():
            if dim is not None:
                self.hrr_dim = dim
            rows = self.connection.execute(
                "SELECT fact_id, content, category FROM facts"
            ).fetchall()
            for row in rows:
                self._store_vector(row["fact_id"], row["content"])
            for category in {row["category"] for row in rows}:
                self._rebuild_bank(category)
            return len(rows)


def _like_literal(text: str) -> str:
    """``text`` with LIKE wildcards escaped, so "50%" matches only itself."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
