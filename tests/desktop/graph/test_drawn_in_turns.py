"""A new graph is drawn over short turns of the event loop (nodes first, then edges, labels
and badges, then the legend), completely, and a change made between the turns is kept.
What drawing needs from the data is made on the graph worker, not on the UI thread."""

from __future__ import annotations

import threading

import numpy as np

from hermes_studio.graph.layout import CLUSTERS
from hermes_studio.graph.model import GraphData
from hermes_studio.graph.table import COLUMNS
from hermes_studio.graph.workers import GraphJobs, GraphRequest, PositionCache


def _glyph_nodes(view) -> set[int]:
    return {int(i) for i in view.node_item.data["data"] if i >= 0}


def _edge_count(view) -> int:
    return len(view.edge_item.xData) // 2 if view.edge_item.xData is not None else 0


def test_the_nodes_come_first_and_the_rest_on_the_next_turn(view, snapshot, qtbot, monkeypatch):
    from hermes_studio.graph import view as view_module

    monkeypatch.setattr(view_module, "ATLAS_PER_TURN", 1000)  # every glyph style in one turn
    data = snapshot.data
    assert len(data.edges) and data.pinned.any()
    drawn: list[int] = []
    view.sig_drawn.connect(lambda: drawn.append(len(view.node_labels.labels)))
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    assert view.drawing and not drawn
    assert _glyph_nodes(view) == set(range(data.size))  # every node at once
    assert _edge_count(view) == 0 and not view.node_labels.labels

    qtbot.waitUntil(lambda: bool(drawn), timeout=5000)
    assert not view.drawing
    assert _edge_count(view) == len(data.edges)
    assert drawn[0] > 0 and view.node_labels.labels
    assert view.badge_item.data is not None


def test_a_filter_applied_between_the_turns_is_kept(view, snapshot, qtbot):
    data = snapshot.data
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    assert view.drawing
    only = data.kind == data.kind[int(np.flatnonzero(data.pinned)[0])]  # the pinned node's kind
    only[: data.size // 2] = False
    view.set_visible(only)  # before the edges and labels of the whole graph are drawn
    qtbot.wait(50)  # the turn that was due has passed
    assert not view.drawing
    shown = set(np.flatnonzero(only).tolist())
    assert _glyph_nodes(view) == shown
    between = only[data.edges[:, 0]] & only[data.edges[:, 1]]
    assert _edge_count(view) == int(between.sum())
    labelled = {label.text for label in view.node_labels.labels}
    assert labelled <= {view._label_text(i, True) for i in shown} | {view._label_text(i, False) for i in shown}


def test_a_newer_graph_given_between_the_turns_is_the_one_drawn(view, snapshot, demo_home, tmp_path, qtbot):
    data = snapshot.data
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    newer = GraphJobs(demo_home, positions=PositionCache(demo_home, tmp_path / "other")).run(
        GraphRequest(mode=CLUSTERS)
    )
    half = np.arange(newer.data.size) % 2 == 0
    view.set_graph(newer.data, newer.layout, half, keep_camera=False)
    qtbot.waitUntil(lambda: not view.drawing, timeout=5000)
    qtbot.wait(20)
    assert view.data is newer.data
    assert _glyph_nodes(view) == set(np.flatnonzero(half).tolist())
    edges = newer.data.edges
    assert _edge_count(view) == int((half[edges[:, 0]] & half[edges[:, 1]]).sum())


def test_the_panel_is_ready_once_the_legend_follows_the_drawn_graph(panel):
    assert panel.ready and not panel.view.drawing
    assert panel.sidebar.category_list.count() == len(panel.data.category_names())
    assert not panel.sidebar.category_list.item(0).icon().isNull()  # the legend's swatches
    assert _edge_count(panel.view) > 0 and panel.view.node_labels.labels


def test_what_drawing_and_the_table_need_is_made_off_the_ui_thread(make_panel, demo_home, monkeypatch, qtbot):
    made: list[tuple[str, bool]] = []
    cached = GraphData.cached

    def recording(self, name, make):
        if name not in self.derived:
            made.append((name, threading.current_thread() is threading.main_thread()))
        return cached(self, name, make)

    monkeypatch.setattr(GraphData, "cached", recording)
    panel = make_panel(demo_home, watch=False)
    data = panel.data
    # the other mode in advance, then every column's sort key
    qtbot.waitUntil(lambda: all(f"sort key {c}" in data.derived for c in range(len(COLUMNS))), timeout=20000)
    panel.twin.set_layout("table")
    panel.twin.model.sort(4)  # a click on "Uses" only sorts
    assert {"category_names", "radii", "importance_order", "sort key 0", "sort key 4"} <= {n for n, _ in made}
    assert [name for name, on_ui in made if on_ui] == []


def test_glyphs_not_rendered_yet_are_rendered_over_several_turns(view, snapshot, monkeypatch, qtbot):
    from hermes_studio.graph import view as view_module

    monkeypatch.setattr(view_module, "ATLAS_PER_TURN", 2)  # the demo's styles then take many turns
    data = snapshot.data
    turns: list[int] = []
    view.sig_drawn.connect(lambda: turns.append(len(view.node_item.fragmentAtlas)))
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    assert view.drawing and len(view.node_item.data) == 0  # not one glyph drawn half-styled
    assert len(view.node_item.fragmentAtlas) == 2
    qtbot.waitUntil(lambda: bool(turns), timeout=10000)
    assert turns[0] > 4
    assert _glyph_nodes(view) == set(range(data.size))
    assert _edge_count(view) == len(data.edges) and view.node_labels.labels


def test_a_filter_applied_while_glyphs_are_rendered_in_turns_is_kept(view, snapshot, monkeypatch, qtbot):
    from hermes_studio.graph import view as view_module

    monkeypatch.setattr(view_module, "ATLAS_PER_TURN", 2)
    data = snapshot.data
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    assert view.drawing
    half = np.arange(data.size) % 2 == 1
    view.set_visible(half)  # drawn at once, every glyph it needs rendered now
    assert not view.drawing and _glyph_nodes(view) == set(np.flatnonzero(half).tolist())
    qtbot.wait(100)  # the turns that were due change nothing
    assert _glyph_nodes(view) == set(np.flatnonzero(half).tolist())
    assert _edge_count(view) == int((half[data.edges[:, 0]] & half[data.edges[:, 1]]).sum())
