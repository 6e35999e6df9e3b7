"""Staged skill writes in upstream's format: every action, the real diff, stale records,
and a record for a skill that no longer exists."""

from __future__ import annotations

import json

from pending_helpers import skill_text, write_upstream

from hermes_memory.pending import Context, PendingQueue
from hermes_memory.pending.items import detailed_item
from hermes_memory.pending.skill_ops import text_hash
from hermes_memory.skills import archive_skill, read_usage

SKILL_DIR = ("devops", "docker-logs")


def skill_md(home):
    return home.skills_dir.joinpath(*SKILL_DIR, "SKILL.md")


def test_create_writes_the_skill_and_marks_it_the_agents(queue_home):
    content = skill_text("fish-shell")
    write_upstream(queue_home, "skills", "5c000001", {"action": "create", "name": "fish-shell",
                                                      "content": content, "category": "shells"})  # fmt: skip
    decision = PendingQueue(queue_home).approve("5c000001")
    assert decision.ok, decision.message
    assert (queue_home.skills_dir / "shells" / "fish-shell" / "SKILL.md").read_text() == content
    assert read_usage(queue_home).record("fish-shell")["created_by"] == "agent"


def test_patch_shows_and_applies_the_real_result_with_replace_all(queue_home):
    body = "Use --since 10m.\nThen --since 10m again.\n"
    skill_md(queue_home).write_text(skill_text("docker-logs", body), encoding="utf-8")
    write_upstream(queue_home, "skills", "5c000002", {
        "action": "patch", "name": "docker-logs", "old_string": "10m", "new_string": "1h",
        "replace_all": True})  # fmt: skip
    queue = PendingQueue(queue_home)
    shown = detailed_item(queue.find("5c000002"), Context(queue_home))
    unified = shown["diff"]["unified"]
    assert "--- a/docker-logs/SKILL.md" in unified and unified.count("+Use --since 1h.") == 1
    assert "+Then --since 1h again." in unified
    assert queue.approve("5c000002").ok
    assert "10m" not in skill_md(queue_home).read_text()


def test_a_patch_without_replace_all_on_a_repeated_string_is_refused(queue_home, snap):
    skill_md(queue_home).write_text(skill_text("docker-logs", "10m and 10m\n"), encoding="utf-8")
    write_upstream(queue_home, "skills", "5c000003", {
        "action": "patch", "name": "docker-logs", "old_string": "10m", "new_string": "1h"})
    before = snap(queue_home.skills_dir)
    decision = PendingQueue(queue_home).approve("5c000003")
    assert not decision.ok and "occurs 2 times" in decision.message
    assert snap(queue_home.skills_dir) == before


def test_support_files_are_written_and_removed_and_delete_archives(queue_home):
    queue = PendingQueue(queue_home)
    write_upstream(queue_home, "skills", "5c000004", {"action": "write_file", "name": "docker-logs",
                   "file_path": "references/api.md", "file_content": "# API\n"})  # fmt: skip
    write_upstream(queue_home, "skills", "5c000005", {"action": "remove_file", "name": "docker-logs",
                   "file_path": "references/flags.md"})  # fmt: skip
    assert queue.approve("5c000004").ok and queue.approve("5c000005").ok
    folder = queue_home.skills_dir.joinpath(*SKILL_DIR)
    assert (folder / "references" / "api.md").read_text() == "# API\n"
    assert not (folder / "references" / "flags.md").exists()
    log = (queue_home.path / "pending" / "skills" / ".decisions.jsonl").read_text().splitlines()
    assert json.loads(log[-1])["removed_file"] == {"skill": "docker-logs", "path": "references/flags.md",
                                                   "text": "--since, --tail\n"}  # restorable
    write_upstream(queue_home, "skills", "5c000006", {"action": "delete", "name": "docker-logs"})
    assert queue.approve("5c000006").ok
    assert not folder.exists() and (queue_home.skills_archive_dir / "docker-logs").is_dir()


def test_a_record_for_a_skill_that_no_longer_exists_is_stale_with_a_clear_message(queue_home, snap):
    write_upstream(queue_home, "skills", "5c000007", {
        "action": "patch", "name": "docker-logs", "old_string": "10m", "new_string": "1h"})
    write_upstream(queue_home, "memory", "0000aaaa", {"action": "add", "target": "user",
                                                      "content": "Sails.", "old_text": None})  # fmt: skip
    assert archive_skill(queue_home, "docker-logs").ok
    queue = PendingQueue(queue_home)
    check = queue.preview(queue.find("5c000007"))
    assert check["stale"] and "no longer exists" in check["reason"]
    before = snap(queue_home.skills_dir)
    decision = queue.approve("5c000007")
    assert not decision.ok and "skill 'docker-logs' no longer exists" in decision.message
    assert snap(queue_home.skills_dir) == before
    assert queue.approve("0000aaaa").ok  # the rest of the queue is still usable


def test_a_pinned_base_that_changed_makes_a_rewrite_stale(queue_home):
    original = skill_md(queue_home).read_text()
    write_upstream(queue_home, "skills", "5c000008", {
        "action": "edit", "name": "docker-logs", "content": skill_text("docker-logs", "New body.\n")},
        base_sha256=text_hash(original))  # fmt: skip
    skill_md(queue_home).write_text(original + "3. Also `docker ps`.\n", encoding="utf-8")
    decision = PendingQueue(queue_home).approve("5c000008")
    assert decision.stale and "changed since this write was staged" in decision.message
    assert skill_md(queue_home).read_text().endswith("3. Also `docker ps`.\n")


def test_a_skill_name_that_escapes_the_skills_folder_is_refused(queue_home, snap):
    write_upstream(queue_home, "skills", "5c000009", {"action": "create", "name": "../../evil",
                                                      "content": skill_text("evil")})  # fmt: skip
    before = snap(queue_home.path)
    decision = PendingQueue(queue_home).approve("5c000009")
    assert not decision.ok
    assert {k for k, v in snap(queue_home.path).items() if before.get(k) != v} == {
        "pending/skills/5c000009.json"}  # only its failed status
    assert json.loads((queue_home.path / "pending/skills/5c000009.json").read_text())["status"] == "failed"


def test_skill_edit_by_text_rewrites_the_content_and_repins(queue_home):
    write_upstream(queue_home, "skills", "5c00000a", {
        "action": "edit", "name": "docker-logs", "content": skill_text("docker-logs", "Old plan.\n")})
    queue = PendingQueue(queue_home)
    new = skill_text("docker-logs", "Better plan.\n")
    assert queue.edit("5c00000a", new).ok
    record = queue.find("5c00000a")
    assert record.payload["content"] == new
    assert record.data["base_sha256"] == text_hash(skill_md(queue_home).read_text())
    assert queue.approve("5c00000a").ok and skill_md(queue_home).read_text() == new


def test_an_approved_patch_reads_the_usage_file_once(queue_home, monkeypatch):
    """Counting the patch and recording it in history share one read of ``.usage.json``
    (the history took its own read after the count's, on a 3 MB file at 10,000 skills)."""
    from hermes_memory.skills import usage

    skill_md(queue_home).write_text(skill_text("docker-logs", "Use --since 10m.\n"), encoding="utf-8")
    write_upstream(queue_home, "skills", "5c0000aa", {
        "action": "patch", "name": "docker-logs", "old_string": "10m", "new_string": "1h"})
    before = read_usage(queue_home).record("docker-logs").get("patch_count") or 0
    reads: list[str] = []
    real = usage._read_raw
    monkeypatch.setattr(usage, "_read_raw", lambda path: reads.append(str(path)) or real(path))
    decision = PendingQueue(queue_home).approve("5c0000aa")
    assert decision.ok, decision.message
    assert len(reads) == 1, reads
    monkeypatch.undo()
    assert read_usage(queue_home).record("docker-logs")["patch_count"] == before + 1
