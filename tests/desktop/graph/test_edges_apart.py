"""Many edges come on turns of their own after the nodes they join (one paint of 10,000
nodes with their edges was one long turn): the nodes first, without edges; the edges'
path on the next turn, unpainted; then a paint that shows them. Every paint shows edges
only where their nodes are, and the last one is the picture a one-turn draw gives."""

from __future__ import annotations

import numpy as np
import pytest

from hermes_studio.graph import view as view_module
from hermes_studio.graph.layout import CLUSTERS
from hermes_studio.graph.view import LABEL_SETTLE_MS, GraphView
from hermes_studio.graph.workers import GraphJobs, GraphRequest, PositionCache


@pytest.fixture
def laid_out(demo_home, tmp_path):
    """The demo graph in both layouts (one GraphData, as after a switch of mode)."""
    jobs = GraphJobs(demo_home, positions=PositionCache(demo_home, tmp_path / "layouts"))
    timeline = jobs.run(GraphRequest())
    clusters = jobs.run(GraphRequest(mode=CLUSTERS, reasons=frozenset({"layout"})))
    assert clusters.data is timeline.data
    return timeline, clusters


@pytest.fixture
def apart(monkeypatch):
    """The demo's 115 edges count as many."""
    monkeypatch.setattr(view_module, "EDGES_APART", 0)


def _node_xy(view: GraphView) -> dict[int, tuple[float, float]]:
    glyphs = view.node_item.data
    return {int(i): (float(x), float(y)) for i, x, y in zip(glyphs["data"], glyphs["x"], glyphs["y"], strict=True) if i >= 0}


def _edges_join_the_drawn_nodes(view: GraphView) -> bool:
    nodes = _node_xy(view)
    pairs = view._edge_pairs()
    x, y = view.edge_item.xData, view.edge_item.yData
    if x is None or len(x) != len(pairs):
        return False
    return all(nodes.get(int(node)) == (float(x[k]), float(y[k])) for k, node in enumerate(pairs))


@pytest.fixture
def paints(monkeypatch):
    """What each paint of a canvas showed: (edges visible, the edges' path built before the
    paint, the nodes' places, edges visible only where their nodes are)."""
    seen: list[tuple[bool, bool, dict, bool]] = []
    paint = GraphView.paintEvent

    def recording(self, event):
        if self.data is not None and self.node_item.data is not None:
            visible = self.edge_item.isVisible()
            seen.append((visible, self.edge_item.path is not None, _node_xy(self),
                         not visible or _edges_join_the_drawn_nodes(self)))
        return paint(self, event)

    monkeypatch.setattr(GraphView, "paintEvent", recording)
    return seen


def _show(view, snapshot, qtbot, *, keep_camera: bool) -> None:
    data = snapshot.data
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=keep_camera)
    qtbot.waitUntil(lambda: not view.drawing, timeout=5000)
    qtbot.wait(LABEL_SETTLE_MS * 3)


def test_a_switch_paints_the_nodes_first_then_the_edges_built_on_a_turn_between(
    apart, laid_out, paints, view, qtbot
):
    timeline, clusters = laid_out
    _show(view, timeline, qtbot, keep_camera=False)
    drawn: list[bool] = []
    view.sig_drawn.connect(lambda: drawn.append(view.edge_item.isVisible()))
    paints.clear()
    data = clusters.data
    view.set_graph(data, clusters.layout, np.ones(data.size, dtype=bool), keep_camera=True)
    assert view.drawing and not view.edge_item.isVisible()  # (the old edges join the old places)
    qtbot.waitUntil(lambda: not view.drawing, timeout=5000)
    assert drawn == [True]  # sig_drawn once, when the edges are shown
    # (the paint that shows them comes on a later turn: on a busy machine, after the wait)
    qtbot.waitUntil(lambda: any(visible for visible, *_ in paints), timeout=5000)

    new_places = {i: (float(x), float(y)) for i, (x, y) in enumerate(clusters.layout.positions.tolist())}
    assert all(joined for *_, joined in paints)  # every paint: edges only where their nodes are
    first = next(k for k, (_, _, nodes, _) in enumerate(paints) if nodes == new_places)
    assert not paints[first][0]  # the new places are painted first without edges
    with_edges = [k for k, (visible, *_) in enumerate(paints) if visible]
    assert with_edges and with_edges[0] > first
    visible, built, nodes, _ = paints[with_edges[0]]
    assert built and nodes == paints[with_edges[0] - 1][2]  # nor does the edges' paint build or move anything
    assert _edges_join_the_drawn_nodes(view) and len(view._edge_pairs()) == 2 * len(data.edges)


def test_a_new_graph_shows_no_old_edges_labels_or_marks_with_its_nodes(
    apart, laid_out, paints, view, qtbot, demo_home, tmp_path
):
    timeline, _ = laid_out
    _show(view, timeline, qtbot, keep_camera=False)
    view.select(timeline.data.ids[0])
    paints.clear()
    newer = GraphJobs(demo_home, positions=PositionCache(demo_home, tmp_path / "other")).run(GraphRequest(mode=CLUSTERS))
    data = newer.data  # (a rebuild: every glyph drawn again)
    view.set_graph(data, newer.layout, np.ones(data.size, dtype=bool), keep_camera=True)
    assert not view.edge_item.isVisible() and not view.mark_item.isVisible() and not view.node_labels.labels
    qtbot.waitUntil(lambda: not view.drawing, timeout=5000)
    assert all(joined for *_, joined in paints)
    assert view.edge_item.isVisible() and view.mark_item.isVisible() and view.node_labels.labels


def test_the_last_frame_is_the_one_a_single_turn_draws(laid_out, qtbot, monkeypatch):
    timeline, clusters = laid_out
    pictures = []
    for edges_apart in (0, 10**9):  # over turns, then all of it in one
        monkeypatch.setattr(view_module, "EDGES_APART", edges_apart)
        canvas = GraphView()
        qtbot.addWidget(canvas)
        canvas.resize(900, 700)
        canvas.show()
        qtbot.waitExposed(canvas)
        _show(canvas, timeline, qtbot, keep_camera=False)
        _show(canvas, clusters, qtbot, keep_camera=True)
        pictures.append(canvas.grab().toImage())
    assert pictures[0] == pictures[1]


def test_a_filter_between_the_turns_draws_the_edges_it_leaves(apart, laid_out, view, qtbot):
    timeline, clusters = laid_out
    _show(view, timeline, qtbot, keep_camera=False)
    data = clusters.data
    view.set_graph(data, clusters.layout, np.ones(data.size, dtype=bool), keep_camera=True)
    half = np.arange(data.size) % 2 == 0
    view.set_visible(half)
    qtbot.waitUntil(lambda: not view.drawing, timeout=5000)
    qtbot.wait(50)  # (the turns the switch had queued change nothing)
    between = half[data.edges[:, 0]] & half[data.edges[:, 1]]
    assert len(view.edge_item.xData) == 2 * int(between.sum())
    assert view.edge_item.isVisible() and _edges_join_the_drawn_nodes(view)


def test_a_click_does_not_draw_the_edges_again(laid_out, view, qtbot, monkeypatch):
    timeline, _ = laid_out
    _show(view, timeline, qtbot, keep_camera=False)
    calls: list[int] = []
    set_data = view.edge_item.setData
    monkeypatch.setattr(view.edge_item, "setData", lambda *a, **k: (calls.append(1), set_data(*a, **k)))
    view.click_node(3)
    view.click_node(None)
    assert calls == []


def test_health_badges_move_with_their_nodes_on_a_switch(laid_out, view, qtbot, monkeypatch):
    from hermes_studio.graph import health

    timeline, clusters = laid_out
    data = timeline.data
    for node in data.nodes[:3]:
        node["healthCodes"] = ["description-missing"]
    monkeypatch.setattr(health, "_last", ())  # (the worker's overview read the nodes before)
    _show(view, timeline, qtbot, keep_camera=False)
    _show(view, clusters, qtbot, keep_camera=True)
    badges = view.badge_item.data
    assert len(badges) == 3
    for glyph in badges:
        assert (float(glyph["x"]), float(glyph["y"])) == tuple(clusters.layout.positions[int(glyph["data"])])


def test_the_panel_shows_updating_until_the_edges_that_follow_are_drawn(apart, panel, qtbot):
    seen: list[tuple[bool, str]] = []
    view = panel.view
    view.sig_drawn.connect(lambda: seen.append((view.edge_item.isVisible(), panel.busy_label.text())))
    panel.ready = False
    panel.set_mode(CLUSTERS)
    qtbot.waitUntil(lambda: panel.snapshot.request.mode == CLUSTERS and view.drawing, timeout=20000)
    assert not view.edge_item.isVisible() and panel.busy_label.text() == "updating…" and not panel.ready
    qtbot.waitUntil(lambda: panel.ready, timeout=20000)
    assert seen and seen[-1] == (True, "updating…")  # drawn: edges shown, the legend still to follow
    assert panel.busy_label.text() == "" and _edges_join_the_drawn_nodes(view)
