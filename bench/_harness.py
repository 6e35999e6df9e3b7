"""Pieces the latency benches share: a raw watchdog floor, an event-loop spin, percentiles.

Not a bench itself (``make bench`` runs only the scripts whose names do not start with
an underscore).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication
from watchdog.events import FileSystemEvent, FileSystemEventHandler


class RawEvents(FileSystemEventHandler):
    """The floor: when watchdog hands this process an event naming a path that ``wanted``
    accepts (opens and reads are not changes, so they do not count)."""

    def __init__(self, wanted: Callable[[str], bool]):
        self.wanted = wanted
        self.times: list[float] = []
        self.lock = threading.Lock()

    def on_any_event(self, event: FileSystemEvent) -> None:
        now = time.monotonic()
        paths = (event.src_path, getattr(event, "dest_path", "") or "")
        if event.event_type not in ("opened", "closed_no_write") and any(
            self.wanted(str(p)) for p in paths if p
        ):
            with self.lock:
                self.times.append(now)

    def first_after(self, moment: float) -> float | None:
        with self.lock:
            later = [t for t in self.times if t >= moment]
        return min(later) if later else None


def spin_until(app: QApplication, condition: Callable[[], bool], timeout: float) -> bool:
    """Run the event loop until ``condition()`` holds (True) or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        time.sleep(0.0005)
    return True


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]
