"""Archiving or restoring one skill finds it by its SKILL.md name exactly as the full scan
does (the first of two skills of one name wins, wherever their folders are), and where the
home's index is kept (the app's graph) reads only that skill's SKILL.md again."""

from __future__ import annotations

import os
import random
import time

import pytest

from hermes_memory.learning.mutations import delete_node, restore_node
from hermes_memory.skills.index import SkillIndex
from hermes_memory.skills.lifecycle import find_skill, list_archived, locate_skill, restore_skill
from hermes_memory.skills.shared_index import shared_index


@pytest.fixture
def big(hb):
    """A home of 120 skills, flat and in categories, one of them the target."""
    for number in range(60):
        hb.skill(f"flat-{number:03d}")
        hb.skill(f"cat-{number % 6}/nested-{number:03d}")
    hb.skill("devops/docker-logs")
    return hb


def settled(home) -> None:
    """Every file of the home written well in the past (a scan re-reads files written in
    the last seconds, whose timestamps cannot yet tell two writes apart)."""
    past = time.time() - 60
    for path in home.skills_dir.rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)
    os.utime(home.skills_dir, (past, past))


def skills_read(home, paths: list[str]) -> set[str]:
    """The folders whose SKILL.md was opened, leaving out tries at a SKILL.md that is not
    there (a category folder listed again is asked whether it is a skill itself). A scan
    opens paths relative to the folder above, here the skills folder or the archive."""
    folders = set()
    for path in paths:
        found = [base / path for base in (home.skills_dir, home.skills_archive_dir)]
        if os.path.isabs(path) or any(candidate.is_file() for candidate in found):
            folders.add(os.path.basename(os.path.dirname(path)))
    return folders


def test_archiving_and_restoring_one_skill_opens_only_its_skill_md(big, opened):
    """With the home's index kept, as the app's graph keeps it."""
    home = big.home
    settled(home)
    kept = shared_index(home)
    kept.scan()
    with opened() as paths:
        result = delete_node(home, "docker-logs")
    assert result["ok"], result
    assert not (home.skills_dir / "devops" / "docker-logs").exists()
    assert skills_read(home, paths) == {"docker-logs"}, paths
    with opened() as paths:
        result = restore_node(home, "docker-logs")
    assert result["ok"], result
    assert (home.skills_dir / "devops" / "docker-logs" / "SKILL.md").is_file()
    assert skills_read(home, paths) == {"docker-logs"}, paths
    del kept


def test_a_skill_in_a_folder_named_otherwise_is_still_found_by_its_name(big):
    home = big.home
    big.skill("odd-folder", name="real-name")
    big.skill("real-name-decoy", name="decoy")  # a folder sharing the prefix, another skill
    big.skill("misnamed", name="other-skill")  # folder 'misnamed' is not skill 'misnamed'
    assert delete_node(home, "misnamed") == {"ok": False, "message": "skill 'misnamed' not found"}
    result = delete_node(home, "real-name")
    assert result["ok"], result
    assert not (home.skills_dir / "odd-folder").exists()
    assert (home.skills_dir / "real-name-decoy").is_dir() and (home.skills_dir / "misnamed").is_dir()
    # a folder named after the skill whose SKILL.md names another is not taken for it
    big.skill("taken-name", name="someone-else")
    big.skill("cat-1/elsewhere", name="taken-name")
    _scan, skill, _ = find_skill(home, "taken-name")
    assert skill is not None and skill.directory.endswith(os.path.join("cat-1", "elsewhere"))


def test_two_folders_named_after_a_skill_resolve_as_the_full_scan_does(big):
    home = big.home
    big.skill("twin")
    big.skill("cat-3/twin")
    expected = SkillIndex(home).scan().get("twin").directory
    assert locate_skill(home, "twin").get("twin").directory == expected
    assert delete_node(home, "twin")["ok"]
    assert not os.path.exists(expected)


def test_a_second_skill_of_that_name_in_a_folder_named_otherwise_wins_as_in_the_full_scan(big):
    home = big.home
    big.skill("aaa-twin-copy", name="twin")  # listed first by the full scan
    big.skill("twin")
    expected = SkillIndex(home).scan().get("twin").directory
    assert expected.endswith("aaa-twin-copy")
    assert locate_skill(home, "twin").get("twin").directory == expected
    assert delete_node(home, "twin")["ok"]
    assert not os.path.exists(expected)
    assert (home.skills_dir / "twin" / "SKILL.md").is_file()


def test_a_restore_is_refused_when_a_folder_named_otherwise_holds_that_name(big):
    home = big.home
    assert delete_node(home, "docker-logs")["ok"]
    big.skill("ops/log-reader", name="docker-logs")  # the name taken again, elsewhere
    result = restore_node(home, "docker-logs")
    assert not result["ok"] and "exists again" in result["message"], result
    assert "log-reader" in result["message"]
    assert [item.name for item in list_archived(home)] == ["docker-logs"]
    assert not (home.skills_dir / "devops" / "docker-logs").exists()


def test_a_skill_behind_a_linked_top_level_folder_is_found(big, tmp_path):
    home = big.home
    outside_root = home.skills_dir / "linked-target"
    big.skill("linked-target/inside")
    os.symlink(outside_root, home.skills_dir / "aaa-link")  # a link inside the root
    scan = locate_skill(home, "inside")
    assert scan.get("inside") is not None


def test_a_restore_is_refused_when_a_skill_of_that_name_is_back(big):
    home = big.home
    assert delete_node(home, "nested-007")["ok"]
    big.skill("cat-4/nested-007")  # made again, elsewhere
    result = restore_node(home, "nested-007")
    assert not result["ok"] and "exists again" in result["message"]
    assert [item.name for item in list_archived(home)] == ["nested-007"]


def test_restore_keeps_the_archive_name_rules(big):
    home = big.home
    archive = home.skills_archive_dir
    big.skill("git", root=archive)
    big.skill("git-helpers", root=archive)
    big.skill("airtable-20260727-101500", name="airtable", root=archive)
    assert restore_skill(home, "git").ok
    assert (home.skills_dir / "git").is_dir() and (archive / "git-helpers").is_dir()
    assert restore_skill(home, "airtable").ok
    assert (home.skills_dir / "airtable" / "SKILL.md").is_file()


@pytest.mark.parametrize("seed", range(12))
def test_the_quick_lookup_agrees_with_the_full_scan(hb, seed):
    """Random layouts (flat, in categories, nested, folders named otherwise than their
    skill, names claimed twice): every name resolves to the full scan's skill."""
    rng = random.Random(seed)
    names = [f"s{n}" for n in range(10)]
    for number in range(25):
        declared = rng.choice(names)
        folder = declared if rng.random() < 0.6 else f"f{number}"
        parent = rng.choice(["", "c1/", "c2/", "c1/deep/"])
        if not (hb.home.skills_dir / parent / folder).exists():
            hb.skill(parent + folder, name=declared)
    full = SkillIndex(hb.home).scan()
    for name in [*names, "absent"]:
        winner = full.get(name)
        quick = locate_skill(hb.home, name).get(name)
        if winner is None:
            assert quick is None
            continue
        assert quick is not None and quick.directory == winner.directory, name
