"""Fixtures for the graph explorer: a private copy of the demo home, a Workspace and a panel.

Every test must leave no thread behind (the Workspace's reader/writer/watcher and the
graph worker are all stopped when the fixtures close them).
"""

from __future__ import annotations

import shutil
import threading

import pytest
from PySide6.QtWidgets import QMessageBox

from hermes_memory.home import HermesHome
from hermes_studio.app import bundled_demo_home
from hermes_studio.graph import GraphPanel
from hermes_studio.graph.view import GraphView
from hermes_studio.graph.workers import GraphJobs, GraphRequest, PositionCache
from hermes_studio.workspace import Workspace


@pytest.fixture(autouse=True)
def _no_leaked_threads():
    before = set(threading.enumerate())
    yield
    leaked = [
        t.name for t in threading.enumerate()
        if t not in before and t.is_alive() and not t.name.startswith("pydevd")
    ]
    assert not leaked, f"threads left running by this test: {leaked}"


@pytest.fixture
def demo_home(tmp_path) -> HermesHome:
    """A private copy of the bundled demo home."""
    target = tmp_path / "demo-home"
    shutil.copytree(bundled_demo_home(), target)
    return HermesHome.resolve(target)


@pytest.fixture
def make_panel(qtbot):
    """Open a GraphPanel over a home (watching it) and wait for its first graph."""
    opened: list[tuple[GraphPanel, Workspace]] = []

    def _make(home: HermesHome, *, watch: bool = True) -> GraphPanel:
        workspace = Workspace(home, watch=watch)
        panel = GraphPanel(workspace)
        panel.resize(1100, 700)
        qtbot.addWidget(panel)
        panel.show()
        opened.append((panel, workspace))
        qtbot.waitUntil(lambda: panel.ready, timeout=20000)
        return panel

    yield _make
    for panel, workspace in opened:
        panel.close_panel()
        workspace.close()


@pytest.fixture
def panel(make_panel, demo_home) -> GraphPanel:
    return make_panel(demo_home)


@pytest.fixture
def questions(monkeypatch):
    """Answer every question with its action button, and keep what it said."""
    asked: list[str] = []

    def exec_box(box: QMessageBox) -> int:
        asked.append(f"{box.text()}\n{box.informativeText()}\n{box.detailedText()}")
        named = [b for b in box.buttons() if box.buttonRole(b) in (
            QMessageBox.ButtonRole.DestructiveRole, QMessageBox.ButtonRole.AcceptRole)]
        named[0].click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_box)
    return asked


@pytest.fixture
def snapshot(demo_home, tmp_path):
    """The demo home's graph as the worker hands it to the canvas."""
    return GraphJobs(demo_home, positions=PositionCache(demo_home, tmp_path / "layouts")).run(GraphRequest())


@pytest.fixture
def view(qtbot) -> GraphView:
    """A bare canvas, shown."""
    canvas = GraphView()
    qtbot.addWidget(canvas)
    canvas.resize(900, 700)
    canvas.show()
    qtbot.waitExposed(canvas)
    return canvas
