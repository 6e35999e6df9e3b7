"""A person's SKILL.md edit: validation, ownership, drift, rollback, the prompt cache."""

from __future__ import annotations

import os

import pytest
from hermes_test_home_builder import skill_text

from hermes_memory.skills import editing
from hermes_memory.skills.editing import edit_skill, read_skill_text, revision_of
from hermes_memory.skills.index import scan_skills


@pytest.fixture
def owned(hb, tmp_path):
    external = tmp_path / "ext"
    hb.config(f"skills:\n  external_dirs: [{external}]\n")
    hb.skill("devops/docker-logs")
    hb.skill("misc/dir-name", name="front-name")
    hb.skill("pinned-one")
    hb.usage({"pinned-one": {"pinned": True}})
    hb.skill("seeded")
    hb.manifest("seeded")
    hb.skill("hubbed")
    hb.hub({"hubbed": {"install_path": "hubbed"}})
    hb.skill("outside", root=external)
    hb.home.skills_prompt_snapshot.write_text("{}")
    return hb


def test_an_edit_replaces_the_file_and_clears_the_prompt_cache(owned):
    new = skill_text("docker-logs", "Read container logs", body="# Logs\n\n1. docker logs -f\n")
    result = edit_skill(owned.home, "docker-logs", new)
    assert (result.ok, result.message) == (True, "updated 'docker-logs'")
    path = owned.home.skills_dir / "devops/docker-logs/SKILL.md"
    assert path.read_text() == new
    assert not owned.home.skills_prompt_snapshot.exists()
    assert [p.name for p in path.parent.iterdir()] == ["SKILL.md"]  # no temp files left


def test_a_skill_is_found_by_its_frontmatter_name(owned):
    new = skill_text("front-name", "New description")
    assert edit_skill(owned.home, "front-name", new).ok
    assert (owned.home.skills_dir / "misc/dir-name/SKILL.md").read_text() == new
    assert edit_skill(owned.home, "dir-name", new).message == "skill 'dir-name' not found"


def test_pinned_skills_accept_a_persons_edit(owned):
    assert edit_skill(owned.home, "pinned-one", skill_text("pinned-one", "Still pinned")).ok


@pytest.mark.parametrize(
    "name, message",
    [
        ("seeded", "skill 'seeded' is a bundled built-in the agent seeded into this profile; it is read-only here (the agent's updates would conflict with an edit)"),
        ("hubbed", "skill 'hubbed' is hub-installed; update it through the hub instead"),
        ("outside", "skill 'outside' lives in skills.external_dirs; external skills are read-only"),
        ("nope", "skill 'nope' not found"),
    ],
)
def test_skills_we_do_not_own_are_read_only(owned, name, message):
    result = edit_skill(owned.home, name, skill_text(name, "x"))
    assert (result.ok, result.message) == (False, message)


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "Content cannot be empty."),
        ("---\nname: docker-logs\n---\nbody\n", "Frontmatter must include a 'description' field."),
        ("---\nname: docker-logs\ndescription: d\n---\n\n", "SKILL.md must have content after the frontmatter (instructions, procedures)."),
        (skill_text("renamed", "d"), "the frontmatter renames 'docker-logs' to 'renamed'; renaming is not supported here (keep name: docker-logs)"),
    ],
)
def test_invalid_edits_are_refused_and_change_nothing(owned, content, message):
    path = owned.home.skills_dir / "devops/docker-logs/SKILL.md"
    before = path.read_bytes()
    result = edit_skill(owned.home, "docker-logs", content)
    assert (result.ok, result.message) == (False, message)
    assert path.read_bytes() == before
    assert owned.home.skills_prompt_snapshot.exists()


def test_a_revision_from_before_a_concurrent_change_is_refused(owned):
    path = owned.home.skills_dir / "devops/docker-logs/SKILL.md"
    shown = read_skill_text(scan_skills(owned.home).get("docker-logs"))
    revision = revision_of(shown)
    path.write_text(shown + "\nThe agent added this.\n")
    result = edit_skill(owned.home, "docker-logs", skill_text("docker-logs", "mine"), revision=revision)
    assert (result.ok, result.message) == (
        False, "'docker-logs' changed on disk since it was opened; reload it and edit again"
    )
    assert path.read_text().endswith("The agent added this.\n")
    fresh = revision_of(path.read_text())
    assert edit_skill(owned.home, "docker-logs", skill_text("docker-logs", "mine"), revision=fresh).ok


def test_an_unchanged_edit_writes_nothing(owned):
    path = owned.home.skills_dir / "devops/docker-logs/SKILL.md"
    before = os.stat(path)
    result = edit_skill(owned.home, "docker-logs", path.read_text())
    assert (result.ok, result.message) == (True, "no changes to 'docker-logs'")
    assert os.stat(path).st_ino == before.st_ino


def test_a_write_that_does_not_read_back_is_rolled_back(owned, monkeypatch):
    path = owned.home.skills_dir / "devops/docker-logs/SKILL.md"
    before = path.read_bytes()
    real = editing._write_bytes_atomically
    calls = []

    def torn_write(target, data):
        calls.append(data)
        real(target, data[: len(data) // 2] if len(calls) == 1 else data)

    monkeypatch.setattr(editing, "_write_bytes_atomically", torn_write)
    result = edit_skill(owned.home, "docker-logs", skill_text("docker-logs", "new"))
    assert not result.ok
    assert result.message == (
        "edit of 'docker-logs' failed and was rolled back: the file read back differs from "
        "what was written"
    )
    assert path.read_bytes() == before
    assert owned.home.skills_prompt_snapshot.exists()


def test_a_symlinked_skill_file_is_never_written_through(hb):
    hb.skill("real", root=hb.home.skills_dir / ".git")
    target = hb.home.skills_dir / ".git/real/SKILL.md"
    hb.skill("linked").joinpath("SKILL.md").unlink()
    os.symlink(target, hb.home.skills_dir / "linked/SKILL.md")
    result = edit_skill(hb.home, "real", skill_text("real", "x"))
    assert (result.ok, result.message) == (
        False, f"{hb.home.skills_dir / 'linked/SKILL.md'} is a symbolic link; refusing to write through it"
    )


def test_reading_a_non_utf8_skill_says_what_to_do(hb):
    # the bad byte is past the 4,000 characters the index reads, so the skill is listed
    hb.skill("latin", raw=skill_text("latin", "ok").encode() + b"x" * 5000 + b"caf\xe9\n")
    skill = scan_skills(hb.home).get("latin")
    with pytest.raises(editing.SkillTextError, match="is not UTF-8 text .* re-save it as UTF-8"):
        read_skill_text(skill)
