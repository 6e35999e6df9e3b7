"""The scrubber's engine calls: ``history_replay`` (the state at a date, re-read only when
the history changed), ``history_restore_undoable`` and ``history_step`` (a restore's undo
and redo, keeping what the agent wrote since)."""

from __future__ import annotations

import json
import time

from history_helpers import entries, write_skill

from hermes_memory import api
from hermes_memory.history.storage import HistoryStore
from hermes_memory.memory.entries import fingerprint


def test_replay_is_plain_data_and_follows_new_versions(home, store):
    store.add("memory", "First fact.")
    between = time.time()
    time.sleep(0.01)
    store.add("memory", "Second fact.")
    then = api.history_replay(home, between)
    json.dumps(then)
    assert then["ok"] and then["versions"] == 2
    assert then["memory"]["entries"] == [{"fingerprint": fingerprint("First fact."), "text": "First fact."}]
    assert then["user"]["version"] is None  # nothing recorded of USER.md by then
    assert [e["text"] for e in api.history_replay(home)["memory"]["entries"]] == ["First fact.", "Second fact."]
    store.add("memory", "Third fact.")  # appended to the log: the cached read is not reused
    now = api.history_replay(home)
    assert now["versions"] == 3 and now["memory"]["entry_count"] == 3


def test_replay_of_a_damaged_history_is_a_refusal_not_a_crash(home, store):
    store.add("memory", "First fact.")
    events = HistoryStore(home).events_path
    events.unlink()
    events.mkdir()
    result = api.history_replay(home, time.time())
    assert result["ok"] is False and "events.jsonl" in result["error"]


def test_undo_and_redo_of_a_restore_keep_what_the_agent_wrote(home, store, agent):
    store.add("memory", "Kept fact.")
    store.add("memory", "Old wording of the port fact.")
    first = api.history_log(home, kind="memory")["events"][0]["id"]
    store.replace("memory", "Old wording", "New wording of the port fact.")
    restored = api.history_restore_undoable(home, first, fingerprint("Old wording of the port fact."))
    assert restored["ok"] and restored["write"] == "memory" and restored["undo"]
    assert entries(home) == ["Kept fact.", "Old wording of the port fact."]
    agent(home, "s-later", [{"action": "add", "target": "memory", "content": "Agent fact."}])
    undone = api.history_step(home, **restored["undo"])
    assert undone["ok"], undone
    assert entries(home) == ["Kept fact.", "New wording of the port fact.", "Agent fact."]
    redo = {"from_id": restored["undo"]["to_id"], "to_id": restored["undo"]["from_id"]}
    assert api.history_step(home, **redo)["ok"]
    assert entries(home) == ["Kept fact.", "Old wording of the port fact.", "Agent fact."]


def test_a_restore_that_writes_nothing_has_no_undo(home, store):
    store.add("memory", "Only fact.")
    version = api.history_log(home, kind="memory")["events"][0]["id"]
    result = api.history_restore_undoable(home, version)
    assert result["ok"] and result["undo"] is None
    assert api.history_restore_undoable(home, "nope")["ok"] is False


def test_a_skill_changed_since_its_restore_is_not_undone(home):
    from hermes_memory.skills.editing import edit_skill

    directory = write_skill(home, "notes", "Version one.\n")
    api.history_capture(home)
    text = (directory / "SKILL.md").read_text(encoding="utf-8")
    assert edit_skill(home, "notes", text.replace("Version one.", "Version two.")).ok
    first = api.history_log(home, kind="skill", skill="notes")["events"][-1]["id"]
    restored = api.history_restore_undoable(home, first)
    assert restored["ok"] and restored["write"] == "skills" and restored["undo"]
    assert "Version one." in (directory / "SKILL.md").read_text(encoding="utf-8")
    changed = text.replace("Version one.", "Changed by the agent.")
    (directory / "SKILL.md").write_text(changed, encoding="utf-8")
    refused = api.history_step(home, **restored["undo"])
    assert refused["ok"] is False and "changed since" in refused["error"]
    assert (directory / "SKILL.md").read_text(encoding="utf-8") == changed


def test_growth_reads_only_memory_texts_and_counts_active_skills(home, monkeypatch):
    """Store sizes need the entries' texts only: the skills' texts (most of the blobs file
    at 10,000 skills) are not read for the growth chart."""
    for number in range(5):
        write_skill(home, f"skill-{number}")
    api.history_capture(home)
    home.memory_file.write_text("One fact.\n§\nTwo facts.", encoding="utf-8")
    api.history_capture(home)
    read = HistoryStore.read_blobs
    wanted_sets: list = []

    def recorded(store, wanted=None):
        wanted_sets.append(wanted)
        return read(store, wanted)

    monkeypatch.setattr(HistoryStore, "read_blobs", recorded)
    points = api.history_growth(home)["points"]
    assert wanted_sets and all(w is not None and len(w) == 2 for w in wanted_sets)
    assert [p["active_skills"] for p in points] == [1, 2, 3, 4, 5, 5]
    assert points[-1]["memory_entries"] == 2 and points[-1]["memory_chars"] == len("One fact.") + 3 + len("Two facts.")
