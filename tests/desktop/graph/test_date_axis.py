"""The growth histogram's date axis: calendar ticks that fit, drawn under the bars."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtGui import QColor

from hermes_studio.graph.dates import AXIS_HEIGHT, TICK_PX, date_ticks


def epoch(*parts: int) -> float:
    return datetime(*parts, tzinfo=UTC).timestamp()


def test_months_over_most_of_a_year():
    lo, hi = epoch(2026, 3, 4), epoch(2026, 11, 20)
    ticks = date_ticks(lo, hi, 700)
    assert [label for _, label in ticks] == ["Apr 2026", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov"]
    assert all(lo <= when <= hi for when, _ in ticks)
    assert all(datetime.fromtimestamp(when, UTC).day == 1 for when, _ in ticks)


def test_a_narrow_track_gets_fewer_ticks_and_a_long_span_years():
    lo, hi = epoch(2026, 3, 4), epoch(2026, 11, 20)
    narrow = date_ticks(lo, hi, 250)
    assert 1 <= len(narrow) <= 250 // TICK_PX
    assert [label for _, label in date_ticks(epoch(2019, 6, 1), epoch(2026, 2, 1), 600)][:2] == ["2020", "2021"]
    days = date_ticks(epoch(2026, 5, 3), epoch(2026, 5, 9), 600)
    assert [label for _, label in days] == ["3 May", "4 May", "5 May", "6 May", "7 May", "8 May", "9 May"]
    assert date_ticks(5.0, 5.0, 600) == []


def test_the_scrubber_draws_its_dates_under_the_bars(panel, qtbot):
    track = panel.scrubber.track
    assert track.span == panel.scrubber.span is not None
    assert track.height() >= 34 + AXIS_HEIGHT

    def axis_ink(widget) -> int:
        image = widget.grab().toImage()
        background = QColor(image.pixelColor(1, image.height() - 2))
        return sum(
            image.pixelColor(x, y) != background
            for x in range(20, image.width() - 20, 2)
            for y in range(image.height() - int(AXIS_HEIGHT) + 2, image.height() - 1)
        )

    with_dates = axis_ink(track)
    track.span = None
    without = axis_ink(track)
    assert with_dates > 40 and without < with_dates / 4
