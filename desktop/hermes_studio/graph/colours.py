"""Which colour a node is drawn in, and the legend that says why: one source for both.

* A category's colour comes from its name: a stable hash (CRC-32, not Python's salted
  ``hash``) picks a slot of :data:`PALETTE`; a slot another category of the home already
  holds sends it to the next free one. Slots once given are kept (in memory and, through
  :meth:`ColourBook.to_json`, in the home's settings), so a category keeps its colour across
  launches and live updates, and a name gets the same colour in every home where its slot
  is free.
* The palette has as many colours as can be told apart at a glance; when a home has more
  categories, the biggest get colours and the rest share :data:`NEUTRAL` (the legend and
  the tooltip name them).
* ``memory`` keeps the canvas's memory colour.
* The person can recolour a category, or colour every node matching a search query (a
  "group", as in Obsidian; the first matching group wins, over category and kind alike).

Plain data plus ``QColor``; :class:`~.view.GraphView` draws with :meth:`ColourBook.node_rgb`
and :class:`~.sidebar.SidePanel` shows :meth:`ColourBook.legend`.
"""

from __future__ import annotations

import weakref
import zlib
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtGui import QColor

from .filters import search_mask
from .model import MEMORY, GraphData
from .style import MEMORY_CATEGORY, CanvasStyle

#: Colours that stay apart on the dark canvas.
PALETTE = (
    "#6f9cf0",  # blue
    "#f2a03d",  # orange
    "#57c785",  # green
    "#e0607e",  # crimson
    "#a885ee",  # violet
    "#e8d25a",  # yellow
    "#45c4d6",  # cyan
    "#f08ad0",  # pink
    "#a3d94e",  # lime
    "#c8946a",  # tan
)
#: The same hues for the light canvas, each darkened on its own (one factor for all made
#: orange and tan alike).
LIGHT_PALETTE = (
    "#2f66cc", "#d97706", "#1e9a57", "#c42e4f", "#7a4cc9",
    "#9c8400", "#0c8ea0", "#c0399a", "#5a9412", "#8a5632",
)
NEUTRAL = "#8b93a1"
STATE_VERSION = 1


def preferred_slot(name: str) -> int:
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) % len(PALETTE)


def palette_colour(slot: int, style: CanvasStyle) -> QColor:
    return QColor(PALETTE[slot] if style.dark else LIGHT_PALETTE[slot])


def neutral_colour(style: CanvasStyle) -> QColor:
    colour = QColor(NEUTRAL)
    return colour if style.dark else colour.darker(115)


@dataclass(frozen=True)
class LegendEntry:
    name: str  # a category, "skill"/"memory card", or a group's query
    colour: QColor
    role: str  # "category", "kind" or "group"
    diamond: bool = False
    count: int = 0


@dataclass
class ColourBook:
    """The colours of one home: palette slots given, the person's own colours and groups."""

    slots: dict[str, int] = field(default_factory=dict)
    custom: dict[str, str] = field(default_factory=dict)  # category -> "#rrggbb"
    groups: list[tuple[str, str]] = field(default_factory=list)  # (query, "#rrggbb")
    _group_cache: tuple = field(default=(), repr=False, compare=False)

    # --- saving ----------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "version": STATE_VERSION,
            "slots": dict(self.slots),
            "custom": dict(self.custom),
            "groups": [{"query": q, "colour": c} for q, c in self.groups],
        }

    @classmethod
    def from_json(cls, saved: object) -> ColourBook:
        """A book from :meth:`to_json`'s data; anything malformed is dropped, not trusted."""
        book = cls()
        if not isinstance(saved, dict) or saved.get("version") != STATE_VERSION:
            return book
        slots = saved.get("slots")
        if isinstance(slots, dict):
            book.slots = {
                str(k): v for k, v in slots.items()
                if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(PALETTE)
            }
        custom = saved.get("custom")
        if isinstance(custom, dict):
            book.custom = {str(k): str(v) for k, v in custom.items() if QColor.isValidColorName(str(v))}
        for group in saved.get("groups") or []:
            if isinstance(group, dict) and str(group.get("query") or "").strip():
                colour = str(group.get("colour"))
                if QColor.isValidColorName(colour):
                    book.groups.append((str(group["query"]), colour))
        return book

    # --- categories ------------------------------------------------------------------------
    def assign(self, names: list[str]) -> bool:
        """Give palette slots to the categories of ``names`` that have none; True when a
        slot was given (worth saving). Two names wanting one slot: the first by name gets
        it; more names than colours: the first in ``names`` (pass the biggest first)."""
        taken = {self.slots[n] for n in names if n in self.slots}
        new = [n for n in names if n != MEMORY_CATEGORY and n not in self.slots]
        if len(taken) + len(new) <= len(PALETTE):
            new.sort()  # all fit: the same slots whatever the order the names come in
        given = False
        for name in new:
            if len(taken) >= len(PALETTE):
                break  # the rest share the neutral colour
            slot = preferred_slot(name)
            while slot in taken:
                slot = (slot + 1) % len(PALETTE)
            self.slots[name] = slot
            taken.add(slot)
            given = True
        return given

    def category_colour(self, name: str, style: CanvasStyle) -> QColor:
        """``name``'s colour: the person's own, memory's, its palette slot's, or neutral."""
        if name in self.custom:
            return QColor(self.custom[name])
        if name == MEMORY_CATEGORY:
            return QColor(style.memory)
        slot = self.slots.get(name)
        return neutral_colour(style) if slot is None else palette_colour(slot, style)

    def category_colours(self, names: list[str], style: CanvasStyle) -> dict[str, QColor]:
        self.assign(names)
        return {name: self.category_colour(name, style) for name in names}

    def set_custom(self, name: str, colour: QColor | None) -> None:
        if colour is None:
            self.custom.pop(name, None)
        else:
            self.custom[name] = colour.name()

    # --- groups ----------------------------------------------------------------------------
    def add_group(self, query: str, colour: QColor) -> None:
        query = query.strip()
        if query:
            self.groups = [(q, c) for q, c in self.groups if q != query] + [(query, colour.name())]

    def remove_group(self, query: str) -> None:
        self.groups = [(q, c) for q, c in self.groups if q != query]

    def group_of(self, data: GraphData) -> np.ndarray:
        """Per node, the index of the first group its text matches, or -1."""
        if self._group_cache and self._group_cache[0]() is data and self._group_cache[1] == self.groups:
            return self._group_cache[2]
        which = np.full(data.size, -1, dtype=np.int64)
        for position in range(len(self.groups) - 1, -1, -1):  # the first group wins
            which[search_mask(data, self.groups[position][0])] = position
        self._group_cache = (weakref.ref(data), list(self.groups), which)
        return which

    # --- what the view and the legend use ------------------------------------------------------
    def node_rgb(self, data: GraphData, colour_by: str, style: CanvasStyle) -> np.ndarray:
        """RGB (0–255) per node: by kind or by category, then the groups over both."""
        n = data.size
        rgb = np.zeros((n, 3), dtype=np.int64)
        if n == 0:
            return rgb
        if colour_by == "kind":
            rgb[:] = QColor(style.accent).getRgb()[:3]
            rgb[data.kind == MEMORY] = QColor(style.memory).getRgb()[:3]
        else:
            self.assign(data.category_names())  # the biggest categories first
            names, which = data.category_codes()
            colours = self.category_colours(names, style)
            table = np.array([colours[name].getRgb()[:3] for name in names], dtype=np.int64)
            rgb = table.reshape(-1, 3)[which]
        group = self.group_of(data)
        for position, (_query, colour) in enumerate(self.groups):
            rgb[group == position] = QColor(colour).getRgb()[:3]
        return rgb

    def legend(self, data: GraphData, colour_by: str, style: CanvasStyle) -> list[LegendEntry]:
        """What each colour on the canvas means now: groups first (they win), then kinds
        or categories (``data.category_names()`` order)."""
        group = self.group_of(data)
        entries = [
            LegendEntry(query, QColor(colour), "group", count=int((group == position).sum()))
            for position, (query, colour) in enumerate(self.groups)
        ]
        if colour_by == "kind":
            memories = int((data.kind == MEMORY).sum())
            entries.append(LegendEntry("skill", QColor(style.accent), "kind", count=data.size - memories))
            entries.append(LegendEntry("memory card", QColor(style.memory), "kind", True, memories))
            return entries
        names = data.category_names()
        colours = self.category_colours(names, style)
        counts = data.category_counts()
        entries.extend(
            LegendEntry(name, colours[name], "category", name == MEMORY_CATEGORY, counts[name]) for name in names
        )
        return entries
