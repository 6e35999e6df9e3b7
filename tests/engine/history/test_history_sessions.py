"""import-sessions backfills from state.db; sessions taught and revert act on it."""

from __future__ import annotations

import json
import time

from history_helpers import entries, events
from sessions_helpers import Corpus, memory_call

from hermes_memory.cli import main
from hermes_memory.history.backfill import import_sessions
from hermes_memory.history.capture import capture
from hermes_memory.history.timeline import Timeline
from hermes_memory.history.undo import revert, taught
from hermes_memory.sessions import create_early_db


def _ok(corpus, sid, call_id, success=True):
    corpus.say(sid, "tool", json.dumps({"success": success}), tool_name="memory", tool_call_id=call_id)


def _past_sessions(home, start=None):
    c = Corpus(create_early_db(home.state_db))
    c.clock = start or c.clock
    c.session("s1", "cli")
    c.say("s1", "assistant", None, tool_calls=memory_call(
        "c1", action="add", target="memory", content="Uses Postgres 16"))
    _ok(c, "s1", "c1")
    c.say("s1", "assistant", None, tool_calls=memory_call(
        "c2", action="add", target="user", content="Name is Ada"))
    _ok(c, "s1", "c2")
    c.session("s2", "telegram")
    c.say("s2", "assistant", None, tool_calls=memory_call(
        "c1", target="memory", operations=[
            {"action": "replace", "old_text": "Postgres", "content": "Uses Postgres 17"},
            {"action": "add", "content": "Deploys on Fridays"}]))
    _ok(c, "s2", "c1")
    c.say("s2", "assistant", None, tool_calls=memory_call(
        "c2", action="add", target="memory", content="Blocked write"))
    _ok(c, "s2", "c2", success=False)
    c.close()


def test_import_backfills_with_sessions(home):
    _past_sessions(home)
    result = import_sessions(home)
    assert result["ok"] and result["imported"] == 3 and result["sessions"] == 2
    timeline = Timeline(home)
    memory = timeline.chain("memory")
    assert [(e["session"], e["platform"], timeline.entries(e)) for e in memory] == [
        ("s1", "cli", ["Uses Postgres 16"]),
        ("s2", "telegram", ["Uses Postgres 17", "Deploys on Fridays"]),
    ]
    assert timeline.entries(timeline.chain("user")[0]) == ["Name is Ada"]
    assert import_sessions(home)["imported"] == 0  # idempotent
    lineage = timeline.lineage(memory[-1]["entries"][0][:12])
    assert [(s["kind"], s["session"]) for s in lineage["steps"]] == [("added", "s1"), ("changed", "s2")]


def test_import_stops_where_live_history_starts(home, store):
    store.add("memory", "Recorded live")  # history starts now ...
    _past_sessions(home, time.time() + 5)  # ... and these calls are newer: left to captures
    result = import_sessions(home)
    assert result["imported"] == 1  # only the user store had no live history
    assert result["left_to_captures"] == 2


def test_state_db_without_tool_calls_and_missing(home):
    assert not import_sessions(home)["ok"]  # no state.db: a clear refusal
    assert "No session history" in import_sessions(home)["error"]
    c = Corpus(create_early_db(home.state_db))
    c.session("s", "cli")
    c.say("s", "user", "hello")
    c.close()
    assert import_sessions(home) == {"ok": True, "imported": 0, "calls": 0, "sessions": 0,
                                     "left_to_captures": 0}  # fmt: skip
    assert events(home) == []


def test_taught_and_revert_of_a_live_agent_session(home, store, agent):
    store.add("memory", "Kept by the person")
    capture(home)
    agent(home, "s-bad", [
        {"action": "add", "target": "memory", "content": "Wrong fact"},
        {"action": "add", "target": "memory", "content": "Another wrong fact"},
        {"action": "replace", "target": "memory", "old_text": "Kept", "content": "Kept by the person, edited"},
        {"action": "add", "target": "user", "content": "User hates tea"},
    ])  # fmt: skip
    capture(home)
    lesson = taught(home, "s-bad")
    assert lesson["memory"]["memory"]["added"] == ["Wrong fact", "Another wrong fact"]
    assert lesson["memory"]["memory"]["changed"] == [
        {"before": "Kept by the person", "after": "Kept by the person, edited"}]
    assert lesson["memory"]["user"]["added"] == ["User hates tea"]
    assert len(lesson["calls"]) == 4
    store.replace("memory", "Another wrong", "Another fact, corrected by hand")  # changed since

    before = entries(home)
    plan = revert(home, "s-bad", dry_run=True)
    assert entries(home) == before  # a dry run writes nothing
    assert [i["entry"] for i in plan["memory"]["memory"]["left_alone"]] == ["Another wrong fact"]

    done = revert(home, "s-bad")
    assert done["ok"]
    assert entries(home) == ["Kept by the person", "Another fact, corrected by hand"]
    assert entries(home, "user") == []
    last = events(home)[-1]
    assert (last["action"], last["reverts"]) == ("revert", "s-bad")
    # ... and the revert is itself undoable
    memory_revert = next(e for e in events(home) if e.get("reverts") and e["kind"] == "memory")
    timeline = Timeline(home)
    assert main(["--home", str(home.path), "history", "restore", timeline.parent(
        timeline.get(memory_revert["id"]))["id"]]) == 0
    assert "Wrong fact" in entries(home)


def test_sessions_cli(home, agent, capsys):
    agent(home, "s-cli", [{"action": "add", "target": "memory", "content": "CLI taught"}])
    capture(home)
    assert main(["--home", str(home.path), "sessions", "taught", "s-cli"]) == 0
    assert "added    CLI taught" in capsys.readouterr().out
    assert main(["--home", str(home.path), "--json", "sessions", "revert", "s-cli", "--dry-run"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["memory"]["memory"]["undone"] == [{"action": "remove", "entry": "CLI taught"}]
    assert entries(home) == ["CLI taught"]
    assert main(["--home", str(home.path), "sessions", "revert", "s-cli"]) == 0
    assert entries(home) == []


def test_revert_archives_a_skill_the_session_created(home):
    import hashlib
    from datetime import UTC, datetime

    from history_helpers import write_skill

    directory = write_skill(home, "made-in-session")
    data = (directory / "SKILL.md").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    blobs = home.path / ".curator_backups" / "blobs"
    blobs.mkdir(parents=True)
    (blobs / digest).write_bytes(data)
    line = {"id": "0123456789ab", "ts": datetime.now(UTC).isoformat(), "actor": "agent",
            "action": "create", "skill": "made-in-session", "evidence": {"session_id": "s-skill"},
            "before": [], "after": [{"path": str(directory / "SKILL.md"), "sha256": digest}]}  # fmt: skip
    (home.skills_dir / ".curator_ledger.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert capture(home)["recorded"] == 0  # the ledger already explains it
    lesson = taught(home, "s-skill")
    assert [(s["skill"], s["created"]) for s in lesson["skills"]] == [("made-in-session", True)]
    plan = revert(home, "s-skill", dry_run=True)
    assert plan["skills"] == [{"skill": "made-in-session", "undo": "archive (restorable)"}]
    assert directory.is_dir()
    assert revert(home, "s-skill")["ok"]
    assert not directory.exists() and (home.skills_archive_dir / "made-in-session").is_dir()
