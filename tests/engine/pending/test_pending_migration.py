"""The old ``review/pending/`` records move into upstream's queue once: nothing lost,
nothing duplicated, also after a crash halfway."""

from __future__ import annotations

import json

from pending_helpers import MEMORY, skill_text

from hermes_memory.memory.store import MemoryStore
from hermes_memory.pending import PendingQueue
from hermes_memory.pending.skill_ops import text_hash


def old_record(home, old_id, **fields):
    folder = home.path / "review" / "pending"
    folder.mkdir(parents=True, exist_ok=True)
    record = {"format": 1, "id": old_id, "session_id": "20260412_093015_a1b2c3",
              "created_at": "2026-04-12T09:35:00+00:00", "review_id": "r", "summary": "s",
              "file": None, "category": None, "arguments": {}, "depends_on": [], **fields}  # fmt: skip
    (folder / f"{old_id}.json").write_text(json.dumps(record), encoding="utf-8")


def fill_old_queue(home):
    old_record(home, "20260412-093500-abcd-01", kind="memory", target="memory", operation="replace",
               before=[MEMORY[0]], after=["Project uses pnpm 9."])  # fmt: skip
    old_record(home, "20260412-093500-abcd-02", kind="memory", target="user", operation="add",
               before=[], after=["Sails."], depends_on=["20260412-093500-abcd-01"])  # fmt: skip
    skill_md = home.skills_dir / "devops" / "docker-logs" / "SKILL.md"
    old_record(home, "20260412-093500-abcd-03", kind="skill", target="docker-logs", operation="patch",
               file="SKILL.md", before=skill_md.read_text(),
               after=skill_text("docker-logs", "Use --since 1h.\n"))  # fmt: skip
    (home.path / "review" / "pending" / "junk.json").write_text("{nope", encoding="utf-8")


def test_old_records_move_over_once_and_apply(queue_home):
    fill_old_queue(queue_home)
    records = PendingQueue(queue_home).list().records
    assert [r.data["migrated_from"] for r in records] == [
        "20260412-093500-abcd-01", "20260412-093500-abcd-02", "20260412-093500-abcd-03"]
    replace, add, patch = records
    assert replace.payload == {"action": "replace", "target": "memory", "content": "Project uses pnpm 9.",
                               "old_text": MEMORY[0], "matched_entry": MEMORY[0]}  # fmt: skip
    assert add.depends_on == [replace.id] and add.origin == "background_review"
    assert patch.payload["action"] == "edit" and patch.data["base_sha256"] == text_hash(
        (queue_home.skills_dir / "devops" / "docker-logs" / "SKILL.md").read_text())
    assert replace.created_at == 1775986500.0  # 2026-04-12T09:35:00Z: the order is kept
    # the unreadable old record stays where it was, and is reported
    listing = PendingQueue(queue_home).list()
    assert len(listing.records) == 3 and any("junk.json" in p for p in listing.problems)
    assert sorted(p.name for p in (queue_home.path / "review" / "pending").glob("*.json")) == ["junk.json"]
    assert all(d.ok for d in PendingQueue(queue_home).decide_all(approve=True))
    assert MemoryStore(queue_home).read_entries("memory")[0] == "Project uses pnpm 9."


def test_a_crash_between_writing_and_removing_does_not_duplicate(queue_home):
    fill_old_queue(queue_home)
    old = queue_home.path / "review" / "pending" / "20260412-093500-abcd-02.json"
    saved = old.read_bytes()
    PendingQueue(queue_home).list()
    old.write_bytes(saved)  # as if the process died before removing the old file
    records = PendingQueue(queue_home).list().records
    assert [r.data["migrated_from"] for r in records].count("20260412-093500-abcd-02") == 1
    assert not old.exists()


def test_a_moved_record_decided_before_the_old_file_was_removed_is_not_moved_again(queue_home):
    fill_old_queue(queue_home)
    old = queue_home.path / "review" / "pending" / "20260412-093500-abcd-02.json"
    saved = old.read_bytes()
    queue = PendingQueue(queue_home)
    moved = next(r for r in queue.list().records if r.data["migrated_from"] == old.stem)
    assert queue.approve(moved.id).ok
    old.write_bytes(saved)  # the crash left the old file behind
    assert old.stem not in [r.data.get("migrated_from") for r in queue.list().records]
    assert not old.exists()
