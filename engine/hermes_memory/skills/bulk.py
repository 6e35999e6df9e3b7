"""One action over many skills: pin, unpin, archive or restore, all or nothing.

Each skill goes through the same engine step a single action takes (its own lock,
re-read, intent and atomic write, so a crash half-way stays recoverable), one after the
other; the folders are scanned once for the whole batch instead of once per skill. When
one step is refused, the steps already done are taken back in reverse order, so the home
ends as it started and the result names the skill that stopped it.

Names already in the wanted state (pinning a pinned skill) are reported as ``unchanged``
and left alone, so undoing the batch never touches them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..home import HermesHome
from .index import SkillIndex
from .lifecycle import SkillOutcome, archive_skill, restore_skill, set_pinned
from .usage import read_usage

ACTIONS = ("pin", "unpin", "archive", "restore")
#: The step that takes each action back.
INVERSE = {"pin": "unpin", "unpin": "pin", "archive": "restore", "restore": "archive"}
PAST = {"pin": "pinned", "unpin": "unpinned", "archive": "archived", "restore": "restored"}
#: More names than any home holds is a caller's mistake, refused before anything is read.
MAX_NAMES = 50_000


def _step(home: HermesHome, action: str, scan: Any) -> Callable[[str], SkillOutcome]:
    if action == "pin":
        return lambda name: set_pinned(home, name, True, scan=scan)
    if action == "unpin":
        return lambda name: set_pinned(home, name, False, scan=scan)
    if action == "archive":
        return lambda name: archive_skill(home, name, scan=scan)
    return lambda name: restore_skill(home, name, scan=scan)


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
    with the home as it was (``rolled_back`` False only if taking back a step failed
    too; the message then lists what is left to do by hand)."""
    if action not in ACTIONS:
        return {"ok": False, "message": f"unknown action {action!r}; use one of {', '.join(ACTIONS)}"}
    wanted = _names(names)
    if isinstance(wanted, str):
        return {"ok": False, "message": wanted}
    if not wanted:
        return {"ok": True, "action": action, "done": [], "unchanged": [], "message": "nothing to do"}
    unchanged: list[str] = []
    if action in ("pin", "unpin"):
        usage = read_usage(home)
        pinned = action == "pin"
        unchanged = [n for n in wanted if bool(usage.record(n).get("pinned")) == pinned]
        wanted = [n for n in wanted if n not in set(unchanged)]
    # one scan for the batch: each step still re-checks its own skill under its lock
    step = _step(home, action, SkillIndex(home).scan())
    done: list[str] = []
    for name in wanted:
        outcome = step(name)
        if not outcome.ok:
            return _roll_back(home, action, done, name, outcome.message)
        done.append(outcome.name or name)
    count = len(done)
    message = f"{PAST[action]} {count} skill{'s' if count != 1 else ''}"
    if unchanged:
        message += f" ({len(unchanged)} already {PAST[action]})"
    return {"ok": True, "action": action, "done": done, "unchanged": unchanged, "message": message}


def _roll_back(home: HermesHome, action: str, done: list[str], failed: str, why: str) -> dict[str, Any]:
    # a fresh scan: the batch changed the folders since the first one
    back = _step(home, INVERSE[action], SkillIndex(home).scan() if done else None)
    stuck = [name for name in reversed(done) if not back(name).ok]
    message = f"'{failed}': {why}"
    if not done:
        message += " — nothing was changed"
    elif not stuck:
        message += f" — the {len(done)} skill(s) already {PAST[action]} were put back; nothing changed"
    else:
        message += (
            f" — {len(stuck)} of the {len(done)} skill(s) already {PAST[action]} could not be "
            f"put back and are still {PAST[action]}: {', '.join(stuck)}"
        )
    return {"ok": False, "message": message, "failed": failed, "rolled_back": not stuck}
