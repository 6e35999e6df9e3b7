"""The table twin of the graph: one selection both ways, multi-select, lasso, sorting,
the graph's filters, and search results stepped with F3 — on a real panel over the demo home."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt

from hermes_studio.graph.lasso import points_inside
from hermes_studio.graph.table import COLUMN_KEYS
from hermes_studio.graph.twin import TableTwin


def click_node(panel, qtbot, node_id: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    where = panel.view.node_scene_pos(node_id).toPoint()
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, modifier, where)


def click_row(panel, qtbot, row: int, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    table = panel.twin.table
    rect = table.visualRect(table.table_model.index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


def table_rows(panel) -> list[int]:
    model = panel.twin.model
    return [row for row in range(model.rowCount()) if model.marked[model.rows[row]]]


def test_a_click_on_the_canvas_selects_the_row_and_the_details_follow(panel, qtbot):
    twin: TableTwin = panel.twin
    twin.set_layout("both")
    click_node(panel, qtbot, "alembic-migration")
    assert panel.selection.ids == ["alembic-migration"]
    assert twin.table.selected_ids() == ["alembic-migration"]
    row = twin.model.row_for("alembic-migration")
    assert table_rows(panel) == [row]
    assert twin.table.selectionModel().currentIndex().row() == row
    qtbot.waitUntil(lambda: panel.details.node_id() == "alembic-migration")
    # Ctrl-click adds a second node in both views; the details follow it
    click_node(panel, qtbot, "idempotency-keys", Qt.KeyboardModifier.ControlModifier)
    assert panel.selection.ids == ["alembic-migration", "idempotency-keys"]
    assert sorted(twin.table.selected_ids()) == ["alembic-migration", "idempotency-keys"]
    assert panel.view.selected_id() == "idempotency-keys"
    assert sorted(panel.data.ids[i] for i in twin.marks.indices) == ["alembic-migration", "idempotency-keys"]
    qtbot.waitUntil(lambda: panel.details.node_id() == "idempotency-keys")
    # Ctrl-click again takes it out; a click on empty space clears everything
    click_node(panel, qtbot, "idempotency-keys", Qt.KeyboardModifier.ControlModifier)
    assert twin.table.selected_ids() == ["alembic-migration"]
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    assert panel.selection.ids == [] and table_rows(panel) == []
    qtbot.waitUntil(lambda: panel.details.node_id() is None)


def test_rows_chosen_in_the_table_are_selected_on_the_canvas(panel, qtbot):
    twin: TableTwin = panel.twin
    twin.set_layout("both")
    click_row(panel, qtbot, 2)
    click_row(panel, qtbot, 5, Qt.KeyboardModifier.ShiftModifier)
    click_row(panel, qtbot, 8, Qt.KeyboardModifier.ControlModifier)
    expected = [twin.model.node_id(r) for r in (2, 3, 4, 5, 8)]
    assert table_rows(panel) == [2, 3, 4, 5, 8]
    # the rows are drawn in the palette's highlight colour, from the shared selection
    highlight = twin.model.data(twin.model.index(3, 0), Qt.ItemDataRole.BackgroundRole)
    assert highlight is not None and twin.model.data(twin.model.index(6, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert sorted(panel.selection.ids) == sorted(expected)
    assert panel.selection.current == twin.model.node_id(8)
    assert panel.view.selected_id() == twin.model.node_id(8)
    assert sorted(panel.data.ids[i] for i in twin.marks.indices) == sorted(expected)
    qtbot.waitUntil(lambda: panel.details.node_id() == twin.model.node_id(8))
    # keys: Down moves the one selected row, Shift+Down extends, Ctrl+A takes every row
    twin.table.setFocus()
    qtbot.keyClick(twin.table, Qt.Key.Key_Down)
    assert panel.selection.ids == [twin.model.node_id(9)]
    qtbot.keyClick(twin.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert table_rows(panel) == [9, 10]
    qtbot.keyClick(twin.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert len(panel.selection) == twin.model.rowCount()


def test_sorting_by_a_column_keeps_the_selection(panel, qtbot):
    twin: TableTwin = panel.twin
    twin.set_layout("table")
    click_node_id = panel.data.ids[3]
    panel.selection.select_only(click_node_id)
    uses = COLUMN_KEYS.index("uses")
    twin.table.sortByColumn(uses, Qt.SortOrder.DescendingOrder)
    counts = [int(panel.data.node(i)["useCount"] or 0) for i in twin.model.ordered_ids()]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]
    twin.table.sortByColumn(COLUMN_KEYS.index("name"), Qt.SortOrder.AscendingOrder)
    names = [twin.model.data(twin.model.index(r, 0)).casefold() for r in range(twin.model.rowCount())]
    assert names == sorted(names)
    assert twin.table.selected_ids() == [click_node_id]  # the row moved, the selection did not


def test_the_table_shows_what_the_filters_show_and_hidden_nodes_stay_selected_unseen(panel, qtbot):
    twin: TableTwin = panel.twin
    panel.selection.set(["alembic-migration", "web-vitals-audit"])
    panel.search.setText("postgres")
    assert set(twin.model.ordered_ids()) == set(panel.view.shown_ids())
    assert 0 < twin.model.rowCount() < panel.data.size
    assert "web-vitals-audit" in panel.selection  # filtered out: kept, but not drawn
    assert "web-vitals-audit" not in twin.table.selected_ids() and "web-vitals-audit" not in twin.shown_selection()
    panel.set_filters(kind="memory")
    assert all(i.startswith("memory:") for i in twin.model.ordered_ids())
    panel.search.clear()
    panel.set_filters(kind="all")
    assert twin.model.rowCount() == int(panel.mask.sum())


def test_the_health_and_state_columns_come_from_the_payload(panel):
    model = panel.twin.model
    health, kind = COLUMN_KEYS.index("health"), COLUMN_KEYS.index("kind")
    for row in range(model.rowCount()):
        node = panel.data.node(model.node_id(row))
        text = model.data(model.index(row, health))
        if node.get("kind") == "skill":
            count = int(node.get("healthCount") or 0)
            assert text == ("ok" if count == 0 else text) and (count == 0 or text.startswith(f"{count}"))
        assert model.data(model.index(row, kind)) == node["kind"]


def test_shift_drag_lassoes_the_nodes_inside(panel, qtbot):
    view = panel.view
    viewport = view.viewport()
    w, h = viewport.width(), viewport.height()
    corners = [QPoint(int(w * 0.3), int(h * 0.3)), QPoint(int(w * 0.7), int(h * 0.3)),
               QPoint(int(w * 0.7), int(h * 0.7)), QPoint(int(w * 0.3), int(h * 0.7))]
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, corners[0])
    for corner in corners[1:]:
        qtbot.mouseMove(viewport, corner)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ShiftModifier, corners[-1])
    where = {i: view.node_scene_pos(i) for i in view.shown_ids()}
    inside = {i for i, p in where.items() if w * 0.3 < p.x() < w * 0.7 and h * 0.3 < p.y() < h * 0.7}
    near_edge = {i for i, p in where.items()
                 if min(abs(p.x() - w * 0.3), abs(p.x() - w * 0.7), abs(p.y() - h * 0.3), abs(p.y() - h * 0.7)) < 2}
    assert inside, "the lasso should hold some nodes of the demo graph"
    assert set(panel.selection.ids) - near_edge == inside - near_edge
    assert set(panel.twin.table.selected_ids()) == set(panel.selection.ids)


def test_points_inside_an_outline():
    square = np.array([(0, 0), (10, 0), (10, 10), (0, 10)], dtype=float)
    points = np.array([(5, 5), (15, 5), (-1, -1), (9.9, 0.1)], dtype=float)
    assert points_inside(points, square).tolist() == [True, False, False, True]
    assert not points_inside(points, square[:2]).any()  # not an outline


def test_select_all_results_and_step_through_them(panel, qtbot):
    twin: TableTwin = panel.twin
    panel.search.setText("postgres")
    results = twin.results()
    assert len(results) >= 3
    assert twin.results_label.isVisible() or not panel.isVisible()
    seen = [twin.step_result(1) for _ in range(len(results) + 1)]
    assert seen == results + results[:1]  # in table order, then round again
    assert panel.selection.ids == [results[0]] and twin.table.selected_ids() == [results[0]]
    assert twin.step_result(-1) == results[-1]
    twin.select_all_results()
    assert sorted(panel.selection.ids) == sorted(results)
    assert sorted(twin.table.selected_ids()) == sorted(results)
