"""The Changes feed on the engine face: what changed since a time, undo of one change
(never over a later write), pin, and a damaged history as a clear refusal."""

from __future__ import annotations

import time

from history_helpers import entries, write_skill

from hermes_memory import api
from hermes_memory.memory.entries import fingerprint, serialise_entries


def _agent_writes(home, texts: list[str]) -> None:
    """A write that bypasses the engine (as the agent's own memory tool does)."""
    home.memory_file.write_text(serialise_entries(texts), encoding="utf-8")


def test_changes_since_lists_diffs_origins_and_nodes(home, agent):
    _agent_writes(home, ["First fact."])
    api.history_capture(home)
    mark = time.time()
    time.sleep(0.01)
    agent(home, "20261201_090000_abcd", [{"action": "add", "target": "memory", "content": "Second fact."}])
    result = api.changes_since(home, since=mark, capture=True)
    assert result["ok"], result
    [change] = result["changes"]
    assert change["kind"] == "memory" and change["verb"] == "added"
    assert change["diff"]["added"] == ["Second fact."]
    assert change["origin_label"] == "agent" and change["session"] == "20261201_090000_abcd"
    assert change["nodes"] == [fingerprint("Second fact.")]
    assert change["previous"] is not None and change["undoable"]
    # nothing before the mark is listed, everything is without one
    assert len(api.changes_since(home)["changes"]) == 2


def test_undo_restores_exact_bytes_and_refuses_over_a_later_write(home, agent):
    _agent_writes(home, ["First fact."])
    api.history_capture(home)
    before = home.memory_file.read_bytes()
    agent(home, "s1", [{"action": "add", "target": "memory", "content": "Second fact."}])
    change = api.changes_since(home, capture=True)["changes"][0]
    undone = api.changes_undo(home, change["id"])
    assert undone["ok"], undone
    assert home.memory_file.read_bytes() == before
    redone = api.changes_redo(home, change["id"])
    assert redone["ok"] and entries(home) == ["First fact.", "Second fact."]
    # a later write by the agent: undoing the older change would lose it, so it is refused
    agent(home, "s2", [{"action": "add", "target": "memory", "content": "Third fact."}])
    after_third = home.memory_file.read_bytes()
    refused = api.changes_undo(home, change["id"])
    assert not refused["ok"] and "changed again" in refused["error"]
    assert home.memory_file.read_bytes() == after_third


def test_skill_created_patched_and_pinned_flag(home):
    write_skill(home, "deploy-notes")
    api.history_capture(home)
    created = api.changes_since(home)["changes"][0]
    assert created["verb"] == "created" and created["nodes"] == ["deploy-notes"]
    assert api.changes_pin(home, "deploy-notes", True)["ok"]
    pinned_at = time.time()
    time.sleep(0.01)
    write_skill(home, "deploy-notes", body="Changed by the agent.\n")
    feed = api.changes_since(home, since=pinned_at, capture=True)["changes"]
    assert [c["verb"] for c in feed] == ["patched"]
    assert feed[0]["pinned"] and feed[0]["flagged"]
    assert "Changed by the agent." in feed[0]["diff"]["unified_diff"]


def test_undo_of_a_new_skill_archives_it(home):
    write_skill(home, "scratch")
    created = api.changes_since(home, capture=True)["changes"][0]
    result = api.changes_undo(home, created["id"])
    assert result["ok"], result
    assert not (home.skills_dir / "scratch").exists()
    assert any(p.name.startswith("scratch") for p in (home.skills_dir / ".archive").rglob("*"))


def test_damaged_history_is_a_clear_refusal(home):
    history = home.path / ".memory-studio" / "history"
    history.mkdir(parents=True)
    (history / "events.jsonl").mkdir()  # not a file: unreadable
    result = api.changes_since(home)
    assert not result["ok"] and "not a regular file" in result["error"]


def test_the_graph_still_builds_when_history_is_unreadable(home):
    write_skill(home, "still-here")
    _agent_writes(home, ["A fact."])
    history = home.path / ".memory-studio" / "history"
    history.mkdir(parents=True)
    (history / "events.jsonl").mkdir()
    payload = api.graph_build(home, include_all=True)
    assert "still-here" in {node["id"] for node in payload["nodes"]}
    assert all("history" not in node for node in payload["nodes"])


def test_a_write_approved_in_the_app_is_left_out_with_the_apps_own(home):
    import json

    from hermes_memory.pending import PendingQueue

    mark = time.time()
    record = {"id": "ab12cd40", "subsystem": "memory", "action": "add", "summary": "add to memory",
              "origin": "background_review", "created_at": mark, "session_id": "s-review",
              "payload": {"action": "add", "target": "memory", "content": "Approved fact."}}  # fmt: skip
    folder = home.path / "pending" / "memory"
    folder.mkdir(parents=True)
    (folder / "ab12cd40.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    assert PendingQueue(home).approve("ab12cd40").ok
    _agent_writes(home, ["Approved fact.", "The agent's own."])
    feed = api.changes_since(home, since=mark, capture=True, exclude_origins=["app"])["changes"]
    assert [c["origin"] for c in feed] == ["unknown"]  # the capture; the approval is the app's doing
    everything = api.changes_since(home, since=mark)["changes"]
    approved = next(c for c in everything if c.get("approved_by") == "app")
    assert (approved["origin"], approved["session"]) == ("background_review", "s-review")


def test_a_short_listing_reads_only_the_texts_it_shows(home, monkeypatch):
    """The blobs file holds every text ever recorded (tens of MB at 10,000 skills); a feed
    of the newest few reads just theirs, and gives the same answer as a full read."""
    for number in range(30):
        write_skill(home, f"skill-{number:02d}", body=f"Step {number}.\n")
    api.history_capture(home)
    _agent_writes(home, ["A fact."])
    api.history_capture(home)
    full = api.changes_since(home, limit=200)
    wanted_sets = _record_blob_reads(monkeypatch)
    short = api.changes_since(home, limit=3)
    assert wanted_sets and all(w is not None and len(w) <= 6 for w in wanted_sets)
    assert short["changes"] == full["changes"][:3]
    assert short["changes"][1]["diff"]["unified_diff"]  # the skill's text was there to diff


def test_wanted_texts_are_read_from_the_end_of_the_blobs_file_and_the_read_stops_there(home, monkeypatch):
    """Recent versions' texts are at the end of the blobs file: looking for them reads back
    from there and stops once all are found, never the older texts before them."""
    import json

    from hermes_memory.history.storage import HistoryStore, content_hash

    store = HistoryStore(home)
    store.blobs_path.parent.mkdir(parents=True, exist_ok=True)
    texts = [f"Text number {n}: " + "words " * 40 for n in range(400)]
    lines = [json.dumps({"h": content_hash(t), "t": t}, ensure_ascii=False) + "\n" for t in texts]
    tampered = json.dumps({"h": content_hash(texts[390]), "t": "not the text it names"}) + "\n"
    store.blobs_path.write_text("".join(lines) + tampered, encoding="utf-8")
    wanted = {content_hash(texts[395]), content_hash(texts[390]), "0123456789abcdef0123"[:20]}

    visited: list[bytes] = []
    backwards = HistoryStore._lines_backwards

    def counted(path):
        for line in backwards(path):
            visited.append(line)
            yield line

    monkeypatch.setattr(HistoryStore, "_lines_backwards", staticmethod(counted))
    found = store.read_blobs({content_hash(texts[395]), content_hash(texts[390])})
    assert found == {content_hash(texts[395]): texts[395], content_hash(texts[390]): texts[390]}  # not the tampered line
    assert 0 < len(visited) < 20  # read from the end, and stopped by the newest lines holding them
    visited.clear()
    assert store.read_blobs(wanted) == found  # a text history never had: the rest is still found
    assert store.read_blobs() == {content_hash(t): t for t in texts}  # a whole read, forwards


def test_the_diff_of_one_version_reads_only_its_texts_and_its_parents(home, monkeypatch):
    for number in range(20):
        write_skill(home, f"skill-{number:02d}", body=f"Step {number}.\n")
    _agent_writes(home, ["A fact.", "Another fact."])
    api.history_capture(home)
    _agent_writes(home, ["A fact.", "Another fact, changed."])
    api.history_capture(home)
    newest = api.history_log(home, kind="memory")["events"][0]["id"]
    whole = api.history_diff(home, newest)
    wanted_sets = _record_blob_reads(monkeypatch)
    assert api.history_diff(home, newest) == whole
    assert whole["changed"] == [{"before": "Another fact.", "after": "Another fact, changed."}]
    assert wanted_sets and all(w is not None and len(w) <= 4 for w in wanted_sets)


def _record_blob_reads(monkeypatch) -> list[set | None]:
    """From now on, each read of the blobs file adds the texts it asked for (None: all)."""
    from hermes_memory.history.storage import HistoryStore

    read = HistoryStore.read_blobs
    wanted_sets: list[set | None] = []

    def recorded(store, wanted=None):
        wanted_sets.append(None if wanted is None else set(wanted))
        return read(store, wanted)

    monkeypatch.setattr(HistoryStore, "read_blobs", recorded)
    return wanted_sets
