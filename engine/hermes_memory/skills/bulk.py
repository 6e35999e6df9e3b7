"""One action over many skills: pin, unpin, archive or restore, all or nothing.

The whole batch is one engine step: every skill is checked first, then, under one
``.usage.json`` lock, the moves are made (with one intent naming them all, so a crash
half-way stays recoverable) and the file is written once. A refusal anywhere changes
nothing; a move that fails half-way is taken back. The folders are scanned once.

Names already in the wanted state (pinning a pinned skill) are reported as ``unchanged``
and left alone, so undoing the batch never touches them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..home import HermesHome
from .index import SkillIndex
from .lifecycle import BatchOutcome, archive_many, restore_many, set_pinned_many

ACTIONS = ("pin", "unpin", "archive", "restore")
PAST = {"pin": "pinned", "unpin": "unpinned", "archive": "archived", "restore": "restored"}
#: More names than any home holds is a caller's mistake, refused before anything is read.
MAX_NAMES = 50_000


def _run(home: HermesHome, action: str, names: list[str]) -> BatchOutcome:
    scan = SkillIndex(home).scan()
    if action in ("pin", "unpin"):
        return set_pinned_many(home, names, action == "pin", scan=scan)
    if action == "archive":
        return archive_many(home, names, scan=scan)
    return restore_many(home, names, scan=scan)


def _names(names: Any) -> list[str] | str:
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) and n for n in names):
        return "names must be a list of skill names"
    if len(names) > MAX_NAMES:
        return f"at most {MAX_NAMES:,} skills at once"
    return list(dict.fromkeys(names))  # repeats once, order kept


def skills_bulk(home: HermesHome, action: str, names: Sequence[str]) -> dict[str, Any]:
    """Apply ``action`` to every skill in ``names``, all or nothing.

    ``{"ok": True, "action", "done": [names changed, in order], "unchanged": [...],
    "message"}``, or ``{"ok": False, "message", "failed": name, "rolled_back": bool}``
    with the home as it was (``rolled_back`` False only if a folder moved half-way could
    not be moved back; the message names those, and the next command records them as
    moved, so the home stays consistent)."""
    if action not in ACTIONS:
        return {"ok": False, "message": f"unknown action {action!r}; use one of {', '.join(ACTIONS)}"}
    wanted = _names(names)
    if isinstance(wanted, str):
        return {"ok": False, "message": wanted}
    if not wanted:
        return {"ok": True, "action": action, "done": [], "unchanged": [], "message": "nothing to do"}
    batch = _run(home, action, wanted)
    if not batch.ok:
        message = f"'{batch.failed}': {batch.message}"
        if not batch.stuck:
            message += " — nothing was changed"
        return {"ok": False, "message": message, "failed": batch.failed, "rolled_back": not batch.stuck}
    done = list(batch.changed)
    changed = set(done)
    unchanged = [name for name in wanted if name not in changed] if action in ("pin", "unpin") else []
    count = len(done)
    message = f"{PAST[action]} {count} skill{'s' if count != 1 else ''}"
    if unchanged:
        message += f" ({len(unchanged)} already {PAST[action]})"
    return {"ok": True, "action": action, "done": done, "unchanged": unchanged, "message": message}
