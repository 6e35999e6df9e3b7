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

import threading
import weakref

from ..home import HermesHome
from .index import SkillIndex

_lock = threading.Lock()
_indexes: weakref.WeakValueDictionary[HermesHome, SkillIndex] = weakref.WeakValueDictionary()


def shared_index(home: HermesHome) -> SkillIndex:
    """The index of ``home`` others in this process use (made now if nobody holds one)."""
    with _lock:
        index = _indexes.get(home)
        if index is None:
            index = SkillIndex(home)
            _indexes[home] = index
        return index
