"""View ▸ one entry and one shortcut per tab, and no two actions of the window on one key."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMessageBox, QTableWidget

from hermes_memory.home import HermesHome
from hermes_studio import app as studio_app
from hermes_studio import menus
from hermes_studio.main_window import VIEWS, MainWindow

TAB_KEYS = [Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_5, Qt.Key.Key_6]


@pytest.fixture
def window(qtbot, monkeypatch, tmp_path) -> MainWindow:
    target = tmp_path / "demo-home"
    shutil.copytree(studio_app.bundled_demo_home(), target)
    monkeypatch.setattr(QMessageBox, "exec", lambda box: int(QMessageBox.StandardButton.Discard.value))
    window = MainWindow(HermesHome.resolve(target))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.graph.ready, timeout=20000)
    yield window
    window.close()


def key_text(sequence: QKeySequence | str) -> str:
    return QKeySequence(sequence).toString(QKeySequence.SequenceFormat.PortableText)


def test_the_view_menu_has_every_tab_in_tab_order_and_ctrl_n_shows_the_nth(window, qtbot):
    assert list(menus.TAB_COMMANDS) == list(VIEWS)  # one entry per tab, none left out
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    listed = [a.objectName() for a in view_menu.actions() if a.objectName().startswith("view.")]
    assert listed[: len(VIEWS)] == [f"view.{view}" for view in VIEWS]
    tab_texts = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    for number, view in enumerate(VIEWS):
        action = window.commands.actions[f"view.{view}"]
        assert key_text(action.shortcut()) == f"Ctrl+{number + 1}"
        # the entry names its tab (the Inbox tab's title carries its count)
        assert action.text().replace("&", "").split()[-1].lower() in tab_texts[number].lower()

    window.graph.search.setFocus()  # the keys work wherever the focus is
    for number in (3, 4, 5, 2, 0, 1):
        qtbot.keyClick(window.focusWidget() or window, TAB_KEYS[number], Qt.KeyboardModifier.ControlModifier)
        assert window.current_view() == VIEWS[number]
        assert window.tabs.currentIndex() == number
        for view in VIEWS:  # exactly one tab entry ticked: the shown one
            assert window.commands.actions[f"view.{view}"].isChecked() == (view == VIEWS[number])

    window.commands.actions["view.sessions"].trigger()  # the menu entry itself
    assert window.current_view() == "sessions"
    view_menu.aboutToShow.emit()
    assert window.commands.actions["view.sessions"].isChecked()


def test_the_tabs_are_in_the_palette_and_the_shortcut_list(window, qtbot):
    labels = {item.label: item.detail for item in menus.palette_items(window, window.commands)}
    assert labels["Changes"] == "Ctrl+4" and labels["History"] == "Ctrl+5" and labels["Sessions"] == "Ctrl+6"
    window.commands.actions["help.shortcuts"].trigger()
    table = window.shortcuts_dialog.findChild(QTableWidget)
    rows = {(table.item(r, 1).text(), table.item(r, 2).text()) for r in range(table.rowCount())}
    assert {("Changes", "Ctrl+4"), ("History", "Ctrl+5"), ("Sessions", "Ctrl+6"), ("Inbox", "Ctrl+3")} <= rows
    window.shortcuts_dialog.reject()


def test_no_two_actions_of_the_window_share_a_key(window):
    """The window's own keys are each declared once, and no widget inside claims one of them
    (an ambiguous shortcut fires neither action in Qt)."""
    registry = window.commands
    declared = Counter(key_text(key) for command in registry.commands.values() for key in command.shortcuts)
    assert [key for key, count in declared.items() if count > 1] == []
    own = set(registry.actions.values())
    elsewhere: dict[str, str] = {}
    for action in window.findChildren(QAction):
        if action not in own and action.isEnabled():
            for sequence in action.shortcuts():
                elsewhere[key_text(sequence)] = action.objectName() or action.text()
    for shortcut in window.findChildren(QShortcut):
        if shortcut.isEnabled():
            elsewhere[key_text(shortcut.key())] = shortcut.objectName() or "QShortcut"
    clashes = {key: elsewhere[key] for key in declared if key in elsewhere}
    assert clashes == {}
