"""The checks a SKILL.md must pass before we write it (the agent's ``skill_manage`` rules).

A skill we write must load again in the agent exactly as the person meant it, so the
rules are the agent's own: a valid name, a closed frontmatter block that is a YAML
mapping with ``name`` and ``description``, a description of at most 1,024 characters,
a non-empty body, and at most 100,000 characters in all.
"""

from __future__ import annotations

import re

from ..safe_load import FRONTMATTER_LIMITS, UnsafeDocument, load_yaml
from .frontmatter import split_frontmatter

MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
MAX_SKILL_CHARS = 100_000
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def name_error(name: object) -> str | None:
    """Why ``name`` cannot name a skill, or None when it can."""
    if not isinstance(name, str) or not name:
        return "Skill name is required."
    if len(name) > MAX_NAME_LENGTH:
        return f"Skill name exceeds {MAX_NAME_LENGTH} characters."
    if not NAME_PATTERN.match(name):
        return (
            f"Invalid skill name '{name}'. Use lowercase letters, numbers, hyphens, dots "
            "and underscores, starting with a letter or digit."
        )
    return None


def skill_md_error(content: str, *, allow_name: str | None = None) -> str | None:
    """Why ``content`` is not a valid SKILL.md, or None when it is.

    ``allow_name`` is a name accepted even if it breaks the naming pattern: an existing
    skill whose name predates the rule can still be edited as long as it keeps its name.
    """
    if not isinstance(content, str) or not content.strip():
        return "Content cannot be empty."
    if len(content) > MAX_SKILL_CHARS:
        return (
            f"SKILL.md content is {len(content):,} characters (limit: {MAX_SKILL_CHARS:,}). "
            "Move long material into references/ or templates/."
        )
    if not content.lstrip("\ufeff").startswith("---"):
        return "SKILL.md must start with YAML frontmatter (---)."
    yaml_text, body = split_frontmatter(content.lstrip("\ufeff"))
    if yaml_text is None:
        return "SKILL.md frontmatter is not closed. Add a closing '---' line."
    import yaml  # on first use: skill health imports this module for its limits only

    try:
        parsed = load_yaml(yaml_text, FRONTMATTER_LIMITS, "The frontmatter", loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        return f"YAML frontmatter parse error: {_one_line(exc)}"
    except UnsafeDocument as exc:
        return str(exc)
    if not isinstance(parsed, dict):
        return "Frontmatter must be a YAML mapping (key: value pairs)."
    if "name" not in parsed:
        return "Frontmatter must include a 'name' field."
    if "description" not in parsed:
        return "Frontmatter must include a 'description' field."
    name = parsed["name"]
    if not (allow_name is not None and name == allow_name):
        error = name_error(name)
        if error:
            return error
    if len(str(parsed["description"])) > MAX_DESCRIPTION_LENGTH:
        return f"Description exceeds {MAX_DESCRIPTION_LENGTH} characters."
    if not body.strip():
        return "SKILL.md must have content after the frontmatter (instructions, procedures)."
    return None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())
