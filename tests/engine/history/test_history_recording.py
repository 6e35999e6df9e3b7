"""Engine writes record their before/after; skill changes record their new state."""

from __future__ import annotations

import os

from history_helpers import entries, events, write_skill

from hermes_memory.history.recording import BACKGROUND_REVIEW, writing_as
from hermes_memory.history.storage import HistoryStore, content_hash
from hermes_memory.history.timeline import Timeline
from hermes_memory.skills.editing import edit_skill
from hermes_memory.skills.lifecycle import archive_skill, pin_skill, restore_skill, unpin_skill


def test_each_engine_write_is_a_version(home, store):
    store.add("memory", "Project uses pnpm")
    store.add("user", "Prefers British English")
    store.replace("memory", "pnpm", "Project uses pnpm 9")
    store.remove("memory", "pnpm 9")
    recorded = events(home)
    assert [(e["kind"], e["origin"], len(e["entries"])) for e in recorded] == [
        ("memory", "app", 1), ("user", "app", 1), ("memory", "app", 1), ("memory", "app", 0),
    ]  # fmt: skip
    assert recorded[2]["entries"] == [content_hash("Project uses pnpm 9")]
    timeline = Timeline(home)
    assert timeline.entries(recorded[2]) == ["Project uses pnpm 9"]


def test_refused_and_no_op_writes_record_nothing(home, store):
    store.add("memory", "One")
    assert not store.add("memory", "x" * 5000)["success"]
    store.add("memory", "One")  # duplicate: nothing written
    assert not store.remove("memory", "absent")["success"]
    assert len(events(home)) == 1


def test_a_change_by_someone_else_is_recorded_before_the_write(home, store):
    store.add("memory", "Ours")
    home.memory_file.write_text("Ours\n§\nTyped by hand", encoding="utf-8")
    store.add("memory", "Ours again")
    kinds = [(e["action"], e["origin"]) for e in events(home)]
    assert kinds == [("write", "app"), ("capture", "unknown"), ("write", "app")]
    timeline = Timeline(home)
    assert timeline.entries(timeline.events[1]) == ["Ours", "Typed by hand"]


def test_origin_and_session_come_from_the_writer(home, store):
    with writing_as(BACKGROUND_REVIEW, session="20261201_abc"):
        store.add("memory", "Learned in review")
    (event,) = events(home)
    assert (event["origin"], event["session"]) == (BACKGROUND_REVIEW, "20261201_abc")
    store.add("memory", "After the block")
    assert "session" not in events(home)[-1]


def test_content_is_stored_once(home, store):
    for n in range(20):
        store.add("memory", f"Entry number {n}")
    blobs = HistoryStore(home).blobs_path.read_text(encoding="utf-8").splitlines()
    assert len(blobs) == 20  # 20 versions share 20 texts


def test_history_failure_never_blocks_the_write(home, store, tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (home.path / ".memory-studio").mkdir()
    os.symlink(target, home.path / ".memory-studio" / "history")
    assert store.add("memory", "Still saved")["success"]
    assert entries(home) == ["Still saved"]
    assert list(target.iterdir()) == []  # nothing written through the link


def test_skill_changes_are_versions(home):
    write_skill(home, "deploy-site")
    assert pin_skill(home, "deploy-site").ok
    assert unpin_skill(home, "deploy-site").ok
    skill_md = home.skills_dir / "deploy-site" / "SKILL.md"
    text = skill_md.read_text(encoding="utf-8") + "\nEdited by hand.\n"
    skill_md.write_text(text, encoding="utf-8")  # someone else, before our edit
    assert edit_skill(home, "deploy-site", text + "\nMore steps.\n").ok
    assert archive_skill(home, "deploy-site").ok
    assert restore_skill(home, "deploy-site").ok
    chain = Timeline(home).chain("skill", "deploy-site")
    assert [(e["action"], e["state"], e["pinned"]) for e in chain] == [
        ("pin", "active", True), ("unpin", "active", False),
        ("capture", "active", False),  # the hand edit, found by our edit
        ("edit", "active", False), ("archive", "archived", False), ("restore", "active", False),
    ]  # fmt: skip
    timeline = Timeline(home)
    assert timeline.text(chain[2]["md"]) == text
    assert timeline.text(chain[3]["md"]).endswith("More steps.\n")


def test_versions_are_stored_as_edits_with_full_checkpoints(home, store, write_config):
    write_config("memory:\n  memory_char_limit: 100000\n")
    expected = []
    for n in range(120):
        store.add("memory", f"Entry number {n}")
        expected.append(f"Entry number {n}")
    lines = HistoryStore(home).events_path.read_text(encoding="utf-8").splitlines()
    full = [i for i, line in enumerate(lines) if '"entries"' in line]
    assert full == [0, 1] + list(range(17, 120, 16))  # (two entries are smaller in full)
    assert max(len(line) for i, line in enumerate(lines) if i not in full) < 200
    timeline = Timeline(home)
    assert [len(e["entries"]) for e in timeline.chain("memory")] == list(range(1, 121))
    assert timeline.entries(timeline.chain("memory")[-1]) == expected
    # a damaged line breaks only the versions that build on it, until the next full one
    lines[60] = "garbage"  # between the full versions at 49 and 65
    HistoryStore(home).events_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    damaged = Timeline(home)
    assert len(damaged.chain("memory")) == 120 - 5  # 60 and the edits on it lost; 65+ are back
    assert any("missing or damaged" in p for p in damaged.problems)
    assert damaged.entries(damaged.chain("memory")[-1]) == expected
