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

Starting a watch adds one inotify watch per folder (11,000 of them at 10,000 skills), so
the app starts it once the graph is drawn and the first reads are done. Whatever changed
in between is not lost: given ``since_ns``, the walk that adds the watches also looks at
each file's and folder's modification and change times, and each one changed since then
arrives as a :class:`ChangedSinceEvent` (as if it had been watched all along; a folder's
as a :class:`FolderChangedSinceEvent`: one of its entries was added, removed or renamed).
Files whose version the caller noted when it opened (``unchanged``, see
:func:`file_version`) are reported only if their version differs now: ``since_ns`` has a
margin for coarse time stamps, and without this a file written just before the open
would be reported as a change made after it. A noted file that is gone when the watch
starts arrives as a ``FileDeletedEvent``: a deleted file leaves no time stamp to find.
A start can be cancelled (the window closed meanwhile): the walk stops at the next folder.

On platforms without inotify the platform observer is used with the same event filter,
and ``since_ns`` makes one :class:`QueueOverflowEvent` (re-read everything) instead.
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
#: A file last written at least this long before its version is noted cannot be written
#: again unseen: the next write gets a later time stamp (filesystems with fine time stamps
#: take them from a clock that lags by a scheduler tick at most).
DISTINCT_STAMP_NS = 100_000_000

#: A file's version: device, inode, size and modification time. Not the change time:
#: SQLite run as root chowns its WAL at every open, a read too, which changes only that.
FileVersion = tuple[int, int, int, int]


class QueueOverflowEvent(FileSystemEvent):
    """Events under ``src_path`` were lost; whatever is shown from there must be re-read."""

    event_type = "overflow"
    is_synthetic = True


class ChangedSinceEvent(FileSystemEvent):
    """``src_path`` (a file, or a folder whose entries changed) changed after the
    ``since_ns`` the watch was started with, before its watch was in place."""

    event_type = "changed"
    is_synthetic = True


class FolderChangedSinceEvent(ChangedSinceEvent):
    """A folder whose entries changed (one added, removed or renamed) before its watch."""

    is_directory = True


class WatchCancelled(Exception):
    """The start of a watch was cancelled (see :func:`content_observer`)."""


# What the walk of the starting watch group needs; set on the thread that starts it.
_starting = threading.local()


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
    ChangedSinceEvent,
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
        changed_since: list[tuple[bytes, bool]] | None = None  # (path, is a folder) the first walk found changed
        deleted_since: list[bytes] | None = None  # the noted files gone by then

        def _add_callback(self, path: bytes) -> None:
            # A folder made while the first walk runs is found by the walk and again by its
            # creation event: watch it once (watchdog would warn of the second).
            if path not in self._active_callbacks_by_path:
                super()._add_callback(path)

        def _add_all_callbacks(self, path: bytes) -> None:
            """Watch ``path`` and the folders below it: one ``scandir`` per folder (no
            ``stat`` per folder, unlike ``os.walk`` and a link check). The first walk,
            of a watch being started, can be cancelled and reports what changed since
            ``since_ns`` (see the module's notes)."""
            cancelled = getattr(_starting, "cancelled", None)
            since_ns = getattr(_starting, "since_ns", None)
            unchanged = getattr(_starting, "unchanged", None) or {}
            # (folders made later: plain walks)
            _starting.cancelled = _starting.since_ns = _starting.unchanged = None
            changed: list[tuple[bytes, bool]] = []
            self._add_callback(path)
            if not (self.is_recursive and os.path.isdir(path)):
                return
            if since_ns is not None and _changed_since(os.stat(path), since_ns):
                changed.append((path, True))
            follow = self.follow_symlink
            stack = [path]
            while stack:
                if cancelled is not None and cancelled.is_set():
                    raise WatchCancelled(os.fsdecode(path))
                folder = stack.pop()
                try:
                    with os.scandir(folder) as entries:
                        listed = list(entries)
                except OSError:
                    continue  # gone or unreadable meanwhile, as with os.walk
                for entry in listed:
                    try:
                        is_folder = entry.is_dir(follow_symlinks=follow)
                        if since_ns is not None:
                            info = entry.stat(follow_symlinks=False)
                            if _changed_since(info, since_ns) and unchanged.get(entry.path) != _version(info):
                                changed.append((entry.path, is_folder))
                    except OSError:
                        continue
                    if is_folder:
                        self._add_callback(entry.path)
                        stack.append(entry.path)
            if since_ns is not None:
                self.changed_since = changed
                self.deleted_since = [file for file in unchanged if not os.path.lexists(file)]

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
        def __init__(self, *args, since_ns: int | None = None, cancelled: threading.Event | None = None,
                     unchanged: dict[bytes, FileVersion | None] | None = None, **kwargs) -> None:  # fmt: skip
            super().__init__(*args, **kwargs)
            self._since_ns, self._cancelled, self._unchanged = since_ns, cancelled, unchanged

        def on_thread_start(self) -> None:
            _starting.since_ns, _starting.cancelled = self._since_ns, self._cancelled
            _starting.unchanged = self._unchanged
            try:
                group = CalmWatchGroup(
                    self._inotify_fd,
                    os.fsencode(self.watch.path),
                    is_recursive=self.watch.is_recursive,
                    event_mask=self.get_event_mask_from_filter(),
                    follow_symlink=self.watch.follow_symlink,
                )
            finally:
                _starting.since_ns = _starting.cancelled = _starting.unchanged = None
            group.overflowed = lambda: self.queue_event(QueueOverflowEvent(self.watch.path))
            self._inotify = group
            for path, is_folder in group.changed_since or ():
                event = FolderChangedSinceEvent if is_folder else ChangedSinceEvent
                self.queue_event(event(os.fsdecode(path)))
            for path in group.deleted_since or ():
                self.queue_event(FileDeletedEvent(os.fsdecode(path)))
            group.changed_since = group.deleted_since = None

        def get_event_mask_from_filter(self):  # noqa: ANN201 - watchdog's Mask type
            # Attribute changes carry no content (SQLite chmods its WAL on a read-only open).
            return super().get_event_mask_from_filter() & ~InotifyConstants.IN_ATTRIB

    class CalmInotifyObserver(InotifyObserver):
        def __init__(self, since_ns: int | None = None, cancelled: threading.Event | None = None,
                     unchanged: dict[bytes, FileVersion | None] | None = None) -> None:  # fmt: skip
            self._inotify_fd = InotifyFD()
            self._inotify_fd.start()
            BaseObserver.__init__(
                self, CalmEmitter, inotify_fd=self._inotify_fd, since_ns=since_ns, cancelled=cancelled,
                unchanged=unchanged,
            )

    return CalmInotifyObserver


def _changed_since(info: os.stat_result, since_ns: int) -> bool:
    return max(info.st_mtime_ns, info.st_ctime_ns) >= since_ns


def _version(info: os.stat_result) -> FileVersion:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def file_version(path: str, now_ns: int) -> FileVersion | None:
    """The version of the file at ``path`` now (``now_ns``, ``time.time_ns()``), for
    ``content_observer(unchanged=...)``; None when a later write might leave it the same:
    the file is missing, was written within :data:`DISTINCT_STAMP_NS`, or has time stamps
    in whole seconds (a filesystem that keeps no finer ones)."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if info.st_mtime_ns % 1_000_000_000 == 0 or info.st_mtime_ns > now_ns - DISTINCT_STAMP_NS:
        return None
    return _version(info)


_OBSERVER_CLASS = _inotify_observer_class()


class _PlatformObserver(Observer):  # type: ignore[misc, valid-type]
    """Another platform's observer: what changed before the start means re-read it all."""

    def __init__(self, path: str, since_ns: int | None) -> None:
        super().__init__()
        self._catch_up = (path, since_ns)

    def on_thread_start(self) -> None:
        super().on_thread_start()
        path, since_ns = self._catch_up
        if since_ns is not None:
            for emitter in self.emitters:
                emitter.queue_event(QueueOverflowEvent(path))


def content_observer(
    path: str,
    handler: FileSystemEventHandler,
    *,
    since_ns: int | None = None,
    unchanged: dict[str, FileVersion | None] | None = None,
    cancelled: threading.Event | None = None,
) -> BaseObserver:
    """An observer (not started) reporting content changes anywhere below ``path``.

    ``since_ns`` (``time.time_ns()``): on start, also report what changed since then,
    except the files of ``unchanged`` (path: :func:`file_version`, or None for a file that
    was there in a version not to be trusted) still in that version, and those of its
    files that are gone.
    ``cancelled``: set while ``start()`` runs, it stops adding watches and raises
    :class:`WatchCancelled` (stop the observer then, to free what it holds)."""
    if _OBSERVER_CLASS is not None:
        known = {os.fsencode(os.path.normpath(file)): version for file, version in (unchanged or {}).items()}
        observer = _OBSERVER_CLASS(since_ns, cancelled, known)
    else:
        observer = _PlatformObserver(path, since_ns)
    observer.daemon = True
    observer.schedule(handler, path, recursive=True, event_filter=CONTENT_EVENTS)
    return observer
