"""Fixtures for the Sessions tab: a copy of the demo home, a Workspace, the panel, the window."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from hermes_memory.home import HermesHome
from hermes_studio import app as studio_app
from hermes_studio.main_window import MainWindow
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
def window(qtbot, monkeypatch, demo_home):
    monkeypatch.setattr(QMessageBox, "exec", lambda box: int(QMessageBox.StandardButton.Discard.value))
    win = MainWindow(demo_home)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: win.graph.ready and len(win.workspace.statuses) == 2, timeout=30000)
    qtbot.waitUntil(lambda: win.sessions.ready, timeout=10000)
    yield win
    win.close()
