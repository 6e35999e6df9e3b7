"""Noticing changes to a home without Qt or inotify: a few ``stat`` calls per poll.

Only the files a front-end redraws from are watched, by (inode, mtime, size): the two
stores, the pending queue's folders (a staged, decided or rewritten record changes its
folder), the skills folder and its usage file, config.yaml. Nothing is read or opened.

A skill's SKILL.md sits one or more folders below ``skills/`` (``<category>/<skill>/``,
and skills nest), where an edit changes no watched folder, so every SKILL.md is looked
at too (:func:`skill_signatures`: one ``stat`` per folder and per file). At 10,000
skills that look costs tens of milliseconds, so it is spaced out to take at most
:data:`DEEP_SHARE` of the time: every poll in a small home, about once a second in a
large one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

from ..home import HermesHome
from ..skills.roots import EXCLUDED_DIRS, MAX_WALK_DEPTH, SUPPORT_DIRS

#: relative path → what a front-end should refresh when it changes
WATCHED: tuple[tuple[str, str], ...] = (
    ("memories/MEMORY.md", "memory"),
    ("memories/USER.md", "user"),
    ("pending/memory", "pending"),
    ("pending/skills", "pending"),
    ("skills", "skills"),
    ("skills/.usage.json", "skills"),
    ("config.yaml", "config"),
)

Signature = tuple[int, int, int] | None


def _signature(path: str) -> Signature:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


SKILL_FILE = "SKILL.md"
#: The most of the watcher's time the look at every SKILL.md may take.
DEEP_SHARE = 0.05
#: Changed SKILL.md paths named in one event (a bigger change says only "skills").
MAX_PATHS = 200


def skill_signatures(home: HermesHome) -> dict[str, Signature]:
    """Every live SKILL.md below ``skills/`` (relative to the home) with its signature,
    walked as the skill index walks (no archive or hub folders, no support folders of
    a skill, at most :data:`MAX_WALK_DEPTH` levels), never through a link."""
    found: dict[str, Signature] = {}
    top = str(home.skills_dir)
    stack: list[tuple[str, str, int]] = [(top, "skills", 0)]
    while stack:
        directory, rel, depth = stack.pop()
        try:
            info = os.lstat(directory)
        except OSError:
            continue
        if depth and info.st_nlink == 2:  # no subfolders: SKILL.md is all there is to look at
            signature = _signature(os.path.join(directory, SKILL_FILE))
            if signature is not None:
                found[f"{rel}/{SKILL_FILE}"] = signature
                continue  # else list it after all: the link count may not be real
        subdirs, is_skill = [], False
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    try:
                        if entry.name == SKILL_FILE and depth and entry.is_file(follow_symlinks=False):
                            found[f"{rel}/{SKILL_FILE}"] = _signature(entry.path)
                            is_skill = True
                        elif entry.name not in EXCLUDED_DIRS and entry.is_dir(follow_symlinks=False):
                            subdirs.append(entry.name)
                    except OSError:
                        continue
        except OSError:
            continue
        if depth >= MAX_WALK_DEPTH:
            continue
        for name in subdirs:
            if not (is_skill and name in SUPPORT_DIRS):
                stack.append((os.path.join(directory, name), f"{rel}/{name}", depth + 1))
    return found


class HomeWatcher:
    """Polls ``home`` every ``interval`` seconds on a daemon thread and calls
    ``on_change({"event": "changed", "what": [...], "paths": [...]})``."""

    def __init__(self, home: HermesHome, on_change: Callable[[dict[str, Any]], None],
                 interval: float = 0.25):
        self.home = home
        self.interval = interval
        self._on_change = on_change
        self._paths = [(rel, str(home.path / rel), what) for rel, what in WATCHED]
        self._last = self.snapshot()
        self._skills = skill_signatures(home)
        self._next_deep = 0.0  # monotonic time of the next look at every SKILL.md
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="home-watcher", daemon=True)

    def snapshot(self) -> dict[str, Signature]:
        return {rel: _signature(path) for rel, path, _ in self._paths}

    def poll(self, *, deep: bool | None = None) -> dict[str, Any] | None:
        """One look: the change event since the last look, or ``None``. ``deep``: look
        at every SKILL.md now (True), not (False), or when it is due (None)."""
        now = self.snapshot()
        changed = [(rel, what) for rel, _, what in self._paths if now[rel] != self._last[rel]]
        self._last = now
        paths = [rel for rel, _ in changed]
        what = {what for _, what in changed}
        if deep or (deep is None and time.monotonic() >= self._next_deep):
            skills = self._look_at_skills()
            if skills:
                what.add("skills")
                paths += skills[:MAX_PATHS] if len(skills) <= MAX_PATHS else []
        if not what:
            return None
        return {"event": "changed", "what": sorted(what), "paths": paths}

    def _look_at_skills(self) -> list[str]:
        """The SKILL.md paths edited, added or removed since the last look."""
        start = time.monotonic()
        now = skill_signatures(self.home)
        before, self._skills = self._skills, now
        spent = time.monotonic() - start
        self._next_deep = start + spent / DEEP_SHARE
        return sorted(rel for rel in now.keys() | before.keys() if now.get(rel) != before.get(rel))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            event = self.poll()
            if event:
                self._on_change(event)
