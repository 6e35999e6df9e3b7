"""The ``state.db`` schemas: the early one we write, and detection of what a real file has.

Hermes grew its session store by adding columns and FTS tables over time, so readers never
assume a version: :func:`detect_schema` looks at ``PRAGMA table_info`` and
``sqlite_master`` and the rest of the package asks the resulting :class:`SchemaInfo`.

We only ever *create* the early schema (schema version 2), for the demo home and tests;
:func:`create_modern_db` adds the modern columns and FTS tables on top of it so tests can
exercise the code paths that real, recent databases take.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

EARLY_SCHEMA_VERSION = 2
MODERN_SCHEMA_VERSION = 23

EARLY_TABLES_DDL = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);

CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT
);

CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
"""

# External-content FTS5: the index stores no text of its own, only tokens, and the three
# triggers keep it in step with ``messages``.
EARLY_FTS_DDL = """
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content, content=messages, content_rowid=id
);

CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
"""

#: Columns recent Hermes versions added, as ``(table, column, declaration)``.
MODERN_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("sessions", "title", "TEXT"),
    ("sessions", "api_call_count", "INTEGER DEFAULT 0"),
    ("sessions", "estimated_cost_usd", "REAL"),
    ("sessions", "session_key", "TEXT"),
    ("sessions", "chat_id", "TEXT"),
    ("sessions", "cwd", "TEXT"),
    ("sessions", "git_branch", "TEXT"),
    ("sessions", "archived", "INTEGER DEFAULT 0"),
    ("sessions", "pinned", "INTEGER DEFAULT 0"),
    ("messages", "api_content", "TEXT"),
    ("messages", "reasoning", "TEXT"),
    ("messages", "active", "INTEGER DEFAULT 1"),
    ("messages", "compacted", "INTEGER DEFAULT 0"),
    ("messages", "display_kind", "TEXT"),
    ("messages", "display_metadata", "TEXT"),
    ("messages", "platform_message_id", "TEXT"),
)

# The modern main index also covers tool names and tool-call JSON; the trigram index
# (substring and CJK search) leaves out tool rows and automation sessions, as upstream does.
MODERN_FTS_DDL = """
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, tool_name, tool_calls, content=messages, content_rowid=id
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
        VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
        VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
        VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
        VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;

CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title ON sessions(title) WHERE title IS NOT NULL;
"""

MODERN_TRIGRAM_DDL = """
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
    content, content=messages, content_rowid=id, tokenize='trigram'
);
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages
WHEN new.role != 'tool'
 AND (SELECT source FROM sessions WHERE id = new.session_id) NOT IN ('cron', 'subagent')
BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_trigram_delete AFTER DELETE ON messages
WHEN old.role != 'tool'
 AND (SELECT source FROM sessions WHERE id = old.session_id) NOT IN ('cron', 'subagent')
BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content)
        VALUES ('delete', old.id, old.content);
END;
"""

FTS_TABLE = "messages_fts"
TRIGRAM_TABLE = "messages_fts_trigram"
CJK_TABLE = "messages_fts_cjk"


@dataclass(frozen=True)
class SchemaInfo:
    """What one ``state.db`` actually contains."""

    tables: frozenset[str]
    session_columns: frozenset[str]
    message_columns: frozenset[str]
    fts_columns: tuple[str, ...]
    #: FTS5 keeps one ``<table>_docsize`` row per indexed message unless built with
    #: ``columnsize=0``; we use it to notice messages the index has not caught up with.
    has_docsize: bool

    @property
    def has_fts(self) -> bool:
        return bool(self.fts_columns)

    @property
    def has_trigram(self) -> bool:
        return TRIGRAM_TABLE in self.tables

    @property
    def has_cjk(self) -> bool:
        return CJK_TABLE in self.tables

    @property
    def is_modern(self) -> bool:
        return bool({"active", "api_content", "display_kind"} & self.message_columns)

    def visibility_sql(self, alias: str = "m", *, include_inactive: bool = False) -> str:
        """A WHERE fragment (``1`` when nothing applies) for rows a person should see.

        Live rows and compaction archives (``active=0, compacted=1``) are visible; rewound
        rows (``active=0, compacted=0``) only with ``include_inactive``. Rows whose
        ``display_kind`` is ``hidden`` never are.
        """
        parts = []
        cols = self.message_columns
        if not include_inactive and "active" in cols:
            if "compacted" in cols:
                parts.append(
                    f"(COALESCE({alias}.active, 1) = 1 OR COALESCE({alias}.compacted, 0) = 1)"
                )
            else:
                parts.append(f"COALESCE({alias}.active, 1) = 1")
        if "display_kind" in cols:
            parts.append(f"COALESCE({alias}.display_kind, '') != 'hidden'")
        return " AND ".join(parts) or "1"


def _columns(conn: sqlite3.Connection, table: str) -> frozenset[str]:
    return frozenset(row[1] for row in conn.execute(f"PRAGMA table_info({table})"))


def detect_schema(conn: sqlite3.Connection) -> SchemaInfo:
    tables = frozenset(
        row[0]
        for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    )
    fts_columns: tuple[str, ...] = ()
    if FTS_TABLE in tables:
        try:
            fts_columns = tuple(
                row[1] for row in conn.execute(f"PRAGMA table_info({FTS_TABLE})")
            )
        except sqlite3.DatabaseError:
            fts_columns = ()  # e.g. an FTS table built with a tokenizer this SQLite lacks
    return SchemaInfo(
        tables=tables,
        session_columns=_columns(conn, "sessions"),
        message_columns=_columns(conn, "messages"),
        fts_columns=fts_columns,
        has_docsize=f"{FTS_TABLE}_docsize" in tables,
    )


def configure_writer(conn: sqlite3.Connection, busy_timeout: float) -> None:
    """The early writer's connection settings: WAL, foreign keys, a busy timeout."""
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")


def ensure_early_schema(conn: sqlite3.Connection) -> None:
    """Create the early tables, indexes and FTS objects if they are not there yet."""
    conn.executescript(EARLY_TABLES_DDL)
    if conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 0:
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (EARLY_SCHEMA_VERSION,))
    try:  # as upstream: FTS objects only when the table cannot be read yet
        conn.execute(f"SELECT * FROM {FTS_TABLE} LIMIT 0")
    except sqlite3.OperationalError:
        conn.executescript(EARLY_FTS_DDL)
    conn.commit()


def create_early_db(path: str | Path, *, fts: bool = True) -> Path:
    """A new, empty early-schema ``state.db`` (``fts=False`` leaves out the index)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        configure_writer(conn, 10.0)
        if fts:
            ensure_early_schema(conn)
        else:
            conn.executescript(EARLY_TABLES_DDL)
            conn.execute("INSERT INTO schema_version (version) VALUES (?)", (EARLY_SCHEMA_VERSION,))
            conn.commit()
    finally:
        conn.close()
    return path


def create_modern_db(path: str | Path, *, trigram: bool = True) -> Path:
    """A new, empty database shaped like a recent Hermes one (for tests and demos).

    The early tables plus the modern columns, a three-column ``messages_fts`` and, unless
    ``trigram=False``, the ``messages_fts_trigram`` index.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    try:
        configure_writer(conn, 10.0)
        conn.executescript(EARLY_TABLES_DDL)
        for table, column, decl in MODERN_COLUMNS:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (MODERN_SCHEMA_VERSION,))
        conn.executescript(MODERN_FTS_DDL)
        if trigram:
            conn.executescript(MODERN_TRIGRAM_DDL)
        conn.commit()
    finally:
        conn.close()
    return path
