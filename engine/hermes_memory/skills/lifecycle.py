"""Pin, unpin, archive and restore skills, as ``hermes curator`` does.

Archiving is how a skill is deleted: its directory moves to ``skills/.archive/<dir>``
(``-YYYYMMDDHHMMSS`` appended on a collision), its ``.usage.json`` record says
``state: archived`` with ``archived_at``, and a bundled skill is listed in
``.curator_suppressed`` so the agent does not seed it again. Restore undoes all three.

Beyond upstream: the record also keeps ``archived_from`` (the directory relative to the
skills root), so a restore puts a skill back in its category instead of flattening it.
The agent ignores the field; restoring an archive it made falls back to the flat layout.

Every function returns a :class:`SkillOutcome`; none raises for a refusal.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..fileio import LockTimeout, atomic_write_text
from ..history.recording import record_skill_change
from ..home import HermesHome
from .frontmatter import parse_frontmatter
from .index import BUNDLED, HUB, Skill, SkillIndex, SkillReadError, SkillScan, read_head
from .roots import (
    BASE,
    EXCLUDED_DIRS,
    EXTERNAL,
    PROTECTED_SKILLS,
    directory_escape_reason,
    is_strictly_inside,
    prune_builtins_enabled,
    unsafe_name_reason,
)
from .usage import (
    STATE_ACTIVE,
    STATE_ARCHIVED,
    UsageError,
    empty_record,
    now_iso,
    read_usage,
    update_usage,
)

_TIMESTAMP_SUFFIX = re.compile(r"^(?P<base>.+)-(?P<stamp>\d{14})$")


@dataclass(frozen=True)
class SkillOutcome:
    ok: bool
    message: str
    name: str = ""
    path: str | None = None

    def as_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"ok": self.ok, "message": self.message}
        if self.name:
            result["name"] = self.name
        if self.path:
            result["path"] = self.path
        return result


def _refuse(message: str, name: str = "") -> SkillOutcome:
    return SkillOutcome(False, message, name)


def clear_skills_prompt_cache(home: HermesHome) -> bool:
    """Remove the agent's skills prompt snapshot so its next turn rebuilds the index."""
    try:
        os.unlink(home.skills_prompt_snapshot)
    except FileNotFoundError:
        return False
    except OSError:
        return False  # best effort, as upstream: the snapshot is also keyed by mtimes
    return True


def find_skill(
    home: HermesHome, name: str, scan: SkillScan | None = None
) -> tuple[SkillScan | None, Skill | None, str | None]:
    """``(scan, skill, None)`` or ``(scan, None, why)`` for a name from outside."""
    reason = unsafe_name_reason(name)
    if reason:
        return scan, None, reason
    scan = scan or SkillIndex(home).scan()
    skill = scan.get(name)
    return scan, skill, None if skill else f"skill '{name}' not found"


# --- pin ---------------------------------------------------------------------------------
def set_pinned(home: HermesHome, name: str, pinned: bool, *, scan: SkillScan | None = None) -> SkillOutcome:
    """Record a person's pin (archive and delete refused) or lift it."""
    verb = "pin" if pinned else "unpin"
    scan, skill, error = find_skill(home, name, scan)
    if skill is None or scan is None:
        return _refuse(error or f"skill '{name}' not found", name)
    if skill.provenance in (BUNDLED, HUB):
        return _refuse(
            f"'{name}' is bundled or hub-installed — cannot {verb} (only skills made in "
            "this profile take part in curation)",
            name,
        )
    if skill.provenance == EXTERNAL or name in PROTECTED_SKILLS:
        return _refuse(
            f"could not {verb} '{name}' — the skill is not curation-eligible (protected "
            "built-in or external)",
            name,
        )

    def apply(data: dict[str, Any]) -> bool:
        record = data.get(name)
        if not isinstance(record, dict):
            if not pinned:
                return False  # nothing to unpin; do not create a record for it
            record = data[name] = empty_record()
        changed = bool(record.get("pinned")) != pinned
        if changed:
            record["pinned"] = pinned
        return changed

    try:
        changed = update_usage(home, apply)
    except (UsageError, LockTimeout, OSError) as exc:
        return _refuse(f"could not {verb} '{name}': {exc}", name)
    if not changed:
        return SkillOutcome(True, f"'{name}' is already {verb}ned", name, skill.directory)
    clear_skills_prompt_cache(home)  # every skill change invalidates the agent's index
    record_skill_change(home, name, verb, skill.directory)
    if pinned:
        message = f"pinned '{name}' (archive and delete are refused until it is unpinned)"
    else:
        message = f"unpinned '{name}'"
    return SkillOutcome(True, message, name, skill.directory)


def pin_skill(home: HermesHome, name: str, **kwargs: Any) -> SkillOutcome:
    return set_pinned(home, name, True, **kwargs)


def unpin_skill(home: HermesHome, name: str, **kwargs: Any) -> SkillOutcome:
    return set_pinned(home, name, False, **kwargs)


# --- archive -----------------------------------------------------------------------------
def archive_refusal(skill: Skill, config: dict[str, Any], record: dict[str, Any]) -> str | None:
    """Why ``skill`` may not be archived by a person, or None. Pin is checked first."""
    name = skill.name
    if record.get("pinned"):
        return f"'{name}' is pinned — unpin it first (hermes curator unpin {name})"
    if skill.provenance == EXTERNAL:
        return (
            f"skill '{name}' lives in skills.external_dirs; external skills are read-only "
            "to the curator"
        )
    if skill.root.label == BASE:
        return f"skill '{name}' is part of the agent's bundled skills directory; never archived"
    if name in PROTECTED_SKILLS:
        return (
            f"skill '{name}' is a protected built-in; it backs load-bearing agent features "
            "and is never archived"
        )
    if skill.provenance == HUB:
        return f"skill '{name}' is hub-installed; never archive"
    if skill.provenance == BUNDLED and not prune_builtins_enabled(config):
        return (
            f"skill '{name}' is a bundled built-in; enable curator.prune_builtins to allow "
            "pruning it"
        )
    return None


def _archive_destination(archive_dir: Path, dir_name: str) -> Path | None:
    dest = archive_dir / dir_name
    if not os.path.lexists(dest):
        return dest
    stamped = archive_dir / f"{dir_name}-{datetime.now(UTC).strftime('%Y%m%d%H%M%S')}"
    return None if os.path.lexists(stamped) else stamped


def archive_skill(home: HermesHome, name: str, *, scan: SkillScan | None = None) -> SkillOutcome:
    scan, skill, error = find_skill(home, name, scan)
    if skill is None or scan is None:
        return _refuse(error or f"skill '{name}' not found", name)
    usage = read_usage(home)
    if usage.error:
        return _refuse(f"cannot archive '{name}': {usage.error}", name)
    refusal = archive_refusal(skill, scan.config, usage.record(name))
    if refusal:
        return _refuse(refusal, name)
    refusal = directory_escape_reason(skill.path, skill.root.path)
    if refusal:
        return _refuse(refusal, name)
    archive_dir = home.skills_archive_dir
    if not _stays_inside(archive_dir, home.skills_dir):
        return _refuse(f"{archive_dir} leads outside {home.skills_dir}; refusing to archive", name)
    moved: list[tuple[Path, Path]] = []

    def apply(data: dict[str, Any]) -> Path:
        record = data.get(name)
        if record is not None and isinstance(record, dict) and record.get("pinned"):
            raise _Refused(f"'{name}' is pinned — unpin it first (hermes curator unpin {name})")
        archive_dir.mkdir(parents=True, exist_ok=True)
        dest = _archive_destination(archive_dir, skill.dir_name)
        if dest is None:
            raise _Refused(f"an archive of '{name}' was made this second; try again")
        os.rename(skill.directory, dest)
        moved.append((Path(skill.directory), dest))
        if not isinstance(record, dict):
            record = data[name] = empty_record()
        record["state"] = STATE_ARCHIVED
        record["archived_at"] = now_iso()
        record["archived_from"] = skill.rel_dir
        return dest

    try:
        dest = update_usage(home, apply)
    except _Refused as exc:
        return _refuse(str(exc), name)
    except (UsageError, LockTimeout, OSError) as exc:
        for original, dest in moved:  # the record was not written: put the skill back
            with contextlib.suppress(OSError):
                os.rename(dest, original)
        return _refuse(f"could not archive '{name}': {exc}", name)
    if skill.provenance == BUNDLED:
        _edit_suppressed(home, add=name)
    clear_skills_prompt_cache(home)
    record_skill_change(home, name, "archive", dest)
    return SkillOutcome(
        True, f"archived '{name}' — restore with: hermes curator restore {name}", name, str(dest)
    )


class _Refused(Exception):
    """A refusal found under the lock; nothing was changed."""


def _edit_suppressed(home: HermesHome, *, add: str | None = None, remove: str | None = None) -> None:
    """Add or drop one name in ``.curator_suppressed``, keeping every other line as is."""
    path = home.curator_suppressed
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    except (OSError, UnicodeDecodeError):
        return
    names = [line.strip() for line in lines]
    if add is not None and add not in names:
        lines.append(add)
    elif remove is not None and remove in names:
        lines = [line for line in lines if line.strip() != remove]
    else:
        return
    with contextlib.suppress(OSError):
        atomic_write_text(path, "\n".join(lines) + ("\n" if lines else ""), ".curator_suppressed_")


# --- the archive and restore -------------------------------------------------------------
@dataclass(frozen=True)
class ArchivedSkill:
    name: str  # frontmatter name, else the directory name without a timestamp suffix
    path: str
    dir_name: str
    archived_at: str | None
    archived_from: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "dirName": self.dir_name,
            "archivedAt": self.archived_at,
            "archivedFrom": self.archived_from,
        }


def _plain_dir_name(dir_name: str) -> str:
    match = _TIMESTAMP_SUFFIX.match(dir_name)
    return match.group("base") if match else dir_name


def _archived_name(directory: Path) -> str:
    try:
        text, _ = read_head(str(directory / "SKILL.md"))
    except (OSError, SkillReadError):
        return _plain_dir_name(directory.name)
    frontmatter, _ = parse_frontmatter(text)
    value = frontmatter.get("name")
    name = str(value).strip() if value is not None and not isinstance(value, dict | list) else ""
    return name or _plain_dir_name(directory.name)


def list_archived(home: HermesHome) -> list[ArchivedSkill]:
    """Skills in ``skills/.archive`` (also one category level deep, as older agents left
    them), newest archive first for each name."""
    archive_dir = home.skills_archive_dir
    if not _stays_inside(archive_dir, home.skills_dir):
        return []  # never read through a link out of the skills root
    usage = read_usage(home)
    found: list[ArchivedSkill] = []
    try:
        entries = sorted(archive_dir.iterdir())
    except OSError:
        return []
    candidates: list[Path] = []
    for entry in entries:
        if entry.is_symlink() or not entry.is_dir():
            continue
        if (entry / "SKILL.md").is_file():
            candidates.append(entry)
            continue
        with contextlib.suppress(OSError):
            candidates.extend(
                child
                for child in sorted(entry.iterdir())
                if not child.is_symlink() and (child / "SKILL.md").is_file()
            )
    for directory in candidates:
        name = _archived_name(directory)
        record = usage.record(name)
        archived_from = record.get("archived_from")
        found.append(
            ArchivedSkill(
                name=name,
                path=str(directory),
                dir_name=directory.name,
                archived_at=record.get("archived_at") if isinstance(record.get("archived_at"), str) else None,
                archived_from=archived_from if isinstance(archived_from, str) else None,
            )
        )

    def order(item: ArchivedSkill) -> tuple[str, int, str]:
        stamp = _TIMESTAMP_SUFFIX.match(item.dir_name)
        # the plain copy is the oldest archive; timestamped ones are newer, newest first
        return (item.name, 0 if stamp else 1, "" if not stamp else _invert(stamp.group("stamp")))

    found.sort(key=order)
    return found


def _invert(digits: str) -> str:
    return "".join(str(9 - int(char)) for char in digits)


def _pick_archive(archived: list[ArchivedSkill], name: str) -> ArchivedSkill | None:
    by_dir = [item for item in archived if item.dir_name == name]
    if by_dir:
        return by_dir[0]
    by_name = [item for item in archived if item.name == name]
    if by_name:
        return by_name[0]
    stamped = [
        item
        for item in archived
        if (match := _TIMESTAMP_SUFFIX.match(item.dir_name)) and match.group("base") == name
    ]
    return stamped[0] if stamped else None


def _stays_inside(path: Path, root: Path) -> bool:
    """True when ``path`` (which may not exist yet) resolves inside ``root``."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or is_strictly_inside(real, real_root)


def _restore_target(home: HermesHome, item: ArchivedSkill) -> Path:
    """Where a skill goes back: its recorded place when that is a safe relative path
    (no ``..``, not absolute, no link out of the root), else the top of the root."""
    root = home.skills_dir
    recorded = item.archived_from
    if recorded and not os.path.isabs(recorded):
        parts = recorded.split("/")
        if all(
            part and part not in (".", "..") and part not in EXCLUDED_DIRS and "\\" not in part
            for part in parts
        ):
            target = root.joinpath(*parts)
            if _stays_inside(target.parent, root):
                return target
    return root / _plain_dir_name(item.dir_name)


def restore_skill(home: HermesHome, name: str, *, scan: SkillScan | None = None) -> SkillOutcome:
    reason = unsafe_name_reason(name)
    if reason:
        return _refuse(reason, name)
    item = _pick_archive(list_archived(home), name)
    if item is None:
        return _refuse(f"skill '{name}' not found in archive", name)
    restored = item.name
    scan = scan or SkillIndex(home).scan()
    if restored in scan.hub.names:
        return _refuse(
            f"skill '{restored}' is now hub-installed; restore would shadow the upstream version",
            name,
        )
    if restored in scan.bundled and not prune_builtins_enabled(scan.config):
        return _refuse(
            f"skill '{restored}' is now bundled; restore would shadow the upstream version",
            name,
        )
    taken = scan.get(restored)
    if taken is not None:
        return _refuse(
            f"a skill named '{restored}' exists again at {taken.directory}; archive or rename "
            "it before restoring",
            name,
        )
    source = Path(item.path)
    refusal = directory_escape_reason(source, home.skills_archive_dir)
    if refusal:
        return _refuse(refusal, name)
    dest = _restore_target(home, item)
    if os.path.lexists(dest):
        return _refuse(f"destination already exists: {dest}; move it away first", name)
    made_dirs: list[Path] = []
    renamed: list[bool] = []

    def apply(data: dict[str, Any]) -> None:
        missing = []
        parent = dest.parent
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        for directory in reversed(missing):  # a category emptied since the archive
            directory.mkdir()
            made_dirs.append(directory)
        os.rename(source, dest)
        renamed.append(True)
        record = data.get(restored)
        if not isinstance(record, dict):
            record = data[restored] = empty_record()
        record["state"] = STATE_ACTIVE
        record["archived_at"] = None
        record.pop("archived_from", None)

    try:
        update_usage(home, apply)
    except (UsageError, LockTimeout, OSError) as exc:
        with contextlib.suppress(OSError):  # the record was not written: undo the move
            if renamed:
                os.rename(dest, source)
            for directory in reversed(made_dirs):
                directory.rmdir()
        return _refuse(f"could not restore '{name}': {exc}", name)
    _edit_suppressed(home, remove=restored)
    clear_skills_prompt_cache(home)
    record_skill_change(home, restored, "restore", dest)
    return SkillOutcome(True, f"restored '{restored}' to {dest}", restored, str(dest))
