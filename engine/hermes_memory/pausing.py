"""Points where long engine work lets its host hold it back for a moment.

Python runs one thread at a time (the GIL). When a program with a user interface runs a
graph build on a worker thread while its UI thread draws, the two take turns every few
milliseconds and the drawing takes twice as long or more. Such a host installs a
``hold`` function: the engine calls :func:`pause_point` between the small steps of its
long loops (one folder of a scan, one skill of a build), and ``hold`` returns at once,
or waits while the host's UI thread needs the interpreter to itself. Without a host (the
CLI, the tests) a pause point does nothing.
"""

from __future__ import annotations

from collections.abc import Callable

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
