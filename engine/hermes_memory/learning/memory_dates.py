"""Real dates for memory cards, from the agent's session history.

A memory file has no per-entry times; upstream dates every card with the file's mtime,
so all cards pile onto the newest ring of the timeline. When ``state.db`` exists we date
each entry by the first ``memory`` tool call that wrote its text instead.
"""

from __future__ import annotations

import os

from ..home import HermesHome
from ..memory.entries import TARGETS, fingerprint


def _identity(path: os.PathLike[str]) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def history_key(home: HermesHome) -> tuple:
    """Changes whenever the dates could: the database (and its WAL) or a memory file."""
    wal = _identity(home.state_db.with_name(home.state_db.name + "-wal"))
    if wal is not None and wal[1] == 0:
        wal = None  # an empty WAL holds nothing; merely opening the database creates one
    files = (home.state_db, home.memory_file, home.user_file)
    return (wal, *(_identity(path) for path in files))


def memory_dates(home: HermesHome) -> dict[str, float]:
    """``fingerprint -> epoch seconds`` when the agent first wrote each current entry.

    Entries no session wrote (typed by a person, or older than the history) are left
    out, as is everything when there is no readable history: callers fall back to the
    file's mtime.
    """
    if not home.state_db.is_file():
        return {}
    # imported here: the store and session modules are not needed to import the graph
    from ..memory.store import StoreReadError, read_store_file
    from ..sessions.errors import SessionStoreError
    from ..sessions.provenance import memory_provenance

    entries: list[str] = []
    for target in TARGETS:
        try:
            entries += read_store_file(home.store_file(target)).entries
        except StoreReadError:
            continue  # the graph reports unreadable files itself
    if not entries:
        return {}
    try:
        provenance = memory_provenance(home, entries)
    except SessionStoreError:
        return {}
    return {
        fingerprint(entry): found.first_seen
        for entry, found in provenance.items()
        if found.first_seen is not None
    }
