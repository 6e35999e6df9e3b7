"""The UI thread first: worker threads wait at their pause points while the UI thread
draws something that should not be slowed down, such as the window's first frame.

Python runs one thread at a time. While the window lays itself out and paints for the
first time (about 50 ms of the UI thread's own work), the graph build and the start-up
reads run too, and the threads take turns every millisecond: the first frame took two to
three times its own work (120-190 ms) before this. So the window holds the workers back
until that frame is painted. They wait only at pause points: between two tasks of the
Workspace's threads, between the steps of a graph job, and in the engine's long loops
(:mod:`hermes_memory.pausing`). A hold is short and bounded: it ends when the frame is
painted or after :data:`FIRST_FRAME_LIMIT_MS`, and no worker waits longer than
:data:`LONGEST_WAIT_S` at one point, so nothing can hang on it.

A graph that was ready before the first frame (a small home's build can finish while the
window is being made) is shown on the turns after that frame, not inside it: else the
window's first layout, its first paint and the graph's drawing made one long stall.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

from hermes_memory import pausing

#: The longest the first frame holds the workers back (it is painted well before).
FIRST_FRAME_LIMIT_MS = 400
#: The longest one worker waits at one pause point, whatever happens on the UI thread.
LONGEST_WAIT_S = 0.5


class WorkerGate:
    """Open, or held by the UI thread; worker threads pass :meth:`wait` only when open."""

    def __init__(self) -> None:
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self.waited = 0  # how many times a worker waited here (for the tests)
        self._after: list[tuple[QObject, Callable[[], None]]] = []  # (UI thread only)

    @property
    def held(self) -> bool:
        return not self._open.is_set()

    def hold(self) -> None:
        pausing.install(self.wait)  # the engine's long loops stop here too
        self._open.clear()

    def release(self) -> None:
        self._open.set()
        waiting, self._after = self._after, []
        for context, callback in waiting:  # each on a turn of its own, after the frame
            if shiboken6.isValid(context):
                QTimer.singleShot(0, context, callback)

    def after_release(self, context: QObject, callback: Callable[[], None]) -> bool:
        """On the UI thread: when held, run ``callback`` once released, on a later turn of
        the event loop (not if ``context`` is gone by then), and say True; else False."""
        if not self.held:
            return False
        self._after.append((context, callback))
        return True

    def wait(self) -> None:
        """Return at once when open (or on the UI thread, which holds it); else wait until
        the UI thread releases it, at most :data:`LONGEST_WAIT_S`."""
        if self._open.is_set() or threading.current_thread() is threading.main_thread():
            return
        with self._lock:
            self.waited += 1
        self._open.wait(LONGEST_WAIT_S)


#: The gate of this process (one UI thread, one gate).
GATE = WorkerGate()


class _FirstPaint(QObject):
    """Releases the gate once ``window`` has painted (on the next turn of the event loop,
    when the whole window has), or after ``limit_ms``."""

    def __init__(self, window: QWidget, gate: WorkerGate, limit_ms: int) -> None:
        super().__init__(window)  # (it lives as long as the window: a few bytes)
        self.window, self.gate, self.done = window, gate, False
        window.installEventFilter(self)
        QTimer.singleShot(limit_ms, self, self.release)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.window and event.type() == QEvent.Type.Paint:
            self.window.removeEventFilter(self)
            QTimer.singleShot(0, self, self.release)  # (the children paint after the window)
        return False

    def release(self) -> None:
        if self.done:
            return
        self.done = True
        self.window.removeEventFilter(self)
        if self.gate.held:
            self.gate.release()


def show_first_frame(window: QWidget, gate: WorkerGate = GATE, limit_ms: int = FIRST_FRAME_LIMIT_MS) -> None:
    """Show ``window`` with the workers held back until it has painted its first frame."""
    gate.hold()
    _FirstPaint(window, gate, limit_ms)
    window.show()
