"""Marks drawn over the graph for the flow of changes: new and changed nodes not seen yet,
a brief pulse on a node the agent just changed, and ghost nodes for writes the agent has
staged but nobody approved (a dashed outline; a click opens its Inbox item).

The overlays only draw: the Changes tab says which nodes to mark or pulse, the Inbox says
what is staged. Nodes are named by *reference*: a skill's name, or a memory entry's
fingerprint (a memory node id ends in it, and keeps it across re-indexing).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import shiboken6
from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem

from ..pyqtgraph_loader import pyqtgraph as pg
from .glyphs import set_glyphs
from .layout import TIMELINE
from .model import MEMORY

#: How long a pulse lasts, and how often it is redrawn meanwhile.
PULSE_SECONDS = 1.6
PULSE_TICK_MS = 40
#: A ghost's diameter on screen.
GHOST_PX = 16.0
MARK_COLOUR = "#f0a020"
PULSE_COLOUR = "#3fb6ff"


def fingerprints(data: Any) -> dict[str, int]:
    """``fingerprint -> index`` of the memory nodes (``memory:<source>:<n>:<fingerprint>``)."""
    found = {}
    for index, node_id in enumerate(data.ids):
        if data.kind[index] == MEMORY and node_id.count(":") == 3:
            found[node_id.rsplit(":", 1)[1]] = index
    return found


class GhostItem(QGraphicsEllipseItem):
    """One staged write, drawn as a dashed circle of a constant size on screen."""

    def __init__(self, item: dict[str, Any]) -> None:
        half = GHOST_PX / 2
        super().__init__(-half, -half, GHOST_PX, GHOST_PX)
        self.item = item
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self.setZValue(2)
        self.setToolTip(f"Staged, waiting in the Inbox: {item.get('summary', '')}")
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def restyle(self, colour: QColor) -> None:
        pen = QPen(colour, 1.6, Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        self.setPen(pen)
        fill = QColor(colour)
        fill.setAlphaF(0.12)
        self.setBrush(QBrush(fill))


class GraphOverlays(QObject):
    """The overlay items of one :class:`~hermes_studio.graph.view.GraphView`."""

    sig_ghost_clicked = Signal(str)  # the pending id

    def __init__(self, view: Any) -> None:
        super().__init__(view)
        self.view = view
        self.marked: set[str] = set()
        self.ghosts: list[GhostItem] = []
        self._pulses: dict[str, float] = {}  # reference -> when it started
        self.mark_item = pg.ScatterPlotItem(pxMode=True, antialias=True)
        self.mark_item.setZValue(1.5)
        # (kept: the glyph atlas knows a style by these very objects)
        self._mark_pen, self._no_brush = pg.mkPen(QColor(MARK_COLOUR), width=2.0), pg.mkBrush(0, 0, 0, 0)
        self.pulse_item = pg.ScatterPlotItem(pxMode=True, antialias=True)
        self.pulse_item.setZValue(1.6)
        for item in (self.mark_item, self.pulse_item):
            view.vb.addItem(item)
        self._pulse_timer = QTimer(self)
        self._pulse_timer.setInterval(PULSE_TICK_MS)
        self._pulse_timer.timeout.connect(self._draw_pulses)
        view.scene().sigMouseClicked.connect(self._clicked)

    # --- what to show ---------------------------------------------------------------------
    def set_marks(self, refs: set[str]) -> None:
        """Mark these nodes (new or changed since the person last looked)."""
        self.marked = set(refs)
        self._draw_marks()

    def pulse(self, refs: list[str]) -> None:
        now = time.monotonic()
        for ref in refs:
            self._pulses[ref] = now
        if self._pulses and not self._pulse_timer.isActive():
            self._pulse_timer.start()
        self._draw_pulses()

    def set_ghosts(self, items: list[dict[str, Any]]) -> None:
        """Ghost nodes for staged skill creations and memory additions."""
        for ghost in self.ghosts:
            if shiboken6.isValid(ghost):
                self.view.vb.removeItem(ghost)
        self.ghosts = [GhostItem(item) for item in items]
        for ghost in self.ghosts:
            self.view.vb.addItem(ghost)
        self._place_ghosts()

    def redraw(self) -> None:
        """The graph, its layout or its filters changed: follow the nodes."""
        self._draw_marks()
        self._draw_pulses()
        self._place_ghosts()

    # --- drawing --------------------------------------------------------------------------
    def node_index(self, ref: str) -> int | None:
        """The index of the node a reference names (a skill name or an entry fingerprint)."""
        data = self.view.data
        if data is None:
            return None
        found = data.index.get(ref)
        if found is not None:
            return found
        return data.cached("fingerprints", lambda: fingerprints(data)).get(ref)

    def _points(self, refs: list[str]) -> tuple[list[int], list[str]]:
        view, found, names = self.view, [], []
        for ref in refs:
            index = self.node_index(ref)
            if index is not None and index < len(view.visible) and view.visible[index]:
                found.append(index)
                names.append(ref)
        return found, names

    def _size(self, indices: list[int]) -> np.ndarray:
        radii = self.view.data.radii()[indices] if indices else np.zeros(0)
        return np.maximum(2.0 * radii * self.view._size_scale, 3.0)

    def _draw_marks(self) -> None:
        indices, _ = self._points(sorted(self.marked))
        if not indices:
            self.mark_item.setData([], [])
            self.mark_item.setVisible(False)
            return
        pos = self.view.pos[indices]
        count = len(indices)
        # every mark at once, in half-pixel sizes (one glyph each in pyqtgraph's atlas);
        # setData would look each one's style up in Python (30 ms for 10,000 marks)
        set_glyphs(
            self.mark_item, x=pos[:, 0], y=pos[:, 1], size=np.round((self._size(indices) + 6.0) * 2.0) / 2.0,
            symbol=np.full(count, "o", dtype=object), pen=np.full(count, self._mark_pen, dtype=object),
            brush=np.full(count, self._no_brush, dtype=object), data=np.asarray(indices, dtype=np.int64),
        )
        self.mark_item.setVisible(True)

    def marked_drawn(self) -> list[str]:
        """The references drawn with a mark now (for tests and the status line)."""
        return self._points(sorted(self.marked))[1]

    def pulsing(self) -> list[str]:
        return list(self._pulses)

    def _draw_pulses(self) -> None:
        now = time.monotonic()
        self._pulses = {ref: t for ref, t in self._pulses.items() if now - t < PULSE_SECONDS}
        indices, names = self._points(list(self._pulses))
        if not indices:
            self.pulse_item.setData([], [])
            self.pulse_item.setVisible(False)
            if not self._pulses:
                self._pulse_timer.stop()
            return
        phase = np.array([(now - self._pulses[name]) / PULSE_SECONDS for name in names])
        pos = self.view.pos[indices]
        pens = []
        for p in phase.tolist():
            colour = QColor(PULSE_COLOUR)
            colour.setAlphaF(max(0.0, 1.0 - p))
            pens.append(pg.mkPen(colour, width=2.5))
        self.pulse_item.setData(x=pos[:, 0], y=pos[:, 1], size=self._size(indices) + 6.0 + 22.0 * phase,
                                symbol="o", pen=pens, brush=pg.mkBrush(0, 0, 0, 0))  # fmt: skip
        self.pulse_item.setVisible(True)

    def _place_ghosts(self) -> None:
        """Ghosts sit just outside the map (the newest ring, or past the clusters), spread
        around it: they are not learned yet, so they have no place inside."""
        if not self.ghosts:
            return
        view = self.view
        layout = view.layout_
        if layout is not None and layout.mode == TIMELINE and layout.rings:
            radius = layout.rings[-1].outer + 16.0
            centre = QPointF(0.0, 0.0)
        else:
            rect = view.content_rect() or QRectF(-50, -50, 100, 100)
            centre = rect.center()
            radius = max(rect.width(), rect.height()) / 2 + 6.0
        count = len(self.ghosts)
        step = 2 * math.pi / max(count, 16)
        colour = QColor(view.style_.memory if view.style_ else "#888")
        for number, ghost in enumerate(self.ghosts):
            angle = math.pi / 2 - number * step
            ghost.setPos(centre.x() + radius * math.cos(angle), centre.y() + radius * math.sin(angle))
            skill = ghost.item.get("kind") == "skill"
            ghost.restyle(QColor(view.style_.accent) if skill else colour)

    def ghost_at(self, scene_pos: QPointF) -> GhostItem | None:
        for ghost in self.ghosts:
            if shiboken6.isValid(ghost) and ghost.sceneBoundingRect().adjusted(-3, -3, 3, 3).contains(scene_pos):
                return ghost
        return None

    def _clicked(self, event: Any) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        ghost = self.ghost_at(event.scenePos())
        if ghost is not None:
            self.sig_ghost_clicked.emit(str(ghost.item.get("id")))
