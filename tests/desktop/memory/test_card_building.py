"""Entry cards are made only once their column shows, a few per turn of the event loop, and
an editor outside a shown window still makes them at once."""

from __future__ import annotations

from hermes_memory.memory.entries import ENTRY_DELIMITER
from hermes_studio.main_window import MainWindow
from hermes_studio.memory import card_list

ENTRIES = [f"Fact {i}: the build of service {i} runs on runner-{i} and takes {i} minutes." for i in range(30)]


def test_cards_wait_for_the_memory_tab_then_arrive_in_slices(qtbot, home, monkeypatch):
    home.memory_file.write_text(ENTRY_DELIMITER.join(ENTRIES), encoding="utf-8")
    home.user_file.write_text("Name: Dana", encoding="utf-8")
    monkeypatch.setattr(card_list, "BUILD_SLICE_MS", 0)  # one card a turn: the slicing shows
    window = MainWindow(home, view="graph")
    qtbot.addWidget(window)
    window.show()
    editor = window.memory.editors["memory"]
    qtbot.waitUntil(lambda: editor.status is not None and len(editor.document.cards) == 30, timeout=10000)
    qtbot.wait(50)
    assert editor.card_list.cards == {} and not editor.card_list.complete  # nobody sees them yet

    built = []
    editor.card_list.sig_built.connect(lambda: built.append(len(editor.card_list.cards)))
    window.set_view("memory")
    assert 0 < len(editor.card_list.cards) < 30  # the first ones at once, the rest later
    qtbot.waitUntil(lambda: bool(built), timeout=10000)
    assert built == [30] and editor.card_list.complete
    numbers = [editor.card_at(i).number_label.text() for i in range(30)]
    assert numbers == [f"#{i + 1}" for i in range(30)]
    assert [editor.card_at(i).text() for i in range(30)] == ENTRIES  # in document order
    window.close()


def test_typing_while_cards_arrive_is_kept(qtbot, home, monkeypatch):
    home.memory_file.write_text(ENTRY_DELIMITER.join(ENTRIES), encoding="utf-8")
    monkeypatch.setattr(card_list, "BUILD_SLICE_MS", 0)
    window = MainWindow(home, view="graph")
    qtbot.addWidget(window)
    window.show()
    editor = window.memory.editors["memory"]
    qtbot.waitUntil(lambda: len(editor.document.cards) == 30, timeout=10000)
    window.set_view("memory")
    first = editor.card_list.cards[editor.document.cards[0].uid]
    first.text_edit.setFocus()
    first.text_edit.moveCursor(first.text_edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(first.text_edit, " Typed.")
    qtbot.waitUntil(lambda: editor.card_list.complete, timeout=10000)
    assert first.text() == ENTRIES[0] + " Typed."
    assert editor.document.cards[0].text == ENTRIES[0] + " Typed."
    assert editor.dirty
    editor.document.undo_stack.clear()  # close without the unsaved-edits question
    editor.document.revert()
    editor.document.undo_stack.clear()
    window.close()


def test_an_editor_outside_a_shown_window_makes_every_card_at_once(make_editor):
    editor = make_editor("memory")
    assert editor.card_list.complete
    assert len(editor.card_list.cards) == len(editor.document.cards)
