"""The habits of a desktop app, on the real window over a copy of the demo home: one
registry of actions (menus, shortcuts, the palette), one undo stack through the engine,
settings remembered between launches, themes, a narrow window, accessible names."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QTableWidget

from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import char_count
from hermes_memory.memory.store import MemoryStore
from hermes_memory.skills import read_usage
from hermes_studio import app as studio_app
from hermes_studio import menus
from hermes_studio.graph.style import DARK_CANVAS, LIGHT_CANVAS
from hermes_studio.main_window import MainWindow
from hermes_studio.settings import Settings, settings_file
from hermes_studio.theme import DARK, LIGHT


@pytest.fixture
def demo_home(tmp_path) -> HermesHome:
    target = tmp_path / "demo-home"
    shutil.copytree(studio_app.bundled_demo_home(), target)
    return HermesHome.resolve(target)


@pytest.fixture
def keep_app_theme(qapp):
    saved = (qapp.style().name(), qapp.palette(), qapp.styleSheet(), qapp.property("hermes_theme_mode"))
    yield
    qapp.setStyle(saved[0])
    qapp.setPalette(saved[1])
    qapp.setStyleSheet(saved[2])
    qapp.setProperty("hermes_theme_mode", saved[3])


@pytest.fixture
def make_window(open_window, discard_on_close, keep_app_theme):
    return open_window


@pytest.fixture
def window(make_window, demo_home) -> MainWindow:
    return make_window(demo_home)


# --- one registry: menus, shortcuts and the palette ---------------------------------------------
def test_every_menu_item_and_the_palette_come_from_the_one_registry(window, qtbot):
    registry = window.commands
    in_menus = [a for menu in window.menuBar().actions() for a in menu.menu().actions() if not a.isSeparator()]
    assert all(action in registry.actions.values() for action in in_menus)
    assert window.quit_action is registry.actions["file.quit"]
    items = menus.palette_items(window, registry)
    names = {item.label for item in items}
    for command in registry.palette_commands():
        assert (command.text() if command.text else command.name).replace("&", "") in names
    assert any(label == "Skill: alembic-migration" for label in names)
    assert any(label.startswith("Entry: ") for label in names)
    # A shortcut from the registry works wherever the focus is: Ctrl+2 shows the memory tab.
    window.graph.search.setFocus()
    qtbot.keyClick(window.graph.search, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.current_view() == "memory"
    assert registry.actions["view.memory"].isChecked()


def test_the_palette_runs_an_action_and_jumps_to_a_skill_and_an_entry(window, qtbot):
    palette = menus.open_palette(window)
    qtbot.keyClicks(palette.query, "memory")
    shown = [item.label for item in palette.shown()]
    assert shown[0] == "Memory"  # the action named so, first
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    assert window.current_view() == "memory"

    palette = menus.open_palette(window)
    qtbot.keyClicks(palette.query, "alembic")
    assert palette.shown()[0].label == "Skill: alembic-migration"
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    assert window.current_view() == "graph"
    assert window.graph.view.selected_id() == "alembic-migration"

    editor = window.memory.editors["user"]
    card = editor.document.cards[1]
    palette = menus.open_palette(window)
    qtbot.keyClicks(palette.query, card.text.split()[0] + " " + card.text.split()[1])
    row = next(i for i, item in enumerate(palette.shown()) if "USER.md #2" in item.detail)
    palette.list.setCurrentRow(row)
    qtbot.keyClick(palette.query, Qt.Key.Key_Return)
    assert window.current_view() == "memory" and window.memory.current_target() == "user"
    assert QApplication.focusWidget() is editor.card_list.cards[card.uid].text_edit


def test_edit_find_searches_the_graph_or_finds_an_entry(window, qtbot):
    window.commands.actions["edit.find"].trigger()
    assert QApplication.focusWidget() is window.graph.search
    window.set_view("memory")
    window.commands.actions["edit.find"].trigger()
    assert window.palette_dialog.windowTitle() == "Find a memory entry"
    assert all(item.label.startswith("Entry: ") for item in window.palette_dialog.shown())
    window.palette_dialog.reject()


def test_keyboard_shortcuts_lists_every_declared_shortcut(window):
    window.commands.actions["help.shortcuts"].trigger()
    dialog = window.shortcuts_dialog
    table = dialog.findChild(QTableWidget)
    rows = {(table.item(r, 1).text(), table.item(r, 2).text()) for r in range(table.rowCount())}
    assert ("Command palette…", "Ctrl+K") in rows and ("Open home…", "Ctrl+O") in rows
    assert ("Save", "Ctrl+S") in rows
    dialog.reject()


# --- one undo stack, through the engine ---------------------------------------------------------
def undo_via_menu(window, qtbot, verb: str = "undo") -> None:
    action = window.commands.actions[f"edit.{verb}"]
    window.commands.refresh()
    assert action.isEnabled(), f"Edit ▸ {verb} is off"
    with qtbot.waitSignal(window.history.sig_report, timeout=5000) as report:
        action.trigger()
    assert report.args[1], report.args[0]


def test_undo_and_redo_pin_unpin_and_archive_from_the_graph(window, demo_home, qtbot):
    panel = window.graph
    name = "flaky-test-hunt"
    assert read_usage(demo_home).record(name)["pinned"] is False
    with qtbot.waitSignal(panel.sig_action_done, timeout=5000):
        panel.set_pinned(name, True)
    assert read_usage(demo_home).record(name)["pinned"] is True
    window.commands.refresh()
    assert window.commands.actions["edit.undo"].text().startswith("&Undo pinned")
    undo_via_menu(window, qtbot)
    assert read_usage(demo_home).record(name)["pinned"] is False
    undo_via_menu(window, qtbot, "redo")
    assert read_usage(demo_home).record(name)["pinned"] is True
    undo_via_menu(window, qtbot)  # unpinned again, so it can be archived

    with qtbot.waitSignal(panel.sig_action_done, timeout=5000):
        panel.archive_skill(name, confirm=False)
    assert read_usage(demo_home).record(name)["state"] == "archived"
    window.set_view("memory")  # Ctrl+Z means the same in every tab
    undo_via_menu(window, qtbot)
    assert read_usage(demo_home).record(name)["state"] == "active"
    qtbot.waitUntil(lambda: name in panel.data.index, timeout=10000)


def test_undo_an_edit_of_a_memory_from_the_graph(window, demo_home, qtbot):
    panel = window.graph
    before = MemoryStore(demo_home).read_entries("memory")
    node_id = next(i for i in panel.data.ids if i.startswith("memory:memory:6:"))
    panel.open_node(node_id)
    qtbot.waitUntil(lambda: panel.details.detail is not None and panel.details.node_id() == node_id)
    panel.edit_node(node_id)
    dialog = panel._editor
    dialog.editor.setPlainText(before[6] + " (checked)")
    with qtbot.waitSignal(panel.sig_action_done, timeout=5000):
        dialog.save_button.click()
    assert MemoryStore(demo_home).read_entries("memory")[6] == before[6] + " (checked)"
    undo_via_menu(window, qtbot)
    assert MemoryStore(demo_home).read_entries("memory") == before
    undo_via_menu(window, qtbot, "redo")
    assert MemoryStore(demo_home).read_entries("memory")[6] == before[6] + " (checked)"


def test_undo_a_save_reverts_the_file_and_keeps_what_the_agent_wrote_meanwhile(
    window, demo_home, qtbot
):
    store = MemoryStore(demo_home)
    before = store.read_entries("user")
    editor = window.open_memory("user")
    edit = editor.card_at(0).text_edit
    edit.setFocus()
    edit.moveCursor(edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(edit, " (verified)")
    with qtbot.waitSignal(editor.sig_saved, timeout=5000):
        editor.save_action.trigger()
    assert store.read_entries("user")[0] == before[0] + " (verified)"
    with qtbot.waitSignal(editor.sig_reloaded, timeout=5000):
        store.add("user", "Agent: prefers short answers")
    window.commands.refresh()
    assert window.commands.actions["edit.undo"].text() == "&Undo save USER.md"
    undo_via_menu(window, qtbot)
    assert store.read_entries("user") == [*before, "Agent: prefers short answers"]
    qtbot.waitUntil(lambda: editor.document.texts() == store.read_entries("user"), timeout=5000)
    assert not editor.dirty
    # The typing is the next step back: the draft, not the file.
    window.commands.refresh()
    assert window.commands.actions["edit.undo"].text().startswith("&Undo edit entry")


def test_a_refused_undo_says_why_and_keeps_the_history(window, demo_home, qtbot):
    panel = window.graph
    node_id = next(i for i in panel.data.ids if i.startswith("memory:memory:3:"))
    text = panel.data.node(node_id)["label"]
    with qtbot.waitSignal(panel.sig_action_done, timeout=5000):
        panel.delete_memory(node_id, confirm=False)
    entries = MemoryStore(demo_home).read_entries("memory")
    # Someone fills the store meanwhile so the entry no longer fits back in.
    limit = 2200
    filler = "x" * (limit - char_count(entries) - 3)
    MemoryStore(demo_home).add("memory", filler)
    window.commands.refresh()
    with qtbot.waitSignal(window.history.sig_report, timeout=5000) as report:
        window.commands.actions["edit.undo"].trigger()
    message, ok = report.args
    assert not ok and "Undo" in message
    assert window.history.stack.canUndo()  # still there to try again
    assert not any(entry.startswith(text[:20]) for entry in MemoryStore(demo_home).read_entries("memory"))


# --- settings remembered between launches ---------------------------------------------------------
def test_settings_live_in_the_test_sandbox(tmp_path_factory):
    import os

    assert str(settings_file()).startswith(os.environ["XDG_CONFIG_HOME"])


def test_geometry_splitters_view_mode_and_filters_are_remembered_per_home(
    make_window, demo_home, qtbot
):
    first = make_window(demo_home)
    first.resize(1300, 850)
    first.set_view("memory")
    first.graph.clusters_button.setChecked(True)
    first.graph.kind_combo.setCurrentIndex(1)  # skills only
    first.graph.pinned_box.setChecked(True)
    first.graph.search.setText("test")
    first.graph.splitter.setSizes([260, 700, 340])
    sizes = first.graph.splitter.sizes()
    first.close()
    assert not first.isVisible()

    second = make_window(demo_home)
    assert (second.width(), second.height()) == (1300, 850)
    assert second.current_view() == "memory"
    assert second.graph.clusters_button.isChecked() and second.graph.mode == "clusters"
    assert second.graph.kind_combo.currentIndex() == 1 and second.graph.pinned_box.isChecked()
    assert second.graph.search.text() == "test"
    second.set_view("graph")  # each splitter takes its sizes once its tab shows
    qtbot.waitUntil(lambda: second.graph.splitter.sizes() == sizes, timeout=2000)


def test_without_home_the_last_home_opens_if_it_still_exists(demo_home, tmp_path, monkeypatch, qapp, capsys):
    opened = []
    real = studio_app.MainWindow
    monkeypatch.setattr(studio_app, "MainWindow", lambda home, **kw: opened.append(home) or real(home, **kw))
    from hermes_studio.graph.homes import RecentHomes

    recent = Settings()
    RecentHomes(recent).add(demo_home)
    recent.flush()
    assert studio_app.main(["--screenshot", str(tmp_path / "a.png")]) == 0
    assert [home.path for home in opened] == [demo_home.path]

    shutil.rmtree(demo_home.path)  # gone: the user's Hermes home, else the demo
    opened.clear()
    assert studio_app.main(["--screenshot", str(tmp_path / "b.png")]) == 0
    assert [home.path for home in opened] == [studio_app.app_data_dir() / "demo-home"]
    assert "opening the demo home" in capsys.readouterr().err


# --- themes ----------------------------------------------------------------------------------------
def contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        channels = []
        for value in QColor(colour).getRgbF()[:3]:
            channels.append(value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4)
        r, g, b_ = channels
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_both_themes_keep_readable_contrast(theme):
    assert contrast(theme.text, theme.surface) >= 7
    assert contrast(theme.muted_text, theme.surface) >= 4.5
    assert contrast(theme.muted_text, theme.window) >= 4.5
    assert contrast(theme.control_border, theme.surface) >= 3  # checkbox outlines
    assert contrast(theme.accent_text, theme.accent) >= 4.5  # the checkbox mark, Save


def test_view_theme_switches_the_app_and_the_graph_canvas(window, qapp, qtbot):
    window.commands.actions["view.theme.dark"].trigger()
    assert qapp.palette().window().color().name() == DARK.window
    assert window.graph.view.style_ is DARK_CANVAS
    assert DARK.control_border in qapp.styleSheet()  # checkboxes drawn with the readable outline
    qtbot.waitUntil(lambda: Settings().theme() == "dark", timeout=3000)  # on disk within a moment
    window.commands.actions["view.theme.light"].trigger()
    assert qapp.palette().window().color().name() == LIGHT.window
    assert window.graph.view.style_ is LIGHT_CANVAS
    assert window.commands.actions["view.theme.light"].isChecked()
    assert not window.commands.actions["view.theme.dark"].isChecked()


def test_theme_flag_and_remembered_theme(run_main_theme, demo_home, tmp_path, qapp):
    code = run_main_theme("--home", str(demo_home.path), "--theme", "dark", "--screenshot", str(tmp_path / "d.png"))
    assert code == 0 and qapp.palette().window().color().name() == DARK.window
    assert Settings().theme() == "dark"


@pytest.fixture
def run_main_theme(keep_app_theme):
    return lambda *argv: studio_app.main(list(argv))


# --- icon, narrow windows, accessibility ------------------------------------------------------------
def test_window_icon_is_the_app_icon(window):
    assert not window.windowIcon().isNull()
    assert window.windowIcon().availableSizes() or window.windowIcon().pixmap(64).width() == 64


def test_a_1024_by_700_window_folds_the_filters_and_clips_nothing(window, qtbot):
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024)
    assert not window.side_panels_shown()
    switcher = window.home_switcher
    assert switcher.isVisible() and switcher.width() >= switcher.sizeHint().width()
    corner = switcher.mapTo(window, switcher.rect().bottomRight())
    assert corner.x() <= window.width() and corner.y() <= window.height()
    window.commands.actions["view.side_panels"].trigger()  # the person can bring it back
    assert window.side_panels_shown()
    window.set_view("memory")
    editor = window.memory.editors["memory"]
    save = editor.save_button.mapTo(window, editor.save_button.rect().bottomRight())
    assert save.x() <= window.width() and editor.save_button.isVisible()
    assert editor.meter.width() > 300


def test_controls_have_accessible_names_and_status_is_said_in_words(window, demo_home, qtbot):
    assert window.home_switcher.accessibleName() == "Home and profile"
    assert window.tabs.accessibleName() == "Views"
    for meter in window.meters.meters.values():
        assert meter.accessibleName().endswith("capacity")
    palette = menus.open_palette(window)
    assert palette.query.accessibleName() and palette.list.accessibleName()
    palette.reject()
    # Focus order in the memory editor: card to card with Tab, in document order.
    editor = window.open_memory("memory")
    first, second = editor.card_at(0).text_edit, editor.card_at(1).text_edit
    first.setFocus()
    qtbot.keyClick(first, Qt.Key.Key_Tab)
    chain = []
    widget = QApplication.focusWidget()
    for _ in range(12):
        chain.append(widget)
        widget = widget.nextInFocusChain()
    assert second in chain


def test_the_canvas_context_menu_and_the_editor_toolbar_come_from_registries(window, demo_home, qtbot):
    registry = window.commands
    menu = menus.node_context_menu(window, registry, "flaky-test-hunt", window.mapToGlobal(window.rect().center()))
    labels = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert labels[0] == "flaky-test-hunt" and not menu.actions()[0].isEnabled()  # the title
    assert {"Open details", "Edit…", "Pin skill", "Archive skill…"} <= set(labels)
    assert "Delete memory…" not in labels and "Unpin skill" not in labels
    menu.close()
    with qtbot.waitSignal(window.graph.sig_action_done, timeout=5000):
        registry.actions["node.pin"].trigger()
    assert read_usage(demo_home).record("flaky-test-hunt")["pinned"] is True
    undo_via_menu(window, qtbot)
    assert read_usage(demo_home).record("flaky-test-hunt")["pinned"] is False

    memory_id = next(i for i in window.graph.data.ids if i.startswith("memory:"))
    menu = menus.node_context_menu(window, registry, memory_id, window.mapToGlobal(window.rect().center()))
    labels = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert "Delete memory…" in labels and "Pin skill" not in labels
    menu.close()

    editor = window.memory.editors["memory"]
    toolbar_actions = [a for a in editor.toolbar.actions() if not a.isSeparator()]
    assert toolbar_actions and all(a in editor.commands.registry.actions.values() for a in toolbar_actions)


def test_entry_cards_name_their_controls_for_assistive_technology(window):
    editor = window.open_memory("memory")
    card = editor.card_at(1)
    count = len(editor.document.cards)
    assert card.text_edit.accessibleName() == f"Entry 2 of {count}"
    assert card.select_box.accessibleName() == "Select entry 2"
    assert card.remove_button.accessibleName() == "Remove this entry"
    assert card.up_button.accessibleName() == "Move up"
