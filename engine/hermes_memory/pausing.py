"""Points where long engine work lets its host hold it back for a moment.

Python runs one thread at a time (the GIL). When a program with a user interface runs a
graph build on a worker thread while its UI thread draws, the two take turns every few
milliseconds and the drawing takes twice as long or more. Such a host installs a
``hold`` function: the engine calls :func:`pause_point` between the small steps of its
long loops (one folder of a scan, one skill of a build), and ``hold`` returns at once,
or waits while the host's UI thread needs the interpreter to itself. Without a host (the
CLI, the tests) a pause point does nothing.

Long work also holds off the cycle collector while it makes its many objects
(:func:`gc_paused`), and a host that collects from its own thread asks whether such work
runs now (:func:`gc_pause_active`).

A host's reader thread can also wait less for a ``state.db`` another process has locked
(:func:`wait_at_most`): it says "locked" and tries again, rather than queue every later
read behind one long wait.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator

_hold: Callable[[], None] | None = None


def install(hold: Callable[[], None] | None) -> None:
    """Call ``hold`` at every pause point from now on (None: stop)."""
    global _hold
    _hold = hold


def pause_point() -> None:
    """Let the host hold this thread back, if it wants to (see the module's docstring)."""
    hold = _hold
    if hold is not None:
        hold()


_pauses = [0]  # gc_paused() blocks running now, on any thread
_pauses_lock = threading.Lock()


def gc_pause_active() -> bool:
    """Whether a :func:`gc_paused` block runs now: a collection meanwhile (the desktop's
    UI thread collects by hand) would walk the objects it is making, all to be kept."""
    return _pauses[0] > 0


def set_aside_young_objects() -> None:
    """Take every object made so far out of the collector's young generations without
    walking them: into the oldest generation, as two collections would move them, or,
    where someone keeps long-lived objects frozen (the desktop app does), into that
    permanent generation with them (unfreezing would empty it)."""
    frozen = gc.get_freeze_count() > 0
    gc.freeze()
    if not frozen:
        gc.unfreeze()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off the cycle collector while a scan allocates its many small objects.

    Each full collection walks every live object; a 10,000-skill build would trigger
    several and spend a third of its time in them. Reference counting still frees
    everything; the collector runs normally again afterwards (and is left off if
    something else had turned it off, such as the desktop app, which collects on its UI
    thread only).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    with _pauses_lock:
        _pauses[0] += 1
    try:
        yield
    finally:
        # Everything allocated meanwhile sits in the youngest generation, and the first
        # collection afterwards would walk all of it (tens of milliseconds for a large
        # home) only to find it alive: most of it is the kept index and payload.
        set_aside_young_objects()
        with _pauses_lock:
            _pauses[0] -= 1
        if was_enabled:
            gc.enable()


_this_thread = threading.local()


def wait_at_most(seconds: float) -> None:
    """Reads of ``state.db`` opened in this thread without a lock wait of their own wait
    at most ``seconds`` for another process's lock."""
    _this_thread.state_db_wait = seconds


def state_db_wait_here(default: float) -> float:
    """The lock wait of a ``state.db`` read opened in this thread without one of its own."""
    return getattr(_this_thread, "state_db_wait", default)
