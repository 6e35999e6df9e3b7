"""Capture records what others changed, and says who where it can."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from history_helpers import events, write_skill

from hermes_memory.history.capture import capture
from hermes_memory.history.timeline import Timeline
from hermes_memory.skills.lifecycle import pin_skill


def test_an_agent_write_is_attributed_to_its_session(home, store, agent):
    store.add("memory", "Typed in the app")
    agent(home, "s-agent", [{"action": "add", "target": "memory", "content": "Learned from chat"}],
          source="telegram")  # fmt: skip
    result = capture(home)
    assert result["ok"] and result["recorded"] == 1
    last = events(home)[-1]
    assert (last["action"], last["origin"], last["session"]) == ("capture", "foreground", "s-agent")
    assert capture(home)["recorded"] == 0  # nothing new since


def test_a_hand_edit_in_an_editor_is_by_hand(home, store):
    store.add("memory", "Clean entry")
    home.memory_file.write_text("Clean entry\n§\nnotes from my editor\n", encoding="utf-8")
    capture(home)
    last = events(home)[-1]
    assert last["origin"] == "hand"
    assert "raw" in last  # the exact text is kept, since entries alone would lose it
    assert Timeline(home).text(last["raw"]) == "Clean entry\n§\nnotes from my editor\n"


def test_an_unexplained_canonical_change_is_unknown(home, store):
    store.add("memory", "One")
    home.memory_file.write_text("One\n§\nTwo", encoding="utf-8")
    capture(home)
    assert events(home)[-1]["origin"] == "unknown"


def test_two_sessions_in_one_capture_each_keep_their_entries(home, agent):
    agent(home, "s1", [{"action": "add", "target": "memory", "content": "From session one"}])
    agent(home, "s2", [{"action": "add", "target": "memory", "content": "From session two"}])
    capture(home)
    (event,) = events(home)
    assert event["sessions"] == ["s2", "s1"] or event["sessions"] == ["s1", "s2"]
    timeline = Timeline(home)
    by_text = {timeline.text(h): s for h, s in event["taught"].items()}
    assert by_text == {"From session one": "s1", "From session two": "s2"}


def test_skills_capture_and_the_ledger(home):
    write_skill(home, "made-by-agent")
    first = capture(home)
    assert first["recorded"] == 1
    assert capture(home)["recorded"] == 0
    pin_skill(home, "made-by-agent")
    assert capture(home)["recorded"] == 0  # our own change is already recorded
    skill_md = home.skills_dir / "made-by-agent" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8") + "\nAgent patch.\n", encoding="utf-8")
    # The agent's curator ledger explains the patch: it is history, not a capture.
    import hashlib

    digest = hashlib.sha256(skill_md.read_bytes()).hexdigest()
    blobs = home.path / ".curator_backups" / "blobs"
    blobs.mkdir(parents=True)
    (blobs / digest).write_bytes(skill_md.read_bytes())
    ledger = {"id": "abc123abc123", "ts": datetime.now(UTC).isoformat(), "actor": "agent",
              "action": "patch", "skill": "made-by-agent", "evidence": {"session_id": "s-ledger"},
              "before": [], "after": [{"path": str(skill_md), "sha256": digest}]}  # fmt: skip
    (home.skills_dir / ".curator_ledger.jsonl").write_text(
        json.dumps(ledger) + "\nnot json\n", encoding="utf-8")  # fmt: skip
    assert capture(home)["recorded"] == 0
    timeline = Timeline(home)
    chain = timeline.chain("skill", "made-by-agent")
    assert chain[-1]["id"] == "ledger-abc123abc123"
    assert (chain[-1]["origin"], chain[-1]["session"]) == ("foreground", "s-ledger")
    assert timeline.text(chain[-1]["md"]).endswith("Agent patch.\n")
    assert timeline.skill_fields(chain[-1])["pinned"] is True  # the pin carries over
    assert any("not JSON" in p for p in timeline.problems)


def test_a_deleted_skill_is_captured_as_missing(home):
    import shutil

    directory = write_skill(home, "short-lived")
    capture(home)
    shutil.rmtree(directory)
    capture(home)
    chain = Timeline(home).chain("skill", "short-lived")
    assert [e["state"] for e in chain] == ["active", "missing"]
    assert capture(home)["recorded"] == 0


def test_a_skills_capture_reads_the_usage_file_once_not_once_per_skill(home, monkeypatch):
    from hermes_memory.skills import usage

    for name in ("one-skill", "two-skill", "three-skill"):
        write_skill(home, name)
    pin_skill(home, "two-skill")
    reads = []
    read = usage.read_usage
    monkeypatch.setattr(usage, "read_usage", lambda h: reads.append(h) or read(h))
    result = capture(home)
    assert result["ok"] and len(reads) == 1
    assert {e["skill"]: e["pinned"] for e in events(home) if e.get("kind") == "skill"}["two-skill"] is True
