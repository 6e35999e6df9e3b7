"""The graph's one selection survives filters and right-clicks, as a file manager's does:

* a filter hides selected nodes without forgetting them; relaxing it brings them back
  selected, and bulk actions act on the shown part and say how many they leave out;
* a right-click on a selected node keeps the selection and its menu acts on all of it; on
  another node it selects just that one.

Real widgets over a copy of the demo home, real clicks, real engine writes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from hermes_memory.skills import read_usage


def own_skills(panel, count: int) -> list[str]:
    """Unpinned skills of the agent's own (the ones pin and archive apply to)."""
    return [i for i in panel.data.ids
            if (n := panel.data.node(i))["kind"] == "skill" and n.get("source") not in ("base", "external")
            and not n.get("pinned")][:count]


def memory_ids(panel, count: int) -> list[str]:
    return [i for i in panel.data.ids if i.startswith("memory:")][:count]


def marked(panel) -> set[str]:
    """The nodes ringed on the canvas."""
    return {panel.data.ids[i] for i in panel.twin.marks.indices.tolist()}


def right_click(panel, qtbot, node_id: str) -> None:
    where = panel.view.node_scene_pos(node_id).toPoint()
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.RightButton, Qt.KeyboardModifier.NoModifier, where)


def click(panel, qtbot, node_id: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    where = panel.view.node_scene_pos(node_id).toPoint()
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, modifier, where)


def menu_labels(menu) -> list[str]:
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]


@pytest.fixture
def window(open_window, demo_home):
    return open_window(demo_home)


# --- filters -------------------------------------------------------------------------------------
def test_a_filter_hides_selected_nodes_and_relaxing_it_brings_them_back_selected(panel, qtbot):
    twin = panel.twin
    twin.set_layout("both")
    skills, memories = own_skills(panel, 2), memory_ids(panel, 1)
    chosen = [*skills, *memories]
    panel.selection.set(chosen, skills[-1])
    qtbot.waitUntil(lambda: panel.details.node_id() == skills[-1])

    panel.set_filters(kind="memory")  # the two skills are hidden
    assert panel.selection.ids == chosen  # still selected, unseen
    assert twin.shown_selection() == memories and twin.hidden_count() == 2
    assert marked(panel) == set(memories) and twin.table.selected_ids() == memories
    assert panel.view.selected_id() is None  # the current node is hidden: no highlight, no details
    qtbot.waitUntil(lambda: panel.details.node_id() is None)

    panel.search.setText("zzz-nothing-matches")  # a second filter on top hides the rest
    assert twin.shown_selection() == [] and panel.selection.ids == chosen
    panel.search.clear()
    panel.set_filters(kind="all")  # relaxed: all three come back selected in both views
    assert panel.selection.ids == chosen and twin.hidden_count() == 0
    assert marked(panel) == set(chosen) and sorted(twin.table.selected_ids()) == sorted(chosen)
    assert panel.view.selected_id() == skills[-1]
    qtbot.waitUntil(lambda: panel.details.node_id() == skills[-1])

    # a plain click starts a new selection, hidden nodes included
    panel.set_filters(kind="memory")
    click(panel, qtbot, memories[0])
    panel.set_filters(kind="all")
    assert panel.selection.ids == memories[:1] and marked(panel) == set(memories[:1])


def test_a_selected_node_gone_from_the_home_leaves_the_selection(panel, demo_home, qtbot):
    import shutil

    gone, kept = own_skills(panel, 2)
    panel.selection.set([gone, kept])
    skill = next(p.parent for p in demo_home.skills_dir.rglob("SKILL.md") if p.parent.name == gone)
    shutil.rmtree(skill)
    qtbot.waitUntil(lambda: gone not in panel.data.index, timeout=20000)
    assert panel.selection.ids == [kept]


def test_bulk_actions_act_on_the_shown_part_and_say_how_many_are_hidden(window, demo_home, qtbot, questions):
    panel = window.graph
    shown, hidden = own_skills(panel, 2)
    panel.selection.set([shown, hidden])
    panel.search.setText(shown)  # shows the one, hides the other (still selected)
    assert panel.twin.shown_selection() == [shown] and panel.twin.hidden_count() == 1
    with qtbot.waitSignal(panel.sig_action_done, timeout=30000) as done:
        window.commands.actions["selection.pin"].trigger()
    assert done.args[0]["ok"], done.args[0]
    assert "1 selected hidden by the filters, left as they are" in questions[0]
    assert hidden not in questions[0].split("Left as they are")[0]  # not among what changes
    usage = read_usage(demo_home)
    assert usage.record(shown)["pinned"] is True and not usage.record(hidden).get("pinned")
    assert "1 selected hidden by the filters" in panel.message.label.text()
    qtbot.waitUntil(lambda: panel.data.node(shown).get("pinned"), timeout=20000)
    panel.search.clear()
    assert panel.selection.ids == [shown, hidden]  # both still selected after the rebuild

    # nothing shown that the action applies to: said, and nothing written
    panel.search.setText(shown)
    before = demo_home.skills_dir.joinpath(".usage.json").read_bytes()
    assert not panel.twin.bulk("pin")
    assert "Nothing shown and selected can be pinned" in panel.message.label.text()
    assert "1 selected hidden by the filters" in panel.message.label.text()
    assert demo_home.skills_dir.joinpath(".usage.json").read_bytes() == before


# --- right-click -------------------------------------------------------------------------------
def test_a_right_click_on_a_selected_node_keeps_the_selection_and_the_menu_acts_on_it(
    window, demo_home, qtbot, questions
):
    panel = window.graph
    first, second = own_skills(panel, 2)
    click(panel, qtbot, first)
    click(panel, qtbot, second, Qt.KeyboardModifier.ControlModifier)
    assert panel.selection.ids == [first, second]

    right_click(panel, qtbot, first)
    assert panel.selection.ids == [first, second]  # kept
    assert panel.selection.current == first and panel.view.selected_id() == first
    assert marked(panel) == {first, second}
    menu = window.node_menu
    labels = menu_labels(menu)
    assert labels[0] == "2 selected" and not menu.actions()[0].isEnabled()
    assert "Pin selected skills…" in labels and "Archive selected skills…" in labels
    assert "Pin skill" not in labels  # the one-node items are not offered for a selection
    pin = next(a for a in menu.actions() if a.objectName() == "selection.pin")
    menu.close()
    with qtbot.waitSignal(panel.sig_action_done, timeout=30000) as done:
        pin.trigger()
    assert done.args[0]["ok"], done.args[0]
    usage = read_usage(demo_home)
    assert usage.record(first)["pinned"] is True and usage.record(second)["pinned"] is True


def test_a_right_click_elsewhere_selects_just_that_node(window, qtbot):
    panel = window.graph
    first, second, other = own_skills(panel, 3)
    panel.selection.set([first, second])
    right_click(panel, qtbot, other)
    assert panel.selection.ids == [other] and panel.view.selected_id() == other
    labels = menu_labels(window.node_menu)
    assert labels[0] == panel.data.node(other)["label"]
    assert "Pin skill" in labels and "Pin selected skills…" not in labels
    window.node_menu.close()
    # with one node selected, a right-click on it offers the one-node menu too
    right_click(panel, qtbot, other)
    assert panel.selection.ids == [other] and "Pin skill" in menu_labels(window.node_menu)
    window.node_menu.close()
    # a right-click on empty space changes nothing
    panel.selection.set([first, second])
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.RightButton, pos=QPoint(3, 3))
    assert panel.selection.ids == [first, second]


def test_a_right_click_inside_a_partly_hidden_selection_counts_the_hidden(window, qtbot):
    panel = window.graph
    skills, memories = own_skills(panel, 1), memory_ids(panel, 2)
    panel.selection.set([*skills, *memories])
    panel.set_filters(kind="memory")
    right_click(panel, qtbot, memories[0])
    assert panel.selection.ids == [*skills, *memories]
    labels = menu_labels(window.node_menu)
    assert labels[0] == "2 selected (1 more hidden by the filters)"
    assert "Delete selected memories…" in labels
    window.node_menu.close()
