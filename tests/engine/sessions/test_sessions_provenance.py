"""memory_provenance: dating memory entries from the memory-tool calls in history."""

from __future__ import annotations

import json

import pytest
from sessions_helpers import T0, memory_call

from hermes_memory.sessions import SessionStore, memory_provenance


def _ok(c, sid, call_id):
    c.say(sid, "tool", json.dumps({"success": True, "message": "Entry added."}),
          tool_name="memory", tool_call_id=call_id)  # fmt: skip


@pytest.fixture
def provenance_db(early_corpus):
    c = early_corpus
    c.session("s1", "cli")
    c.say("s1", "user", "I like dark mode")  # T0+10
    c.say("s1", "assistant", None, tool_calls=memory_call(
        "call_1", action="add", target="user", content="User prefers dark mode"))  # T0+20
    _ok(c, "s1", "call_1")  # T0+30
    c.session("s2", "telegram")
    c.say("s2", "assistant", None, tool_calls=memory_call(
        "call_1", target="memory", operations=[
            {"action": "add", "content": "Project uses Postgres 16"},
            {"action": "replace", "old_text": "dark", "content":
                "User prefers dark mode in every editor"},
            {"action": "remove", "old_text": "stale"},
        ]))  # T0+40
    _ok(c, "s2", "call_1")  # T0+50
    c.session("s3", "cli")
    c.say("s3", "assistant", None, tool_calls=memory_call(
        "call_1", action="add", target="memory", content="Project uses Postgres 16 via ssh"))  # T0+60
    c.say("s3", "tool", json.dumps({"success": False, "error": "Blocked: ssh"}),
          tool_name="memory", tool_call_id="call_1")  # T0+70, the write was refused
    c.say("s3", "assistant", None, tool_calls=memory_call(
        "call_1", action="replace", old_text="Postgres",
        content="Project uses Postgres 16 and pgvector"))  # T0+80, same id reused
    _ok(c, "s3", "call_1")  # T0+90
    # A flat call with dict arguments, and a call to another tool mentioning the text.
    c.say("s3", "assistant", None, tool_calls=[
        {"name": "memory", "arguments": {"action": "add", "content": "Flat form entry"}},
        {"id": "w", "function": {"name": "web", "arguments": json.dumps(
            {"content": "User prefers dark mode"})}},
    ])  # T0+100  # fmt: skip
    return c.close()


def test_dates_and_events(provenance_db):
    entries = [
        "User prefers dark mode",
        "Project uses Postgres 16",
        "Flat   form\nentry",  # whitespace differs from what was written
        "Typed by a person",
    ]
    found = memory_provenance(provenance_db, entries)
    assert list(found) == entries
    dark = found["User prefers dark mode"]
    assert (dark.first_seen, dark.last_changed) == (T0 + 20, T0 + 40)
    assert dark.sessions == ["s1", "s2"]
    assert [(e.action, e.target, e.source, e.message_id) for e in dark.events] == [
        ("add", "user", "cli", 2),
        ("replace", "memory", "telegram", 4),
    ]
    postgres = found["Project uses Postgres 16"]
    assert (postgres.first_seen, postgres.last_changed) == (T0 + 40, T0 + 80)
    assert [e.session_id for e in postgres.events] == ["s2", "s3"]  # the refused add is out
    assert found["Flat   form\nentry"].first_seen == T0 + 100
    typed = found["Typed by a person"]
    assert (typed.first_seen, typed.last_changed, typed.events) == (None, None, [])
    assert typed.to_dict() == {
        "entry": "Typed by a person", "first_seen": None, "last_changed": None,
        "sessions": [], "events": [],
    }  # fmt: skip
    assert dark.to_dict()["events"][0] == {
        "session_id": "s1", "message_id": 2, "timestamp": T0 + 20, "action": "add",
        "target": "user", "source": "cli",
    }  # fmt: skip


def test_one_scan_for_many_entries(provenance_db):
    store = SessionStore(provenance_db)
    statements = []
    store.conn.set_trace_callback(statements.append)
    try:
        memory_provenance(store, [f"entry {i}" for i in range(50)] + ["User prefers dark mode"])
    finally:
        store.close()
    assert len(statements) == 1


def test_empty_inputs(provenance_db, tmp_path):
    assert memory_provenance(provenance_db, []) == {}
    assert memory_provenance(provenance_db, ["  "])["  "].events == []
    # No entries: the database is not even opened, so a missing one is no error.
    assert memory_provenance(tmp_path / "missing.db", []) == {}


def test_rewound_rows_still_count(modern_corpus):
    c = modern_corpus
    c.session("s", "cli")
    c.say("s", "assistant", None, extra={"active": 0, "compacted": 0},
          tool_calls=memory_call("c", action="add", content="Rewound but written"))  # fmt: skip
    found = memory_provenance(c.close(), ["Rewound but written"])
    assert found["Rewound but written"].first_seen == T0 + 10


def test_memory_calls_since_a_time_scan_only_the_recent_rows(early_corpus):
    from hermes_memory.sessions.provenance import memory_calls

    c = early_corpus
    c.session("s", "cli")
    for n in range(400):
        c.say("s", "assistant", None, tool_calls=memory_call(f"c{n}", action="add", content=f"entry {n}"))
        c.clock += 3600  # an hour apart, so the slack reaches back one message
    path = c.close()
    since = T0 + 10 + 300 * 3610 - 1  # just before message 300
    calls = memory_calls(path, since=since)
    assert [call.arguments["content"] for call in calls] == [f"entry {n}" for n in range(300, 400)]
    store = SessionStore(path)
    statements = []
    store.conn.set_trace_callback(statements.append)
    try:
        assert memory_calls(store, since=since) == calls
    finally:
        store.close()
    assert len(statements) < 15  # a binary search over ids, then one bounded scan
