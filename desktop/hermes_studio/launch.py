"""The ``hermes-studio`` command: a clear message when the desktop extra is not installed.

The engine installs on its own (``pip install hermes-memory-studio``); the app needs Qt
and friends from the ``desktop`` extra. Without them this says how to get them instead
of ending in an ImportError.
"""

from __future__ import annotations

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

    return app_main(argv)


if __name__ == "__main__":
    sys.exit(main())
