"""Noticing changes to a home without Qt or inotify: a few ``stat`` calls per poll.

Only the files a front-end redraws from are watched, by (inode, mtime, size): the two
stores, the pending queue's folders (a staged, decided or rewritten record changes its
folder), the skills folder and its usage file, config.yaml. Nothing is read or opened.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from ..home import HermesHome

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
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="home-watcher", daemon=True)

    def snapshot(self) -> dict[str, Signature]:
        return {rel: _signature(path) for rel, path, _ in self._paths}

    def poll(self) -> dict[str, Any] | None:
        """One look: the change event since the last look, or ``None``."""
        now = self.snapshot()
        changed = [(rel, what) for rel, _, what in self._paths if now[rel] != self._last[rel]]
        self._last = now
        if not changed:
            return None
        return {
            "event": "changed",
            "what": sorted({what for _, what in changed}),
            "paths": [rel for rel, _ in changed],
        }

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            event = self.poll()
            if event:
                self._on_change(event)
