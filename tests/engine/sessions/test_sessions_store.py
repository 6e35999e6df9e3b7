"""SessionStore: plain reads, lineage, windows, and bad databases (never a write)."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sessions_helpers import T0

from hermes_memory import pausing
from hermes_memory.sessions import (
    SessionDBInvalid,
    SessionDBLocked,
    SessionDBMissing,
    SessionStore,
    create_early_db,
    search_messages,
    session_search,
)
from hermes_memory.sessions.store import DEFAULT_BUSY_TIMEOUT


@pytest.fixture
def lineage_db(early_corpus):
    c = early_corpus
    c.session("root", "cli", model="m")
    c.say("root", "user", "first question")  # 1
    c.say("root", "assistant", None, tool_calls=[{"id": "c1", "function": {"name": "web"}}])  # 2
    c.say("root", "tool", "web result", tool_name="web", tool_call_id="c1")  # 3
    c.end("root", "compression")
    c.session("child", "cli", parent_session_id="root")
    c.say("child", "user", "[CONTEXT SUMMARY]: earlier we talked")  # 4
    c.say("child", "user", "second question")  # 5
    c.session("grandchild", "subagent", parent_session_id="child")
    c.say("grandchild", "assistant", "sub work")  # 6
    c.session("other", "telegram")
    c.say("other", "user", "unrelated")  # 7
    return c.close()


def test_get_session_and_messages(lineage_db):
    with SessionStore(lineage_db) as store:
        session = store.get_session("root")
        assert (session["source"], session["model"], session["end_reason"]) == (
            "cli", "m", "compression",
        )  # fmt: skip
        assert session["message_count"] == 3 and session["tool_call_count"] == 2
        assert session["title"] is None
        assert store.get_session("nope") is None
        messages = store.get_messages("root")
        assert [m["id"] for m in messages] == [1, 2, 3]
        assert messages[1]["tool_calls"] == [{"id": "c1", "function": {"name": "web"}}]
        assert store.get_messages_as_conversation("root") == [
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "function": {"name": "web"}}]},
            {"role": "tool", "content": "web result", "tool_call_id": "c1", "tool_name": "web"},
        ]  # fmt: skip


def test_list_sessions_by_last_activity(lineage_db):
    with SessionStore(lineage_db) as store:
        listed = store.list_sessions()
        assert [s["id"] for s in listed] == ["other", "grandchild", "child", "root"]
        assert listed[0]["last_active"] == T0 + 80 and listed[0]["preview"] == "unrelated"
        assert [s["id"] for s in store.list_sessions(limit=2, offset=1)] == ["grandchild", "child"]
        assert [s["id"] for s in store.list_sessions(exclude_sources=["subagent", "telegram"])] == [
            "child", "root",
        ]  # fmt: skip


def test_lineage_and_roots(lineage_db):
    with SessionStore(lineage_db) as store:
        assert store.resolve_root("grandchild") == "root"
        assert store.resolve_root("other") == "other"
        assert store.resolve_root("missing") == "missing"
        assert store.lineage("child") == {"root", "child", "grandchild"}


def test_parent_cycle_does_not_hang(tmp_path):
    path = create_early_db(tmp_path / "state.db")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES ('a', 'cli', 'b', 1)")
    conn.execute("INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES ('b', 'cli', 'a', 2)")
    conn.commit()
    conn.close()
    with SessionStore(path) as store:
        assert store.resolve_root("a") in {"a", "b"}
        assert store.lineage("a") == {"a", "b"}


def test_anchored_view_filters_roles_and_skips_compaction_bookends(early_corpus):
    c = early_corpus
    c.session("s")
    c.say("s", "user", "[CONTEXT COMPACTION] summary of before")  # 1
    for i in range(2, 13):  # 2..12 alternate user/assistant, tool rows in between
        c.say("s", "tool" if i % 3 == 0 else ("user" if i % 2 else "assistant"), f"m{i}")
    path = c.close()
    with SessionStore(path) as store:
        view = store.get_anchored_view("s", 7, window=2, bookend=2)
        assert [m["id"] for m in view["window"]] == [4, 5, 7, 8, 10]
        assert [m["id"] for m in view["bookend_start"]] == [2]  # 1 is a compaction message
        assert [m["id"] for m in view["bookend_end"]] == [11]  # 12 is a tool row
        assert (view["messages_before"], view["messages_after"]) == (3, 2)
        # A tool anchor stays even though tools are filtered from the window.
        assert 6 in [m["id"] for m in store.get_anchored_view("s", 6, window=1)["window"]]
        assert store.get_anchored_view("other", 7) == {}
        around = store.get_messages_around("s", 7, window=1)
        assert [m["id"] for m in around["window"]] == [6, 7, 8]
        assert (around["messages_before"], around["messages_after"]) == (5, 4)
        assert store.get_messages_around("s", 999) == {}


# --- bad databases --------------------------------------------------------------------------
def test_missing_database(tmp_path):
    with pytest.raises(SessionDBMissing, match="No session history at"):
        SessionStore(tmp_path / "state.db")
    assert not (tmp_path / "state.db").exists()
    result = session_search(tmp_path / "state.db", "x")
    assert result["success"] is False and result["error"].startswith("No session history at")


def test_not_sqlite(tmp_path):
    path = tmp_path / "state.db"
    path.write_bytes(b"this is not a database at all\n" * 200)
    before = path.read_bytes()
    with pytest.raises(SessionDBInvalid, match="is not an SQLite database"):
        SessionStore(path)
    assert path.read_bytes() == before


def test_sqlite_but_not_hermes(tmp_path):
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE other (x)")
    conn.close()
    with pytest.raises(SessionDBInvalid, match="not a Hermes session store"):
        SessionStore(path)
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    with pytest.raises(SessionDBInvalid, match="not a Hermes session store"):
        SessionStore(empty)
    assert empty.read_bytes() == b""


def test_directory_instead_of_file(tmp_path):
    (tmp_path / "state.db").mkdir()
    with pytest.raises(SessionDBInvalid, match="is not a file"):
        SessionStore(tmp_path / "state.db")


def test_locked_database_gives_a_clear_error(tmp_path):
    path = create_early_db(tmp_path / "state.db")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode = DELETE")  # WAL readers are never blocked
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SessionDBLocked, match=r"locked by another process .* 0\.2 s"):
            SessionStore(path, busy_timeout=0.2)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_thread_told_to_wait_briefly_opens_its_reads_with_that_wait(tmp_path):
    path = create_early_db(tmp_path / "state.db")
    waits: dict[str, float] = {}

    def reader() -> None:
        pausing.wait_at_most(0.25)
        with SessionStore(path) as store:
            waits["told"] = store.busy_timeout
        with SessionStore(path, busy_timeout=3.0) as store:
            waits["own"] = store.busy_timeout  # a read with a wait of its own keeps it

    thread = threading.Thread(target=reader)
    thread.start()
    thread.join()
    with SessionStore(path) as store:
        waits["other thread"] = store.busy_timeout
    assert waits == {"told": 0.25, "own": 3.0, "other thread": DEFAULT_BUSY_TIMEOUT}


def test_locked_after_open_is_reported_not_crashed(tmp_path):
    path = create_early_db(tmp_path / "state.db")
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode = DELETE")
    setup.close()
    store = SessionStore(path, busy_timeout=0.2)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SessionDBLocked):
            search_messages(store, "anything")
        result = session_search(store, "anything")
        assert result["success"] is False and "locked by another process" in result["error"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.close()


def test_store_connection_refuses_writes(lineage_db):
    with SessionStore(lineage_db) as store:
        with pytest.raises(sqlite3.OperationalError):
            store.conn.execute("INSERT INTO sessions (id, source, started_at) VALUES ('x', 'cli', 1)")


def test_list_sessions_includes_sessions_without_messages(early_corpus):
    c = early_corpus
    c.session("old")
    c.say("old", "user", "hello")  # T0+10
    c.session("empty", at=T0 + 5)  # no messages: ranked by started_at
    c.session("new", at=T0 + 20)
    c.say("new", "user", "latest")  # T0+30
    with SessionStore(c.close()) as store:
        listed = store.list_sessions()
        assert [(s["id"], s["last_active"]) for s in listed] == [
            ("new", T0 + 30), ("old", T0 + 10), ("empty", T0 + 5),
        ]  # fmt: skip
        assert listed[2]["preview"] == ""
        assert store.list_sessions(limit=0) == []


def test_anchored_view_of_a_small_session_read_whole_matches_the_sql_path(modern_corpus, monkeypatch):
    import random

    import hermes_memory.sessions.store as store_module

    rng = random.Random(4)
    c = modern_corpus
    contents = [None, "", " ", "\n", "hello", "[CONTEXT COMPACTION] old turns",
                "[CONTEXT SUMMARY]: gist", " [CONTEXT SUMMARY]: indented", "plain words"]  # fmt: skip
    for n in range(12):
        sid = f"s{n}"
        c.session(sid, "cli")
        clock = T0
        for _ in range(rng.randint(1, 25)):
            clock += rng.choice([0, 0, 5])  # equal timestamps: ids break the tie
            extra = {"active": 0, "compacted": rng.choice([0, 1])} if rng.random() < 0.15 else None
            c.say(sid, rng.choice(["user", "assistant", "tool", "system"]), rng.choice(contents),
                  timestamp=clock, extra=extra)  # fmt: skip
    path = c.close()
    with SessionStore(path) as store:
        cases = [
            (sid, mid, window, bookend, roles)
            for sid, mid in store.query("SELECT session_id, id FROM messages")
            for window in (0, 1, 5) for bookend in (0, 1, 3)
            for roles in (("user", "assistant"), ())
        ]  # fmt: skip
        whole = {case: store.get_anchored_view(*case[:2], window=case[2], bookend=case[3],
                                               keep_roles=case[4]) for case in cases}  # fmt: skip
        for case in cases[::7]:  # a wrong size hint costs time, never the answer
            for hint in (0, 10**6):
                assert store.get_anchored_view(*case[:2], window=case[2], bookend=case[3],
                                               keep_roles=case[4], size_hint=hint) == whole[case]
        monkeypatch.setattr(store_module, "SMALL_SESSION", 0)  # every session takes SQL
        for case, view in whole.items():
            by_sql = store.get_anchored_view(*case[:2], window=case[2], bookend=case[3],
                                             keep_roles=case[4])  # fmt: skip
            assert view == by_sql, case
    assert any(view for view in whole.values())
