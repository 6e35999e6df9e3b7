"""A live agent process writes every 100 ms while a person types, edits and saves."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from pathlib import Path

import pytest
from memory_editor_helpers import ENTRIES, disk
from PySide6.QtWidgets import QApplication

from hermes_memory.memory.entries import parse_entries, serialise_entries

AGENT_WRITES = 25
INTERVAL = 0.1
WRITER = Path(__file__).with_name("agent_writer.py")


def start_agent(home, *args: str) -> subprocess.Popen:
    agent = subprocess.Popen(
        [sys.executable, str(WRITER), str(home.path), *args], stdout=subprocess.PIPE, text=True
    )
    assert agent.stdout.readline().strip() == "ready"
    return agent


def finish_agent(agent: subprocess.Popen) -> None:
    try:
        assert agent.wait(timeout=30) == 0
        assert agent.stdout.read().strip().endswith("done")
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()
        agent.stdout.close()


def _finish_pending(qtbot, editor, deadline: float) -> None:
    """Save until the editor holds nothing unsaved."""
    while editor.has_unsaved_work():
        assert time.monotonic() < deadline, "the editor never managed to save"
        assert not editor.conflicts, "the agent only added entries: nothing can conflict"
        editor.save_action.trigger()
        qtbot.waitUntil(lambda: not editor.busy, timeout=5000)
        qtbot.wait(20)  # let a disk event that raced the save arrive


@pytest.mark.slow
def test_every_entry_from_both_sides_survives_a_live_writer(
    qtbot, seeded_home, write_config, make_editor
):
    write_config("memory:\n  memory_char_limit: 20000\n")
    editor = make_editor("memory")
    agent = start_agent(seeded_home, str(AGENT_WRITES), str(INTERVAL))
    try:
        deadline = time.monotonic() + 30
        # Edit one entry, remove one, merge two, add one, reorder: with the agent writing.
        editor.document.set_text(editor.document.cards[0].uid, "Project uses pnpm 9, not npm")
        qtbot.wait(150)
        doomed = next(c.uid for c in editor.document.cards if c.text == ENTRIES[3])
        editor.document.remove([doomed])
        qtbot.wait(150)
        pair = [c.uid for c in editor.document.cards if c.text in (ENTRIES[1], ENTRIES[2])]
        merged_uid = editor.document.merge(pair)
        editor.document.set_text(merged_uid, "macOS 14 + zsh; CI on GitHub Actions, nightly")
        qtbot.wait(150)
        editor.document.add_card(0, "Person: release notes are written in British English")
        _finish_pending(qtbot, editor, deadline)

        # A second round once the first save is in, still racing the agent.
        qtbot.wait(200)
        first = next(c.uid for c in editor.document.cards if c.text.startswith("Agent fact"))
        editor.document.move(first, -1)
        _finish_pending(qtbot, editor, deadline)
    finally:
        finish_agent(agent)
    _finish_pending(qtbot, editor, time.monotonic() + 10)

    raw = disk(seeded_home)
    entries = parse_entries(raw)
    qtbot.waitUntil(lambda: editor.document.texts() == entries, timeout=5000)
    assert raw == serialise_entries(entries), "the file is not canonical"
    assert len(entries) == len(set(entries))
    agent_entries = {f"Agent fact {n}: noted while the person edited" for n in range(AGENT_WRITES)}
    assert agent_entries <= set(entries), agent_entries - set(entries)
    person = {
        "Person: release notes are written in British English",
        "Project uses pnpm 9, not npm",
        "macOS 14 + zsh; CI on GitHub Actions, nightly",
    }
    assert person <= set(entries)
    assert not set(ENTRIES) & set(entries)  # edited, merged or removed by the person
    assert len(entries) == AGENT_WRITES + len(person)
    assert not editor.dirty and not editor.conflicts


def _typing(qtbot, edit, typed: list[str]):
    """Type three characters into ``edit`` through Qt's key events, then let events in."""
    letters = itertools.cycle("abcdefghij klmnopqrstuvwxyz")

    def step() -> None:
        chunk = "".join(next(letters) for _ in range(3))
        qtbot.keyClicks(edit, chunk)
        typed.append(chunk)
        qtbot.wait(15)

    return step


@pytest.mark.slow
def test_no_keystroke_is_lost_while_the_agent_writes_other_entries_and_the_same_one(
    qtbot, seeded_home, write_config, make_editor
):
    write_config("memory:\n  memory_char_limit: 20000\n")
    editor = make_editor("memory")
    with qtbot.waitActive(editor, timeout=5000):
        editor.show()
        editor.activateWindow()
    card = editor.card_at(1)  # "User runs macOS 14 with zsh"
    edit = card.text_edit
    edit.setFocus()
    edit.moveCursor(edit.textCursor().MoveOperation.End)
    typed: list[str] = []
    type_some = _typing(qtbot, edit, typed)
    folds: list[str] = []
    editor.sig_reloaded.connect(folds.append)

    # 1. The agent adds an entry every 100 ms while the person types without a pause.
    agent = start_agent(seeded_home, str(AGENT_WRITES), str(INTERVAL))
    try:
        while agent.poll() is None:
            type_some()
            assert QApplication.focusWidget() is edit, "focus was taken while typing"
            assert editor.conflict_bar.isHidden() and not editor.conflicts
    finally:
        finish_agent(agent)
    qtbot.waitUntil(lambda: len(editor.document.cards) == len(ENTRIES) + AGENT_WRITES, timeout=5000)
    assert len(folds) >= 3, "the agent's entries should arrive while the person types"
    assert editor.card_at(1) is card  # the same widget throughout

    # 2. Separately, the agent rewrites the very entry being typed into.
    agent_version = "User runs macOS 15 with fish (agent)"
    replacer = start_agent(seeded_home, "--replace", "macOS 14", agent_version)
    finish_agent(replacer)
    deadline = time.monotonic() + 5
    while not editor.conflicts:
        assert time.monotonic() < deadline, "the agent's change never reached the editor"
        type_some()
    for _ in range(30):  # keep typing: the conflict waits, focus stays
        type_some()
        assert editor.conflict_bar.isHidden() and QApplication.focusWidget() is edit
    with qtbot.waitSignal(editor.sig_conflicts_shown, timeout=4000):
        pass  # the person pauses
    assert QApplication.focusWidget() is edit

    mine = ENTRIES[1] + "".join(typed)
    assert edit.toPlainText() == mine
    editor.conflict_bar.button("Keep both").click()  # the merge rule's default for a conflict
    with qtbot.waitSignal(editor.sig_saved, timeout=5000):
        editor.save_action.trigger()

    agent_entries = [
        f"Agent fact {n}: noted while the person edited" for n in range(AGENT_WRITES)
    ]
    expected = [ENTRIES[0], mine.strip(), agent_version, *ENTRIES[2:], *agent_entries]
    assert disk(seeded_home) == serialise_entries(expected)
    assert editor.document.texts()[1] == mine and not editor.dirty
