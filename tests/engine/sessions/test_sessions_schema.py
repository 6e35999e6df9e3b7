"""The early schema we write, the modern test helper, and schema detection."""

from __future__ import annotations

import sqlite3

import pytest

from hermes_memory.sessions import (
    SessionStore,
    SessionWriter,
    create_early_db,
    create_modern_db,
    detect_schema,
)


def _objects(path, kind):
    conn = sqlite3.connect(path)
    try:
        return {
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%'",
                (kind,),
            )
        }
    finally:
        conn.close()


def test_early_schema_objects(tmp_path):
    path = create_early_db(tmp_path / "state.db")
    assert _objects(path, "table") == {
        "schema_version", "sessions", "messages", "messages_fts", "messages_fts_data",
        "messages_fts_idx", "messages_fts_docsize", "messages_fts_config",
    }  # fmt: skip
    assert _objects(path, "index") == {
        "idx_sessions_source", "idx_sessions_parent", "idx_sessions_started",
        "idx_messages_session",
    }  # fmt: skip
    assert _objects(path, "trigger") == {
        "messages_fts_insert", "messages_fts_delete", "messages_fts_update",
    }  # fmt: skip
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(2,)]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        fts_sql = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'messages_fts'"
        ).fetchone()[0]
        assert "content=messages" in fts_sql and "content_rowid=id" in fts_sql
        columns = [row[1] for row in conn.execute("PRAGMA table_info(messages)")]
        assert columns == [
            "id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name",
            "timestamp", "token_count", "finish_reason",
        ]  # fmt: skip
    finally:
        conn.close()


def test_writer_bookkeeping_and_triggers(early_corpus):
    c = early_corpus
    c.session("s1", "cli", model="m")
    c.say("s1", "user", "hello there")
    c.say("s1", "assistant", None, tool_calls=[{"id": "x", "function": {"name": "t"}}])
    c.say("s1", "tool", "result text", tool_name="t", tool_call_id="x")
    c.say("s1", "assistant", "all done")
    c.end("s1", "user_exit")
    path = c.close()
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            "SELECT message_count, tool_call_count, end_reason, ended_at FROM sessions"
        ).fetchone()
        assert row == (4, 2, "user_exit", c.clock)
        # The insert trigger indexed the rows: FTS finds them.
        hits = conn.execute(
            "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'result OR done'"
        ).fetchall()
        assert sorted(h[0] for h in hits) == [3, 4]
        # Update and delete triggers keep the index in step.
        conn.execute("UPDATE messages SET content = 'changed words' WHERE id = 4")
        conn.execute("DELETE FROM messages WHERE id = 3")
        conn.commit()
        assert conn.execute(
            "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'result OR done'"
        ).fetchall() == []
        assert conn.execute(
            "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'changed'"
        ).fetchall() == [(4,)]
    finally:
        conn.close()


def test_writer_enforces_foreign_keys(early_corpus):
    with pytest.raises(Exception, match="FOREIGN KEY"):
        early_corpus.say("no-such-session", "user", "orphan")


def test_writer_rejects_unknown_extra_columns(early_corpus):
    early_corpus.session("s1")
    with pytest.raises(ValueError, match="no column 'active'"):
        early_corpus.say("s1", "user", "x", extra={"active": 0})


def test_detect_early_and_modern(tmp_path):
    early = create_early_db(tmp_path / "early.db")
    modern = create_modern_db(tmp_path / "modern.db")
    with SessionStore(early) as store:
        assert store.schema.fts_columns == ("content",)
        assert not store.schema.is_modern
        assert not store.schema.has_trigram
        assert store.schema.visibility_sql() == "1"
    with SessionStore(modern) as store:
        schema = store.schema
        assert schema.fts_columns == ("content", "tool_name", "tool_calls")
        assert schema.is_modern and schema.has_trigram and not schema.has_cjk
        assert {"api_content", "active", "compacted", "display_kind"} <= schema.message_columns
        assert "title" in schema.session_columns
        assert schema.visibility_sql() == (
            "(COALESCE(m.active, 1) = 1 OR COALESCE(m.compacted, 0) = 1) AND "
            "COALESCE(m.display_kind, '') != 'hidden'"
        )
        assert schema.visibility_sql(include_inactive=True) == (
            "COALESCE(m.display_kind, '') != 'hidden'"
        )


def test_modern_writer_fills_modern_columns(modern_corpus):
    c = modern_corpus
    c.session("s1", extra={"title": "Deploy notes"})
    c.say("s1", "user", "rewound words", extra={"active": 0, "compacted": 0})
    path = c.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT title FROM sessions").fetchone() == ("Deploy notes",)
        assert conn.execute("SELECT active, compacted FROM messages").fetchone() == (0, 0)
        assert conn.execute(
            "SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH 'wound'"
        ).fetchall() == [(1,)]
    finally:
        conn.close()


def test_existing_database_is_not_recreated(tmp_path):
    path = create_early_db(tmp_path / "state.db")
    with SessionWriter(path) as writer:
        writer.create_session("s1", "cli", started_at=1.0)
    with SessionWriter(path) as writer:  # reopening keeps the data and the schema row
        writer.create_session("s2", "cli", started_at=2.0)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone() == (2,)
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone() == (1,)
        assert detect_schema(conn).has_docsize
    finally:
        conn.close()
