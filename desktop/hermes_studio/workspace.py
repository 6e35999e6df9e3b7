"""One open Hermes home: engine calls off the UI thread, one writer, and file watching.

Views never touch the disk. They ask the Workspace to read or write, and learn what
changed from its signals:

- ``sig_store_status(StoreStatus)``: a fresh picture of MEMORY.md or USER.md, after the
  initial load, after our own write, or after the file changed on disk;
- ``sig_changed(Change)``: what changed and who changed it (``"app"`` or ``"disk"``); a
  ``skills`` change from disk carries the changed ``paths`` in its detail, or ``rescan``
  when events were lost and anything may have changed; ``history`` from disk follows
  once the writes others made were recorded as versions (one capture per batch of events,
  and one at open: views that list history only read it again);
- ``sig_error(str)``: a message for the person (nothing was written);
- ``sig_connection(state, message)``: for a remote home, ``connecting``, ``connected`` or
  ``lost`` (a local home is always ``local``).

Writes run one at a time on a single writer thread (the engine's lock-reload-write cycle
inside). Reads run on a separate reader thread, so a slow read never delays a save.
The agent replaces files atomically, which makes per-file watches go stale, so we watch
the folders and match names; bursts of events are debounced.

A remote home (:mod:`.remote`) has a backend over ``hermes-memory serve --stdio`` instead:
the same calls, its change notifications in place of file watching, and a lost connection
that makes the home read-only (what is shown stays) until the app reconnects by itself.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers.api import BaseObserver

from hermes_memory import pausing
from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import TARGETS
from hermes_memory.memory.status import StoreStatus

from .watching import WatchCancelled, content_observer, file_version
from .worker_gate import GATE

log = logging.getLogger(__name__)

#: How long the constructor waits for the watch to be in place (the rest goes on behind).
WATCH_START_WAIT = 0.05
#: A watch started after the first reads reports what changed since a little before them
#: (filesystems with coarse timestamps round down).
CATCH_UP_MARGIN_NS = 2_000_000_000

#: Every kind of change: what an overflow of the event queue may have hidden.
ALL_KINDS = ("memory", "user", "config", "skills", "sessions")
#: Changes on disk to these become history versions (see :meth:`Workspace.capture_history`).
CAPTURED_KINDS = frozenset({"memory", "user", "skills"})

#: Quiet period after the last file event before reloading; short enough that a meter
#: follows an agent's write well within 300 ms.
DEBOUNCE_MS = 40

#: How long a read of state.db on the reader thread waits for the agent's lock (as long
#: as a search while typing waits): then it reports "locked", and the view tries again.
READER_STATE_DB_WAIT = 1.0

#: Reconnecting to a remote home: the first retry after this long, doubling up to the most.
RECONNECT_FIRST_MS = 1000
RECONNECT_MOST_MS = 15000


def _after_the_gate(work: Callable[[], Any]) -> Any:
    """Run ``work`` on a worker thread once the UI thread lets workers run (see
    :mod:`.worker_gate`: held while the window paints its first frame)."""
    GATE.wait()
    return work()


class LocalBackend:
    """The engine face called in-process, for a home on this machine's disk."""

    def __init__(self, home: HermesHome):
        self.home = home

    def call(self, method: str, params: dict[str, Any]) -> Any:
        from hermes_memory import api  # imported on the worker, off the start-up path

        function = getattr(api, method, None)
        if function is None or method.startswith("_") or not callable(function):
            raise AttributeError(f"the engine face has no {method!r}")
        return function(self.home, **params)

    def graph_builder(self):
        from hermes_memory.learning.graph import GraphBuilder
        from hermes_memory.skills.shared_index import shared_index

        # the index the history captures use too: they read only the files that changed
        return GraphBuilder(self.home, shared_index(self.home))

    def close(self) -> None:
        pass


class CallFailure(dict):
    """What ``on_done`` gets when a call could not be made or raised: a refusal payload
    (``ok``/``success`` False, ``error`` and ``message`` in words), so every view waiting
    on an answer hears back; ``exception`` is what went wrong."""

    def __init__(self, message: str, exception: BaseException):
        super().__init__(ok=False, success=False, error=message, message=message)
        self.exception = exception


def _failure(method: str, exc: Exception, writing: bool, host: str | None) -> CallFailure:
    from hermes_memory.remote.client import CallError, ConnectionLost, RemoteError

    from .remote.backend import NotConnected

    if isinstance(exc, NotConnected):
        return CallFailure(str(exc), exc)
    if isinstance(exc, ConnectionLost) and writing:
        return CallFailure(
            f"The connection to {host} was lost during the change ({exc}). A change there is "
            "made in full or not at all, never half-written; the app shows the home as it is "
            "once it has reconnected.", exc)
    if isinstance(exc, CallError):
        return CallFailure(f"{exc}" + (" Nothing was changed." if writing else ""), exc)
    if isinstance(exc, RemoteError):
        return CallFailure(str(exc), exc)
    log.error("engine call %s failed", method, exc_info=exc)
    done = ", nothing was changed" if writing else ""
    return CallFailure(f"Unexpected error{done}: {exc}", exc)


@dataclass(frozen=True)
class Change:
    """What changed: ``kind`` is ``memory``, ``user``, ``config``, ``skills``, ``sessions``,
    ``pending`` (a record staged or decided in the write queue) or ``history`` (versions
    recorded: ``"disk"`` when a capture recorded someone else's writes)."""

    kind: str
    origin: str  # "app" (our own write) or "disk" (someone else, e.g. the agent)
    detail: dict[str, Any] = field(default_factory=dict)


def classify(home: HermesHome, path: str) -> str | None:
    """The kind of change a file event means, or ``None`` for files we ignore."""
    try:
        relative = Path(path).resolve().relative_to(home.path.resolve())
    except (ValueError, OSError):
        return None
    parts = relative.parts
    if not parts:
        return None
    name = parts[-1]
    if parts[0] == "memories" and len(parts) == 2:
        return {"MEMORY.md": "memory", "USER.md": "user"}.get(name)
    if parts == ("config.yaml",):
        return "config"
    if parts[0] == "skills":
        ignored = name.endswith((".lock", ".tmp")) or name.startswith(".tmp")
        return None if ignored else "skills"
    if parts[0] == "pending" and len(parts) == 3 and parts[1] in ("memory", "skills"):
        return "pending" if name.endswith(".json") and not name.startswith(".") else None
    if name in ("state.db", "state.db-wal"):
        return "sessions"
    return None


def folder_kinds(home: HermesHome, path: str) -> tuple[str, ...]:
    """The kinds read from the list of entries of the folder at ``path``: the staged-write
    queue's (the stores and config are watched by name, their deletion is reported as such)."""
    try:
        parts = Path(path).resolve().relative_to(home.path.resolve()).parts
    except (ValueError, OSError):
        return ()
    if len(parts) == 2 and parts[0] == "pending" and parts[1] in ("memory", "skills"):
        return ("pending",)
    return ()


class _FolderWatcher(FileSystemEventHandler):
    """Runs on watchdog's thread: turns events into change kinds, nothing else.

    The observer delivers content changes only (see :mod:`.watching`): reads, opens and
    attribute changes never arrive, so the app's own reads cause no events.
    """

    def __init__(self, home: HermesHome, report: Callable[[str, str], None]):
        self.home = home
        self.report = report  # (kind, path); the path is "" when events were lost

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type == "overflow":  # events were lost: everything may have changed
            for kind in ALL_KINDS:
                self.report(kind, "")
            return
        if event.event_type == "changed" and event.is_directory:
            # entries of this folder changed before the watch started (a file deleted,
            # say, which leaves nothing else behind): what is read from it
            for kind in folder_kinds(self.home, str(event.src_path)):
                self.report(kind, "")
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        for path in paths:  # an atomic replace arrives as a move onto the target
            kind = classify(self.home, str(path)) if path else None
            # SQLite opens the WAL read-write even to read, so closing it says nothing;
            # a real write to it also arrives as "modified".
            if kind and not (kind == "sessions" and event.event_type == "closed"):
                self.report(kind, str(path))

    def on_overflow(self, event: FileSystemEvent) -> None:
        """Handled in :meth:`on_any_event`; watchdog dispatches by event type."""

    def on_changed(self, event: FileSystemEvent) -> None:
        """Handled in :meth:`on_any_event` (a change made before the watch was in place)."""


def _brief_lock_waits() -> None:
    """The reader thread's reads of state.db wait out an agent's lock briefly: the views
    say "locked" and try again, instead of queueing every read behind a five-second wait."""
    pausing.wait_at_most(READER_STATE_DB_WAIT)


class Workspace(QObject):
    sig_store_status = Signal(object)  # StoreStatus
    sig_changed = Signal(object)  # Change
    sig_error = Signal(str)
    sig_connection = Signal(str, str)  # (state, message): local | connecting | connected | lost
    _sig_disk_event = Signal(str)  # a kind, from watchdog's thread to ours
    _sig_skill_path = Signal(str)  # the skill file it was about ("" when events were lost)
    _sig_done = Signal(object, object)  # (callback, result) from a worker to the UI thread
    _sig_remote_state = Signal(str, str)  # from the remote backend's threads
    _sig_remote_event = Signal(object)  # a change notification of the remote engine

    def __init__(
        self, home: HermesHome, parent: QObject | None = None, *, watch: bool = True, watch_later: bool = False
    ):
        """``watch_later``: start watching only when :meth:`start_watching` is called (the
        window does once its start-up reads are done); what changed from now until the
        watch is in place is reported then, as if it had been watched all along."""
        super().__init__(parent)
        self.opened_ns = time.time_ns()  # before any read of this home
        self.home = home
        self.remote = bool(getattr(home, "remote", False))
        self.connection = "local"
        self.connection_message = ""
        self.statuses: dict[str, StoreStatus] = {}
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="hermes-read", initializer=_brief_lock_waits)
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="hermes-write")
        self._pending_kinds: set[str] = set()
        self._pending_skill_paths: set[str] | None = set()  # None: unknown, rescan
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._flush_disk_events)
        self._sig_disk_event.connect(self._on_disk_event)
        self._sig_skill_path.connect(self._on_skill_path)
        self._sig_done.connect(self._deliver)
        self._observer: BaseObserver | None = None
        self._watch_starter: threading.Thread | None = None
        self._watch_cancel = threading.Event()
        self._watch_wanted = watch and not self.remote
        # (reports what changed since now once the watch is in place: see capture_history)
        self._catch_up_from_open = self._watch_wanted and watch_later
        # the versions of the files watched by name, before any read: the catch-up reports
        # them only if they changed since, or are gone (a few stats; not the skills)
        self._versions_at_open = {
            str(path): file_version(str(path), self.opened_ns)
            for path in (home.config_file, home.memory_file, home.user_file, home.state_db,
                         home.path / "state.db-wal")  # fmt: skip
            if os.path.lexists(path)
        } if self._catch_up_from_open else {}
        self._closed = False
        self._reconnect = QTimer(self)
        self._reconnect.setSingleShot(True)
        self._reconnect.timeout.connect(self.reconnect)
        self._reconnect_delay = RECONNECT_FIRST_MS
        self._was_connected = False
        self._capturing = self._capture_again = False
        if self.remote:
            from .remote.backend import RemoteBackend

            self._sig_remote_state.connect(self._on_remote_state)
            self._sig_remote_event.connect(self._on_remote_event)
            self.backend = RemoteBackend(
                home, on_state=self._sig_remote_state.emit, on_event=self._sig_remote_event.emit
            )
            self.connection = "connecting"
            self.reconnect()
        else:
            self.backend = LocalBackend(home)
            if watch and not watch_later:
                self.start_watching(catch_up=False)

    # --- lifecycle ----------------------------------------------------------------------
    def start_watching(self, *, catch_up: bool = True) -> None:
        """Start watching the home for changes (once; a Workspace made with
        ``watch_later`` waits for this call). ``catch_up``: what changed since the
        Workspace was made, before the watch was in place, is reported too."""
        if not self._watch_wanted or self._closed:
            return
        self._watch_wanted = False
        if not catch_up:
            self._catch_up_from_open = False
        if not self.home.path.is_dir():
            self.sig_error.emit(f"No Hermes home at {self.home.path}.")
            return
        # Recursive on the home: memories/ may be created later, skills nest, and the agent's
        # atomic renames must be seen as moves within a watched folder.
        observer = content_observer(
            str(self.home.path),
            _FolderWatcher(self.home, self._report_from_watcher),
            since_ns=self.opened_ns - CATCH_UP_MARGIN_NS if catch_up else None,
            unchanged=self._versions_at_open,
            cancelled=self._watch_cancel,
        )
        self._observer = observer
        # Starting walks every folder to add its watch (11,000 of them at 10,000 skills):
        # that runs on a thread of its own. Without a catch-up, a small home is watched
        # before this returns; with one nothing is missed meanwhile, so the UI thread does
        # not wait (it had waited the whole 50 ms at 1,000 skills, just after the graph).
        self._watch_starter = threading.Thread(
            target=self._start_observer, args=(observer,), name="hermes-watch-start", daemon=True
        )
        self._watch_starter.start()
        if not catch_up:
            self._watch_starter.join(WATCH_START_WAIT)

    def _start_observer(self, observer: BaseObserver) -> None:
        try:
            observer.start()
        except WatchCancelled:  # closed meanwhile: free the watches made so far
            self._observer = None
            observer.stop()
        except OSError as exc:  # e.g. inotify watch limit reached
            self._observer = None
            observer.stop()
            if not self._closed:
                self.sig_error.emit(
                    f"Cannot watch {self.home.path} for changes ({exc}); use Refresh to reload."
                )

    @property
    def watch_starting(self) -> bool:
        """Watching is asked for but not in place yet (waiting to start, or starting)."""
        starter = self._watch_starter
        return not self._closed and (self._watch_wanted or (starter is not None and starter.is_alive()))

    def close(self) -> None:
        """Stop watching and finish queued work; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._debounce.stop()
        self._reconnect.stop()
        self.backend.close()  # a remote call waiting for its answer fails at once
        self._watch_cancel.set()  # a watch still starting stops at its next folder
        if self._watch_starter is not None:
            self._watch_starter.join(timeout=30)
        observer, self._observer = self._observer, None
        if observer is not None and observer.is_alive():
            observer.stop()
            observer.join(timeout=5)
        self._writer.shutdown(wait=True)
        self._reader.shutdown(wait=True)

    @property
    def watching(self) -> bool:
        return self._observer is not None

    # --- running engine work off the UI thread -----------------------------------------
    def _submit(
        self,
        executor: ThreadPoolExecutor,
        work: Callable[[], Any],
        on_done: Callable[[Any], None] | None,
    ) -> Future | None:
        if self._closed:
            return None

        def finished(future: Future) -> None:
            try:
                result = future.result()
            except Exception as exc:  # engine bugs must not kill the app
                log.exception("background work failed")
                result = exc
            if not self._closed:
                self._sig_done.emit(on_done, result)

        future = executor.submit(_after_the_gate, work)
        future.add_done_callback(finished)
        return future

    @Slot(object, object)
    def _deliver(self, callback: Callable[[Any], None] | None, result: Any) -> None:
        if isinstance(result, Exception):
            self.sig_error.emit(f"Unexpected error: {result}")
            return
        if isinstance(result, CallFailure):
            self.sig_error.emit(result["error"])
        if callback is not None:
            callback(result)

    def after_queued_work(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` on the UI thread once every read and write queued so far is done."""
        waiting = {"reader", "writer"}

        def done(which: str) -> None:
            waiting.discard(which)
            if not waiting:
                callback()

        self._submit(self._reader, lambda: "reader", done)
        self._submit(self._writer, lambda: "writer", done)

    def read(
        self, work: Callable[[], Any], on_done: Callable[[Any], None] | None = None
    ) -> Future | None:
        """Run ``work`` on the reader thread; ``on_done(result)`` runs on the UI thread."""
        return self._submit(self._reader, work, on_done)

    def write(
        self,
        kind: str,
        work: Callable[[], dict],
        on_done: Callable[[dict], None] | None = None,
    ) -> Future | None:
        """Run an engine mutation on the writer thread and report what changed.

        ``work`` returns the engine's result dict (``success``/``ok`` and a message).
        On success ``sig_changed(Change(kind, "app"))`` follows and the store is re-read.
        """

        def after(result: dict) -> None:
            ok = bool(result.get("success", result.get("ok")))
            if on_done is not None:
                on_done(result)
            if ok:
                self.sig_changed.emit(Change(kind, "app", {"result": result}))
                if kind in TARGETS:
                    self.refresh_store(kind)

        return self._submit(self._writer, work, after)

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        on_done: Callable[[Any], None] | None = None,
        *,
        write: str | None = None,
        ordered: bool = False,
    ) -> Future | None:
        """Call ``method`` of the engine face (``hermes_memory.api``) for this home.

        ``params`` are its keyword arguments after ``home``: plain data, so the same call
        can travel to a remote home. Reads run on the reader thread; ``write=KIND`` runs it
        as a mutation of that kind on the writer thread (see :meth:`write`); ``ordered``
        runs a read on the writer thread, so it sees every write queued before it.
        ``on_done(result)`` runs on the UI thread.
        """
        backend, params = self.backend, dict(params or {})
        writing = write is not None
        host = getattr(backend, "host", None)

        def work() -> Any:
            try:
                if getattr(backend, "remote", False):  # refuses a change while disconnected
                    return backend.call(method, params, write=writing)
                return backend.call(method, params)
            except Exception as exc:  # answered as a refusal: the view always hears back
                return _failure(method, exc, writing, host)

        if writing:
            return self.write(write, work, on_done)
        return self._submit(self._writer if ordered else self._reader, work, on_done)

    # --- history ------------------------------------------------------------------------
    def capture_history(self, *, at_open: bool = False) -> None:
        """Record what someone else changed (the agent's writes) as history versions.

        The window asks once at open (``at_open``, after its graph is drawn); the Workspace
        runs one per batch of disk events. On the writer thread, so a view's own history
        call queued after it sees the new versions. When something was
        recorded, ``Change("history", "disk")`` follows: the views that list history only
        read it again. A request while one runs makes one more capture afterwards.
        A Workspace that watches later, catching up from when it was made, lets the capture
        at open trust the skills scan the graph made since (any change after that scan
        is reported by the watch and captured next).
        """
        if not (self.remote or self.home.path.is_dir()):
            return  # no home (yet): nothing to record, and nothing is created
        if self._capturing:
            self._capture_again = True
            return
        self._capturing = True
        backend = self.backend
        params = {"scanned_after_ns": self.opened_ns} if at_open and self._catch_up_from_open else {}

        def work() -> Any:
            try:
                if getattr(backend, "remote", False):
                    return backend.call("history_capture", {}, write=True)
                return backend.call("history_capture", params)
            except Exception as exc:
                return _failure("history_capture", exc, True, getattr(backend, "host", None))

        self._submit(self._writer, work, self._history_captured)

    @property
    def capturing(self) -> bool:
        """A history capture is running or queued (see :meth:`capture_history`)."""
        return self._capturing

    def _history_captured(self, result: Any) -> None:
        self._capturing = False
        if isinstance(result, dict) and result.get("recorded"):
            self.sig_changed.emit(Change("history", "disk", {"result": result}))
        if self._capture_again:
            self._capture_again = False
            self.capture_history()

    # --- stores -------------------------------------------------------------------------
    def refresh_store(self, target: str, origin: str = "app") -> None:
        """Re-read one store on the reader thread, then emit its status."""

        def loaded(snapshot: dict) -> None:
            if isinstance(snapshot, CallFailure) or not isinstance(snapshot, dict):
                return  # said on sig_error; what is shown stays
            self._store_loaded(status_from_snapshot(snapshot), origin)

        self.call("store_snapshot", {"target": target}, loaded)

    def refresh_all(self) -> None:
        for target in TARGETS:
            self.refresh_store(target)

    def _store_loaded(self, status: StoreStatus, origin: str) -> None:
        previous = self.statuses.get(status.target)
        unchanged = previous is not None and (
            previous.identity,
            previous.error,
            previous.limit,
            previous.enabled,
        ) == (status.identity, status.error, status.limit, status.enabled)
        if origin == "disk" and unchanged:
            return  # the echo of our own write, or a touch that changed nothing
        self.statuses[status.target] = status
        self.sig_store_status.emit(status)
        if origin == "disk":
            self.sig_changed.emit(
                Change(status.target, "disk", {"previous": previous, "status": status})
            )

    # --- a remote home's connection -----------------------------------------------------
    @property
    def read_only(self) -> bool:
        """True while a remote home is not connected: changes are refused, nothing is sent."""
        return self.remote and self.connection != "connected"

    def reconnect(self) -> None:
        """Connect a remote home (again), on the reader thread; what is shown stays meanwhile."""
        if not self.remote or self._closed:
            return
        self._reconnect.stop()
        backend = self.backend

        def work() -> Any:
            try:
                return backend.connect()
            except Exception as exc:
                return _failure("connect", exc, False, backend.host)

        self._submit(self._reader, work, self._connected)

    def _connected(self, result: Any) -> None:
        if isinstance(result, CallFailure):
            return  # the state says why; a retry is scheduled
        self._reconnect_delay = RECONNECT_FIRST_MS
        if not self._was_connected:  # the first time: the views' first loads are queued already
            self._was_connected = True
            return
        # Everything may have changed while we were away: look again, as after lost events
        # (a store that did not change reports nothing; one that did is a change on disk).
        for kind in ALL_KINDS + ("pending",):
            self._on_disk_event(kind)
        self._pending_skill_paths = None

    @Slot(str, str)
    def _on_remote_state(self, state: str, message: str) -> None:
        if self._closed:
            return
        changed = (state, message) != (self.connection, self.connection_message)
        self.connection, self.connection_message = state, message
        if changed:
            self.sig_connection.emit(state, message)
        if state == "lost" and not self._reconnect.isActive():
            self._reconnect.start(self._reconnect_delay)
            self._reconnect_delay = min(self._reconnect_delay * 2, RECONNECT_MOST_MS)

    @Slot(object)
    def _on_remote_event(self, event: dict) -> None:
        """The remote engine's change notification, as the folder watcher would report it."""
        what = event.get("what") if isinstance(event, dict) else None
        for kind in what if isinstance(what, list) else ():
            if kind in ("memory", "user", "config", "pending", "sessions"):
                self._on_disk_event(kind)
            elif kind == "skills":
                self._pending_skill_paths = None  # no local paths: look at every skill
                self._on_disk_event(kind)

    # --- file events --------------------------------------------------------------------
    def _report_from_watcher(self, kind: str, path: str) -> None:  # on watchdog's thread
        if kind == "skills":
            self._sig_skill_path.emit(path)  # queued before the kind, so it arrives first
        self._sig_disk_event.emit(kind)

    @Slot(str)
    def _on_skill_path(self, path: str) -> None:
        if self._pending_skill_paths is not None:
            if path:
                self._pending_skill_paths.add(path)
            else:
                self._pending_skill_paths = None

    @Slot(str)
    def _on_disk_event(self, kind: str) -> None:
        self._pending_kinds.add(kind)
        self._debounce.start()

    def _flush_disk_events(self) -> None:
        kinds, self._pending_kinds = self._pending_kinds, set()
        paths, self._pending_skill_paths = self._pending_skill_paths, set()
        if "config" in kinds:  # budgets or enabled flags may have changed
            kinds.update(TARGETS)
        if kinds & CAPTURED_KINDS:
            self.capture_history()
        for kind in sorted(kinds):
            if kind in TARGETS:
                self.refresh_store(kind, origin="disk")  # emits its Change once re-read
            elif kind == "skills":
                detail = {"rescan": True} if paths is None else {"paths": sorted(paths)}
                self.sig_changed.emit(Change(kind, "disk", detail))
            else:
                self.sig_changed.emit(Change(kind, "disk"))


def status_from_snapshot(snapshot: dict[str, Any]) -> StoreStatus:
    """The :class:`StoreStatus` an ``api.store_snapshot`` answer describes."""
    identity = snapshot.get("identity")
    return StoreStatus(**{
        **snapshot,
        "path": Path(str(snapshot.get("path", ""))),
        "entries": tuple(snapshot.get("entries") or ()),
        "identity": tuple(identity) if identity else None,
    })
