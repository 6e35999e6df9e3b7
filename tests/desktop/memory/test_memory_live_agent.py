"""A live agent process writes every 100 ms while a person edits and saves in the editor."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from memory_editor_helpers import ENTRIES, disk

from hermes_memory.memory.entries import parse_entries, serialise_entries

AGENT_WRITES = 25
INTERVAL = 0.1
WRITER = Path(__file__).with_name("agent_writer.py")


def _finish_pending(qtbot, editor, deadline: float) -> None:
    """Save (or save the offered merge) until the editor holds nothing unsaved."""
    while editor.has_unsaved_work():
        assert time.monotonic() < deadline, "the editor never managed to save"
        if editor.merging:
            editor.save_merge()
        else:
            editor.save_action.trigger()
        qtbot.waitUntil(lambda: not editor.busy, timeout=5000)
        qtbot.wait(20)  # let a disk event that raced the save arrive


def _keep_editing(qtbot, editor) -> None:
    """If the agent's writes brought up the merge, take it into the editor and go on."""
    qtbot.wait(150)
    if editor.merging:
        editor.merge_panel.adopt_button.click()


@pytest.mark.slow
def test_every_entry_from_both_sides_survives_a_live_writer(
    qtbot, seeded_home, write_config, make_editor
):
    write_config("memory:\n  memory_char_limit: 20000\n")
    editor = make_editor("memory")
    agent = subprocess.Popen(
        [sys.executable, str(WRITER), str(seeded_home.path), str(AGENT_WRITES), str(INTERVAL)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert agent.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30

        # Edit one entry, remove one, merge two, add one, reorder: with the agent writing.
        editor.document.set_text(editor.document.cards[0].uid, "Project uses pnpm 9, not npm")
        _keep_editing(qtbot, editor)
        doomed = next(c.uid for c in editor.document.cards if c.text == ENTRIES[3])
        editor.document.remove([doomed])
        _keep_editing(qtbot, editor)
        pair = [c.uid for c in editor.document.cards if c.text in (ENTRIES[1], ENTRIES[2])]
        merged_uid = editor.document.merge(pair)
        editor.document.set_text(merged_uid, "macOS 14 + zsh; CI on GitHub Actions, nightly")
        _keep_editing(qtbot, editor)
        editor.document.add_card(0, "Person: release notes are written in British English")
        _finish_pending(qtbot, editor, deadline)

        # A second round once the first save is in, still racing the agent.
        qtbot.wait(200)
        first = next(c.uid for c in editor.document.cards if c.text.startswith("Agent fact"))
        editor.document.move(first, -1)
        _finish_pending(qtbot, editor, deadline)

        assert agent.wait(timeout=30) == 0
        assert agent.stdout.read().strip().endswith("done")
    finally:
        if agent.poll() is None:
            agent.kill()
            agent.wait()
        agent.stdout.close()

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
    assert not editor.dirty and not editor.merging
