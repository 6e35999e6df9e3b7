"""Recursive folder watching that sees content changes only, and survives a full queue.

Two things the stock watchdog observer does that a home of 10,000 skills cannot afford:

- It subscribes to opens and closes-without-write, so the app's *own reads* (every
  SKILL.md during a graph build) arrive as events. We subscribe only to content changes:
  create, delete, modify, close-after-write and move.
- When the kernel's inotify queue overflows it drops every watch and re-walks the whole
  tree, which itself floods the queue (one "ignored" event per dropped watch), so one
  overflow becomes a storm. Here an overflow only marks the watch as stale; once the
  burst is over, one rescan adds watches for folders created meanwhile (their creation
  events were lost) and the handler gets one :class:`QueueOverflowEvent`, on which it
  must re-read everything it shows, since any event may have been lost.

On platforms without inotify the platform observer is used with the same event filter.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

log = logging.getLogger(__name__)

#: After the last overflow of a burst, wait this long before the one rescan.
OVERFLOW_QUIET_SECONDS = 0.25


class QueueOverflowEvent(FileSystemEvent):
    """Events under ``src_path`` were lost; whatever is shown from there must be re-read."""

    event_type = "overflow"
    is_synthetic = True


#: What the watch reports: changes of content, never reads or attribute changes.
CONTENT_EVENTS = [
    FileCreatedEvent,
    DirCreatedEvent,
    FileDeletedEvent,
    DirDeletedEvent,
    FileModifiedEvent,
    FileClosedEvent,  # close after write
    FileMovedEvent,
    DirMovedEvent,
    QueueOverflowEvent,
]


def _inotify_observer_class() -> type[BaseObserver] | None:
    """Our inotify observer, or None off Linux or with a watchdog whose internals differ."""
    try:
        from watchdog.observers.inotify import InotifyEmitter, InotifyObserver, InotifyWatchGroup
        from watchdog.observers.inotify_c import InotifyConstants, InotifyFD
    except ImportError:
        return None
    if not hasattr(InotifyWatchGroup, "on_queue_overflow"):
        return None

    class CalmWatchGroup(InotifyWatchGroup):
        """Keeps its watches through an overflow; rescans once when the burst is over."""

        overflowed: Callable[[], None] = staticmethod(lambda: None)  # set by the emitter
        _last_overflow = 0.0
        _timer: threading.Timer | None = None

        def on_queue_overflow(self) -> None:  # on the inotify reader thread
            with self._lock:
                if not self.is_active:
                    return
                self._move_event_grouper.discard_pending_events()
                self._last_overflow = time.monotonic()
                if self._timer is None:
                    self._schedule(OVERFLOW_QUIET_SECONDS)

        def _schedule(self, delay: float) -> None:
            self._timer = threading.Timer(delay, self._rescan_when_quiet)
            self._timer.daemon = True
            self._timer.start()

        def _rescan_when_quiet(self) -> None:
            with self._lock:
                if not self.is_active:
                    self._timer = None
                    return
                waited = time.monotonic() - self._last_overflow
                if waited < OVERFLOW_QUIET_SECONDS:  # the burst goes on: wait for its end
                    self._schedule(OVERFLOW_QUIET_SECONDS - waited)
                    return
                self._timer = None
                added = self._watch_new_folders()
            log.warning("Event queue overflowed below %r; rescanned once (%d new folders)", self.path, added)
            self.overflowed()

        def _watch_new_folders(self) -> int:
            """Watch the folders whose creation the overflow swallowed; keep the rest."""
            if not self.is_recursive:
                return 0
            added = 0
            watched = self._active_callbacks_by_path
            for root, dirnames, _ in os.walk(self.path, followlinks=self.follow_symlink):
                for dirname in dirnames:
                    folder = os.path.join(root, dirname)
                    if folder in watched or (not self.follow_symlink and os.path.islink(folder)):
                        continue
                    self._add_callback(folder)
                    added += 1
            return added

        def deactivate(self) -> None:
            with self._lock:
                timer, self._timer = self._timer, None
            if timer is not None:
                timer.cancel()
            super().deactivate()

    class CalmEmitter(InotifyEmitter):
        def on_thread_start(self) -> None:
            group = CalmWatchGroup(
                self._inotify_fd,
                os.fsencode(self.watch.path),
                is_recursive=self.watch.is_recursive,
                event_mask=self.get_event_mask_from_filter(),
                follow_symlink=self.watch.follow_symlink,
            )
            group.overflowed = lambda: self.queue_event(QueueOverflowEvent(self.watch.path))
            self._inotify = group

        def get_event_mask_from_filter(self):  # noqa: ANN201 - watchdog's Mask type
            # Attribute changes carry no content (SQLite chmods its WAL on a read-only open).
            return super().get_event_mask_from_filter() & ~InotifyConstants.IN_ATTRIB

    class CalmInotifyObserver(InotifyObserver):
        def __init__(self) -> None:
            self._inotify_fd = InotifyFD()
            self._inotify_fd.start()
            BaseObserver.__init__(self, CalmEmitter, inotify_fd=self._inotify_fd)

    return CalmInotifyObserver


_OBSERVER_CLASS = _inotify_observer_class()


def content_observer(path: str, handler: FileSystemEventHandler) -> BaseObserver:
    """An observer (not started) reporting content changes anywhere below ``path``."""
    observer = _OBSERVER_CLASS() if _OBSERVER_CLASS is not None else Observer()
    observer.daemon = True
    observer.schedule(handler, path, recursive=True, event_filter=CONTENT_EVENTS)
    return observer
