"""What a launch imports before the graph's first frame, checked in a fresh interpreter:
pyqtgraph only for what the canvas draws (the rest still there when asked for by name), Qt's
classes made on first use, and none of the modules of the tabs made later or of the
engine's store, scanner and config reader when the app's modules are imported (the app
imports those once it knows which home it opens, before any worker starts; the later tabs'
when first shown). No worker thread imports a module during a launch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

NOT_AT_START = [
    "pyqtgraph.parametertree", "pyqtgraph.imageview", "pyqtgraph.widgets.PlotWidget",
    "hermes_studio.memory.editor", "hermes_studio.memory.consolidate", "hermes_studio.sessions.panel",
    "hermes_studio.versions.panel", "hermes_memory.api", "hermes_memory.config", "hermes_memory.memory.scan",
    "hermes_memory.memory.store", "hermes_memory.learning.mutations", "ruamel.yaml",
]

SCRIPT = f"""
import json, sys
import hermes_studio.app
from PySide6 import QtWidgets
import pyqtgraph as pg
report = {{"loaded": [name for name in {NOT_AT_START!r} if name in sys.modules],
          "qt_made_up_front": "QCalendarWidget" in vars(QtWidgets)}}
from pyqtgraph.graphicsItems.ViewBox import ViewBox
report["canvas_names"] = pg.ViewBox is ViewBox and callable(pg.mkPen) and pg.GraphicsView is not None
from pyqtgraph.widgets.PlotWidget import PlotWidget
report["other_names"] = pg.PlotWidget is PlotWidget and pg.ImageView is not None
import hermes_studio.memory as memory
from hermes_studio.memory.editor import StoreEditor
report["memory_names"] = memory.StoreEditor is StoreEditor and memory.MemoryEditors.__name__ == "MemoryEditors"
print(json.dumps(report))
"""


def test_a_launch_imports_only_what_the_first_frame_needs():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=os.pathsep.join([str(ROOT / "engine"), str(ROOT / "desktop"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["loaded"] == []
    assert not report["qt_made_up_front"]
    assert report["canvas_names"]
    assert report["other_names"]  # the rest of pyqtgraph is still there, on first use
    assert report["memory_names"]


WORKER_IMPORTS = """
import json, sys, threading
on_workers = []
def hook(event, args):
    if event == "import" and args[0] not in sys.modules and threading.current_thread() is not threading.main_thread():
        on_workers.append((threading.current_thread().name, args[0]))
sys.addaudithook(hook)
from hermes_studio import app
code = app.main(sys.argv[1:])
print(json.dumps({"code": code, "on_workers": on_workers}))
"""


def test_no_worker_imports_a_module_while_the_app_starts(tmp_path):
    """An import holds the interpreter in long stretches a worker cannot be paused in
    (see hermes_studio.worker_gate): the app makes them before its window, up to the
    screenshot (the graph drawn, the Inbox and Changes read, the history captured)."""
    import shutil

    home = tmp_path / "demo-home"
    shutil.copytree(ROOT / "desktop" / "hermes_studio" / "resources" / "demo-home", home)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CACHE_HOME=str(tmp_path / "cache"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "engine"), str(ROOT / "desktop"), os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, "-c", WORKER_IMPORTS, "--home", str(home), "--screenshot", str(tmp_path / "shot.png")]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=180)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0
    assert report["on_workers"] == [], report["on_workers"]


def test_the_lighter_pyside_check_answers_as_pysides_own():
    """PySide6's own check reads each module's source through inspect; ours reads the file.
    Same answer for every module a launch and the engine face import."""
    import inspect

    import hermes_memory.api  # noqa: F401
    import hermes_studio.app  # noqa: F401
    from hermes_studio import pyside_imports

    feature = sys.modules["shibokensupport.feature"]
    assert feature._mod_uses_pyside is pyside_imports._uses_pyside

    def by_inspect(module) -> bool:
        try:
            return "PySide6" in inspect.getsource(module)
        except (TypeError, OSError, SyntaxError):
            return False

    modules = [module for module in list(sys.modules.values()) if module is not None]
    assert len(modules) > 300
    assert any(pyside_imports._uses_pyside(module) for module in modules)  # (it can say yes)
    assert [m.__name__ for m in modules if by_inspect(m) != pyside_imports._uses_pyside(m)] == []


def test_pyqtgraph_is_imported_the_plain_way_when_its_init_does_not_fit():
    script = """
import importlib, sys
real = importlib.import_module
def refuse(name, *args, **kwargs):  # half-way through the canvas's parts
    if name == "pyqtgraph.widgets.GraphicsView":
        raise ImportError("a pyqtgraph this loader does not fit")
    return real(name, *args, **kwargs)
importlib.import_module = refuse
from hermes_studio.pyqtgraph_loader import pyqtgraph as pg
importlib.import_module = real
from PySide6 import QtWidgets
print(pg.PlotWidget.__name__, "pyqtgraph.parametertree" in sys.modules, "QCalendarWidget" in vars(QtWidgets))
"""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=os.pathsep.join([str(ROOT / "engine"), str(ROOT / "desktop"), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    # all of pyqtgraph, and still without making every Qt class up front
    assert done.stdout.split() == ["PlotWidget", "True", "False"]
