"""Skill health on the canvas: a badge on each skill the engine found problems with.

The engine puts ``healthCount`` and ``healthCodes`` on every skill node of the payload
(:mod:`hermes_memory.skills.health` has the rules); here they become arrays the filter
and the badges use, the badge's colour (the worst severity) and words for the tooltip.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from PySide6.QtGui import QColor

from ..pyqtgraph_loader import pyqtgraph as pg
from .model import GraphData
from .style import BADGE_BOX, badge_symbol

#: The severity of each engine code (the table in :mod:`hermes_memory.skills.health`).
ERROR_CODES = frozenset({"frontmatter-unclosed", "frontmatter-missing", "frontmatter-invalid", "over-limit"})
INFO_CODES = frozenset({"never-used", "stale"})
ERROR, WARNING, INFO = 2, 1, 0
BADGE_COLOURS = {ERROR: "#e5484d", WARNING: "#f5a524", INFO: "#8fa3c8"}
WORDS = {
    "frontmatter-unclosed": "frontmatter not closed",
    "frontmatter-missing": "no frontmatter",
    "frontmatter-invalid": "frontmatter does not parse",
    "name-missing": "no name",
    "description-missing": "no description",
    "name-mismatch": "name differs from its folder",
    "related-unknown": "names a related skill that does not exist",
    "over-limit": "too large for the agent to edit",
    "oversized": "far larger than the other skills",
    "never-used": "never used",
    "stale": "not used for a long time",
}

_last: tuple = ()  # (weakref to the GraphData, its arrays): one graph is shown at a time


def severity(code: str) -> int:
    return ERROR if code in ERROR_CODES else INFO if code in INFO_CODES else WARNING


def codes_of(node: dict[str, Any]) -> list[str]:
    codes = node.get("healthCodes")
    return [str(c) for c in codes] if isinstance(codes, list) else []


def health_arrays(data: GraphData) -> tuple[np.ndarray, np.ndarray]:
    """Per node: how many problems, and the worst severity (-1 without problems)."""
    global _last
    if _last and _last[0]() is data:
        return _last[1]
    counts = np.zeros(data.size, dtype=np.int64)
    worst = np.full(data.size, -1, dtype=np.int64)
    for i, node in enumerate(data.nodes):
        codes = codes_of(node)
        count = node.get("healthCount")
        counts[i] = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else len(codes)
        if counts[i]:
            worst[i] = max((severity(c) for c in codes), default=WARNING)
    _last = (weakref.ref(data), (counts, worst))
    return counts, worst


def has_problems(data: GraphData) -> np.ndarray:
    return health_arrays(data)[0] > 0


def problems_text(node: dict[str, Any]) -> str:
    """"2 problems: no description, never used" (empty without problems)."""
    codes = codes_of(node)
    if not codes:
        return ""
    words = ", ".join(WORDS.get(code, code) for code in codes)
    return f"{len(codes)} problem{'s' if len(codes) != 1 else ''}: {words}"


def draw_badges(item: pg.ScatterPlotItem, data: GraphData, shown: np.ndarray, pos: np.ndarray, scale: float) -> None:
    """A dot on the upper-left rim of every shown node with an error or a warning, in the
    worst one's colour. Notes (stale, never used) get no dot: in a home the agent has not
    used for a month they are on nearly every node and would hide the picture; the
    tooltip, the filter and the overview still count them."""
    _counts, worst = health_arrays(data)
    badged = shown[worst[shown] >= WARNING]
    if len(badged) == 0:
        item.setData([])
        item.setVisible(False)
        return
    diameters = np.maximum(2.0 * data.radii()[badged] * scale, 3.0)
    brushes = {level: pg.mkBrush(QColor(colour)) for level, colour in BADGE_COLOURS.items()}
    pen = pg.mkPen(QColor(0, 0, 0, 90), width=0.6)
    item.setData(
        x=pos[badged, 0], y=pos[badged, 1], size=BADGE_BOX,
        symbol=[badge_symbol(d) for d in diameters.tolist()],
        brush=[brushes[int(level)] for level in worst[badged].tolist()], pen=pen,
        data=badged,
    )
    item.setVisible(True)
