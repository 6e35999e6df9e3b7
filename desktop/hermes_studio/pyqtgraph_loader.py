"""pyqtgraph, imported for what the canvas draws (about 0.3–0.5 s less CPU per launch).

Two things make a plain ``import pyqtgraph`` slow, and both are avoided here:

* PySide6 makes its classes on first use, but pyqtgraph's import copies every name of QtCore,
  QtGui and QtWidgets into mirror modules of its own (``pyqtgraph.Qt.QtCore`` …), which
  makes all ~2,000 classes and their enums up front. Here the mirrors are made first, as
  modules that hand out the real module's names on first use (PEP 562 ``__getattr__``), and
  while pyqtgraph imports, the Qt modules list only the names already made, so its copy
  loop finds them all present and copies nothing. pyqtgraph then sees the very same
  classes, made when it (or anyone) first asks for them.
* pyqtgraph's ``__init__`` imports all of the library (plots, images, parameter trees,
  remote views, …, 145 modules) to offer every name as ``pyqtgraph.X``. Here it runs
  without those imports; the modules the canvas uses (:data:`PARTS`) are imported and their
  names put on the package as its own imports would, and the first use of any other name
  imports the rest exactly as pyqtgraph would have. Should pyqtgraph's ``__init__`` ever
  not fit this, the plain import runs instead.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

#: The modules whose names the canvas uses (``pg.ScatterPlotItem``, ``pg.mkPen`` …).
PARTS = (
    "functions",
    "graphicsItems.ScatterPlotItem",
    "graphicsItems.PlotCurveItem",
    "graphicsItems.ViewBox",
    "graphicsItems.TextItem",
    "widgets.GraphicsView",
)
#: The imports of pyqtgraph's ``__init__`` that run at once (Qt bindings and the palette).
KEPT_IMPORTS = ("Qt", "colors")


def _made(module: types.ModuleType) -> list[str]:
    return list(vars(module))


def _public(module: types.ModuleType) -> dict[str, Any]:
    """What ``from module import *`` would bind."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in vars(module) if not name.startswith("_")]
    return {name: getattr(module, name) for name in names}


def _deferred(node: ast.stmt) -> bool:
    """An import of the package's own modules that the canvas does not need up front."""
    if not isinstance(node, ast.ImportFrom) or node.level != 1:
        return False
    return (node.module or "").split(".")[0] not in KEPT_IMPORTS


def _import_parts() -> types.ModuleType:
    spec = importlib.util.find_spec("pyqtgraph")
    if spec is None or spec.origin is None or spec.loader is None:
        raise ImportError("pyqtgraph is not installed")
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"), spec.origin)
    now = ast.Module([node for node in tree.body if not _deferred(node)], type_ignores=[])
    later = ast.Module([node for node in tree.body if _deferred(node)], type_ignores=[])
    package = importlib.util.module_from_spec(spec)
    sys.modules["pyqtgraph"] = package
    try:
        exec(compile(now, spec.origin, "exec"), vars(package))  # noqa: S102 - pyqtgraph's own code
        for part in PARTS:
            vars(package).update(_public(importlib.import_module(f"pyqtgraph.{part}")))
    except BaseException:  # start again from nothing (but the Qt mirrors, which have no spec)
        for name, module in list(sys.modules.items()):
            if (name == "pyqtgraph" or name.startswith("pyqtgraph.")) and getattr(module, "__spec__", None):
                del sys.modules[name]
        raise
    rest = compile(later, spec.origin, "exec")

    def complete(name: str) -> Any:
        """A name not imported yet: a submodule by itself, anything else with the rest."""
        if name.startswith("__"):
            raise AttributeError(name)
        if importlib.util.find_spec(f"pyqtgraph.{name}") is not None:
            return importlib.import_module(f"pyqtgraph.{name}")
        if vars(package).pop("__getattr__", None) is not None:
            exec(rest, vars(package))  # noqa: S102 - the rest of pyqtgraph's own __init__
        try:
            return vars(package)[name]
        except KeyError:
            raise AttributeError(f"module 'pyqtgraph' has no attribute {name!r}") from None

    package.__getattr__ = complete  # type: ignore[attr-defined]
    return package


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
        try:
            return _import_parts()
        except Exception:  # noqa: BLE001 - whatever did not fit: the plain way, all of it
            import pyqtgraph

            return pyqtgraph
    finally:
        for real in reals:
            vars(real).pop("__dir__", None)


pyqtgraph = load()
