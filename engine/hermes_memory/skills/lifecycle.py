"""Pin, unpin, archive and restore skills, as ``hermes curator`` does.

Archiving is how a skill is deleted: its directory moves to ``skills/.archive/<dir>``
(``-YYYYMMDDHHMMSS`` appended on a collision), its ``.usage.json`` record says
``state: archived`` with ``archived_at``, and a bundled skill is listed in
``.curator_suppressed`` so the agent does not seed it again. Restore undoes all three.

Beyond upstream: the record also keeps ``archived_from`` (the directory relative to the
skills root), so a restore puts a skill back in its category instead of flattening it.
The agent ignores the field; restoring an archive it made falls back to the flat layout.
A move and its record are one recoverable step (:mod:`.moves`): a process killed in
between leaves an intent the next command finishes or undoes.

Restore accepts every archive name found in the wild (``<name>``,
``<name>-YYYYMMDDHHMMSS``, ``<name>-YYYYMMDD-HHMMSS``, ``<name>-YYYYMMDDTHHMMSSZ``,
nested ``.archive/<category>/<skill>/``), knows a skill by its SKILL.md name (else its
folder name without the timestamp), prefers the newest copy and never takes a sibling
that only shares a prefix (``git`` is not ``git-helpers``).

Each mutation ends in one place, :func:`after_change` (``after_move`` for archive and
restore), where whatever must follow every change to a skill is done.

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
from ..safe_load import RECORD_LIMITS, UnsafeDocument, read_bounded
from .frontmatter import parse_frontmatter
from .index import BUNDLED, HUB, Skill, SkillIndex, SkillReadError, SkillScan, read_head
from .moves import (
    ARCHIVE,
    RESTORE,
    Move,
    Recovery,
    clear_intent,
    crash_point,
    record_move,
    recover_locked,
    relative,
    write_intent,
)
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
    UsageError,
    empty_record,
    read_usage,
    update_usage,
)
from .validation import name_error

# The timestamp suffixes archives carry in the wild (issue 83580): 14 digits (the
# curator), 8-6 digits (an LLM pass using date +%Y%m%d-%H%M%S), and an ISO-like form.
_TIMESTAMP_SUFFIX = re.compile(
    r"^(?P<base>.+)-(?P<stamp>\d{14}|\d{8}-\d{6}|\d{8}T\d{6}Z?)$"
)
#: How deep nested archives (``.archive/<category>/<skill>``) are looked for.
_ARCHIVE_DEPTH = 4


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


def after_change(home: HermesHome, action: str, name: str) -> None:
    """Everything that follows a successful change to a skill (``pin``, ``unpin``,
    ``archive``, ``restore``, ``edit``): the one place to hook in what every change
    needs."""
    del action, name  # not needed yet by the prompt cache
    clear_skills_prompt_cache(home)  # every skill change invalidates the agent's index


def after_move(home: HermesHome, move: Move) -> None:
    """The steps after an archive or restore (also run for one finished on recovery)."""
    if move.op == ARCHIVE and move.bundled:
        _edit_suppressed(home, add=move.name)
    elif move.op == RESTORE:
        _edit_suppressed(home, remove=move.name)
    after_change(home, move.op, move.name)


# --- pin ---------------------------------------------------------------------------------
def set_pinned(home: HermesHome, name: str, pinned: bool, *, scan: SkillScan | None = None) -> SkillOutcome:
    """Record a person's pin (archive and delete refused) or lift it.

    A name with no skill folder is pinned too, as upstream does (an archived skill, or
    one the agent has not made yet: the pin then protects it from the start). It only
    adds a record, so nothing can be lost; the name must be a valid skill name.
    """
    verb = "pin" if pinned else "unpin"
    scan, skill, error = find_skill(home, name, scan)
    if scan is None or (skill is None and error != f"skill '{name}' not found"):
        return _refuse(error or f"skill '{name}' not found", name)
    if skill is None:
        return _set_pin_record(home, name, pinned, None)
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
    return _set_pin_record(home, name, pinned, skill)


def _set_pin_record(home: HermesHome, name: str, pinned: bool, skill: Skill | None) -> SkillOutcome:
    verb = "pin" if pinned else "unpin"
    if skill is None:
        if name in PROTECTED_SKILLS:
            return _refuse(
                f"could not {verb} '{name}' — the skill is not curation-eligible (protected "
                "built-in or external)",
                name,
            )
        if pinned and name_error(name):
            return _refuse(f"skill '{name}' not found, and '{name}' is not a valid skill name", name)

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
        changed = _update_with_recovery(home, apply)
    except (_Refused, UsageError, LockTimeout, OSError) as exc:
        return _refuse(f"could not {verb} '{name}': {exc}", name)
    directory = skill.directory if skill is not None else None
    if not changed:
        if skill is None and not pinned:
            return SkillOutcome(True, f"'{name}' was not pinned", name)
        return SkillOutcome(True, f"'{name}' is already {verb}ned", name, directory)
    after_change(home, verb, name)
    record_skill_change(home, name, verb, directory)
    if pinned:
        message = f"pinned '{name}' (archive and delete are refused until it is unpinned)"
        if skill is None:
            message = (
                f"pinned '{name}': no skill of that name is in use now (archived or not made "
                "yet); the pin is recorded and protects it once it is"
            )
    else:
        message = f"unpinned '{name}'"
    return SkillOutcome(True, message, name, directory)


def _update_with_recovery(home: HermesHome, mutate: Any, *, move_step: str | None = None) -> Any:
    """:func:`update_usage` that first finishes a move an earlier process left half
    done (it needs the same lock), and clears the intent file once the record is
    written, still under the lock. ``move_step`` names the step of a move ``mutate``
    itself makes (for :func:`crash_point` before its intent is cleared)."""
    recovery: list[Recovery] = []

    def apply(data: dict[str, Any]) -> Any:
        found = recover_locked(home, data)
        recovery.append(found)
        if found.keep_intent:
            raise _Refused(" ".join(found.notes))
        return mutate(data)

    def written() -> None:
        if move_step is not None:
            crash_point(move_step)  # 4. only the intent is left to clear
        if move_step is not None or (recovery and recovery[0].found):
            clear_intent(home)

    result = update_usage(home, apply, after_write=written)
    if recovery and recovery[0].finished is not None:
        after_move(home, recovery[0].finished)
    return result


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
    moves: list[Move] = []
    moved: list[bool] = []

    def apply(data: dict[str, Any]) -> Path:
        record = data.get(name)
        if record is not None and isinstance(record, dict) and record.get("pinned"):
            raise _Refused(f"'{name}' is pinned — unpin it first (hermes curator unpin {name})")
        if not os.path.isdir(skill.directory):
            raise _Refused(f"skill '{name}' moved meanwhile; refresh and try again")
        archive_dir.mkdir(parents=True, exist_ok=True)
        dest = _archive_destination(archive_dir, skill.dir_name)
        if dest is None:
            raise _Refused(f"an archive of '{name}' was made this second; try again")
        move = Move(
            ARCHIVE, name, relative(home, skill.directory), relative(home, dest),
            archived_from=skill.rel_dir,
            bundled=skill.provenance == BUNDLED,
        )
        moves.append(move)
        write_intent(home, move)  # 1. intent first: a kill from here on is recoverable
        crash_point("archive:intent")
        os.rename(skill.directory, dest)  # 2. the commit point
        moved.append(True)
        crash_point("archive:moved")
        record_move(data, move)  # 3. the record, written when this returns
        return dest

    try:
        dest = _update_with_recovery(home, apply, move_step="archive:recorded")
    except _Refused as exc:
        return _refuse(str(exc), name)
    except (UsageError, LockTimeout, OSError) as exc:
        if moved:  # the record was not written: put the skill back
            with contextlib.suppress(OSError):
                os.rename(home.skills_dir / moves[0].dest, skill.directory)
        if moves:
            clear_intent(home)
        return _refuse(f"could not archive '{name}': {exc}", name)
    after_move(home, moves[0])
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
        lines = read_bounded(path, RECORD_LIMITS.max_bytes).decode("utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    except (OSError, UnicodeDecodeError, UnsafeDocument):
        return  # never rewrite a file we could not read whole
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


def _stamp_key(dir_name: str) -> str:
    """The archive time as 14 digits for ordering; "" for an undated (oldest) copy."""
    match = _TIMESTAMP_SUFFIX.match(dir_name)
    return re.sub(r"\D", "", match.group("stamp"))[:14] if match else ""


def _archived_name(directory: Path) -> str:
    try:
        text, _ = read_head(str(directory / "SKILL.md"))
    except (OSError, SkillReadError):
        return _plain_dir_name(directory.name)
    frontmatter, _ = parse_frontmatter(text)
    value = frontmatter.get("name")
    name = str(value).strip() if value is not None and not isinstance(value, dict | list) else ""
    return name or _plain_dir_name(directory.name)


def _archive_folders(archive_dir: Path) -> list[Path]:
    """Every folder under the archive holding a SKILL.md (nested ones too, as older
    agents and imports left them), never through a link, at most a few levels deep."""
    found: list[Path] = []
    stack = [(archive_dir, 0)]
    while stack:
        directory, depth = stack.pop()
        try:
            children = sorted(directory.iterdir())
        except OSError:
            continue
        for child in children:
            if child.is_symlink() or not child.is_dir() or child.name in EXCLUDED_DIRS - {".archive"}:
                continue
            if (child / "SKILL.md").is_file():
                found.append(child)  # a skill's own subfolders are not searched
            elif depth + 1 < _ARCHIVE_DEPTH:
                stack.append((child, depth + 1))
    return found


def list_archived(home: HermesHome) -> list[ArchivedSkill]:
    """Skills in ``skills/.archive`` (nested ones too), newest archive first for each
    name. Each ``name`` round-trips through :func:`restore_skill`."""
    archive_dir = home.skills_archive_dir
    if not _stays_inside(archive_dir, home.skills_dir):
        return []  # never read through a link out of the skills root
    usage = read_usage(home)
    found: list[ArchivedSkill] = []
    for directory in _archive_folders(archive_dir):
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

    def order(item: ArchivedSkill) -> tuple[str, str, str]:
        # the undated copy is the oldest archive; dated ones are newer, newest first
        return (item.name, _invert(_stamp_key(item.dir_name)), item.path)

    found.sort(key=order)
    return found


def _invert(digits: str) -> str:
    # "" (undated) sorts after every dated copy
    return "".join(str(9 - int(char)) for char in digits) if digits else "~"


def _pick_archive(archived: list[ArchivedSkill], name: str) -> tuple[ArchivedSkill | None, list[ArchivedSkill]]:
    """``(copy to restore, other copies of that skill)``. A request naming one dated
    folder exactly takes that copy; otherwise the newest copy whose name (SKILL.md
    name, else folder name without its timestamp) is the request. Never a folder whose
    name merely starts with it."""
    exact = [item for item in archived if item.dir_name == name and _TIMESTAMP_SUFFIX.match(name)]
    if exact:
        chosen = exact[0]
    else:
        by_name = [item for item in archived if item.name == name]
        if not by_name:
            by_name = [item for item in archived if item.dir_name == name]
        if not by_name:
            return None, []
        chosen = by_name[0]  # list_archived puts the newest first
    others = [item for item in archived if item.name == chosen.name and item is not chosen]
    return chosen, others


def _stays_inside(path: Path, root: Path) -> bool:
    """True when ``path`` (which may not exist yet) resolves inside ``root``."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or is_strictly_inside(real, real_root)


def _restore_target(home: HermesHome, item: ArchivedSkill) -> Path:
    """Where a skill goes back: its recorded place when that is a safe relative path
    (no ``..``, not absolute, no link out of the root), else the top of the root under
    its folder name without a timestamp."""
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
    item, others = _pick_archive(list_archived(home), name)
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
    moves: list[Move] = []
    made_dirs: list[Path] = []
    moved: list[bool] = []

    def apply(data: dict[str, Any]) -> None:
        if not os.path.isdir(source) or os.path.lexists(dest):
            raise _Refused(f"the archive of '{restored}' changed meanwhile; try again")
        missing = []
        parent = dest.parent
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        move = Move(
            RESTORE, restored, relative(home, source), relative(home, dest),
            made_dirs=[relative(home, directory) for directory in reversed(missing)],
        )
        moves.append(move)
        write_intent(home, move)  # 1. intent first: a kill from here on is recoverable
        crash_point("restore:intent")
        for directory in reversed(missing):  # a category emptied since the archive
            directory.mkdir()
            made_dirs.append(directory)
        os.rename(source, dest)  # 2. the commit point
        moved.append(True)
        crash_point("restore:moved")
        record_move(data, move)  # 3. the record, written when this returns

    try:
        _update_with_recovery(home, apply, move_step="restore:recorded")
    except _Refused as exc:
        return _refuse(str(exc), name)
    except (UsageError, LockTimeout, OSError) as exc:
        with contextlib.suppress(OSError):  # the record was not written: undo the move
            if moved:
                os.rename(dest, source)
            for directory in reversed(made_dirs):
                directory.rmdir()
        if moves:
            clear_intent(home)
        return _refuse(f"could not restore '{name}': {exc}", name)
    after_move(home, moves[0])
    record_skill_change(home, restored, "restore", dest)
    message = f"restored '{restored}' to {dest}"
    if others:
        message += (
            f" ({len(others)} other archived cop{'y' if len(others) == 1 else 'ies'} kept: "
            + ", ".join(item.dir_name for item in others)
            + ")"
        )
    return SkillOutcome(True, message, restored, str(dest))
