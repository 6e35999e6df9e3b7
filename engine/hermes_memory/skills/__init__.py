"""Skills: SKILL.md parsing and validation, roots and ownership, ``.usage.json``,
pin/unpin, archive/restore and a person's edits.

Modules: ``frontmatter`` (parsing), ``validation`` (the agent's SKILL.md rules),
``roots`` (base/profile/external roots, bundled manifest, hub lock, path safety),
``index`` (scanning with a file-identity cache), ``usage`` (the telemetry sidecar),
``lifecycle`` (pin, archive, restore, prompt-cache invalidation), ``editing``
(reading and replacing a SKILL.md) and ``commands`` (the CLI).
"""

from .editing import edit_skill, read_skill_text, revision_of
from .frontmatter import parse_frontmatter
from .index import Skill, SkillIndex, SkillScan, scan_skills
from .lifecycle import (
    SkillOutcome,
    archive_skill,
    clear_skills_prompt_cache,
    find_skill,
    list_archived,
    pin_skill,
    restore_skill,
    set_pinned,
    unpin_skill,
)
from .usage import UsageError, read_usage, update_usage
from .validation import skill_md_error

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
