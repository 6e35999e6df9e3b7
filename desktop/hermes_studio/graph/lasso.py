"""Multi-selection on the canvas: the Shift-drag lasso and the rings around selected nodes.

Both sit on top of a :class:`~.view.GraphView` without changing how it draws:

* :class:`Lasso` watches the canvas's mouse (an event filter on its viewport). Shift and a
  left drag draw a free-hand outline; on release the shown nodes inside it are reported
  (``sig_lasso(ids, add)``, ``add`` when Ctrl was held too). Without Shift the canvas pans
  as before.
* :class:`SelectionMarks` rings every selected node that is shown, in one scatter item.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from .view import GraphView

#: A new outline point only once the pointer moved this far (pixels): keeps it small.
STEP_PX = 3.0


def points_inside(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Which ``points`` (N, 2) lie inside ``polygon`` (M, 2), by the even-odd rule."""
    inside = np.zeros(len(points), dtype=bool)
    if len(polygon) < 3 or len(points) == 0:
        return inside
    x, y = points[:, 0], points[:, 1]
    for (x1, y1), (x2, y2) in zip(polygon, np.roll(polygon, -1, axis=0), strict=True):
        if y1 == y2:
            continue
        crosses = (y1 > y) != (y2 > y)
        inside ^= crosses & (x < (x2 - x1) * (y - y1) / (y2 - y1) + x1)
    return inside


class Lasso(QObject):
    sig_lasso = Signal(list, bool)  # node ids inside the outline, add to the selection

    def __init__(self, view: GraphView) -> None:
        super().__init__(view)
        self.view = view
        self.points: list[QPointF] = []  # in the map's coordinates
        self._last_px: QPointF | None = None
        self._add = False
        self.outline = QGraphicsPathItem()
        self.outline.setZValue(5)
        pen = QPen(QColor(view.style_.selection))
        pen.setCosmetic(True)
        pen.setWidthF(1.5)
        pen.setStyle(Qt.PenStyle.DashLine)
        self.outline.setPen(pen)
        fill = QColor(view.style_.selection)
        fill.setAlphaF(0.08)
        self.outline.setBrush(fill)
        self.outline.setVisible(False)
        view.vb.addItem(self.outline, ignoreBounds=True)
        view.viewport().installEventFilter(self)

    @property
    def active(self) -> bool:
        return self._last_px is not None

    def eventFilter(self, watched: Any, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.begin(event.position(), bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier))
                return True
        elif kind == QEvent.Type.MouseMove and self.active:
            self.extend(event.position())
            return True
        elif kind == QEvent.Type.MouseButtonRelease and self.active:
            self.finish()
            return True
        return False

    def _to_map(self, pixel: QPointF) -> QPointF:
        return self.view.vb.mapSceneToView(self.view.mapToScene(pixel.toPoint()))

    def begin(self, pixel: QPointF, add: bool = False) -> None:
        self.view.setFocus()
        self._add = add
        self._last_px = QPointF(pixel)
        self.points = [self._to_map(pixel)]
        self._redraw()
        self.outline.setVisible(True)

    def extend(self, pixel: QPointF) -> None:
        last = self._last_px
        if last is not None and (pixel - last).manhattanLength() < STEP_PX:
            return
        self._last_px = QPointF(pixel)
        self.points.append(self._to_map(pixel))
        self._redraw()

    def finish(self) -> list[str]:
        """End the drag and report the shown nodes inside the outline."""
        self._last_px = None
        self.outline.setVisible(False)
        view, data = self.view, self.view.data
        if data is None or len(self.points) < 3:
            return []
        polygon = np.array([(p.x(), p.y()) for p in self.points])
        shown = view.shown
        inside = shown[points_inside(view.pos[shown], polygon)]
        ids = [data.ids[i] for i in inside.tolist()]
        self.sig_lasso.emit(ids, self._add)
        return ids

    def _redraw(self) -> None:
        path = QPainterPath()
        if self.points:
            path.moveTo(self.points[0])
            for point in self.points[1:]:
                path.lineTo(point)
            path.closeSubpath()
        self.outline.setPath(path)


class SelectionMarks:
    """A ring around every selected node the canvas shows: one path in the scene's pixel
    coordinates, redrawn when the camera moves (a scatter item of 1,000 rings cost ~25 ms
    to set, a path of them ~1 ms)."""

    def __init__(self, view: GraphView) -> None:
        self.view = view
        self.item = QGraphicsPathItem()
        self.item.setZValue(50)  # above the map
        self.item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)  # clicks go to the map
        view.scene().addItem(self.item)
        self.indices = np.zeros(0, dtype=np.int64)
        self.radii = np.zeros(0)
        self._radii_of: object = None
        self._node_radii = np.zeros(0)
        view.vb.sigRangeChanged.connect(self._redraw)

    def show(self, node_ids: list[str]) -> None:
        view, data = self.view, self.view.data
        chosen = np.zeros(0, dtype=np.int64)
        if data is not None and node_ids and len(view.visible) == data.size:
            index = data.index
            chosen = np.fromiter((index.get(i, -1) for i in node_ids), dtype=np.int64, count=len(node_ids))
            chosen = chosen[chosen >= 0]
            chosen = chosen[view.visible[chosen]]
            if self._radii_of is not data:  # once per snapshot, not per selection
                self._radii_of, self._node_radii = data, data.radii()
            scale = float(getattr(view, "_size_scale", 1.0))
            self.radii = (np.maximum(2.0 * self._node_radii[chosen] * scale, 3.0) + 7.0) / 2.0
        self.indices = chosen
        colour = QColor(view.style_.selection)
        colour.setAlphaF(0.85)
        pen = QPen(colour)
        pen.setCosmetic(True)
        pen.setWidthF(1.4)
        self.item.setPen(pen)
        self._redraw()

    def _redraw(self, *_: object) -> None:
        chosen = self.indices
        path = QPainterPath()
        if len(chosen) and len(self.view.pos):
            to_scene = self.view.vb.childGroup.sceneTransform()
            x, y = self.view.pos[chosen, 0], self.view.pos[chosen, 1]
            px = to_scene.m11() * x + to_scene.m21() * y + to_scene.dx()
            py = to_scene.m12() * x + to_scene.m22() * y + to_scene.dy()
            for cx, cy, radius in zip(px.tolist(), py.tolist(), self.radii.tolist(), strict=True):
                path.addEllipse(QPointF(cx, cy), radius, radius)
        self.item.setPath(path)
        self.item.setVisible(len(chosen) > 0)
