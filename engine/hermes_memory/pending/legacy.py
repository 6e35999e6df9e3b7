"""Moving the records of the old queue, ``<home>/review/pending/<id>.json``, into this one.

Earlier versions queued review proposals in a format of their own. Each is read once,
written as an upstream record (with ``migrated_from`` naming the old id) and only then
removed, all under one lock: a crash in between leaves the old file, and the next run sees
the ``migrated_from`` record and just removes it, so nothing is lost or queued twice. A file
that cannot be understood stays where it is and is reported.
"""

from __future__ import annotations

import contextlib
import json
import os
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..fileio import LockTimeout, file_lock
from .changes import memory_change_payload, skill_change_payload, summary_for
from .records import BACKGROUND_REVIEW, DECISIONS, MEMORY, SKILLS, SUBSYSTEMS, read_record

if TYPE_CHECKING:
    from .queue import PendingQueue


def _epoch(value: Any) -> float | None:
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        return None


def _convert(old: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """``(subsystem, payload, extra)`` for one old proposal; ``ValueError`` if unusable."""
    if not isinstance(old, dict) or old.get("format") != 1:
        raise ValueError("not a proposal record of format 1")
    kind, target, operation = old.get("kind"), old.get("target"), old.get("operation")
    if not isinstance(target, str) or not isinstance(operation, str):
        raise ValueError("it has no target or operation")
    before, after = old.get("before"), old.get("after")
    if kind == "memory":
        if not (isinstance(before, list) and isinstance(after, list)) or target not in ("memory", "user"):
            raise ValueError("a memory proposal needs a target and before/after lists")
        return MEMORY, memory_change_payload(target, [str(e) for e in before], [str(e) for e in after]), {}
    if kind == "skill":
        if not isinstance(after, str):
            raise ValueError("this skill proposal has no new text")
        file = old.get("file") if isinstance(old.get("file"), str) else "SKILL.md"
        payload, extra = skill_change_payload(operation, target, file,
                                              before if isinstance(before, str) else None, after,
                                              old.get("category") if isinstance(old.get("category"), str) else None)  # fmt: skip
        return SKILLS, payload, extra
    raise ValueError(f"unknown kind {kind!r}")


def migrate_review_queue(queue: PendingQueue) -> list[str]:
    """Move every old record over; returns the problems to report (usually none)."""
    old_dir = queue.home.path / "review" / "pending"
    try:
        names = sorted(n for n in os.listdir(old_dir) if n.endswith(".json") and not n.startswith("."))
    except OSError:
        return []
    if not names:
        return []
    problems: list[str] = []
    try:
        queue.root.mkdir(parents=True, exist_ok=True)
        with file_lock(queue.root / ".migrate"):
            moved = _already_moved(queue)
            for name in names:
                problem = _move_one(queue, old_dir / name, moved)
                if problem:
                    problems.append(f"review/pending/{name} was not moved to the queue: {problem}; "
                                    "it was left where it is.")  # fmt: skip
    except (LockTimeout, OSError) as exc:
        problems.append(f"The old review queue could not be moved yet: {exc}")
    return problems


def _already_moved(queue: PendingQueue) -> dict[str, str]:
    """Old id -> new id, for records a previous run moved (still queued, or decided since)."""
    moved = {}
    for subsystem in SUBSYSTEMS:
        directory = queue.directory(subsystem)
        with contextlib.suppress(OSError):
            for line in (directory / DECISIONS).read_text(encoding="utf-8", errors="replace").splitlines():
                with contextlib.suppress(ValueError, AttributeError, TypeError):
                    entry = json.loads(line)
                    old = entry["record"].get("migrated_from")
                    if isinstance(old, str):
                        moved[old] = str(entry.get("id"))
        with contextlib.suppress(OSError):
            for name in os.listdir(directory):
                if name.endswith(".json") and not name.startswith("."):
                    with contextlib.suppress(FileNotFoundError):
                        record = read_record(directory / name, subsystem)
                        old = record.data.get("migrated_from")
                        if isinstance(old, str):
                            moved[old] = record.id
    return moved


def _move_one(queue: PendingQueue, path, moved: dict[str, str]) -> str | None:
    old_id = path.name[: -len(".json")]
    if old_id in moved:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return None
    try:
        if path.is_symlink() or path.stat().st_size > 4 * 1024 * 1024:
            return "it is a link or far too large"
        old = json.loads(path.read_text(encoding="utf-8-sig"))
        subsystem, payload, extra = _convert(old)
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return str(exc)
    created = _epoch(old.get("created_at"))  # keep the order: when proposed, not when moved
    depends = [moved[d] for d in old.get("depends_on") or [] if isinstance(d, str) and d in moved]
    record = queue.stage(
        subsystem, payload, summary_for(subsystem, payload), BACKGROUND_REVIEW,
        session_id=old.get("session_id") if isinstance(old.get("session_id"), str) else None,
        depends_on=depends or None, migrated_from=old_id,
        created_at=None if created is None else created + len(moved) * 1e-6, **extra,
    )  # fmt: skip
    moved[old_id] = record.id
    path.unlink()
    return None
