"""Text on the canvas: many labels, one graphics item, one paint call.

A label sits at a point of the map and is drawn in pixels (it does not grow when zooming),
centred horizontally, ``offset`` pixels below its point (negative: above, ending there).
Drawing them all from one item, each from a pixmap rendered once, keeps a pan to a single
Python call and a few blits, where one ``pg.TextItem`` per label would re-compute its
transform and re-render its text on every camera move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPixmap, QTransform
from PySide6.QtWidgets import QGraphicsObject, QStyleOptionGraphicsItem, QWidget


def _font(points: float, bold: bool = False) -> QFont:
    font = QFont()
    font.setPointSizeF(points)
    font.setBold(bold)
    return font


SMALL = _font(8.0)
NORMAL = _font(8.5)
BOLD = _font(9.0, bold=True)

#: How far past the labelled points a label may reach, in map units, for Qt's redraw area.
_MARGIN = 400.0


@dataclass(frozen=True)
class Label:
    x: float
    y: float
    text: str
    colour: QColor
    font: QFont
    offset: float = 0.0  # pixels below the point; negative = above; 0 = centred on it
    plate: bool = False  # a translucent plate behind the text


class LabelLayer(QGraphicsObject):
    def __init__(self) -> None:
        super().__init__()
        self.labels: list[Label] = []
        self._rect = QRectF()
        self._plate = QColor(0, 0, 0, 0)
        self._sprites: list[tuple[QPixmap, float, float, float] | None] = []

    def set_labels(self, labels: list[Label], plate: QColor | None = None) -> None:
        self.prepareGeometryChange()
        self.labels = list(labels)
        if plate is not None:
            self._plate = QColor(plate)
            self._plate.setAlphaF(0.6)
        self._sprites = [None] * len(self.labels)
        if self.labels:
            xs = [label.x for label in self.labels]
            ys = [label.y for label in self.labels]
            self._rect = QRectF(
                min(xs) - _MARGIN, min(ys) - _MARGIN,
                max(xs) - min(xs) + 2 * _MARGIN, max(ys) - min(ys) + 2 * _MARGIN,
            )
        else:
            self._rect = QRectF()
        self.update()

    def texts(self) -> list[str]:
        return [label.text for label in self.labels]

    def boundingRect(self) -> QRectF:  # noqa: N802
        return self._rect

    def _sprite(self, index: int, ratio: float) -> tuple[QPixmap, float, float]:
        """The label drawn once into a pixmap (text, plate), with its size in pixels."""
        cached = self._sprites[index]
        if cached is not None and cached[3] == ratio:
            return cached[0], cached[1], cached[2]
        label = self.labels[index]
        fm = QFontMetricsF(label.font)
        width = fm.horizontalAdvance(label.text) + 6
        height = fm.height()
        pixmap = QPixmap(max(1, math.ceil(width * ratio)), max(1, math.ceil(height * ratio)))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        box = QRectF(0, 0, width, height)
        if label.plate:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self._plate)
            painter.drawRoundedRect(box, 3, 3)
        painter.setFont(label.font)
        painter.setPen(label.colour)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, label.text)
        painter.end()
        self._sprites[index] = (pixmap, width, height, ratio)
        return pixmap, width, height

    def placed_rects(self, transform: QTransform, ratio: float = 1.0) -> list[QRectF]:
        """Where each label is drawn, in the pixels ``transform`` maps the map to."""
        rects = []
        for index, label in enumerate(self.labels):
            _pixmap, width, height = self._sprite(index, ratio)
            point = transform.map(QPointF(label.x, label.y))
            if label.offset > 0:
                top = point.y() + label.offset
            elif label.offset < 0:
                top = point.y() + label.offset - height
            else:
                top = point.y() - height / 2
            rects.append(QRectF(round(point.x() - width / 2), round(top), width, height))
        return rects

    def view_rects(self) -> list[QRectF]:
        """Where each label is drawn in the viewport of the (first) view showing it."""
        views = self.scene().views() if self.scene() is not None else []
        if not views:
            return []
        return self.placed_rects(self.deviceTransform(views[0].viewportTransform()))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if not self.labels:
            return
        ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        rects = self.placed_rects(painter.transform(), ratio)
        painter.save()
        painter.resetTransform()
        for index, rect in enumerate(rects):
            painter.drawPixmap(rect.topLeft(), self._sprite(index, ratio)[0])
        painter.restore()


# --- which labels to show: semantic zoom -----------------------------------------------------
#: Labels at the fitted zoom; the budget grows with the square of the zoom past it (the map's
#: area on screen), up to :data:`MAX_LABELS`.
REST_LABELS = 14
MAX_LABELS = 320
#: Candidates looked at per label of the budget: on a dense overview most collide, and
#: looking at all 10,000 would cost the UI thread ~0.1 s each time the camera rests.
TRIES_PER_LABEL = 40
#: A memory card's label is its first words (a card's "label" is the start of its text).
CARD_TITLE = 28
SKILL_TITLE = 42


def label_budget(zoom: float) -> int:
    """How many labels (besides the selected and hovered ones) a zoom of ``zoom`` × the
    fitted one shows."""
    return int(min(MAX_LABELS, REST_LABELS * max(1.0, zoom) ** 2))


def short_title(text: str, limit: int) -> str:
    """``text``'s first line cut to ``limit`` characters at a word boundary, with "…"."""
    line = next((part.strip() for part in text.strip().splitlines() if part.strip()), "")
    line = line.lstrip("#-*> ").strip()
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.—-") + "…"


class Placer:
    """Label boxes placed so far, in pixels, hashed into a grid so that a new box meets only
    the boxes of the cells it covers (greedy placement in order of importance)."""

    def __init__(self, cell: float = 64.0) -> None:
        self.cell = cell
        self._grid: dict[tuple[int, int], list[QRectF]] = {}

    def _cells(self, box: QRectF) -> list[tuple[int, int]]:
        c = self.cell
        xs = range(int(box.left() // c), int(box.right() // c) + 1)
        ys = range(int(box.top() // c), int(box.bottom() // c) + 1)
        return [(x, y) for x in xs for y in ys]

    def free(self, box: QRectF) -> bool:
        return not any(box.intersects(other) for key in self._cells(box) for other in self._grid.get(key, ()))

    def add(self, box: QRectF) -> None:
        for key in self._cells(box):
            self._grid.setdefault(key, []).append(box)
