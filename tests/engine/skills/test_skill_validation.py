"""The SKILL.md rules a person's edit must pass (the agent's ``skill_manage`` rules)."""

from __future__ import annotations

import pytest

from hermes_memory.skills.validation import MAX_SKILL_CHARS, name_error, skill_md_error

GOOD = "---\nname: my-skill\ndescription: Does a thing\n---\n# My skill\n\nSteps.\n"


def test_a_good_skill_passes():
    assert skill_md_error(GOOD) is None
    assert skill_md_error("\ufeff" + GOOD) is None
    assert skill_md_error(GOOD.replace("\n", "\r\n")) is None


@pytest.mark.parametrize(
    "content, error",
    [
        ("", "Content cannot be empty."),
        ("   \n", "Content cannot be empty."),
        ("# no frontmatter\n", "SKILL.md must start with YAML frontmatter (---)."),
        ("---\nname: a\ndescription: b\n", "SKILL.md frontmatter is not closed. Add a closing '---' line."),
        ("---\n- a\n---\nbody\n", "Frontmatter must be a YAML mapping (key: value pairs)."),
        ("---\ndescription: b\n---\nbody\n", "Frontmatter must include a 'name' field."),
        ("---\nname: a\n---\nbody\n", "Frontmatter must include a 'description' field."),
        ("---\nname: a\ndescription: b\n---\n \n\n", "SKILL.md must have content after the frontmatter (instructions, procedures)."),
        ("---\nname: a\ndescription: " + "d" * 1025 + "\n---\nbody\n", "Description exceeds 1024 characters."),
        ("---\nname: Bad Name\ndescription: b\n---\nbody\n", "Invalid skill name 'Bad Name'. Use lowercase letters, numbers, hyphens, dots and underscores, starting with a letter or digit."),
        ("---\nname: " + "a" * 65 + "\ndescription: b\n---\nbody\n", "Skill name exceeds 64 characters."),
    ],
)
def test_each_rule_refuses_with_its_message(content, error):
    assert skill_md_error(content) == error


def test_description_of_exactly_1024_characters_is_fine():
    assert skill_md_error("---\nname: a\ndescription: " + "d" * 1024 + "\n---\nbody\n") is None


def test_broken_yaml_is_refused_with_the_parser_message():
    error = skill_md_error("---\nname: a\ndescription: [unclosed\n---\nbody\n")
    assert error.startswith("YAML frontmatter parse error: ")
    assert "\n" not in error


def test_size_limit_counts_characters():
    filler = "x" * (MAX_SKILL_CHARS - len(GOOD))
    assert skill_md_error(GOOD + filler) is None
    assert skill_md_error(GOOD + filler + "y") == (
        f"SKILL.md content is {MAX_SKILL_CHARS + 1:,} characters (limit: {MAX_SKILL_CHARS:,}). "
        "Move long material into references/ or templates/."
    )


def test_an_existing_name_that_predates_the_pattern_may_be_kept():
    content = "---\nname: Legacy Skill\ndescription: b\n---\nbody\n"
    assert skill_md_error(content, allow_name="Legacy Skill") is None
    assert skill_md_error(content, allow_name="other").startswith("Invalid skill name")


@pytest.mark.parametrize("name", ["a", "0-x", "my.skill_v2", "a" * 64])
def test_valid_names(name):
    assert name_error(name) is None


@pytest.mark.parametrize("name", ["", "-a", "A", "a b", "a/b", "../x", "é", None, 3])
def test_invalid_names(name):
    assert name_error(name) is not None
