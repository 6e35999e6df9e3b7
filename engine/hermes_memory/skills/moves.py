"""Crash-safe archive and restore: the folder move and the ``.usage.json`` record as one
recoverable step.

A move is two writes (rename the skill folder, then record its state), and a process
can die between them. So every move, under the agent's ``.usage.json.lock``:

1. writes its intent to ``skills/.skill_move.json`` (what moves where, and the
   category it came from);
2. renames the folder: the commit point;
3. records the state in ``.usage.json``;
4. removes the intent.

A batch (many skills archived or restored at once) is the same four steps with every
move in one intent (``{"batch": [move, ...]}``) and one ``.usage.json`` write; recovery
settles each move of it on its own.

Whoever next takes the lock (any archive, restore or pin, and :func:`reconcile_moves`,
which :func:`~hermes_memory.skills.usage.read_usage` calls when an intent is left)
finishes an interrupted move first: if the folder moved, the record is completed
(``archived_from`` included, so a later restore keeps the category); if it did not,
the intent is dropped and nothing happened. Every kill point leaves a state the next
command repairs. ``$HERMES_MEMORY_CRASH_AT`` makes the process kill itself at a named
step, for the tests that prove it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..fileio import LockTimeout, atomic_write_text
from ..home import HermesHome
from ..safe_load import RECORD_LIMITS, UnsafeDocument, load_json_file
from .roots import is_strictly_inside
from .usage import (
    MOVE_INTENT_FILE,
    STATE_ACTIVE,
    STATE_ARCHIVED,
    UsageError,
    empty_record,
    now_iso,
    update_usage,
)

INTENT_FILE = MOVE_INTENT_FILE
CRASH_ENV = "HERMES_MEMORY_CRASH_AT"
ARCHIVE = "archive"
RESTORE = "restore"
#: How long a read waits for the lock to finish someone's interrupted move.
READ_RECONCILE_TIMEOUT = 0.5


@dataclass
class Move:
    """One archive or restore; paths are POSIX, relative to the skills root."""

    op: str  # ARCHIVE or RESTORE
    name: str  # the skill's frontmatter name (its .usage.json key)
    source: str
    dest: str
    archived_from: str | None = None  # archive: the folder it left, category included
    bundled: bool = False  # archive: add to .curator_suppressed once done
    made_dirs: list[str] = field(default_factory=list)  # restore: categories recreated

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False)


def intent_path(home: HermesHome) -> Path:
    return home.skills_dir / INTENT_FILE


def crash_point(step: str) -> None:
    """Die here, as a kill would, when ``$HERMES_MEMORY_CRASH_AT`` names this step."""
    if os.environ.get(CRASH_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


def relative(home: HermesHome, path: str | os.PathLike[str]) -> str:
    text, root = os.fspath(path), os.fspath(home.skills_dir) + os.sep
    if text.startswith(root) and ".." not in text.split(os.sep):  # the usual case, cheaply
        return text[len(root):].replace(os.sep, "/")
    return Path(os.path.relpath(path, home.skills_dir)).as_posix()


def absolute(home: HermesHome, rel: str) -> Path | None:
    """The path of a relative name from an intent, or None if it would leave the root."""
    if not isinstance(rel, str) or not rel or os.path.isabs(rel) or "\\" in rel:
        return None
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    path = home.skills_dir.joinpath(*parts)
    real_root = os.path.realpath(home.skills_dir)
    parent = os.path.realpath(path.parent)
    if parent != real_root and not is_strictly_inside(parent, real_root):
        return None  # a link on the way leads out of the root
    return path


def write_intent(home: HermesHome, moves: Move | list[Move]) -> None:
    """Record one move (the single-move form older versions read) or a batch."""
    if isinstance(moves, Move):
        text = moves.to_json()
    elif len(moves) == 1:
        text = moves[0].to_json()
    else:
        text = json.dumps({"batch": [asdict(move) for move in moves]}, indent=2, ensure_ascii=False)
    atomic_write_text(intent_path(home), text, temp_prefix=".skill_move_")


def clear_intent(home: HermesHome) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(intent_path(home))


def read_intent(home: HermesHome) -> list[Move] | None | str:
    """The recorded moves, None when there is none, or a message when it is unreadable."""
    try:
        data = load_json_file(intent_path(home), RECORD_LIMITS)
    except FileNotFoundError:
        return None
    except (OSError, UnsafeDocument) as exc:
        return f"{intent_path(home)} cannot be read ({exc}); it was left for you to look at."
    items = data.get("batch") if isinstance(data, dict) and "batch" in data else [data]
    unknown = f"{intent_path(home)} is not a move this version understands; it was left as is."
    if not isinstance(items, list) or not items:
        return unknown
    moves = []
    for item in items:
        try:
            move = Move(**item) if isinstance(item, dict) else None
        except TypeError:
            move = None
        if move is None or move.op not in (ARCHIVE, RESTORE) or not isinstance(move.name, str):
            return unknown
        moves.append(move)
    return moves


def record_move(data: dict[str, Any], move: Move) -> None:
    """The ``.usage.json`` half of a move (idempotent: a repeat changes nothing)."""
    record = data.get(move.name)
    if not isinstance(record, dict):
        record = data[move.name] = empty_record()
    if move.op == ARCHIVE:
        if record.get("state") != STATE_ARCHIVED or not record.get("archived_at"):
            record["archived_at"] = now_iso()
        record["state"] = STATE_ARCHIVED
        if move.archived_from:
            record["archived_from"] = move.archived_from
    else:
        record["state"] = STATE_ACTIVE
        record["archived_at"] = None
        record.pop("archived_from", None)


@dataclass
class Recovery:
    """What finishing an interrupted move (or batch of moves) found and did."""

    found: bool = False  # there was an intent
    finished: list[Move] = field(default_factory=list)  # folders that had moved: records completed
    notes: list[str] = field(default_factory=list)
    keep_intent: bool = False  # it could not be settled: leave it for a person


def recover_locked(home: HermesHome, data: dict[str, Any]) -> Recovery:
    """Finish or drop the recorded moves; call it under the usage lock, inside
    :func:`~hermes_memory.skills.usage.update_usage`, then :func:`clear_intent` once
    the records are written."""
    recovery = Recovery()
    moves = read_intent(home)
    if moves is None:
        return recovery
    recovery.found = True
    if isinstance(moves, str):
        recovery.notes.append(moves)
        recovery.keep_intent = True
        return recovery
    for move in moves:
        _settle(home, data, move, recovery)
    return recovery


def _settle(home: HermesHome, data: dict[str, Any], move: Move, recovery: Recovery) -> None:
    source, dest = absolute(home, move.source), absolute(home, move.dest)
    if source is None or dest is None:
        recovery.notes.append(f"{intent_path(home)} names paths outside the skills folder; ignored.")
        return
    moved = os.path.lexists(dest) and not os.path.lexists(source)
    if moved:
        record_move(data, move)
        recovery.finished.append(move)
        recovery.notes.append(f"finished an interrupted {move.op} of '{move.name}'")
    elif os.path.lexists(source) and not os.path.lexists(dest):
        for rel in reversed(move.made_dirs):  # categories a restore made before dying
            directory = absolute(home, rel)
            if directory is not None:
                with contextlib.suppress(OSError):
                    directory.rmdir()  # only if still empty
        recovery.notes.append(f"undid an interrupted {move.op} of '{move.name}' (nothing had moved)")
    else:
        recovery.keep_intent = True
        recovery.notes.append(
            f"an interrupted {move.op} of '{move.name}' cannot be finished ({move.source} and "
            f"{move.dest} both {'exist' if os.path.lexists(source) else 'are missing'}); "
            f"{intent_path(home)} is left for you to look at"
        )


def reconcile_moves(home: HermesHome, *, timeout: float = READ_RECONCILE_TIMEOUT) -> list[str]:
    """Finish a move an earlier process left half done; returns what it did (empty when
    there was nothing to do). Never raises: a busy lock or a read-only home is left for
    the next command."""
    if not os.path.lexists(intent_path(home)):
        return []
    from .lifecycle import after_move  # the steps after a move (cycle: lifecycle uses us)

    found: list[Recovery] = []

    def apply(data: dict[str, Any]) -> Recovery:
        found.append(recover_locked(home, data))
        return found[0]

    def settled() -> None:  # under the lock, so no other reader sees it half done
        if found and found[0].found and not found[0].keep_intent:
            clear_intent(home)

    try:
        recovery = update_usage(home, apply, timeout=timeout, after_write=settled)
    except (UsageError, LockTimeout, OSError) as exc:
        return [f"an interrupted skill archive or restore is not finished yet: {exc}"]
    for move in recovery.finished:
        after_move(home, move)
    return recovery.notes
