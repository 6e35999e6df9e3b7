"""Colours, glyphs and sizes of the graph: the visual encoding in one place.

* glyph by kind: skill = circle, memory card = diamond; a gold pin on pinned skills;
* colour by category (from the category's name, see :mod:`.colours`) or, with the
  toggle, by kind (skills in the accent colour, memories in its complement);
* size by √useCount with a bump for pinned; archived/stale smaller (see
  :func:`layout.node_radius`);
* age fade: alpha follows a smoothstep from old (0.42) through 0.74 to new (0.95),
  relative to the newest shown node.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath, QPalette
from PySide6.QtWidgets import QApplication

MEMORY_CATEGORY = "memory"
PIN_GOLD = "#f2b640"
#: No node is drawn smaller than this on screen, however far the map is zoomed out.
MIN_NODE_PX = 5.0


@dataclass(frozen=True)
class CanvasStyle:
    dark: bool
    background: str
    ring: str
    ring_label: str
    edge: str  # faint edges (with alpha)
    edge_lit: str
    label: str
    label_shadow: str
    accent: str
    memory: str
    selection: str
    outline: str


DARK_CANVAS = CanvasStyle(
    dark=True,
    background="#111722",
    ring="#2a3446",
    ring_label="#7d8aa3",
    edge="#8fa3c8",
    edge_lit="#ffd479",
    label="#e6e9ef",
    label_shadow="#111722",
    accent="#6f9cf0",
    memory="#f08a6f",
    selection="#ffffff",
    outline="#111722",
)

LIGHT_CANVAS = CanvasStyle(
    dark=False,
    background="#fbfbfd",
    ring="#dfe3ea",
    ring_label="#7a8496",
    edge="#5f6b7a",
    edge_lit="#d9822b",
    label="#1f2328",
    label_shadow="#fbfbfd",
    accent="#3b6fd8",
    memory="#d8553b",
    selection="#1f2328",
    outline="#ffffff",
)


def canvas_style(palette: QPalette | None = None, *, follow_theme: bool = False) -> CanvasStyle:
    """The canvas is a night sky by default (a star map reads best on dark, in either app
    theme); ``follow_theme`` picks the light canvas in a light theme."""
    if not follow_theme:
        return DARK_CANVAS
    palette = palette or QApplication.palette()
    return DARK_CANVAS if palette.window().color().lightnessF() < 0.5 else LIGHT_CANVAS


def age_alpha(times: np.ndarray, newest: float | None, oldest: float | None, old: float = 0.42) -> np.ndarray:
    """Alpha per node: ``old`` (0.42) → 0.74 at the middle → new 0.95 (smoothstep)."""
    if newest is None or oldest is None or newest <= oldest:
        return np.full(len(times), 0.95)
    t = np.clip((np.nan_to_num(times, nan=newest) - oldest) / (newest - oldest), 0.0, 1.0)
    low = t < 0.52
    u = np.where(low, t / 0.52, (t - 0.52) / 0.48)
    smooth = u * u * (3 - 2 * u)
    return np.where(low, old + (0.74 - old) * smooth, 0.74 + (0.95 - 0.74) * smooth)


PIN_BOX = 56.0
_PINS: dict[int, QPainterPath] = {}


def pin_symbol(node_diameter: float) -> QPainterPath:
    """A push-pin for a node of ``node_diameter`` pixels, drawn in a :data:`PIN_BOX` box:
    the needle's tip on the node's upper-right rim, a 4 px head above it. One path per
    whole-pixel diameter (pyqtgraph caches the rendered glyph per path)."""
    key = max(2, min(int(round(node_diameter)), int(PIN_BOX) - 22))
    path = _PINS.get(key)
    if path is not None:
        return path
    unit = 1.0 / PIN_BOX
    tip = (key / 2.0 * 0.7071 - 0.5) * unit  # on the rim, along the diagonal
    head = tip + 9.0 * unit
    path = QPainterPath()
    path.addEllipse(QPointF(head, -head), 4.2 * unit, 4.2 * unit)
    needle = QPainterPath()
    needle.moveTo(QPointF(head - 1.6 * unit, -head - 1.6 * unit))
    needle.lineTo(QPointF(head + 1.6 * unit, -head + 1.6 * unit))
    needle.lineTo(QPointF(tip, -tip))
    needle.closeSubpath()
    path = path.united(needle)
    _PINS[key] = path
    return path


BADGE_BOX = 40.0
_BADGES: dict[int, QPainterPath] = {}


def badge_symbol(node_diameter: float) -> QPainterPath:
    """A health badge for a node of ``node_diameter`` pixels: a 2.8 px dot centred on the
    node's upper-left rim, drawn in a :data:`BADGE_BOX` box (one path per whole pixel)."""
    key = max(2, min(int(round(node_diameter)), int(BADGE_BOX) - 10))
    path = _BADGES.get(key)
    if path is None:
        unit = 1.0 / BADGE_BOX
        rim = key / 2.0 * 0.7071 * unit
        path = QPainterPath()
        path.addEllipse(QPointF(-rim, -rim), 2.8 * unit, 2.8 * unit)
        _BADGES[key] = path
    return path
