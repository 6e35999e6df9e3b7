"""Python's cycle collector runs on the UI thread only.

CPython collects on whichever thread allocates past a threshold. When that is a worker and
the garbage holds a Qt object, the object's C++ destructor runs there: it takes Qt's
connection lock and then waits for the GIL, while the UI thread holds the GIL and waits for
that same lock to connect a signal. Both wait forever (seen hanging a test run). So while the
app runs, automatic collection is off and a timer on the UI thread collects instead, one
generation at a time, when the collector's own thresholds say it is due.

Not while a worker is inside the engine's ``gc_paused`` section (a graph build, a history
capture): everything young then is that section's, alive, and each collection walked it
on the UI thread for nothing. At 10,000 skills the collections during the first build
came to about 250 ms of the UI thread's time, one full collection alone 130 ms; the
section moves its objects to the oldest generation when it ends.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from hermes_memory.skills.index import gc_paused_anywhere

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
        # CPython's rule for a full collection, which walks every live object: only once
        # the objects promoted to the oldest generation since the last one (pending) are
        # a quarter of those it kept then (long-lived). Objects moved there by
        # gc.freeze()/unfreeze() are not pending, as in CPython.
        self._long_lived = len(gc.get_objects(generation=2))
        self._pending = 0

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        if self.active:
            return
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Collect what is due here, then give collection back to the interpreter."""
        if not self.active:
            return
        self._timer.stop()
        self.collect_due()
        if self._was_enabled:
            gc.enable()

    def _check(self) -> None:
        if gc_paused_anywhere():  # a worker's build: its objects are alive, wait for its end
            self._timer.setInterval(CHECK_INTERVAL_MS)
            return
        if self.collect_due() is None:
            self._timer.setInterval(min(self._timer.interval() * 2, LONGEST_INTERVAL_MS))
        else:
            self._timer.setInterval(CHECK_INTERVAL_MS)

    def collect_due(self) -> int | None:
        """Collect the oldest generation that is due, as CPython would; None when none is."""
        counts = gc.get_count()
        thresholds = gc.get_threshold()
        if thresholds[0] == 0 or counts[0] <= thresholds[0]:
            return None
        if counts[1] <= thresholds[1]:
            gc.collect(0)
            return 0
        if counts[2] > thresholds[2] and self._pending > self._long_lived // 4:
            gc.collect(2)
            self._long_lived = len(gc.get_objects(generation=2))
            self._pending = 0
            return 2
        young = len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1))
        self._pending += max(0, young - gc.collect(1))
        return 1
