"""Pin, unpin, archive and restore: each refusal rule, each success, and round trips."""

from __future__ import annotations

import json
import os
import re

import pytest
from hermes_test_home_builder import tree

from hermes_memory.skills import lifecycle
from hermes_memory.skills.lifecycle import (
    archive_skill,
    list_archived,
    pin_skill,
    restore_skill,
    unpin_skill,
)
from hermes_memory.skills.usage import empty_record

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00$")
AGENT_RECORD = {
    "created_by": "agent", "use_count": 3, "view_count": 1, "last_used_at": "2026-06-01T10:00:00+00:00",
    "last_viewed_at": None, "patch_count": 0, "last_patched_at": None,
    "created_at": "2026-05-01T10:00:00+00:00", "state": "active", "pinned": False,
    "archived_at": None, "x_custom": "kept",
}


@pytest.fixture
def curated(hb, tmp_path):
    base = tmp_path / "repo-skills"
    external = tmp_path / "external-skills"
    hb.config(f"skills:\n  base_dir: {base}\n  external_dirs: [{external}]\n")
    hb.skill("core/base-tool", root=base)
    hb.skill("team/ext-skill", root=external)
    hb.skill("devops/docker-logs", related=["k8s"])
    (hb.home.skills_dir / "devops/docker-logs/references").mkdir()
    (hb.home.skills_dir / "devops/docker-logs/references/notes.md").write_text("notes\n")
    hb.skill("flat-note")
    hb.skill("pinned-skill")
    hb.skill("plan")
    hb.skill("builtin-x")
    hb.manifest("plan", "builtin-x")
    hb.skill("tools/hub-skill")
    hb.hub({"hub-skill": {"install_path": "tools/hub-skill"}})
    hb.usage(
        {
            "docker-logs": AGENT_RECORD,
            "pinned-skill": {**empty_record("2026-01-01T00:00:00+00:00"), "pinned": True},
            "orphan": {"use_count": 1},
        }
    )
    hb.home.skills_prompt_snapshot.write_text("{}")
    return hb


def usage(hb) -> dict:
    return json.loads(hb.home.skills_usage_file.read_text())


# --- pin -------------------------------------------------------------------------------
def test_pin_creates_a_full_record_and_unpin_lifts_it(curated):
    before = usage(curated)
    result = pin_skill(curated.home, "flat-note")
    assert (result.ok, result.message) == (
        True, "pinned 'flat-note' (archive and delete are refused until it is unpinned)"
    )
    record = usage(curated)["flat-note"]
    assert record == {**empty_record(record["created_at"]), "pinned": True}
    assert ISO.match(record["created_at"])
    assert {k: v for k, v in usage(curated).items() if k != "flat-note"} == before
    assert not curated.home.skills_prompt_snapshot.exists()  # invalidated on every change

    curated.home.skills_prompt_snapshot.write_text("{}")
    again = pin_skill(curated.home, "flat-note")
    assert (again.ok, again.message) == (True, "'flat-note' is already pinned")
    assert curated.home.skills_prompt_snapshot.exists()  # nothing changed, nothing cleared

    assert unpin_skill(curated.home, "flat-note").message == "unpinned 'flat-note'"
    assert usage(curated)["flat-note"] == {**record, "pinned": False}
    assert not curated.home.skills_prompt_snapshot.exists()


def test_unpin_without_a_record_writes_nothing(curated):
    before = curated.home.skills_usage_file.read_bytes()
    result = unpin_skill(curated.home, "flat-note")
    assert (result.ok, result.message) == (True, "'flat-note' is already unpinned")
    assert curated.home.skills_usage_file.read_bytes() == before


@pytest.mark.parametrize(
    "name, message",
    [
        ("hub-skill", "'hub-skill' is bundled or hub-installed — cannot pin (only skills made in this profile take part in curation)"),
        ("builtin-x", "'builtin-x' is bundled or hub-installed — cannot pin (only skills made in this profile take part in curation)"),
        ("base-tool", "'base-tool' is bundled or hub-installed — cannot pin (only skills made in this profile take part in curation)"),
        ("ext-skill", "could not pin 'ext-skill' — the skill is not curation-eligible (protected built-in or external)"),
        ("Not A Name", "skill 'Not A Name' not found, and 'Not A Name' is not a valid skill name"),
        ("../flat-note", "'../flat-note' is not a skill name (no paths or ':' in skill names)"),
        ("/etc", "'/etc' is not a skill name (no paths or ':' in skill names)"),
        ("..", "'..' is not a skill name"),
        ("", "a skill name is required"),
    ],
)
def test_pin_refusals(curated, name, message):
    before = curated.home.skills_usage_file.read_bytes()
    result = pin_skill(curated.home, name)
    assert (result.ok, result.message) == (False, message)
    assert curated.home.skills_usage_file.read_bytes() == before


def test_pinning_a_name_with_no_skill_folder_records_the_pin_as_upstream(curated):
    """Issue 11 §4: upstream's ``curator pin`` records ``pinned: true`` for any name. It
    only adds a record (nothing can be lost), and it protects an archived skill, or one
    the agent makes later, from the start."""
    home = curated.home
    result = pin_skill(home, "not-made-yet")
    assert result.ok and "the pin is recorded" in result.message
    assert usage(curated)["not-made-yet"]["pinned"] is True
    assert usage(curated)["docker-logs"] == AGENT_RECORD  # the rest untouched
    curated.skill("later/not-made-yet")
    assert not archive_skill(home, "not-made-yet").ok  # protected once it exists
    # an archived skill can be pinned while in the archive and stays pinned on restore
    assert archive_skill(home, "flat-note").ok
    assert pin_skill(home, "flat-note").ok
    assert restore_skill(home, "flat-note").ok
    assert usage(curated)["flat-note"]["pinned"] is True
    # unpinning a name with no record writes nothing
    before = home.skills_usage_file.read_bytes()
    assert unpin_skill(home, "never-pinned").message == "'never-pinned' was not pinned"
    assert home.skills_usage_file.read_bytes() == before


def test_a_local_skill_named_plan_is_protected(hb):
    hb.skill("plan")
    result = pin_skill(hb.home, "plan")
    assert result.message == (
        "could not pin 'plan' — the skill is not curation-eligible (protected built-in or external)"
    )


# --- archive ---------------------------------------------------------------------------
def test_archive_moves_the_directory_and_records_the_state(curated):
    skills = curated.home.skills_dir
    result = archive_skill(curated.home, "docker-logs")
    assert result.ok
    assert result.message == "archived 'docker-logs' — restore with: hermes curator restore docker-logs"
    assert result.path == str(skills / ".archive" / "docker-logs")
    assert not (skills / "devops/docker-logs").exists()
    assert (skills / "devops").is_dir()  # the category folder stays
    assert tree(skills / ".archive") == [
        "docker-logs/", "docker-logs/SKILL.md", "docker-logs/references/",
        "docker-logs/references/notes.md",
    ]
    record = usage(curated)["docker-logs"]
    assert ISO.match(record.pop("archived_at"))
    expected = {k: v for k, v in AGENT_RECORD.items() if k != "archived_at"}
    assert record == {**expected, "state": "archived", "archived_from": "devops/docker-logs"}
    assert not curated.home.skills_prompt_snapshot.exists()
    assert not curated.home.curator_suppressed.exists()


def test_archive_collision_gets_a_timestamp_suffix(curated):
    (curated.home.skills_archive_dir / "flat-note").mkdir(parents=True)
    result = archive_skill(curated.home, "flat-note")
    assert result.ok
    assert re.fullmatch(re.escape(str(curated.home.skills_archive_dir)) + r"/flat-note-\d{14}", result.path)


@pytest.mark.parametrize(
    "name, message",
    [
        ("pinned-skill", "'pinned-skill' is pinned — unpin it first (hermes curator unpin pinned-skill)"),
        ("ext-skill", "skill 'ext-skill' lives in skills.external_dirs; external skills are read-only to the curator"),
        ("base-tool", "skill 'base-tool' is part of the agent's bundled skills directory; never archived"),
        ("hub-skill", "skill 'hub-skill' is hub-installed; never archive"),
        ("builtin-x", "skill 'builtin-x' is a bundled built-in; enable curator.prune_builtins to allow pruning it"),
        ("plan", "skill 'plan' is a protected built-in; it backs load-bearing agent features and is never archived"),
        ("missing", "skill 'missing' not found"),
        ("a/b", "'a/b' is not a skill name (no paths or ':' in skill names)"),
    ],
)
def test_archive_refusals_change_nothing(curated, name, message):
    skills = curated.home.skills_dir
    before_tree, before_usage = tree(skills), curated.home.skills_usage_file.read_bytes()
    result = archive_skill(curated.home, name)
    assert (result.ok, result.message) == (False, message)
    assert tree(skills) == before_tree
    assert curated.home.skills_usage_file.read_bytes() == before_usage
    assert curated.home.skills_prompt_snapshot.exists()


def test_a_builtin_can_be_pruned_when_the_config_allows_it_and_is_suppressed(curated, tmp_path):
    text = curated.home.config_file.read_text()
    curated.config(text + "curator:\n  prune_builtins: true\n")
    curated.home.curator_suppressed.write_text("# keep this comment\nold-one\n")
    assert archive_skill(curated.home, "builtin-x").ok
    assert curated.home.curator_suppressed.read_text() == "# keep this comment\nold-one\nbuiltin-x\n"
    assert not archive_skill(curated.home, "plan").ok  # still protected

    result = restore_skill(curated.home, "builtin-x")
    assert (result.ok, result.message) == (
        True, f"restored 'builtin-x' to {curated.home.skills_dir / 'builtin-x'}"
    )
    assert curated.home.curator_suppressed.read_text() == "# keep this comment\nold-one\n"


def test_a_symlinked_skill_directory_is_never_moved(hb):
    real = hb.skill(".git/real", name="link-only")  # .git is never scanned itself
    os.symlink(real, hb.home.skills_dir / "link-skill")
    result = archive_skill(hb.home, "link-only")
    assert (result.ok, result.message) == (
        False,
        f"{hb.home.skills_dir / 'link-skill'} is a symbolic link; refusing to move or rewrite "
        "through it",
    )
    assert (hb.home.skills_dir / "link-skill").is_symlink()
    assert (real / "SKILL.md").exists()


def test_a_corrupt_usage_file_blocks_archive(curated):
    curated.home.skills_usage_file.write_text("{broken")
    result = archive_skill(curated.home, "flat-note")
    assert not result.ok
    assert result.message.startswith(f"cannot archive 'flat-note': {curated.home.skills_usage_file} is not valid JSON")
    assert (curated.home.skills_dir / "flat-note/SKILL.md").exists()


def test_a_failed_usage_write_puts_the_skill_back(curated, monkeypatch):
    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("hermes_memory.skills.usage.atomic_write_text", fail)
    result = archive_skill(curated.home, "flat-note")
    assert not result.ok
    assert "No space left on device" in result.message
    assert (curated.home.skills_dir / "flat-note/SKILL.md").exists()
    assert list(curated.home.skills_archive_dir.iterdir()) == []


# --- restore ---------------------------------------------------------------------------
def test_archive_then_restore_leaves_tree_and_usage_exactly_as_before(curated):
    skills = curated.home.skills_dir
    (skills / ".archive").mkdir()
    before_tree = tree(skills)
    before_usage = usage(curated)
    assert archive_skill(curated.home, "docker-logs").ok
    assert restore_skill(curated.home, "docker-logs").ok
    before_tree = sorted([*before_tree, ".usage.json.lock"])  # the agent's lock file, left as it does
    assert tree(skills) == before_tree
    assert usage(curated) == before_usage

    # a skill without a record gets one on archive, and it stays consistent
    assert archive_skill(curated.home, "flat-note").ok
    result = restore_skill(curated.home, "flat-note")
    assert result.message == f"restored 'flat-note' to {skills / 'flat-note'}"
    record = usage(curated)["flat-note"]
    assert record == {**empty_record(record["created_at"])}
    assert tree(skills) == before_tree


def test_restore_recreates_an_emptied_category(curated):
    skills = curated.home.skills_dir
    assert archive_skill(curated.home, "docker-logs").ok
    (skills / "devops").rmdir()
    assert restore_skill(curated.home, "docker-logs").ok
    assert (skills / "devops/docker-logs/references/notes.md").read_text() == "notes\n"


def test_restore_of_an_agent_made_archive_uses_the_flat_layout(hb):
    archived = hb.home.skills_archive_dir / "old-skill"
    hb.skill("old-skill", root=hb.home.skills_archive_dir)
    hb.usage({"old-skill": {"state": "archived", "archived_at": "2026-01-01T00:00:00+00:00"}})
    result = restore_skill(hb.home, "old-skill")
    assert result.ok
    assert not archived.exists()
    assert (hb.home.skills_dir / "old-skill/SKILL.md").exists()
    assert json.loads(hb.home.skills_usage_file.read_text()) == {
        "old-skill": {"state": "active", "archived_at": None}
    }


def test_restore_prefers_the_plain_copy_then_the_newest_stamp(hb):
    hb.skill("a-20260101000000", name="a", root=hb.home.skills_archive_dir, description="older")
    hb.skill("a-20260301000000", name="a", root=hb.home.skills_archive_dir, description="newer")
    assert [i.dir_name for i in list_archived(hb.home)] == ["a-20260301000000", "a-20260101000000"]
    assert restore_skill(hb.home, "a").ok
    assert "newer" in (hb.home.skills_dir / "a/SKILL.md").read_text()


def test_restore_finds_a_skill_by_frontmatter_name(hb):
    hb.skill("dir-name", name="front-name", root=hb.home.skills_archive_dir)
    result = restore_skill(hb.home, "front-name")
    assert (result.ok, result.name) == (True, "front-name")
    assert (hb.home.skills_dir / "dir-name/SKILL.md").exists()


def test_restore_refusals(curated):
    skills = curated.home.skills_dir
    assert archive_skill(curated.home, "flat-note").ok
    curated.skill("other/flat-note")  # the name is taken again
    before = tree(skills)
    result = restore_skill(curated.home, "flat-note")
    assert (result.ok, result.message) == (
        False,
        f"a skill named 'flat-note' exists again at {skills / 'other/flat-note'}; archive or "
        "rename it before restoring",
    )
    assert tree(skills) == before

    (skills / "other/flat-note/SKILL.md").write_text("---\nname: renamed\ndescription: d\n---\nb\n")
    (skills / "flat-note").mkdir()
    result = restore_skill(curated.home, "flat-note")
    assert (result.ok, result.message) == (
        False, f"destination already exists: {skills / 'flat-note'}; move it away first"
    )

    assert restore_skill(curated.home, "nothing").message == "skill 'nothing' not found in archive"


def test_restore_refuses_to_shadow_hub_and_bundled_skills(hb):
    hb.skill("hubby", root=hb.home.skills_archive_dir)
    hb.skill("builtin", root=hb.home.skills_archive_dir)
    hb.hub({"hubby": {"install_path": "hubby-elsewhere"}})
    hb.manifest("builtin")
    assert restore_skill(hb.home, "hubby").message == (
        "skill 'hubby' is now hub-installed; restore would shadow the upstream version"
    )
    assert restore_skill(hb.home, "builtin").message == (
        "skill 'builtin' is now bundled; restore would shadow the upstream version"
    )


def test_a_record_with_an_escaping_archived_from_is_ignored(hb):
    hb.skill("sneaky", root=hb.home.skills_archive_dir)
    hb.usage({"sneaky": {"state": "archived", "archived_from": "../../outside/sneaky"}})
    assert restore_skill(hb.home, "sneaky").ok
    assert (hb.home.skills_dir / "sneaky/SKILL.md").exists()


def test_clear_prompt_cache_is_quiet_when_missing(hb):
    assert lifecycle.clear_skills_prompt_cache(hb.home) is False
    hb.home.skills_prompt_snapshot.write_text("{}")
    assert lifecycle.clear_skills_prompt_cache(hb.home) is True


def test_a_recorded_category_that_became_a_link_out_is_not_followed(hb, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    hb.skill("cat/linked-away")
    assert archive_skill(hb.home, "linked-away").ok
    (hb.home.skills_dir / "cat").rmdir()
    os.symlink(outside, hb.home.skills_dir / "cat")
    result = restore_skill(hb.home, "linked-away")
    assert result.ok
    assert result.path == str(hb.home.skills_dir / "linked-away")
    assert list(outside.iterdir()) == []


def test_an_archive_folder_that_links_out_is_refused(hb, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, hb.home.skills_archive_dir)
    hb.skill("victim")
    result = archive_skill(hb.home, "victim")
    assert (result.ok, result.message) == (
        False,
        f"{hb.home.skills_archive_dir} leads outside {hb.home.skills_dir}; refusing to archive",
    )
    assert (hb.home.skills_dir / "victim/SKILL.md").exists()
    hb.skill("stranger", root=outside)
    assert list_archived(hb.home) == []
    assert restore_skill(hb.home, "stranger").message == "skill 'stranger' not found in archive"


# --- issue 11 §4: every archive name found in the wild (upstream issue 83580) ----------
@pytest.mark.parametrize(
    "dir_name",
    ["airtable", "airtable-20260727000000", "airtable-20260727-000000", "airtable-20260727T000000Z"],
)
def test_restore_accepts_every_archive_name_found_in_the_wild(hb, dir_name):
    hb.skill(dir_name, name="airtable", root=hb.home.skills_archive_dir)
    [item] = list_archived(hb.home)
    assert item.name == "airtable"  # what list shows round-trips through restore
    result = restore_skill(hb.home, item.name)
    assert result.ok, result.message
    assert (hb.home.skills_dir / "airtable" / "SKILL.md").exists()  # never the stamped name
    assert not any(hb.home.skills_archive_dir.iterdir())


def test_restore_by_the_raw_stamped_folder_name_restores_under_the_skill_name(hb):
    hb.skill("airtable-20260727-101010", name="airtable", root=hb.home.skills_archive_dir)
    result = restore_skill(hb.home, "airtable-20260727-101010")
    assert (result.ok, result.name) == (True, "airtable")
    assert (hb.home.skills_dir / "airtable" / "SKILL.md").exists()


def test_restore_without_a_frontmatter_name_strips_only_timestamps(hb):
    hb.skill("notes-20260101-120000", root=hb.home.skills_archive_dir,
             text="---\ndescription: no name\n---\nbody\n")
    assert [item.name for item in list_archived(hb.home)] == ["notes"]
    assert restore_skill(hb.home, "notes").ok
    assert (hb.home.skills_dir / "notes" / "SKILL.md").exists()


def test_restore_never_pulls_out_a_sibling_sharing_a_name_prefix(hb):
    archive = hb.home.skills_archive_dir
    hb.skill("git-helpers", root=archive)
    hb.skill("git-2026", root=archive)  # not a timestamp: a different skill
    hb.skill("git-20260101-1200", root=archive)  # not a timestamp shape either
    result = restore_skill(hb.home, "git")
    assert (result.ok, result.message) == (False, "skill 'git' not found in archive")
    assert sorted(p.name for p in archive.iterdir()) == ["git-2026", "git-20260101-1200", "git-helpers"]
    assert restore_skill(hb.home, "git-helpers").ok
    assert sorted(p.name for p in archive.iterdir()) == ["git-2026", "git-20260101-1200"]


def test_restore_identifies_a_skill_by_its_skill_md_name_not_its_folder(hb):
    archive = hb.home.skills_archive_dir
    hb.skill("deploy", name="deploy-static-site", root=archive)
    hb.skill("deploy-static-site-old", name="deploy", root=archive)
    result = restore_skill(hb.home, "deploy")
    assert (result.ok, result.name) == (True, "deploy")
    assert (hb.home.skills_dir / "deploy-static-site-old" / "SKILL.md").exists()
    assert (archive / "deploy").exists()


def test_restore_prefers_the_newest_copy_of_any_layout_and_reports_the_others(hb):
    archive = hb.home.skills_archive_dir
    hb.skill("a", root=archive, description="undated, oldest")
    hb.skill("a-20260101000000", name="a", root=archive, description="january")
    hb.skill("a-20260301-000000", name="a", root=archive, description="march")
    hb.skill("imports/a-20260201T000000Z", name="a", root=archive, description="february")
    assert [i.dir_name for i in list_archived(hb.home)] == [
        "a-20260301-000000", "a-20260201T000000Z", "a-20260101000000", "a",
    ]
    result = restore_skill(hb.home, "a")
    assert result.ok and "march" in (hb.home.skills_dir / "a" / "SKILL.md").read_text()
    assert "3 other archived copies kept" in result.message


def test_nested_archives_are_found(hb):
    hb.skill("devops/old-tool", root=hb.home.skills_archive_dir)
    hb.skill("import-source/team/legacy", root=hb.home.skills_archive_dir)
    assert sorted(item.name for item in list_archived(hb.home)) == ["legacy", "old-tool"]
    assert restore_skill(hb.home, "legacy").ok
    assert (hb.home.skills_dir / "legacy" / "SKILL.md").exists()
