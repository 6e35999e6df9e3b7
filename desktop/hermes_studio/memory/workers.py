"""The engine calls the memory editors make, packaged for the Workspace's threads.

Each function returns a zero-argument callable for ``Workspace.write`` (the one writer
thread); it builds a fresh :class:`MemoryStore`, so budgets and enabled flags are read from
``config.yaml`` at the moment of the write, and returns the engine's payload dict.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

from hermes_memory.home import HermesHome
from hermes_memory.memory.edits import (
    DraftEntry,
    check_draft,
    recreate_file,
    save_draft,
)
from hermes_memory.memory.store import MemoryStore

from ..engine_work import Work, reported

log = logging.getLogger(__name__)
_reported = functools.partial(reported, refused={"success": False}, nothing_done="nothing was saved", log=log)


def warm_checks() -> None:
    """Run one draft check off the UI thread, so that the first check while typing finds
    the scanner's patterns compiled and its character tables built (about 100 ms)."""
    check_draft("memory", ["Warm-up: the scanner's tables are built here."], 0, (), {})


def save_work(
    home: HermesHome, target: str, base: Sequence[str], drafts: Sequence[DraftEntry]
) -> Work:
    base, drafts = tuple(base), tuple(drafts)
    return _reported(
        lambda: save_draft(MemoryStore(home), target, base, drafts, auto_merge=True)
    )


def recreate_work(home: HermesHome, target: str, drafts: Sequence[DraftEntry]) -> Work:
    drafts = tuple(drafts)
    return _reported(lambda: recreate_file(MemoryStore(home), target, drafts))


def normalise_work(home: HermesHome, target: str) -> Work:
    return _reported(lambda: MemoryStore(home).normalise_file(target))
