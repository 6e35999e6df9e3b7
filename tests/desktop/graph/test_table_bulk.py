"""Bulk actions on the shared selection, in the real window over a copy of the demo home:
one question, one engine batch, exactly the expected files changed, and one Undo that puts
the bytes back. Also F3 through the window's shortcuts, and the remembered layout."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from hermes_memory.skills import read_usage

HISTORY = ".memory-studio"  # the app's own version history inside the home


def files(root: Path) -> dict[str, str]:
    """Every file of the home except the app's history, with its SHA-256."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not str(p.relative_to(root)).startswith(HISTORY) and not p.name.endswith(".lock")
    }


def curatable(panel, count: int, *, pinned: bool = False) -> list[str]:
    """Skills of the agent's own, pinned or not."""
    return [i for i in panel.data.ids
            if (n := panel.data.node(i))["kind"] == "skill" and n.get("source") not in ("base", "external")
            and bool(n.get("pinned")) == pinned][:count]


def archived_path(path: str) -> str:
    """skills/<category>/<name>/SKILL.md -> skills/.archive/<name>/SKILL.md"""
    parts = path.split("/")
    return "/".join(["skills", ".archive", *parts[2:]])


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


@pytest.fixture
def window(open_window, demo_home):
    return open_window(demo_home)


def undo(window, qtbot) -> None:
    window.commands.refresh()
    with qtbot.waitSignal(window.history.sig_report, timeout=20000) as report:
        window.commands.actions["edit.undo"].trigger()
    assert report.args[1], report.args[0]


def test_bulk_archive_moves_exactly_those_skills_and_one_undo_restores_the_bytes(window, demo_home, qtbot, questions):
    panel = window.graph
    names = curatable(panel, 3)
    pinned = curatable(panel, 1, pinned=True)[0]
    memory = next(i for i in panel.data.ids if i.startswith("memory:"))
    before = files(demo_home.path)
    depth = window.history.stack.count()
    panel.selection.set([*names, pinned, memory])
    window.commands.refresh()
    assert window.commands.actions["selection.archive"].isEnabled()
    with qtbot.waitSignal(panel.sig_action_done, timeout=30000) as done:
        window.commands.actions["selection.archive"].trigger()
    assert done.args[0]["ok"], done.args[0]
    assert len(questions) == 1  # one question, naming what changes and what is left alone
    assert all(name in questions[0] for name in names)
    assert "pinned — unpin it first" in questions[0] and "a memory card" in questions[0]
    after = files(demo_home.path)
    moved = {p for p in before if any(f"/{n}/" in p for n in names)}
    assert len(moved) >= 3
    assert changed(before, after) == moved | {archived_path(p) for p in moved} | {"skills/.usage.json"}
    assert all(read_usage(demo_home).record(n)["state"] == "archived" for n in names)
    assert window.history.stack.count() == depth + 1  # one entry on the app's undo stack
    qtbot.waitUntil(lambda: all(n not in panel.data.index for n in names), timeout=20000)

    undo(window, qtbot)
    restored = files(demo_home.path)
    assert {p: restored[p] for p in before if p.endswith("SKILL.md")} == {
        p: h for p, h in before.items() if p.endswith("SKILL.md")}
    assert changed(before, restored) <= {"skills/.usage.json"}
    assert all(read_usage(demo_home).record(n)["state"] == "active" for n in names)
    qtbot.waitUntil(lambda: all(n in panel.data.index for n in names), timeout=20000)


def test_bulk_delete_of_memories_changes_only_their_files_and_undo_restores_the_bytes(
    window, demo_home, qtbot, questions
):
    panel = window.graph
    memory_ids = [i for i in panel.data.ids if i.startswith("memory:memory:")][:3]
    user_ids = [i for i in panel.data.ids if i.startswith("memory:profile:")][:1]
    before = files(demo_home.path)
    panel.selection.set([*memory_ids, *user_ids, *curatable(panel, 1)])
    with qtbot.waitSignal(panel.sig_action_done, timeout=30000) as done:
        assert panel.twin.bulk("delete")
    assert done.args[0]["ok"] and done.args[0]["deleted"] == 4, done.args[0]
    assert "a skill (archive it instead)" in questions[0]
    assert changed(before, files(demo_home.path)) == {"memories/MEMORY.md", "memories/USER.md"}
    undo(window, qtbot)
    assert changed(before, files(demo_home.path)) == set()  # byte for byte


def test_bulk_pin_then_one_undo_unpins_only_what_it_pinned(window, demo_home, qtbot, questions):
    panel = window.graph
    already = curatable(panel, 1, pinned=True)[0]
    names = curatable(panel, 2)
    panel.selection.set([*names, already])
    with qtbot.waitSignal(panel.sig_action_done, timeout=30000):
        assert panel.twin.bulk("pin")
    assert all(read_usage(demo_home).record(n)["pinned"] for n in [*names, already])
    undo(window, qtbot)
    assert [read_usage(demo_home).record(n)["pinned"] for n in names] == [False, False]
    assert read_usage(demo_home).record(already)["pinned"] is True


def test_cancel_changes_nothing(window, demo_home, qtbot, monkeypatch):
    monkeypatch.setattr(QMessageBox, "exec", lambda box: box.button(QMessageBox.StandardButton.Cancel).click())
    panel = window.graph
    before = files(demo_home.path)
    panel.selection.set(curatable(panel, 2))
    assert not panel.twin.bulk("archive")
    qtbot.wait(200)
    assert files(demo_home.path) == before


def test_f3_and_shift_f3_step_through_the_results_in_both_views(window, qtbot):
    panel = window.graph
    panel.twin.set_layout("both")
    panel.search.setText("postgres")
    results = panel.twin.results()
    assert len(results) >= 2
    panel.view.setFocus()
    seen = []
    for _ in range(len(results) + 1):
        qtbot.keyClick(window, Qt.Key.Key_F3)
        seen.append(panel.selection.current)
        assert panel.twin.table.selected_ids() == [panel.selection.current]
        assert panel.view.selected_id() == panel.selection.current
    assert seen == results + results[:1]
    qtbot.keyClick(window, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    assert panel.selection.current == results[-1]
    qtbot.waitUntil(lambda: panel.details.node_id() == results[-1])


def test_the_layout_is_remembered_per_home(open_window, demo_home, qtbot):
    first = open_window(demo_home)
    first.commands.actions["view.layout.both"].trigger()
    assert first.graph.twin.table.isVisible() and first.graph.pages.isVisible()
    first.close()
    second = open_window(demo_home)
    assert second.graph.twin.layout == "both"
    assert second.graph.twin.table.isVisible()


def test_bulk_restore_of_the_ticked_archived_skills(window, demo_home, qtbot, questions):
    panel = window.graph
    names = curatable(panel, 2)
    before = files(demo_home.path)
    panel.selection.set(names)
    with qtbot.waitSignal(panel.sig_action_done, timeout=30000):
        assert panel.twin.bulk("archive")
    archived = panel.archived_list
    qtbot.waitUntil(lambda: {archived.item(i).text() for i in range(archived.count())} >= set(names),
                    timeout=20000)
    window.commands.refresh()
    assert not window.commands.actions["selection.restore"].isEnabled()  # nothing ticked yet
    for row in range(archived.count()):
        archived.item(row).setSelected(archived.item(row).text() in names)
    window.commands.refresh()
    with qtbot.waitSignal(panel.sig_action_done, timeout=30000) as done:
        window.commands.actions["selection.restore"].trigger()
    assert done.args[0]["ok"], done.args[0]
    assert sorted(done.args[0]["done"]) == sorted(names)
    restored = files(demo_home.path)
    assert {p: h for p, h in restored.items() if p.endswith("SKILL.md")} == {
        p: h for p, h in before.items() if p.endswith("SKILL.md")}
