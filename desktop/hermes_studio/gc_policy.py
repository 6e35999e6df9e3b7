"""Python's cycle collector runs on the UI thread only, and never walks the whole heap.

CPython collects on whichever thread allocates past a threshold. When that is a worker and
the garbage holds a Qt object, the object's C++ destructor runs there: it takes Qt's
connection lock and then waits for the GIL, while the UI thread holds the GIL and waits for
that same lock to connect a signal. Both wait forever (seen hanging a test run). So while the
app runs, automatic collection is off and a timer on the UI thread collects instead, one
generation at a time, when the collector's own thresholds say it is due.

A full collection walks every object it tracks, about a microsecond each on a busy machine:
at 10,000 skills (the imports, the skill index, the graph) 100–230 ms with the GIL held, the
longest stall of the UI thread at start-up. So what is long-lived is frozen (the permanent
generation, which no collection walks): what exists when the collector starts (modules,
classes, the application), and the survivors of each full collection. A full collection
then walks only what survived since the one before. The engine adds a scan's objects to the
frozen ones too (``hermes_memory.pausing.gc_paused``), and while a scan makes them no
collection here walks them. The cost: a reference cycle among objects frozen before it
became garbage is freed only once the collector stops (about 300 objects at 1,000 skills,
from start-up; rebuilds, mode switches, searches and tab changes added none, measured);
cycles made of newer objects are freed as before, and reference counting frees the rest.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from hermes_memory.pausing import gc_pause_active

# Often enough while objects are being made that the youngest generation stays small (a
# collection walks all of it); each check that finds nothing due waits twice as long, up to
# the longest, so an idle app hardly wakes up.
CHECK_INTERVAL_MS = 50
LONGEST_INTERVAL_MS = 1000


class UiThreadCollector(QObject):
    """Turns automatic collection off while started and collects from a UI-thread timer."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self._check)
        self._was_enabled = False

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        if self.active:
            return
        self._was_enabled = gc.isenabled()
        gc.disable()
        gc.freeze()  # what exists now lives as long as the app
        self._timer.start()

    def stop(self) -> None:
        """Give collection, and every frozen object, back to the interpreter."""
        if not self.active:
            return
        self._timer.stop()
        gc.unfreeze()  # (into the oldest generation: its next full collection walks them)
        if self._was_enabled:
            gc.enable()

    def _check(self) -> None:
        if gc_pause_active():
            self._timer.setInterval(CHECK_INTERVAL_MS)  # (back soon after it)
            return
        if self.collect_due() is None:
            self._timer.setInterval(min(self._timer.interval() * 2, LONGEST_INTERVAL_MS))
        else:
            self._timer.setInterval(CHECK_INTERVAL_MS)

    def collect_due(self) -> int | None:
        """Collect the oldest generation that is due, on CPython's schedule (each
        generation after ``threshold`` collections of the one below); None when none is.
        What a full collection leaves alive is frozen."""
        counts = gc.get_count()
        thresholds = gc.get_threshold()
        if thresholds[0] == 0 or counts[0] <= thresholds[0]:
            return None
        for generation in (0, 1):
            if counts[generation + 1] <= thresholds[generation + 1]:
                gc.collect(generation)
                return generation
        gc.collect(2)
        gc.freeze()
        return 2
