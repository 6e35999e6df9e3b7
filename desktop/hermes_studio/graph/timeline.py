"""The timeline scrubber: replay how the graph grew, with play/pause and a draggable playhead.

The track is a histogram of when skills (accent) and memory cards (complement) were
learned; tick marks show where the disk's rings begin. Dragging snaps the playhead at
once; Play sweeps from the first learning to now in about 15 seconds. ``sig_reveal``
carries the playhead time, or None when it is at the end (everything shown).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from .dates import AXIS_HEIGHT, paint_date_axis
from .model import format_date
from .style import CanvasStyle, canvas_style

SWEEP_SECONDS = 15.0
TICK_MS = 40


class _Track(QWidget):
    sig_moved = Signal(float)  # fraction 0..1

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(34 + int(AXIS_HEIGHT))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.skills = np.zeros(0)
        self.memories = np.zeros(0)
        self.ticks: list[float] = []
        self.fraction = 1.0
        self.span: tuple[float, float] | None = None  # for the date axis
        self.style_: CanvasStyle = canvas_style()
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, 34 + int(AXIS_HEIGHT))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(6, 4, -6, -6 - AXIS_HEIGHT)
        base = QColor(self.style_.ring)
        painter.setPen(QPen(base, 1))
        painter.drawLine(QPointF(rect.left(), rect.bottom()), QPointF(rect.right(), rect.bottom()))
        bins = len(self.skills)
        if bins:
            top = max(float((self.skills + self.memories).max()), 1.0)
            width = rect.width() / bins
            skill_colour = QColor(self.style_.accent)
            memory_colour = QColor(self.style_.memory)
            for k in range(bins):
                x = rect.left() + k * width
                revealed = (k + 0.5) / bins <= self.fraction + 1e-9
                h_skill = rect.height() * self.skills[k] / top
                h_memory = rect.height() * self.memories[k] / top
                for colour, height, offset in ((skill_colour, h_skill, 0.0), (memory_colour, h_memory, h_skill)):
                    if height <= 0:
                        continue
                    c = QColor(colour)
                    c.setAlphaF(0.9 if revealed else 0.25)
                    painter.fillRect(QRectF(x + 0.5, rect.bottom() - offset - height, max(width - 1, 1), height), c)
        tick = QColor(self.style_.ring_label)
        painter.setPen(QPen(tick, 1))
        for fraction in self.ticks:
            x = rect.left() + fraction * rect.width()
            painter.drawLine(QPointF(x, rect.bottom()), QPointF(x, rect.bottom() + 4))
        head = QColor(self.style_.edge_lit)
        painter.setPen(QPen(head, 2))
        x = rect.left() + self.fraction * rect.width()
        painter.drawLine(QPointF(x, rect.top() - 2), QPointF(x, rect.bottom() + 4))
        paint_date_axis(painter, rect, self.span, QColor(self.style_.ring_label))
        painter.end()

    def _fraction_at(self, event: QMouseEvent) -> float:
        rect = QRectF(self.rect()).adjusted(6, 4, -6, -6)
        return float(np.clip((event.position().x() - rect.left()) / max(rect.width(), 1.0), 0.0, 1.0))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.sig_moved.emit(self._fraction_at(event))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.sig_moved.emit(self._fraction_at(event))


class TimelineScrubber(QWidget):
    sig_reveal = Signal(object)  # epoch seconds, or None for "everything"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineScrubber")
        self.span: tuple[float, float] | None = None
        self.play_button = QToolButton()
        self.play_button.setText("▶")
        self.play_button.setToolTip("Replay how the graph grew (Space)")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self.set_playing)
        self.track = _Track()
        self.track.sig_moved.connect(self.scrub)
        self.date_label = QLabel("")
        self.date_label.setMinimumWidth(110)
        self.date_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.play_button)
        layout.addWidget(self.track, 1)
        layout.addWidget(self.date_label)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)

    @property
    def fraction(self) -> float:
        return self.track.fraction

    def set_data(self, skills: np.ndarray, memories: np.ndarray, span: tuple[float, float] | None, ticks: list[float]) -> None:
        self.span = span if span and span[1] > span[0] else None
        self.track.skills, self.track.memories = skills, memories
        self.track.span = self.span
        if self.span:
            lo, hi = self.span
            self.track.ticks = [float(np.clip((t - lo) / (hi - lo), 0, 1)) for t in ticks if t == t]
        else:
            self.track.ticks = []
        self.setEnabled(self.span is not None)
        self._show()

    def time_at(self, fraction: float) -> float | None:
        if self.span is None or fraction >= 1.0:
            return None
        lo, hi = self.span
        return lo + fraction * (hi - lo)

    def scrub(self, fraction: float) -> None:
        """Move the playhead (0 = the first learning, 1 = now) and reveal up to it."""
        self.track.fraction = float(np.clip(fraction, 0.0, 1.0))
        self._show()
        self.sig_reveal.emit(self.time_at(self.track.fraction))

    def set_playing(self, playing: bool) -> None:
        if playing and self.span is None:
            playing = False
        if self.play_button.isChecked() != playing:
            self.play_button.setChecked(playing)
            return
        self.play_button.setText("❚❚" if playing else "▶")
        if playing:
            if self.track.fraction >= 1.0:
                self.scrub(0.0)
            self.timer.start()
        else:
            self.timer.stop()

    def toggle(self) -> None:
        self.set_playing(not self.timer.isActive())

    def _tick(self) -> None:
        step = TICK_MS / 1000.0 / SWEEP_SECONDS
        fraction = min(1.0, self.track.fraction + step)
        self.scrub(fraction)
        if fraction >= 1.0:
            self.set_playing(False)

    def stop(self) -> None:
        self.timer.stop()

    def _show(self) -> None:
        when = self.time_at(self.track.fraction)
        self.date_label.setText("now" if when is None else format_date(when))
        self.track.update()
