"""A clean editor folds the agent's changes into exactly what is on disk, order included."""

from __future__ import annotations

from memory_editor_helpers import ENTRIES

from hermes_memory.memory.entries import parse_entries
from hermes_memory.memory.store import MemoryStore

#: The agent's new text for ENTRIES[1]'s place resembles ENTRIES[3] (which it removes) far
#: more than the entry it replaces, so the merge pairs it with ENTRIES[3]'s slot.
FRIDAYS = "Deploys go out from the release branch on Tuesdays and Fridays"


def test_a_clean_editor_takes_the_disk_order_when_the_agent_replaces_one_entry_and_removes_another(
    qtbot, editor, seeded_home
):
    assert not editor.dirty
    with qtbot.waitSignal(editor.sig_reloaded, timeout=5000):
        result = MemoryStore(seeded_home).apply_batch("memory", [
            {"action": "remove", "old_text": "Deploys go out"},
            {"action": "replace", "old_text": "User runs macOS", "content": FRIDAYS},
        ])
    assert result.get("success"), result
    on_disk = parse_entries(seeded_home.memory_file.read_text(encoding="utf-8"))
    assert on_disk == [ENTRIES[0], FRIDAYS, ENTRIES[2]]
    assert editor.document.texts() == on_disk
    assert not editor.dirty and not editor.save_action.isEnabled()
    assert "Your edits are kept" not in editor.note_banner.text()


def test_an_editor_with_edits_keeps_its_own_order(qtbot, editor, seeded_home):
    """The person's reorder is theirs: only a clean editor takes the disk order wholesale."""
    editor.document.move(editor.document.cards[0].uid, 2)
    mine = editor.document.texts()
    assert editor.dirty
    with qtbot.waitSignal(editor.sig_reloaded, timeout=5000):
        MemoryStore(seeded_home).add("memory", "Agent: new fact")
    assert editor.document.texts() == [*mine, "Agent: new fact"]
    assert editor.dirty
