"""Writing planned skill changes: at the end of an apply-mode review, or on approval.

:func:`commit_skill_change` checks the background guards again (a skill may have been
pinned meanwhile) and refuses as stale when the file no longer holds exactly the text the
change was planned against. SKILL.md rewrites go through the skills package's
:func:`~hermes_memory.skills.editing.edit_skill` (validation, atomic write, read-back and
rollback). The skills package does not create skills or write support files yet, so
those two writes live here, with the same care: atomic writes, no links out of the skill,
and folders made for the write removed again if it fails.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from ..fileio import LockTimeout, atomic_write_text
from ..home import HermesHome
from ..skills.editing import edit_skill, revision_of
from ..skills.index import Skill, SkillIndex
from ..skills.lifecycle import clear_skills_prompt_cache
from ..skills.roots import directory_escape_reason
from ..skills.usage import UsageError, empty_record, now_iso, read_usage, update_usage
from ..skills.validation import NAME_PATTERN, name_error, skill_md_error
from .skill_changes import (
    SKILL_MD,
    SkillRefusal,
    background_refusal,
    check_support_content,
    read_text_file,
    support_file_path,
    support_path_error,
)


def _result(ok: bool, message: str, *, stale: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"success": ok}
    result["message" if ok else "error"] = message
    if stale:
        result["stale"] = True
    return result


def _mark_usage(home: HermesHome, name: str, created: bool) -> str | None:
    """Telemetry as upstream: a create marks the skill the agent's, a change bumps the
    patch count. Returns a warning when ``.usage.json`` cannot be updated."""

    def apply(data: dict[str, Any]) -> None:
        record = data.get(name)
        stamp = now_iso()
        if created:
            if not isinstance(record, dict):
                record = data[name] = empty_record(stamp)
            record.update(created_by="agent", created_at=stamp, state="active", archived_at=None)
        elif isinstance(record, dict):
            # No record means "never tracked"; creating one here would mark the skill as
            # not the agent's and lock later reviews out of it.
            count = record.get("patch_count")
            record["patch_count"] = (count if isinstance(count, int) else 0) + 1
            record["last_patched_at"] = stamp

    try:
        update_usage(home, apply)
    except (UsageError, LockTimeout, OSError) as exc:
        return f"the change was written, but {home.skills_usage_file.name} was not updated: {exc}"
    return None


def _fresh_guard(home: HermesHome, name: str) -> tuple[Skill | None, str | None]:
    skill = SkillIndex(home).scan().get(name)
    if skill is None:
        return None, None
    usage = read_usage(home)
    if usage.error:
        return skill, usage.error
    return skill, background_refusal(skill, usage.record(name))


def current_text(home: HermesHome, name: str, file: str) -> str | None:
    """The file's text on disk now (None when the skill or the file does not exist)."""
    skill = SkillIndex(home).scan().get(name)
    if skill is None:
        return None
    if file == SKILL_MD:
        return read_text_file(skill.skill_md)
    return read_text_file(support_file_path(skill.path, file))


def skill_staleness(home: HermesHome, name: str, file: str, before: str | None,
                    operation: str) -> str | None:  # fmt: skip
    """Why the change can no longer apply as planned, or None (reads only)."""
    try:
        if operation == "create":
            if SkillIndex(home).scan().get(name) is not None:
                return f"a skill named '{name}' exists now"
            return None
        if SkillIndex(home).scan().get(name) is None:
            return f"skill '{name}' no longer exists"
        if current_text(home, name, file) != before:
            return f"{file} of '{name}' changed since the review read it"
    except SkillRefusal as exc:
        return str(exc)
    return None


def commit_skill_change(
    home: HermesHome,
    operation: str,
    name: str,
    file: str,
    before: str | None,
    after: str,
    category: str | None = None,
) -> dict[str, Any]:
    """Write one planned change; ``{"success": True, "message"}`` or an error (``stale``)."""
    try:
        if operation == "create":
            return _commit_create(home, name, after, category)
        skill, refusal = _fresh_guard(home, name)
        if skill is None:
            return _result(False, f"stale: skill '{name}' no longer exists; nothing was written.",
                           stale=True)  # fmt: skip
        if refusal:
            return _result(False, f"{refusal} Nothing was written.")
        if file == SKILL_MD:
            return _commit_skill_md(home, skill, before, after)
        return _commit_support_file(home, skill, file, before, after)
    except SkillRefusal as exc:
        return exc.payload


def _stale(name: str, file: str) -> dict[str, Any]:
    return _result(
        False,
        f"stale: {file} of skill '{name}' changed since the review read it; nothing was "
        "written. Reject this change, or run the review again.",
        stale=True,
    )


def _commit_skill_md(home: HermesHome, skill: Skill, before: str | None, after: str) -> dict:
    if read_text_file(skill.skill_md) != before or before is None:
        return _stale(skill.name, SKILL_MD)
    outcome = edit_skill(home, skill.name, after, revision=revision_of(before))
    if not outcome.ok:
        if read_text_file(skill.skill_md) != before:  # lost a race with another writer
            return _stale(skill.name, SKILL_MD)
        return _result(False, f"{outcome.message}; nothing was written.")
    warning = _mark_usage(home, skill.name, created=False)
    return _result(True, f"Updated SKILL.md of '{skill.name}'." + (f" Note: {warning}" if warning else ""))


def _commit_support_file(home: HermesHome, skill: Skill, file: str, before: str | None,
                         after: str) -> dict:  # fmt: skip
    error = support_path_error(file) or check_support_content(after)
    if error:
        return _result(False, error)
    escape = directory_escape_reason(skill.path, skill.root.path)
    if escape:
        return _result(False, escape)
    path = support_file_path(skill.path, file)
    if read_text_file(path) != before:
        return _stale(skill.name, file)
    made: list[Path] = []
    parent = path.parent
    while not parent.exists():
        made.append(parent)
        parent = parent.parent
    try:
        for directory in reversed(made):
            directory.mkdir()
        support_file_path(skill.path, file)  # re-check now that the folders exist
        atomic_write_text(path, after, temp_prefix=".review_")
    except (OSError, SkillRefusal) as exc:
        for directory in made:
            with contextlib.suppress(OSError):
                directory.rmdir()
        if isinstance(exc, SkillRefusal):
            return exc.payload
        return _result(False, f"Could not write {path}: {exc}")
    clear_skills_prompt_cache(home)
    warning = _mark_usage(home, skill.name, created=False)
    verb = "Wrote" if before is None else "Updated"
    return _result(True, f"{verb} {file} in '{skill.name}'." + (f" Note: {warning}" if warning else ""))


def _commit_create(home: HermesHome, name: str, content: str, category: str | None) -> dict:
    error = name_error(name) or skill_md_error(content)
    if error:
        return _result(False, error)
    if category and not NAME_PATTERN.match(category):
        return _result(False, f"Invalid category {category!r}.")
    if SkillIndex(home).scan().get(name) is not None:
        return _result(False, f"stale: a skill named '{name}' exists now; nothing was written.",
                       stale=True)  # fmt: skip
    if not home.path.is_dir():
        return _result(False, f"No Hermes home at {home.path}; nothing was written.")
    directory = home.skills_dir.joinpath(*(p for p in (category, name) if p))
    if os.path.lexists(directory):
        return _result(False, f"stale: {directory} exists now; nothing was written.", stale=True)
    made: list[Path] = []
    parent = directory
    while not parent.exists():
        made.append(parent)
        parent = parent.parent
    try:
        for folder in reversed(made):
            folder.mkdir()
        if directory_escape_reason(directory, home.skills_dir):
            raise OSError(f"{directory} is not a plain folder inside {home.skills_dir}")
        atomic_write_text(directory / SKILL_MD, content, temp_prefix=".review_")
    except OSError as exc:
        with contextlib.suppress(OSError):
            (directory / SKILL_MD).unlink()
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        return _result(False, f"Could not create skill '{name}': {exc}")
    clear_skills_prompt_cache(home)
    warning = _mark_usage(home, name, created=True)
    return _result(True, f"Created skill '{name}' in {directory}." + (f" Note: {warning}" if warning else ""))
