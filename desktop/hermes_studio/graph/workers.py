"""The graph worker: builds the payload and lays it out, one job at a time, off the UI thread.

One thread owns the engine's :class:`GraphBuilder` (it re-reads only changed files), the
:class:`LayoutEngine` (it keeps every node's position, so a rebuild moves only new nodes)
and a cache of memory-card dates from session history. Requests arriving while a job runs
are merged into one follow-up job (the newest settings win, the reasons add up), so a
burst of file events costs at most two builds.

Positions are kept per home in the user's cache folder (:class:`PositionCache`), so the
next launch of the same home places only the nodes that are new, and once the first
graph is drawn the worker lays out the other mode in the background, so the first
switch between Timeline and Clusters finds its positions ready. The cache is written
and the table's sort keys made after that layout in advance (or, when there was nothing
to lay out, once the window has been still for a moment: :data:`TIDY_AFTER_MS`) and when
the worker closes, never between a layout and the snapshot waiting for it; a request
that comes meanwhile goes first.

The engine dates memory cards from session history. A "sessions" change alone rebuilds
only when that history changed identity (:func:`history_key`): merely opening ``state.db``
read-only touches its WAL, which the folder watcher reports as a sessions change, and
that must not start a rebuild loop.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from PySide6.QtCore import QObject, QTimer, Signal, Slot

from hermes_memory.home import HermesHome
from hermes_memory.learning.graph import GraphBuilder
from hermes_memory.learning.memory_dates import history_key
from hermes_memory.pausing import gc_paused

from ..worker_gate import GATE
from .filters import growth_histogram
from .layout import CLUSTERS, TIMELINE, LayoutCancelled, LayoutEngine, LayoutResult
from .model import GraphData, graph_from_payload
from .overlays import fingerprints
from .overview import overview_html
from .table import COLUMNS, sort_key

log = logging.getLogger(__name__)


#: After a switch to a mode laid out already, the worker makes the table's sort keys and
#: saves the positions once the window has been still this long (so that a quick run of
#: switches never shares the GIL with them).
TIDY_AFTER_MS = 600

#: Reasons a build may trust the folder watcher's list of changed paths for.
HINTED_REASONS = frozenset({"skills", "memory", "user", "sessions", "layout"})


@dataclass(frozen=True)
class GraphRequest:
    mode: str = TIMELINE
    include_all: bool = False
    reasons: frozenset[str] = frozenset({"open"})
    #: the skill files the watcher saw change, or None: check every file
    changed: frozenset[str] | None = None

    @property
    def hint(self) -> frozenset[str] | None:
        """The paths to give the engine, when every reason allows trusting them."""
        return self.changed if self.reasons <= HINTED_REASONS else None

    @property
    def layout_only(self) -> bool:
        return self.reasons <= {"layout"}


@dataclass
class GraphSnapshot:
    """One finished job: the payload, its arrays and their positions."""

    request: GraphRequest
    data: GraphData
    layout: LayoutResult
    build_seconds: float = 0.0
    layout_seconds: float = 0.0
    serial: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    overview: str = ""  # the details pane's overview of ``data`` (made here, off the UI thread)
    growth: tuple = ()  # the scrubber's histogram of ``data`` (made here too)


class PositionCache:
    """Node positions of one home, in ``<user cache>/hermes-studio/layouts/``.

    Only a cache: a missing, unreadable or foreign file means a fresh layout, and a file
    that cannot be written is skipped (the layout stays in memory).
    """

    def __init__(self, home: HermesHome, folder: Path | None = None) -> None:
        self.home = home
        self.folder = folder or Path(platformdirs.user_cache_dir("hermes-studio", appauthor=False)) / "layouts"

    @functools.cached_property
    def path(self) -> Path:
        """The file, named by the home's resolved path (worked out on first use, on the
        worker thread: resolving touches the disk)."""
        where = self.home.path if getattr(self.home, "remote", False) else self.home.path.resolve()
        digest = hashlib.sha256(os.fsencode(str(where))).hexdigest()[:24]
        return self.folder / f"{digest}.json"

    def load(self, layouts: LayoutEngine) -> bool:
        try:
            state = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return False
        return layouts.import_state(state)

    def save(self, layouts: LayoutEngine) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            text = json_in_pieces(layouts.export_state())
            fd, temp = tempfile.mkstemp(prefix=".layout-", suffix=".tmp", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        except OSError as exc:
            log.info("layout cache not written: %s", exc)


#: Lists are encoded this many items at a time (see :func:`json_in_pieces`).
JSON_PIECE = 1000


def json_in_pieces(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"))``, the same text, made a piece at a time:
    the C encoder holds the GIL for a whole call, and the 10,000 ids of one layout took it
    12 ms at a stretch (the cache's 40 ms in all), a stall of the UI thread if it wanted to
    run meanwhile."""
    if isinstance(value, dict):
        return "{" + ",".join(
            json.dumps(key) + ":" + json_in_pieces(item) for key, item in value.items()
        ) + "}"
    if isinstance(value, (list, tuple)) and len(value) > JSON_PIECE:
        pieces = (
            json.dumps(value[start:start + JSON_PIECE], separators=(",", ":"))[1:-1]
            for start in range(0, len(value), JSON_PIECE)
        )
        return "[" + ",".join(pieces) + "]"
    return json.dumps(value, separators=(",", ":"))


def warm_for_drawing(data: GraphData) -> None:
    """Make, here on the worker, what drawing ``data`` the first time looks up, so that the
    UI thread only draws: at 10,000 nodes each of these is a Python loop of 10-50 ms."""
    data.category_names()
    data.category_codes()
    data.radii()
    data.importance_order()
    sort_key(data, 0)  # the table's rows are in name order until a header is clicked
    data.cached("fingerprints", lambda: fingerprints(data))


class GraphJobs:
    """The worker-side state; every method runs on the worker thread only."""

    def __init__(
        self, home: HermesHome, builder: GraphBuilder | None = None, *, positions: PositionCache | None = None
    ) -> None:
        self.home = home
        self.builder = builder or GraphBuilder(home)
        self.layouts = LayoutEngine()
        self.positions = positions or PositionCache(home)
        self._positions_loaded = False
        self._positions_unsaved = False
        #: per mode, the graph last laid out in it and its result (the same graph asked for
        #: again, as after a layout made in advance, needs no second pass over its nodes)
        self._laid: dict[str, tuple[GraphData, LayoutResult]] = {}
        self._history_key: tuple | None = None
        self._last: GraphData | None = None
        self._last_include_all: bool | None = None
        self._overview = ""
        self._growth: tuple = ()

    def _layout(self, data: GraphData, mode: str, should_stop: Callable[[], bool] | None = None) -> LayoutResult:
        if not self._positions_loaded:
            self._positions_loaded = True
            self.positions.load(self.layouts)
        laid = self._laid.get(mode)
        if laid is not None and laid[0] is data:
            # laid out already (in advance, or before the last switch): nothing moves
            return dataclasses.replace(laid[1], moved=0, full=False)
        layout = self.layouts.layout(data.layout_graph(), mode, should_stop)
        self._laid[mode] = (data, layout)
        if layout.moved or layout.full:
            self._positions_unsaved = True  # saved once nothing waits (see save_positions)
        return layout

    def save_positions(self) -> None:
        """Write the positions to the cache, if a layout changed them since the last save."""
        if self._positions_unsaved:
            self._positions_unsaved = False
            self.positions.save(self.layouts)

    def prepare(self, mode: str, should_stop: Callable[[], bool] | None = None) -> None:
        """Lay out the last graph in ``mode`` too, unless its positions are known already;
        ``should_stop`` cancels it (nothing is kept)."""
        data = self._last
        if data is not None and not self.layouts.has(mode):
            with contextlib.suppress(LayoutCancelled):
                self._layout(data, mode, should_stop)

    def tidy(self, should_yield: Callable[[], bool] | None = None) -> None:
        """What can wait for a pause: make the table's sort keys, save the positions;
        ``should_yield`` (a request waits) leaves the rest for the next pause. (The keys
        first: a request waits at most for one of them, but for the whole saving.)"""
        data = self._last
        for column in range(len(COLUMNS)):
            if should_yield is not None and should_yield():
                return
            if data is not None:
                sort_key(data, column)
        if should_yield is None or not should_yield():
            self.save_positions()

    # --- session history ---------------------------------------------------------------
    def history_changed(self) -> bool:
        """Whether what dates the memory cards (state.db, its WAL, the memory files) changed
        since the last build."""
        return self._history_now() != self._history_key

    def _history_now(self) -> tuple | None:
        # A remote home's session history is the remote engine's to read (it reports no WAL echo).
        return None if getattr(self.home, "remote", False) else history_key(self.home)

    # --- the job ----------------------------------------------------------------------------
    def run(self, request: GraphRequest) -> GraphSnapshot | None:
        """The snapshot, or None when nothing the graph shows has changed."""
        started = time.perf_counter()
        if request.reasons == {"sessions"} and self._last is not None and not self.history_changed():
            return None  # our own read of state.db touched its WAL; nothing new
        reuse = (
            request.layout_only
            and self._last is not None
            and self._last_include_all == request.include_all
        )
        if reuse:
            assert self._last is not None
            data = self._last
        else:
            GATE.wait()  # (each step waits while the window paints its first frame)
            self._history_key = self._history_now()
            hint = request.hint
            payload = self.builder.build(include_all=request.include_all, changed=hint)
            with gc_paused():  # each full collection would walk every node's objects, GIL held
                GATE.wait()
                data = graph_from_payload(payload)
                GATE.wait()
                warm_for_drawing(data)
                self._last, self._last_include_all = data, request.include_all
                GATE.wait()
                self._overview = overview_html(data)
                self._growth = growth_histogram(data)
        built = time.perf_counter()
        GATE.wait()
        layout = self._layout(data, request.mode)
        done = time.perf_counter()
        return GraphSnapshot(
            request=request,
            data=data,
            layout=layout,
            build_seconds=built - started,
            layout_seconds=done - built,
            overview=self._overview,
            growth=self._growth,
        )


class GraphWorker(QObject):
    """Runs :class:`GraphJobs` on its own thread and reports on the UI thread."""

    sig_ready = Signal(object)  # GraphSnapshot
    sig_failed = Signal(str)
    sig_busy = Signal(bool)
    sig_overview = Signal(int, str)  # (ticket from request_overview, the overview's HTML)
    _sig_result = Signal(object, object)  # (request, snapshot | Exception | None)
    _sig_overview_done = Signal(int, str)

    def __init__(self, home: HermesHome, parent: QObject | None = None, *, jobs: GraphJobs | None = None):
        super().__init__(parent)
        self.jobs = jobs or GraphJobs(home)
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="hermes-graph")
        self._running: GraphRequest | None = None
        self._pending: GraphRequest | None = None
        self._serial = 0
        self._closed = False
        self._stopping = threading.Event()  # cancels a layout made in advance
        self._queued = threading.Event()  # a job waits: tidying up leaves the rest for later
        # the saving and sort keys wait for a pause of the person's (each holds the GIL
        # the window needs, in pieces of up to 10 ms at 10,000 nodes)
        self._tidy_timer = QTimer(self)
        self._tidy_timer.setSingleShot(True)
        self._tidy_timer.setInterval(TIDY_AFTER_MS)
        self._tidy_timer.timeout.connect(self._tidy_when_idle)
        self._advance: tuple[str, threading.Event, Future] | None = None  # the one in flight
        self.last_request = GraphRequest()
        self._sig_result.connect(self._finished)
        # the overview of a filtered graph: its own thread, so that it never waits for a
        # layout; only the newest request is computed (a burst of keystrokes costs two)
        self._overviews = ThreadPoolExecutor(1, thread_name_prefix="hermes-graph-overview")
        self._overview_ticket = 0
        self._overview_wanted: tuple[int, GraphData, Any] | None = None
        self._overview_running = False
        self._sig_overview_done.connect(self._overview_done)

    @property
    def busy(self) -> bool:
        return self._running is not None or self._pending is not None

    def request(
        self,
        *,
        mode: str | None = None,
        include_all: bool | None = None,
        reason: str = "refresh",
        changed: frozenset[str] | None = None,
    ) -> None:
        """Ask for a build (or only a layout). ``changed`` lists the skill files a watcher
        saw change; without it, a build checks every file."""
        if self._closed:
            return
        base = self._pending or self.last_request
        if reason == "layout":
            changed = frozenset()  # nothing on disk changed
        pending = self._pending.changed if self._pending else frozenset()
        merged = GraphRequest(
            mode=mode if mode is not None else base.mode,
            include_all=include_all if include_all is not None else base.include_all,
            reasons=(self._pending.reasons if self._pending else frozenset()) | {reason},
            changed=None if changed is None or pending is None else pending | changed,
        )
        self.last_request = merged
        self._cancel_advance_unless(merged)
        if self._running is not None:
            self._pending = merged
            return
        self._start(merged)

    def _start(self, request: GraphRequest) -> None:
        self._running = request
        self._pending = None
        self.sig_busy.emit(True)
        self._queued.set()
        future = self._executor.submit(self._run, request)
        future.add_done_callback(self._done_callback(request))

    def _run(self, request: GraphRequest) -> GraphSnapshot | None:
        self._queued.clear()
        return self.jobs.run(request)

    def _done_callback(self, request: GraphRequest) -> Callable[[Future], None]:
        def done(future: Future) -> None:
            try:
                result: Any = future.result()
            except Exception as exc:  # a broken home must not take the app down
                log.exception("graph job failed")
                result = exc
            if not self._closed:
                self._sig_result.emit(request, result)

        return done

    @Slot(object, object)
    def _finished(self, request: GraphRequest, result: Any) -> None:
        if GATE.after_release(self, functools.partial(self._finished, request, result)):
            return  # (the window's first frame first: see worker_gate)
        self._running = None
        if self._closed:
            return
        if isinstance(result, Exception):
            self.sig_failed.emit(_describe(result, self.jobs.home))
        elif result is not None:
            self._serial += 1
            result.serial = self._serial
            self.sig_ready.emit(result)
        if self._pending is not None:
            self._start(self._pending)
        else:
            self.sig_busy.emit(False)

    # --- the overview of what is shown ----------------------------------------------------
    def request_overview(self, data: GraphData, mask: Any) -> int:
        """Make the overview of the nodes ``mask`` shows off the UI thread; ``sig_overview``
        brings it with the ticket returned here. A request made while one is computed
        replaces any older one still waiting, so only the newest ticket is sure to come."""
        self._overview_ticket += 1
        self._overview_wanted = (self._overview_ticket, data, mask.copy())
        if not self._overview_running and not self._closed:
            self._start_overview()
        return self._overview_ticket

    def _start_overview(self) -> None:
        wanted, self._overview_wanted = self._overview_wanted, None
        if wanted is None:
            return
        self._overview_running = True
        ticket, data, mask = wanted

        def work() -> None:
            try:
                text = overview_html(data, mask)
            except Exception:  # only a summary: the last one stays
                log.exception("graph overview failed")
                text = ""
            if not self._closed:
                self._sig_overview_done.emit(ticket, text)

        self._overviews.submit(work)

    @Slot(int, str)
    def _overview_done(self, ticket: int, text: str) -> None:
        self._overview_running = False
        if self._closed:
            return
        if text:
            self.sig_overview.emit(ticket, text)
        self._start_overview()

    def prepare_in_advance(self, mode: str) -> None:
        """Lay out the current graph in ``mode`` too, quietly, when nothing else waits (the
        panel asks once its graph is drawn, so this never competes with that). A request
        arriving meanwhile is served first: the head start is cancelled, unless the request
        is the switch to ``mode`` itself, which then finds its positions ready. Then the
        saving and the sort keys: right after a head start, else after a pause."""
        if self._closed or self._running is not None or self._pending is not None:
            return
        if self.jobs.layouts.has(mode):  # (a switch back and forth: nothing to lay out)
            self._tidy_timer.start()
            return
        cancel = threading.Event()
        future = self._executor.submit(self._prepare_quietly, mode, cancel)
        self._advance = (mode, cancel, future)

    def _prepare_quietly(self, mode: str, cancel: threading.Event) -> None:
        try:
            self.jobs.prepare(mode, lambda: cancel.is_set() or self._stopping.is_set())
        except Exception:  # only a head start: the real request reports any failure
            log.exception("laying out %s in advance failed", mode)
        self._tidy_quietly()

    def _tidy_when_idle(self) -> None:
        """The pause has come: save and make the sort keys, unless a job runs or waits
        (the next drawn snapshot asks again)."""
        if not self._closed and self._running is None and self._pending is None:
            self._executor.submit(self._tidy_quietly)

    def _tidy_quietly(self) -> None:
        try:
            self.jobs.tidy(lambda: self._queued.is_set() or self._stopping.is_set())
        except Exception:  # a cache and sort keys: the table makes any missing one itself
            log.exception("tidying up after a layout failed")

    def _save_quietly(self) -> None:
        try:
            self.jobs.save_positions()
        except Exception:  # only a cache
            log.exception("saving the layout cache failed")

    def _cancel_advance_unless(self, request: GraphRequest) -> None:
        if self._advance is None:
            return
        mode, cancel, future = self._advance
        if future.done():
            self._advance = None
        elif not (request.layout_only and request.mode == mode):
            cancel.set()  # (a rebuild or another mode: the precomputed layout would be stale or unused)
            self._advance = None

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._pending = None
        self._stopping.set()
        self._executor.submit(self._save_quietly)  # after the job in flight, if any
        self._executor.shutdown(wait=True)
        self._overviews.shutdown(wait=True)

    def abandon(self, *_: object) -> None:
        """Stop without waiting (the owner is being destroyed); the job in flight, if any,
        finishes on its own and its result is dropped."""
        if self._closed:
            return
        self._closed = True
        self._pending = None
        self._stopping.set()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self._overviews.shutdown(wait=False, cancel_futures=True)


def _describe(exc: Exception, home: HermesHome) -> str:
    if isinstance(exc, PermissionError):
        return (
            f"Cannot read the Hermes home at {home.path}: permission denied. Check the folder's "
            "permissions, or open another home."
        )
    if isinstance(exc, OSError):
        return f"Cannot read the Hermes home at {home.path}: {exc.strerror or exc}."
    return f"The learning graph could not be built: {exc}"


__all__ = ["CLUSTERS", "TIMELINE", "GraphJobs", "GraphRequest", "GraphSnapshot", "GraphWorker"]
