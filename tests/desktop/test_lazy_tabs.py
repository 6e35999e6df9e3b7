"""Start-up makes only what the first frame shows: the Memory, History and Sessions tabs are
made the first time they are shown (or asked for), and then work as if made at start."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from hermes_studio import app as studio_app
from hermes_studio.main_window import LAZY_TABS, VIEWS, MainWindow
from hermes_studio.memory import MemoryEditors
from hermes_studio.sessions import SessionsPanel
from hermes_studio.versions import VersionsPanel

PANELS = {"memory": MemoryEditors, "history": VersionsPanel, "sessions": SessionsPanel}


@pytest.fixture
def home(home):
    home.memory_file.write_text("alpha\n§\nbeta", encoding="utf-8")
    home.user_file.write_text("Name: Dana", encoding="utf-8")
    return home


@pytest.fixture
def window(qtbot, home):
    win = MainWindow(home, view="graph")
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.graph.ready and len(win.workspace.statuses) == 2, timeout=20000)
    yield win
    win.close()


def test_a_window_opened_on_the_graph_makes_no_lazy_tab(window):
    assert window.current_view() == "graph"
    assert all(window.made(view) is None for view in LAZY_TABS)
    # the tab bar still lists every view, in order
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "Learning graph", "Memory", "Inbox", "Changes", "History", "Sessions"]


@pytest.mark.parametrize("view", sorted(LAZY_TABS))
def test_clicking_a_lazy_tab_makes_it_in_place(qtbot, window, view):
    index = VIEWS.index(view)
    qtbot.mouseClick(window.tabs.tabBar(), Qt.MouseButton.LeftButton,
                     pos=window.tabs.tabBar().tabRect(index).center())
    panel = window.made(view)
    assert isinstance(panel, PANELS[view])
    assert window.tabs.widget(index) is panel
    assert window.tabs.currentWidget() is panel and panel.isVisible()
    assert window.current_view() == view
    assert window.tabs.tabText(index) == LAZY_TABS[view]
    # made once: going away and back shows the same panel
    window.set_view("graph")
    window.set_view(view)
    assert window.made(view) is panel and window.tabs.widget(index) is panel


def test_a_lazily_made_memory_tab_edits_and_joins_the_undo_history(qtbot, window, home):
    editor = window.open_memory("memory")
    assert window.made("memory") is window.memory
    # the stores were read at start: the editor shows them at once, without another read
    assert editor.document.texts() == ["alpha", "beta"]
    card = editor.document.cards[0]
    editor.document.set_text(card.uid, "alpha, edited")
    with qtbot.waitSignal(editor.sig_saved, timeout=10000):
        editor.save()
    qtbot.waitUntil(lambda: "alpha, edited" in home.memory_file.read_text(encoding="utf-8"), timeout=5000)
    assert window.undo_text() == "&Undo save MEMORY.md"


def test_asking_for_a_lazy_tab_makes_it_without_showing_it(window):
    versions = window.versions  # e.g. a node's "History" link asks for it
    assert isinstance(versions, VersionsPanel)
    assert window.current_view() == "graph"
    assert window.tabs.widget(VIEWS.index("history")) is versions


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_renders_in_a_screenshot(qapp, capsys, home, tmp_path, view):
    out = tmp_path / f"{view}.png"
    seen = []
    real = studio_app.MainWindow

    class Recording(real):
        def grab(self, *args):
            seen.append((self.current_view(), self.tabs.currentWidget()))
            return super().grab(*args)

    studio_app.MainWindow = Recording
    try:
        code = studio_app.main(["--home", str(home.path), "--view", view, "--screenshot", str(out)])
    finally:
        studio_app.MainWindow = real
    assert code == 0, capsys.readouterr().err
    image = QImage(str(out))
    assert not image.isNull() and image.width() > 0
    [(shown, widget)] = seen
    assert shown == view
    if view in LAZY_TABS:
        assert isinstance(widget, PANELS[view])
