"""pyqtgraph, imported without making every Qt class at once (about 0.3–0.5 s of each launch).

PySide6 makes its classes on first use. pyqtgraph's import copies every name of QtCore,
QtGui and QtWidgets into mirror modules of its own (``pyqtgraph.Qt.QtCore`` …), which makes
all ~2,000 classes and their enums up front. Here the mirrors are made first, as modules
that hand out the real module's names on first use (PEP 562 ``__getattr__``), and while
pyqtgraph imports, the Qt modules list only the names already made, so its copy loop finds
them all present and copies nothing. pyqtgraph then sees the very same classes, made when
it (or anyone) first asks for them.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any


def _made(module: types.ModuleType) -> list[str]:
    return list(vars(module))


def load() -> Any:
    """The ``pyqtgraph`` module, imported as described above (once)."""
    if "pyqtgraph" in sys.modules:
        return sys.modules["pyqtgraph"]
    from PySide6 import QtCore, QtGui, QtWidgets

    reals = (QtCore, QtGui, QtWidgets)
    for real in reals:
        mirror = types.ModuleType(f"pyqtgraph.Qt.{real.__name__.rpartition('.')[2]}")
        mirror.__getattr__ = functools.partial(getattr, real)  # type: ignore[attr-defined]
        sys.modules.setdefault(mirror.__name__, mirror)
    for real in reals:
        real.__dir__ = functools.partial(_made, real)  # type: ignore[attr-defined]
    try:
        import pyqtgraph
    finally:
        for real in reals:
            vars(real).pop("__dir__", None)
    return pyqtgraph


pyqtgraph = load()
