"""Creating skills and writing or removing their support files, as ``skill_manage`` does.

SKILL.md rewrites go through :func:`~.editing.edit_skill`; this module holds the other
writes a staged change or a review can make. Each is atomic, refuses links out of the
skill, removes folders it made when the write fails, refreshes the agent's skills prompt
cache and keeps ``.usage.json`` telemetry as upstream does (a create marks the skill the
agent's; a change bumps its patch count). ``expected`` makes a write refuse when the file
no longer holds the text the change was planned against (``None``: must not exist).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from ..fileio import LockTimeout, atomic_write_text
from ..history.recording import record_skill_change
from ..home import HermesHome
from .index import SkillIndex
from .lifecycle import SkillOutcome, clear_skills_prompt_cache, find_skill
from .roots import SUPPORT_DIRS, directory_escape_reason, is_strictly_inside
from .usage import UsageError, empty_record, now_iso, update_usage
from .validation import NAME_PATTERN, name_error, skill_md_error

SKILL_MD = "SKILL.md"
MAX_SUPPORT_CHARS = 100_000
MAX_SUPPORT_BYTES = 1024 * 1024
#: ``expected`` default: do not compare with anything
ANY = object()


class SkillFileError(ValueError):
    """A support-file path or text that cannot be used; the message is for a person."""


def support_path_error(file_path: Any) -> str | None:
    """Why ``file_path`` cannot name a support file inside a skill, or None."""
    if not isinstance(file_path, str) or not file_path.strip():
        return "file_path is required."
    if "\\" in file_path or "\x00" in file_path or os.path.isabs(file_path):
        return f"'{file_path}' is not a relative path inside the skill."
    parts = file_path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return f"'{file_path}' must not contain empty, '.' or '..' parts."
    if len(parts) < 2 or parts[0] not in SUPPORT_DIRS:
        allowed = ", ".join(sorted(f"{d}/" for d in SUPPORT_DIRS))
        return f"Support files live under {allowed}; '{file_path}' does not."
    return None


def support_content_error(text: Any) -> str | None:
    if not isinstance(text, str):
        return "file_content is required."
    if len(text) > MAX_SUPPORT_CHARS or len(text.encode("utf-8", "surrogatepass")) > MAX_SUPPORT_BYTES:
        return f"file_content is too large (limit {MAX_SUPPORT_CHARS:,} characters and 1 MiB)."
    return None


def read_text_file(path: Path) -> str | None:
    """A file's UTF-8 text, None when it does not exist; raises :class:`SkillFileError`."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise SkillFileError(f"{path.name} is a directory, not a file.") from None
    except OSError as exc:
        raise SkillFileError(f"Could not read {path}: {exc.strerror}.") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFileError(f"{path} is not UTF-8 text; it cannot be edited here.") from None


def support_file_path(skill_dir: Path, file_path: str) -> Path:
    """The support file's path, refusing links out of the skill directory."""
    path = skill_dir.joinpath(*file_path.split("/"))
    real_dir = os.path.realpath(skill_dir)
    if path.is_symlink() or not is_strictly_inside(os.path.realpath(path), real_dir):
        raise SkillFileError(f"{file_path} leads outside the skill directory; refusing.")
    return path


def mark_usage(home: HermesHome, name: str, created: bool) -> str | None:
    """Telemetry as upstream; returns a warning when ``.usage.json`` cannot be updated."""
    return mark_usage_record(home, name, created)[0]


def mark_usage_record(home: HermesHome, name: str, created: bool) -> tuple[str | None, dict[str, Any] | None]:
    """:func:`mark_usage`, and the skill's record as written (``{}``: it has none; None:
    the file could not be updated), so that history need not read the file again."""

    def apply(data: dict[str, Any]) -> dict[str, Any]:
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
        return dict(record) if isinstance(record, dict) else {}

    try:
        return None, update_usage(home, apply)
    except (UsageError, LockTimeout, OSError) as exc:
        return f"the change was written, but {home.skills_usage_file.name} was not updated: {exc}", None


def _with_warning(message: str, warning: str | None) -> str:
    return message + (f" Note: {warning}" if warning else "")


def _made_folders(path: Path) -> list[Path]:
    made, parent = [], path
    while not parent.exists():
        made.append(parent)
        parent = parent.parent
    return made


def create_skill(home: HermesHome, name: str, content: str, category: str | None = None) -> SkillOutcome:
    """A new skill folder ``skills/[category/]name`` holding ``content`` as SKILL.md."""
    error = name_error(name) or skill_md_error(content)
    if error:
        return SkillOutcome(False, error, str(name))
    if category and (not isinstance(category, str) or not NAME_PATTERN.match(category)):
        return SkillOutcome(False, f"Invalid category {category!r}.", name)
    if SkillIndex(home).scan().get(name) is not None:
        return SkillOutcome(False, f"a skill named '{name}' exists now; nothing was written.", name)
    if not home.path.is_dir():
        return SkillOutcome(False, f"No Hermes home at {home.path}; nothing was written.", name)
    directory = home.skills_dir.joinpath(*(p for p in (category, name) if p))
    if os.path.lexists(directory):
        return SkillOutcome(False, f"{directory} exists now; nothing was written.", name)
    made = _made_folders(directory)
    try:
        for folder in reversed(made):
            folder.mkdir()
        if directory_escape_reason(directory, home.skills_dir):
            raise OSError(f"{directory} is not a plain folder inside {home.skills_dir}")
        atomic_write_text(directory / SKILL_MD, content, temp_prefix=".skill_")
    except OSError as exc:
        with contextlib.suppress(OSError):
            (directory / SKILL_MD).unlink()
        for folder in made:
            with contextlib.suppress(OSError):
                folder.rmdir()
        return SkillOutcome(False, f"Could not create skill '{name}': {exc}", name)
    clear_skills_prompt_cache(home)
    warning, record = mark_usage_record(home, name, created=True)
    # who made it (the writer's origin); the record as just written: one read of the file
    record_skill_change(home, name, "create", directory, record=record)
    return SkillOutcome(True, _with_warning(f"Created skill '{name}' in {directory}.", warning),
                        name, str(directory))  # fmt: skip


def _support_target(home: HermesHome, name: str, file_path: str):
    _scan, skill, error = find_skill(home, name)
    if skill is None:
        raise SkillFileError(f"skill '{name}' no longer exists; nothing was written.")
    error = support_path_error(file_path) or directory_escape_reason(skill.path, skill.root.path)
    if error:
        raise SkillFileError(error)
    return skill, support_file_path(skill.path, file_path)


def write_support_file(home: HermesHome, name: str, file_path: str, content: str, *,
                       expected: Any = ANY) -> SkillOutcome:  # fmt: skip
    """Write ``references/…``, ``templates/…``, ``scripts/…`` or ``assets/…`` of a skill."""
    error = support_content_error(content)
    if error:
        return SkillOutcome(False, error, name)
    made: list[Path] = []
    try:
        skill, path = _support_target(home, name, file_path)
        before = read_text_file(path)
        if expected is not ANY and before != expected:
            raise SkillFileError(f"{file_path} of '{name}' changed since this write was planned; "
                                 "nothing was written.")  # fmt: skip
        made = _made_folders(path.parent)
        for directory in reversed(made):
            directory.mkdir()
        support_file_path(skill.path, file_path)  # re-check now that the folders exist
        atomic_write_text(path, content, temp_prefix=".skill_")
    except (OSError, SkillFileError) as exc:
        for directory in made:
            with contextlib.suppress(OSError):
                directory.rmdir()
        if isinstance(exc, SkillFileError):
            return SkillOutcome(False, str(exc), name)
        return SkillOutcome(False, f"Could not write {file_path} in '{name}': {exc}", name)
    clear_skills_prompt_cache(home)
    warning, record = mark_usage_record(home, name, created=False)
    record_skill_change(home, name, "write_file", skill.path, record=record, files=[file_path])
    verb = "Wrote" if before is None else "Updated"
    return SkillOutcome(True, _with_warning(f"{verb} {file_path} in '{name}'.", warning), name, str(path))


def remove_support_file(home: HermesHome, name: str, file_path: str, *,
                        expected: Any = ANY) -> SkillOutcome:  # fmt: skip
    """Remove one support file of a skill (SKILL.md itself is never removed here)."""
    try:
        skill, path = _support_target(home, name, file_path)
        before = read_text_file(path)
        if before is None:
            raise SkillFileError(f"{file_path} is not in skill '{name}' (any more).")
        if expected is not ANY and before != expected:
            raise SkillFileError(f"{file_path} of '{name}' changed since this removal was "
                                 "planned; nothing was removed.")  # fmt: skip
        path.unlink()
    except SkillFileError as exc:
        return SkillOutcome(False, str(exc), name)
    except OSError as exc:
        return SkillOutcome(False, f"Could not remove {file_path} from '{name}': {exc}", name)
    clear_skills_prompt_cache(home)
    warning, record = mark_usage_record(home, name, created=False)
    record_skill_change(home, name, "remove_file", skill.path, record=record, files=[file_path])
    return SkillOutcome(True, _with_warning(f"Removed {file_path} from '{name}'.", warning), name)
