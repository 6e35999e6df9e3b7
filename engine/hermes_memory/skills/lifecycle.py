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

from ..fileio import LockTimeout, atomic_write_text, lock_path_for
from ..history.recording import record_skill_changes
from ..home import HermesHome
from ..safe_load import RECORD_LIMITS, UnsafeDocument, read_bounded
from . import usage_digest
from .frontmatter import parse_frontmatter
from .index import BUNDLED, HUB, Skill, SkillReadError, SkillScan, read_head
from .locate import SkillLookup, lookup
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
from .shared_index import held_index
from .usage import (
    MOVE_INTENT_FILE,
    UsageError,
    UsageSnapshot,
    empty_record,
    read_usage,
    read_usage_shared,
    update_usage,
)
from .validation import name_error

#: What answers a skill's name: a full scan, or the lookup that reads only what it must.
AnyScan = SkillScan | SkillLookup

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
    home: HermesHome, name: str, scan: AnyScan | None = None
) -> tuple[AnyScan | None, Skill | None, str | None]:
    """``(scan, skill, None)`` or ``(scan, None, why)`` for a name from outside.

    Without a ``scan`` the skill is looked up by :func:`locate_skill`."""
    reason = unsafe_name_reason(name)
    if reason:
        return scan, None, reason
    if scan is None:
        scan = locate_skill(home, name)
    skill = scan.get(name)
    return scan, skill, None if skill else f"skill '{name}' not found"


def locate_skill(home: HermesHome, name: str) -> AnyScan:
    """What answers which skill is named ``name`` (``.get(name)``) exactly as the full scan
    does: of two skills of one name the first listed wins, wherever their folders are and
    however they are named, and a name is free only if no SKILL.md declares it. Where
    this process keeps the home's shared index (the app's graph keeps it), a scan of it,
    which checks every file with a ``stat`` and reads only the changed ones; else
    :func:`.locate.lookup`, which walks the folders by the scan's rules and reads only
    the SKILL.md files its names cache does not know, and the skill asked for."""
    del name  # (the same answer whatever the name)
    held = held_index(home)
    return held.scan() if held is not None else lookup(home)


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


# --- one change to many skills -----------------------------------------------------------
@dataclass(frozen=True)
class BatchOutcome:
    """A change to many skills made under one lock with one ``.usage.json`` write.

    ``ok`` False: ``failed`` names the skill that stopped it and ``message`` says why;
    nothing changed, except the moves listed in ``stuck`` that could not be taken back
    (their intent is kept, so the next command records them as done)."""

    ok: bool
    message: str = ""
    failed: str = ""
    outcomes: tuple[SkillOutcome, ...] = ()  # ok: one per name, in order
    changed: tuple[str, ...] = ()  # ok: the names actually changed, in order
    stuck: tuple[str, ...] = ()

    def single(self) -> SkillOutcome:
        return self.outcomes[0] if self.ok else _refuse(self.message, self.failed)


class _Refused(Exception):
    """A refusal found under the lock; nothing was changed."""

    def __init__(self, message: str, name: str = "") -> None:
        super().__init__(message)
        self.name = name


def _batch_refusal(exc: _Refused | str, name: str) -> BatchOutcome:
    if isinstance(exc, _Refused):
        return BatchOutcome(False, str(exc), exc.name or name)
    return BatchOutcome(False, exc, name)


# --- pin ---------------------------------------------------------------------------------
def set_pinned(home: HermesHome, name: str, pinned: bool, *, scan: AnyScan | None = None) -> SkillOutcome:
    """Record a person's pin (archive and delete refused) or lift it.

    A name with no skill folder is pinned too, as upstream does (an archived skill, or
    one the agent has not made yet: the pin then protects it from the start). It only
    adds a record, so nothing can be lost; the name must be a valid skill name.
    """
    return set_pinned_many(home, [name], pinned, scan=scan).single()


def _pin_refusal(home: HermesHome, name: str, pinned: bool, scan: AnyScan | None) -> tuple[AnyScan | None, Skill | None, str | None]:
    verb = "pin" if pinned else "unpin"
    scan, skill, error = find_skill(home, name, scan)
    not_found = f"skill '{name}' not found"
    if scan is None or (skill is None and error != not_found):
        return scan, None, error or not_found
    not_eligible = (
        f"could not {verb} '{name}' — the skill is not curation-eligible (protected "
        "built-in or external)"
    )
    if skill is None:
        if name in PROTECTED_SKILLS:
            return scan, None, not_eligible
        if pinned and name_error(name):
            return scan, None, f"skill '{name}' not found, and '{name}' is not a valid skill name"
        return scan, None, None
    if skill.provenance in (BUNDLED, HUB):
        return scan, skill, (
            f"'{name}' is bundled or hub-installed — cannot {verb} (only skills made in "
            "this profile take part in curation)"
        )
    if skill.provenance == EXTERNAL or name in PROTECTED_SKILLS:
        return scan, skill, not_eligible
    return scan, skill, None


def set_pinned_many(
    home: HermesHome, names: list[str], pinned: bool, *, scan: AnyScan | None = None
) -> BatchOutcome:
    """:func:`set_pinned` for every name, all or nothing, in one ``.usage.json`` write.
    Names already in that state are left alone (not in ``changed``)."""
    verb = "pin" if pinned else "unpin"
    targets: list[tuple[str, Skill | None]] = []
    for name in names:
        scan, skill, refusal = _pin_refusal(home, name, pinned, scan)
        if refusal:
            return BatchOutcome(False, refusal, name)
        targets.append((name, skill))
    records: dict[str, dict[str, Any]] = {}

    def apply(data: dict[str, Any]) -> list[bool]:
        changed = []
        for name, _skill in targets:
            record = data.get(name)
            if not isinstance(record, dict):
                if not pinned:
                    changed.append(False)  # nothing to unpin; do not create a record for it
                    continue
                record = data[name] = empty_record()
            changed.append(bool(record.get("pinned")) != pinned)
            if changed[-1]:
                record["pinned"] = pinned
                records[name] = dict(record)
        return changed

    try:
        changed = _update_with_recovery(home, apply)
    except _Refused as exc:
        return _batch_refusal(exc, names[0])
    except (UsageError, LockTimeout, OSError) as exc:
        return BatchOutcome(False, f"could not {verb} {_batch_label(names)}: {exc}", names[0])
    outcomes, history = [], []
    for (name, skill), did in zip(targets, changed, strict=True):
        directory = skill.directory if skill is not None else None
        if did:
            after_change(home, verb, name)
            history.append((name, verb, directory, records[name]))
        outcomes.append(_pin_outcome(name, pinned, skill, did))
    record_skill_changes(home, history)
    done = tuple(name for (name, _), did in zip(targets, changed, strict=True) if did)
    return BatchOutcome(True, outcomes=tuple(outcomes), changed=done)


def _batch_label(names: list[str]) -> str:
    return f"'{names[0]}'" if len(names) == 1 else f"{len(names)} skills"


def _pin_outcome(name: str, pinned: bool, skill: Skill | None, changed: bool) -> SkillOutcome:
    verb = "pin" if pinned else "unpin"
    directory = skill.directory if skill is not None else None
    if not changed:
        if skill is None and not pinned:
            return SkillOutcome(True, f"'{name}' was not pinned", name)
        return SkillOutcome(True, f"'{name}' is already {verb}ned", name, directory)
    if not pinned:
        return SkillOutcome(True, f"unpinned '{name}'", name, directory)
    if skill is None:
        return SkillOutcome(True, (
            f"pinned '{name}': no skill of that name is in use now (archived or not made "
            "yet); the pin is recorded and protects it once it is"
        ), name, directory)  # fmt: skip
    message = f"pinned '{name}' (archive and delete are refused until it is unpinned)"
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

    usage_digest.adopt(home)  # (a command after our own last write copies unchanged records)
    result = update_usage(home, apply, after_write=written)
    usage_digest.keep(home)
    for move in recovery[0].finished if recovery else ():
        after_move(home, move)
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


def _archive_destination(archive_dir: Path, dir_name: str, taken: set[Path]) -> Path | None:
    dest = archive_dir / dir_name
    if not os.path.lexists(dest) and dest not in taken:
        return dest
    stamped = archive_dir / f"{dir_name}-{datetime.now(UTC).strftime('%Y%m%d%H%M%S')}"
    return None if os.path.lexists(stamped) or stamped in taken else stamped


def archive_skill(home: HermesHome, name: str, *, scan: AnyScan | None = None) -> SkillOutcome:
    return archive_many(home, [name], scan=scan).single()


def archive_many(home: HermesHome, names: list[str], *, scan: AnyScan | None = None) -> BatchOutcome:
    """Archive every named skill, all or nothing: every check first, then one intent,
    the folder moves and one ``.usage.json`` write, under one lock."""
    skills: list[Skill] = []
    for name in names:
        scan, skill, error = find_skill(home, name, scan)
        if skill is None or scan is None:
            return BatchOutcome(False, error or f"skill '{name}' not found", name)
        refusal = directory_escape_reason(skill.path, skill.root.path)
        if refusal:
            return BatchOutcome(False, refusal, name)
        skills.append(skill)
    archive_dir = home.skills_archive_dir
    if not _stays_inside(archive_dir, home.skills_dir):
        return BatchOutcome(False, f"{archive_dir} leads outside {home.skills_dir}; refusing to archive", names[0])
    config = scan.config if scan is not None else {}
    refusal = _archive_prechecks(home, skills, config)
    if refusal is not None:
        return refusal
    moves: list[Move] = []
    moved: list[tuple[Path, Path, str]] = []  # (dest, source, name) of each folder moved so far
    records: dict[str, dict[str, Any]] = {}

    def apply(data: dict[str, Any]) -> None:
        for skill in skills:  # every check before anything moves
            record = data.get(skill.name)
            refusal = archive_refusal(skill, config, record if isinstance(record, dict) else {})
            if refusal:
                raise _Refused(refusal, skill.name)
            if not os.path.isdir(skill.directory):
                raise _Refused(f"skill '{skill.name}' moved meanwhile; refresh and try again", skill.name)
        archive_dir.mkdir(parents=True, exist_ok=True)
        taken: set[Path] = set()
        for skill in skills:
            dest = _archive_destination(archive_dir, skill.dir_name, taken)
            if dest is None:
                raise _Refused(f"an archive of '{skill.name}' was made this second; try again", skill.name)
            taken.add(dest)
            moves.append(Move(
                ARCHIVE, skill.name, relative(home, skill.directory), relative(home, dest),
                archived_from=skill.rel_dir, bundled=skill.provenance == BUNDLED,
            ))  # fmt: skip
        write_intent(home, moves)  # 1. intent first: a kill from here on is recoverable
        crash_point("archive:intent")
        for skill, move in zip(skills, moves, strict=True):
            dest = home.skills_dir / move.dest
            os.rename(skill.directory, dest)  # 2. the commit point of each skill
            moved.append((dest, Path(skill.directory), skill.name))
            crash_point("archive:moved")
        for move in moves:
            record_move(data, move)  # 3. the records, written when this returns
            records[move.name] = dict(data[move.name])

    try:
        _update_with_recovery(home, apply, move_step="archive:recorded")
    except _Refused as exc:
        return _batch_refusal(exc, names[0])
    except UsageError as exc:  # the file could not be read: nothing was tried
        return BatchOutcome(False, f"cannot archive {_batch_label(names)}: {exc}", names[0])
    except (LockTimeout, OSError) as exc:
        stuck = _take_back(home, moved, [], bool(moves))
        return _failed_moves(f"could not archive {_batch_label(names)}: {exc}", names[0], stuck)
    outcomes = []
    record_skill_changes(home, [
        (move.name, "archive", home.skills_dir / move.dest, records[move.name]) for move in moves
    ])  # fmt: skip
    for move in moves:
        after_move(home, move)
        dest = home.skills_dir / move.dest
        outcomes.append(SkillOutcome(
            True, f"archived '{move.name}' — restore with: hermes curator restore {move.name}",
            move.name, str(dest),
        ))  # fmt: skip
    return BatchOutcome(True, outcomes=tuple(outcomes), changed=tuple(names))


def _archive_prechecks(home: HermesHome, skills: list[Skill], config: dict[str, Any]) -> BatchOutcome | None:
    """The refusals that can be found without the lock. The pin needs the records: they
    are read here only when the lock file does not exist yet (the lock would create it,
    and a refusal must leave the home as it was); else the check under the lock does."""
    usage = None
    if not os.path.lexists(lock_path_for(home.skills_usage_file)):
        usage = read_usage(home)
        if usage.error:
            return BatchOutcome(False, f"cannot archive '{skills[0].name}': {usage.error}", skills[0].name)
    for skill in skills:
        refusal = archive_refusal(skill, config, usage.record(skill.name) if usage else {})
        if refusal:
            return BatchOutcome(False, refusal, skill.name)
    return None


def _take_back(
    home: HermesHome, moved: list[tuple[Path, Path, str]], made_dirs: list[Path], intent: bool
) -> list[str]:
    """Undo the folder moves of a batch whose records were not written, newest first.
    Returns the skills that could not be moved back; the intent is then kept, so the
    next command records them as moved."""
    stuck = []
    for dest, source, name in reversed(moved):
        try:
            os.rename(dest, source)
        except OSError:
            stuck.append(name)
    for directory in reversed(made_dirs):
        with contextlib.suppress(OSError):
            directory.rmdir()  # only if empty again
    if intent and not stuck:
        clear_intent(home)
    return stuck


def _failed_moves(message: str, name: str, stuck: list[str]) -> BatchOutcome:
    if not stuck:
        return BatchOutcome(False, message, name)
    return BatchOutcome(
        False,
        f"{message}; {len(stuck)} skill(s) could not be moved back and will be recorded as "
        f"moved by the next command: {', '.join(stuck)}",
        name,
        stuck=tuple(stuck),
    )


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


def list_archived(home: HermesHome, usage: UsageSnapshot | None = None) -> list[ArchivedSkill]:
    """Skills in ``skills/.archive`` (nested ones too), newest archive first for each
    name. Each ``name`` round-trips through :func:`restore_skill`. ``usage``: the
    records a caller has just read (else they are read here)."""
    archive_dir = home.skills_archive_dir
    if not _stays_inside(archive_dir, home.skills_dir):
        return []  # never read through a link out of the skills root
    if usage is None:
        if not os.path.lexists(home.skills_dir / MOVE_INTENT_FILE) and not _archive_folders(archive_dir):
            return []  # nothing archived, and no move half done to finish: no records to read
        usage = read_usage_shared(home)  # (only looked at; finishes a half-done move first)
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


def restore_skill(home: HermesHome, name: str, *, scan: AnyScan | None = None) -> SkillOutcome:
    return restore_many(home, [name], scan=scan).single()


@dataclass(frozen=True)
class _Restore:
    item: ArchivedSkill
    others: list[ArchivedSkill]
    source: Path
    dest: Path


def _plan_restore(home: HermesHome, name: str, archived: list[ArchivedSkill], scan: AnyScan) -> _Restore | str:
    reason = unsafe_name_reason(name)
    if reason:
        return reason
    item, others = _pick_archive(archived, name)
    if item is None:
        return f"skill '{name}' not found in archive"
    restored = item.name
    if restored in scan.hub.names:
        return f"skill '{restored}' is now hub-installed; restore would shadow the upstream version"
    if restored in scan.bundled and not prune_builtins_enabled(scan.config):
        return f"skill '{restored}' is now bundled; restore would shadow the upstream version"
    taken = scan.get(restored)
    if taken is not None:
        return (
            f"a skill named '{restored}' exists again at {taken.directory}; archive or rename "
            "it before restoring"
        )
    source = Path(item.path)
    refusal = directory_escape_reason(source, home.skills_archive_dir)
    if refusal:
        return refusal
    dest = _restore_target(home, item)
    if os.path.lexists(dest):
        return f"destination already exists: {dest}; move it away first"
    return _Restore(item, others, source, dest)


def restore_many(home: HermesHome, names: list[str], *, scan: AnyScan | None = None) -> BatchOutcome:
    """Restore every named skill from the archive, all or nothing: every check first,
    then one intent, the folder moves and one ``.usage.json`` write, under one lock."""
    for name in names:
        reason = unsafe_name_reason(name)
        if reason:
            return BatchOutcome(False, reason, name)
    archived = list_archived(home)
    if scan is None:
        scan = locate_skill(home, names[0])  # is a name in use again, in any folder?
    plans: list[_Restore] = []
    planned: dict[str, str] = {}  # what each restored skill and destination came from
    for name in names:
        plan = _plan_restore(home, name, archived, scan)
        if isinstance(plan, str):
            return BatchOutcome(False, plan, name)
        for key in (plan.item.name, str(plan.dest)):
            if key in planned:
                return BatchOutcome(False, f"'{name}' and '{planned[key]}' would restore the same skill or folder", name)
            planned[key] = name
        plans.append(plan)
    moves: list[Move] = []
    made_dirs: list[Path] = []
    moved: list[tuple[Path, Path, str]] = []
    records: dict[str, dict[str, Any]] = {}

    def apply(data: dict[str, Any]) -> None:
        creating: set[Path] = set()
        for plan, name in zip(plans, names, strict=True):
            if not os.path.isdir(plan.source) or os.path.lexists(plan.dest):
                raise _Refused(f"the archive of '{plan.item.name}' changed meanwhile; try again", name)
            missing = []  # a category emptied since the archive
            parent = plan.dest.parent
            while parent not in creating and not parent.exists():
                missing.append(parent)
                parent = parent.parent
            creating.update(missing)
            moves.append(Move(
                RESTORE, plan.item.name, relative(home, plan.source), relative(home, plan.dest),
                made_dirs=[relative(home, directory) for directory in reversed(missing)],
            ))  # fmt: skip
        write_intent(home, moves)  # 1. intent first: a kill from here on is recoverable
        crash_point("restore:intent")
        for plan, move in zip(plans, moves, strict=True):
            for rel in move.made_dirs:
                directory = home.skills_dir / rel
                directory.mkdir()
                made_dirs.append(directory)
            os.rename(plan.source, plan.dest)  # 2. the commit point of each skill
            moved.append((plan.dest, plan.source, move.name))
            crash_point("restore:moved")
        for move in moves:
            record_move(data, move)  # 3. the records, written when this returns
            records[move.name] = dict(data[move.name])

    try:
        _update_with_recovery(home, apply, move_step="restore:recorded")
    except _Refused as exc:
        return _batch_refusal(exc, names[0])
    except (UsageError, LockTimeout, OSError) as exc:
        stuck = _take_back(home, moved, made_dirs, bool(moves))
        return _failed_moves(f"could not restore {_batch_label(names)}: {exc}", names[0], stuck)
    outcomes = []
    record_skill_changes(home, [
        (move.name, "restore", plan.dest, records[move.name]) for plan, move in zip(plans, moves, strict=True)
    ])  # fmt: skip
    for plan, move in zip(plans, moves, strict=True):
        after_move(home, move)
        outcomes.append(SkillOutcome(True, _restored_message(plan), move.name, str(plan.dest)))
    return BatchOutcome(True, outcomes=tuple(outcomes), changed=tuple(move.name for move in moves))


def _restored_message(plan: _Restore) -> str:
    message = f"restored '{plan.item.name}' to {plan.dest}"
    others = plan.others
    if others:
        message += (
            f" ({len(others)} other archived cop{'y' if len(others) == 1 else 'ies'} kept: "
            + ", ".join(item.dir_name for item in others)
            + ")"
        )
    return message
