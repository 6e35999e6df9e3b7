"""One :class:`~.index.SkillIndex` per home for the whole process, while someone holds it.

The app's graph builder keeps an index of every skill it read; a history capture in the
same process (one at open, one per batch of file events) used to scan all skills afresh
next to it, reading every SKILL.md a second time. Both now ask for the home's shared
index: a scan still checks every file against the disk (one ``stat`` each, see
:meth:`SkillIndex.scan`), but reads only those that changed. The index lives as long as
a holder keeps it (the graph builder of an open window); a process without one, like a
CLI command, gets a fresh index that goes with its last user.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Iterable

from ..home import HermesHome
from .index import SkillIndex, SkillScan

_lock = threading.Lock()
_indexes: weakref.WeakValueDictionary[HermesHome, SharedIndex] = weakref.WeakValueDictionary()


class SharedIndex(SkillIndex):
    """A :class:`SkillIndex` that remembers when its newest scan started."""

    def __init__(self, home: HermesHome) -> None:
        super().__init__(home)
        self._newest: tuple[int, SkillScan] | None = None
        self._newest_lock = threading.Lock()

    def scan(self, changed: Iterable[str | os.PathLike[str]] | None = None) -> SkillScan:
        started = time.time_ns()
        result = super().scan(changed)
        with self._newest_lock:
            if self._newest is None or self._newest[0] <= started:
                self._newest = (started, result)
        return result

    def scanned_after(self, when_ns: int) -> SkillScan | None:
        """The newest scan if it started at ``when_ns`` or later, else None."""
        with self._newest_lock:
            newest = self._newest
        return newest[1] if newest is not None and newest[0] >= when_ns else None


def shared_index(home: HermesHome) -> SharedIndex:
    """The index of ``home`` others in this process use (made now if nobody holds one)."""
    with _lock:
        index = _indexes.get(home)
        if index is None:
            index = SharedIndex(home)
            _indexes[home] = index
        return index


def held_index(home: HermesHome) -> SharedIndex | None:
    """The home's shared index when someone in this process keeps one that has scanned
    (the app's graph), else None: nothing is made."""
    with _lock:
        index = _indexes.get(home)
    return index if index is not None and index.scanned_after(0) is not None else None
