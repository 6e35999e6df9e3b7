"""Fixtures for the Sessions tab: a copy of the demo home, a Workspace, the panel, the window."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from hermes_memory.home import HermesHome
from hermes_studio import app as studio_app
from hermes_studio.sessions import SessionsPanel
from hermes_studio.workspace import Workspace

sys.path.insert(0, str(Path(__file__).parent))



@pytest.fixture
def demo_home(tmp_path) -> HermesHome:
    target = tmp_path / "demo-home"
    shutil.copytree(studio_app.bundled_demo_home(), target)
    return HermesHome.resolve(target)


@pytest.fixture
def workspace(demo_home, qtbot):
    ws = Workspace(demo_home)
    yield ws
    ws.close()


@pytest.fixture
def make_panel(qtbot):
    made: list[SessionsPanel] = []

    def _make(workspace: Workspace) -> SessionsPanel:
        widget = SessionsPanel(workspace)
        qtbot.addWidget(widget)
        widget.resize(1200, 760)
        widget.show()
        qtbot.waitExposed(widget)
        qtbot.waitUntil(lambda: widget.ready, timeout=10000)
        made.append(widget)
        return widget

    yield _make
    for widget in made:
        widget.close_panel()


@pytest.fixture
def panel(make_panel, workspace) -> SessionsPanel:
    return make_panel(workspace)


@pytest.fixture
def window(qtbot, open_window, discard_on_close, demo_home):
    win = open_window(demo_home)
    qtbot.waitUntil(lambda: win.sessions.ready, timeout=10000)
    return win
