"""Skills: SKILL.md parsing and validation, roots and ownership, ``.usage.json``,
pin/unpin, archive/restore and a person's edits.

Modules: ``frontmatter`` (parsing), ``validation`` (the agent's SKILL.md rules),
``roots`` (base/profile/external roots, bundled manifest, hub lock, path safety),
``index`` (scanning with a file-identity cache), ``usage`` (the telemetry sidecar),
``lifecycle`` (pin, archive, restore, prompt-cache invalidation), ``editing``
(reading and replacing a SKILL.md) and ``commands`` (the CLI).
"""

import importlib
from typing import Any

# Names load their module on first use (PEP 562), so importing one part of the package
# (say ``skills.index`` for a graph build) does not import editing and lifecycle too.
_HOMES = {
    "edit_skill": "editing", "read_skill_text": "editing", "revision_of": "editing",
    "parse_frontmatter": "frontmatter",
    "Skill": "index", "SkillIndex": "index", "SkillScan": "index", "scan_skills": "index",
    "SkillOutcome": "lifecycle", "archive_skill": "lifecycle",
    "clear_skills_prompt_cache": "lifecycle", "find_skill": "lifecycle",
    "list_archived": "lifecycle", "pin_skill": "lifecycle", "restore_skill": "lifecycle",
    "set_pinned": "lifecycle", "unpin_skill": "lifecycle",
    "UsageError": "usage", "read_usage": "usage", "update_usage": "usage",
    "skill_md_error": "validation",
}


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "Skill",
    "SkillIndex",
    "SkillOutcome",
    "SkillScan",
    "UsageError",
    "archive_skill",
    "clear_skills_prompt_cache",
    "edit_skill",
    "find_skill",
    "list_archived",
    "parse_frontmatter",
    "pin_skill",
    "read_skill_text",
    "read_usage",
    "restore_skill",
    "revision_of",
    "scan_skills",
    "set_pinned",
    "skill_md_error",
    "unpin_skill",
    "update_usage",
]
