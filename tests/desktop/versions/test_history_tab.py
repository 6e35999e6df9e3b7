"""The History tab driven with the mouse and keyboard on a real home with recorded
versions: lists, diffs between any two versions, Restore and one Undo, for a store, an
entry and a skill, with a real agent process writing meanwhile; and a damaged history."""

from __future__ import annotations

import versions_helpers as seeded
from PySide6.QtCore import QPoint, Qt

from hermes_memory.history.storage import HistoryStore
from hermes_studio.main_window import VIEWS


def row_point(tree, row: int) -> QPoint:
    return tree.visualItemRect(tree.topLevelItem(row)).center()


def click_row(qtbot, panel, row: int, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, modifier, row_point(panel.tree, row))


def choose_subject(qtbot, panel, text: str) -> None:
    """Step through the "Versions of" box with the arrow keys until ``text`` is chosen."""
    box = panel.subject_box
    box.setFocus()
    for _ in range(box.count()):
        if box.currentText().startswith(text):
            return
        qtbot.keyClick(box, Qt.Key.Key_Down)
    raise AssertionError(f"no subject {text!r} in {[box.itemText(i) for i in range(box.count())]}")


def diff_text(panel) -> str:
    return panel.diff_view.toPlainText()


def wait_diff(qtbot, panel, needle: str) -> None:
    qtbot.waitUntil(lambda: needle in diff_text(panel), timeout=5000)


def test_store_versions_diffs_and_keyboard(qtbot, window):
    panel = window.versions
    assert VIEWS[window.tabs.currentIndex()] == "history" and window.tabs.tabText(window.tabs.currentIndex()) == "History"
    qtbot.waitUntil(lambda: len(panel.items) == 4, timeout=5000)  # 2 adds, an add, a replace
    assert [i["kind"] for i in panel.items] == ["memory"] * 4
    assert all(panel.tree.topLevelItem(r).text(2) for r in range(4))  # origin shown
    wait_diff(qtbot, panel, "5434 since the move")  # the newest version is selected: the edit
    assert "changed" in diff_text(panel)

    panel.tree.setFocus()
    qtbot.keyClick(panel.tree, Qt.Key.Key_Down)  # the version before it: ADDED came in
    wait_diff(qtbot, panel, "added: " + seeded.ADDED)

    click_row(qtbot, panel, 3)  # the first version, and Ctrl+click the newest: the two compared
    click_row(qtbot, panel, 0, Qt.KeyboardModifier.ControlModifier)
    assert len(panel.selected_items()) == 2 and not panel.restore_button.isEnabled()
    wait_diff(qtbot, panel, "From ")
    text = diff_text(panel)
    assert seeded.ADDED in text and "5434" in text and seeded.FIRST[0] not in text  # only what differs

    click_row(qtbot, panel, 3)
    panel.compare_box.setFocus()
    qtbot.keyClick(panel.compare_box, Qt.Key.Key_Down)  # with now
    wait_diff(qtbot, panel, "to now")
    assert seeded.ADDED in diff_text(panel)

    choose_subject(qtbot, panel, "USER.md")  # the other store, by keyboard
    qtbot.waitUntil(lambda: panel.subject == ("store", "user") and len(panel.items) == 1, timeout=5000)
    wait_diff(qtbot, panel, "No difference")  # still compared with now: USER.md is unchanged since
    choose_subject(qtbot, panel, f"skill: {seeded.SKILL}")
    qtbot.waitUntil(lambda: panel.subject == ("skill", seeded.SKILL) and len(panel.items) == 2, timeout=5000)


def test_restore_a_store_version_then_undo_restores_the_bytes(qtbot, window, history_home):
    panel = window.versions
    qtbot.waitUntil(lambda: len(panel.items) == 4, timeout=5000)
    before = history_home.memory_file.read_bytes()
    click_row(qtbot, panel, 2)  # the version with the two first entries and nothing else
    qtbot.waitUntil(panel.restore_button.isEnabled, timeout=3000)
    with qtbot.waitSignal(panel.sig_restored, timeout=10000) as restored:
        qtbot.mouseClick(panel.restore_button, Qt.MouseButton.LeftButton)
    assert restored.args[0]["ok"], restored.args[0]
    assert history_home.memory_file.read_bytes() == seeded.expected_bytes(seeded.FIRST)
    assert "Undo" in panel.banner.text()
    assert window.history.stack.canUndo()

    assert window.undo_text().startswith("&Undo restore MEMORY.md to ")
    panel.tree.setFocus()
    qtbot.keyClick(panel.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Edit ▸ Undo
    qtbot.waitUntil(lambda: history_home.memory_file.read_bytes() == before, timeout=10000)
    qtbot.waitUntil(lambda: len(panel.items) == 6, timeout=5000)  # the restore and its undo are versions too


def test_restoring_an_entry_while_the_agent_writes_loses_nothing(qtbot, window, history_home):
    panel = window.versions
    window.set_view("memory")
    card = window.memory.editors["memory"]
    qtbot.waitUntil(lambda: card.status is not None and card.card_list.complete, timeout=5000)
    # the card's History button opens that entry's lineage
    from hermes_studio.memory.card import EntryCard

    def edited_cards():
        return [c for c in card.findChildren(EntryCard) if c.text() == seeded.EDITED]

    qtbot.waitUntil(lambda: bool(edited_cards()), timeout=5000)  # cards are made a few per turn
    cards = edited_cards()
    qtbot.mouseClick(cards[0].history_button, Qt.MouseButton.LeftButton)
    assert window.current_view() == "history"
    qtbot.waitUntil(lambda: panel.subject[0] == "entry" and len(panel.items) == 2, timeout=5000)
    assert [i["step"] for i in panel.items] == ["changed", "added"]
    wait_diff(qtbot, panel, "5434")

    agent = seeded.run_agent(history_home, 5, 0.1)
    click_row(qtbot, panel, 1)  # its first text, "port 5433"
    qtbot.waitUntil(panel.restore_button.isEnabled, timeout=3000)
    panel.tree.setFocus()
    with qtbot.waitSignal(panel.sig_restored, timeout=10000) as restored:
        qtbot.keyClick(panel.tree, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert restored.args[0]["ok"], restored.args[0]
    written = seeded.agent_lines(agent)
    assert len(written) == 5
    # exactly the old text back in place of the edit, and every note the agent wrote
    assert history_home.memory_file.read_bytes() == seeded.expected_bytes(
        [seeded.FIRST[0], seeded.FIRST[1], seeded.ADDED] + written)

    window.undo()  # one Undo: the edit comes back, the agent's notes stay
    expected = seeded.expected_bytes([seeded.FIRST[0], seeded.EDITED, seeded.ADDED] + written)
    qtbot.waitUntil(lambda: history_home.memory_file.read_bytes() == expected, timeout=10000)


def test_skill_history_from_the_graph_details_restore_and_undo(qtbot, window, history_home):
    panel = window.versions
    skill_md = next(history_home.skills_dir.rglob("SKILL.md"))
    assert skill_md.read_text(encoding="utf-8") == seeded.SKILL_V2
    window.show_node_history(seeded.SKILL)  # what the details pane's History button does
    qtbot.waitUntil(lambda: panel.subject == ("skill", seeded.SKILL) and len(panel.items) == 2, timeout=5000)
    wait_diff(qtbot, panel, "+## Pitfalls")
    click_row(qtbot, panel, 1)
    with qtbot.waitSignal(panel.sig_restored, timeout=10000) as restored:
        qtbot.mouseClick(panel.restore_button, Qt.MouseButton.LeftButton)
    assert restored.args[0]["ok"], restored.args[0]
    assert skill_md.read_text(encoding="utf-8") == seeded.SKILL_V1
    window.undo()
    qtbot.waitUntil(lambda: skill_md.read_text(encoding="utf-8") == seeded.SKILL_V2, timeout=10000)


def test_graph_details_history_button(qtbot, history_home):
    from hermes_studio.main_window import MainWindow

    window = MainWindow(history_home, view="graph")
    qtbot.addWidget(window)
    window.show()
    assert window.graph.wait_ready(20000)
    node = next(i for i in window.graph.data.ids if i.startswith("memory:memory:"))
    window.graph.open_node(node)
    button = window.graph.details.history_button
    assert button.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert window.current_view() == "history"
    qtbot.waitUntil(lambda: bool(window.versions.subject[0] == "entry" and window.versions.items), timeout=5000)
    window.close()


def test_a_damaged_history_shows_a_clear_state_and_the_app_works(qtbot, history_home):
    from hermes_studio.main_window import MainWindow

    store = HistoryStore(history_home)
    lines = store.events_path.read_bytes().split(b"\n")
    store.events_path.write_bytes(b"\n".join(lines[:2] + [b"{not json", b"\xff\xfe garbage"] + lines[2:]))
    window = MainWindow(history_home, view="history")
    qtbot.addWidget(window)
    window.show()
    panel = window.versions
    qtbot.waitUntil(lambda: "damaged line" in panel.header.text(), timeout=10000)
    assert panel.items  # the good versions are still listed
    qtbot.waitUntil(lambda: window.changes.ready, timeout=10000)  # its capture at opening is done

    store.events_path.unlink()
    store.events_path.mkdir()  # unreadable as a file
    before = history_home.memory_file.read_bytes()
    panel.reload()
    qtbot.waitUntil(lambda: "Could not read the history" in panel.header.text(), timeout=10000)
    assert not panel.items and not panel.restore_button.isEnabled()
    window.set_view("memory")  # the rest of the app works
    editor = window.memory.editors["memory"]
    qtbot.waitUntil(lambda: editor.status is not None and editor.status.error is None, timeout=5000)
    assert window.graph.wait_ready(20000) and window.graph.error is None
    assert history_home.memory_file.read_bytes() == before
    window.close()


def test_a_store_restore_while_the_agent_writes_keeps_every_agent_note(qtbot, window, history_home):
    """Restoring a whole version drops what came after it, the agent's notes too; they are
    in history, and the one Undo brings them back beside whatever the agent wrote since."""
    panel = window.versions
    qtbot.waitUntil(lambda: len(panel.items) == 4, timeout=5000)
    two_entries = panel.items[2]["id"]
    agent = seeded.run_agent(history_home, 6, 0.12)
    qtbot.waitUntil(lambda: len(seeded.entries(history_home)) >= 4, timeout=5000)  # it has begun
    # the list grows with the agent's versions (recorded as they land); find the row again
    click_row(qtbot, panel, next(r for r, item in enumerate(panel.items) if item["id"] == two_entries))
    assert panel.selected_items()[0]["entry_count"] == 2
    with qtbot.waitSignal(panel.sig_restored, timeout=10000) as restored:
        qtbot.mouseClick(panel.restore_button, Qt.MouseButton.LeftButton)
    assert restored.args[0]["ok"], restored.args[0]
    written = seeded.agent_lines(agent)
    after_restore = seeded.entries(history_home)
    assert after_restore[:2] == seeded.FIRST
    later = after_restore[2:]  # what the agent wrote after the restore, in order
    assert later == written[len(written) - len(later):]
    assert history_home.memory_file.read_bytes() == seeded.expected_bytes(seeded.FIRST + later)

    window.undo()
    qtbot.waitUntil(lambda: seeded.EDITED in seeded.entries(history_home), timeout=10000)
    final = seeded.entries(history_home)
    assert sorted(final) == sorted([seeded.FIRST[0], seeded.EDITED, seeded.ADDED] + written)  # each once


def test_a_long_history_is_listed_a_page_at_a_time(qtbot, history_home, monkeypatch):
    from hermes_studio.main_window import MainWindow
    from hermes_studio.versions import panel as panel_module

    monkeypatch.setattr(panel_module, "PAGE", 3)  # four versions of MEMORY.md: two pages
    window = MainWindow(history_home, view="history")
    qtbot.addWidget(window)
    window.show()
    panel = window.versions
    qtbot.waitUntil(lambda: len(panel.items) == 3 and panel.more_button.isVisible(), timeout=10000)
    assert "the newest 3 listed" in panel.header.text()
    qtbot.mouseClick(panel.more_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(panel.items) == 4, timeout=5000)
    assert not panel.more_button.isVisible() and panel.items[-1]["entry_count"] == 1
    window.close()
