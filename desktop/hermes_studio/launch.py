"""The ``hermes-studio`` command: a clear message when the desktop extra is not installed,
and a quick exit.

The engine installs on its own (``pip install hermes-memory-studio``); the app needs Qt
and friends from the ``desktop`` extra. Without them this says how to get them instead
of ending in an ImportError.

Once the app is done the process leaves at once (:func:`leave`), without the interpreter's
teardown: by then the window has closed its home (every write finished, every worker
stopped, the settings synced), and the teardown's last garbage collection walks every
object still alive, about 0.9 s at 10,000 skills for nothing.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from importlib.util import find_spec

DESKTOP_MODULES = ("PySide6", "pyqtgraph", "watchdog")


def main(argv: Sequence[str] | None = None) -> int:
    missing = [name for name in DESKTOP_MODULES if find_spec(name) is None]
    if missing:
        print(
            f"hermes-studio: the desktop app needs {', '.join(missing)}, which are not "
            "installed. Install them with: pip install 'hermes-memory-studio[desktop]' "
            "(the engine's CLI, hermes-memory, works without them).",
            file=sys.stderr,
        )
        return 1
    from .app import main as app_main

    leave(app_main(argv))
    return 1  # (not reached)


def leave(code: int) -> None:
    """End the process with ``code`` now: flush what was printed and logged, then exit
    without running the interpreter's teardown."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed or missing (a GUI launch on Windows)
            pass
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
