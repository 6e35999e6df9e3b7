"""Memory entries as learning-graph cards, and the node ids that point back at them.

A card id is ``memory:<source>:<index>:<fingerprint>``: ``source`` is ``memory``
(MEMORY.md) or ``profile`` (USER.md), ``index`` the position in the combined card list
(MEMORY.md first) and ``fingerprint`` the first 12 hex digits of SHA-256 of the entry.
Mutations resolve the fingerprint, so an id whose entry moved or changed is refused as
stale instead of hitting a neighbour (upstream issue 119668, PR 64687). The older
3-part ``memory:<source>:<index>`` ids are still accepted and resolved by position.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..home import HermesHome
from ..memory.entries import FILE_NAMES, fingerprint
from ..skills.usage import to_epoch

#: (target, card source) in card order.
SOURCES = (("memory", "memory"), ("user", "profile"))
TARGET_FOR_SOURCE = {source: target for target, source in SOURCES}
SOURCE_FOR_TARGET = dict(SOURCES)
TITLE_CHARS = 80
BODY_CHARS = 1200
_FINGERPRINT = re.compile(r"^[0-9a-f]{12}$")


@dataclass(frozen=True, slots=True)
class MemoryCard:
    index: int  # position in the combined list
    source: str  # "memory" or "profile"
    entry: str
    fingerprint: str
    timestamp: int | None

    @property
    def target(self) -> str:
        return TARGET_FOR_SOURCE[self.source]

    @property
    def file_name(self) -> str:
        return FILE_NAMES[self.target]

    @property
    def id(self) -> str:
        return f"memory:{self.source}:{self.index}:{self.fingerprint}"

    @property
    def title(self) -> str:
        return card_title(self.entry)

    @property
    def body(self) -> str:
        return self.entry[:BODY_CHARS]


def card_title(entry: str) -> str:
    """The first line without leading ``#`` and spaces, cut to 80 characters plus "…"."""
    lines = entry.splitlines()
    first = lines[0].strip().lstrip("# ").strip() if lines else ""
    return first[:TITLE_CHARS] + "…" if len(first) > TITLE_CHARS else first


def memory_cards(
    home: HermesHome, timestamps: Mapping[str, object] | None = None
) -> tuple[list[MemoryCard], list[str]]:
    """Cards for MEMORY.md then USER.md, and warnings for files that cannot be read.

    A card's time is ``timestamps[fingerprint]`` when given (for example from session
    history), else the file's mtime plus the entry's position in the file, as upstream.
    """
    from ..memory.store import StoreReadError, read_store_file  # not needed at import

    cards: list[MemoryCard] = []
    warnings: list[str] = []
    for target, source in SOURCES:
        path = home.store_file(target)
        try:
            store_file = read_store_file(path)
        except StoreReadError as exc:
            warnings.append(f"{exc} Its memory cards are not shown.")
            continue
        if not store_file.exists:
            continue
        mtime = store_file.identity[0] // 1_000_000_000 if store_file.identity else None
        if mtime is None:
            try:
                mtime = int(os.stat(path).st_mtime)
            except OSError:
                mtime = None
        for position, entry in enumerate(store_file.entries):
            fp = fingerprint(entry)
            when = to_epoch(timestamps.get(fp)) if timestamps else None
            if when is None and mtime is not None:
                when = mtime + position
            cards.append(MemoryCard(len(cards), source, entry, fp, when))
    return cards, warnings


@dataclass(frozen=True)
class MemoryNodeId:
    source: str
    index: int
    fingerprint: str | None  # None for a legacy 3-part id

    @property
    def target(self) -> str:
        return TARGET_FOR_SOURCE[self.source]


def parse_memory_id(node_id: str) -> MemoryNodeId:
    """Parse ``memory:<source>:<index>[:<fingerprint>]``; ``ValueError`` if malformed."""
    parts = node_id.split(":") if isinstance(node_id, str) else []
    ok = (
        len(parts) in (3, 4)
        and parts[0] == "memory"
        and parts[1] in TARGET_FOR_SOURCE
        and parts[2].isascii()
        and parts[2].isdigit()
        and (len(parts) == 3 or bool(_FINGERPRINT.match(parts[3])))
    )
    if not ok:
        raise ValueError(f"bad memory node id: '{node_id}'")
    return MemoryNodeId(parts[1], int(parts[2]), parts[3] if len(parts) == 4 else None)
