"""A date axis for the growth histogram: calendar ticks at a spacing that fits the width.

:func:`date_ticks` is plain Python (UTC, like the rest of the graph's dates);
:func:`paint_date_axis` draws them under a track.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
#: Tick spacings, finest first: ("days", n) or ("months", n).
STEPS = (
    ("days", 1), ("days", 2), ("days", 7), ("days", 14),
    ("months", 1), ("months", 2), ("months", 3), ("months", 6),
    ("months", 12), ("months", 24), ("months", 60),
)
#: Pixels each tick's label needs.
TICK_PX = 64.0
AXIS_HEIGHT = 13.0


def _ticks(lo: float, hi: float, unit: str, n: int) -> list[datetime]:
    start = datetime.fromtimestamp(lo, UTC)
    end = datetime.fromtimestamp(hi, UTC)
    found: list[datetime] = []
    if unit == "days":
        day = datetime(start.year, start.month, start.day, tzinfo=UTC)
        if n == 7:  # weeks start on Monday
            day -= timedelta(days=day.weekday())
        elif n > 1:
            day -= timedelta(days=(day - datetime(1970, 1, 1, tzinfo=UTC)).days % n)
        while day <= end:
            if day >= start:
                found.append(day)
            day += timedelta(days=n)
            if len(found) > 400:
                break
        return found
    month = (start.year * 12 + start.month - 1) // n * n
    while True:
        moment = datetime(month // 12, month % 12 + 1, 1, tzinfo=UTC)
        if moment > end or len(found) > 400:
            return found
        if moment >= start:
            found.append(moment)
        month += n


def date_ticks(lo: float, hi: float, width_px: float) -> list[tuple[float, str]]:
    """``(epoch, label)`` of calendar boundaries between ``lo`` and ``hi``, as many as fit
    ``width_px`` (one per :data:`TICK_PX`); the year is named at January and at the first tick."""
    if hi <= lo or width_px <= 0:
        return []
    room = max(2, int(width_px // TICK_PX))
    for unit, n in STEPS:
        ticks = _ticks(lo, hi, unit, n)
        if len(ticks) <= room:
            break
    result = []
    for position, moment in enumerate(ticks):
        month = _MONTHS[moment.month - 1]
        if unit == "days":
            label = f"{moment.day} {month}"
        elif n >= 12:
            label = str(moment.year)
        else:
            label = f"{month} {moment.year}" if position == 0 or moment.month == 1 else month
        result.append((moment.timestamp(), label))
    return result


def paint_date_axis(painter: QPainter, rect: QRectF, span: tuple[float, float] | None, colour: QColor) -> None:
    """Tick marks and dates along the bottom edge of ``rect`` (the track's bars above it)."""
    if span is None:
        return
    lo, hi = span
    font = QFont(painter.font())
    font.setPointSizeF(7.5)
    metrics = QFontMetricsF(font)
    painter.save()
    painter.setFont(font)
    painter.setPen(QPen(colour, 1))
    right_edge = -1e9
    for when, label in date_ticks(lo, hi, rect.width()):
        x = rect.left() + (when - lo) / (hi - lo) * rect.width()
        painter.drawLine(QPointF(x, rect.bottom()), QPointF(x, rect.bottom() + 3))
        width = metrics.horizontalAdvance(label)
        left = min(max(x - width / 2, rect.left() - 4), rect.right() + 4 - width)
        if left < right_edge + 4:
            continue  # never draw two dates over each other
        painter.drawText(QRectF(left, rect.bottom() + 2, width + 1, AXIS_HEIGHT), Qt.AlignmentFlag.AlignLeft, label)
        right_edge = left + width
    painter.restore()
