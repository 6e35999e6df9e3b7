"""Semantic zoom: more labels as the camera closes in, never overlapping, the most important
first; the selected and hovered nodes are always labelled; memory cards get short titles;
nodes never shrink below a minimum size on screen."""

from __future__ import annotations

import numpy as np

from hermes_memory.learning import build_learning_graph
from hermes_studio.graph.labels import CARD_TITLE, short_title
from hermes_studio.graph.layout import TIMELINE, LayoutEngine
from hermes_studio.graph.model import MEMORY, graph_from_payload
from hermes_studio.graph.style import MIN_NODE_PX
from hermes_studio.graph.view import GraphView


def settle(qtbot, view) -> None:
    """Wait for the labels to be placed again after a camera move."""
    qtbot.waitUntil(lambda: not view._labels_timer.isActive(), timeout=3000)


def assert_no_overlap(rects) -> None:
    for a in range(len(rects)):
        for b in range(a + 1, len(rects)):
            assert not rects[a].intersects(rects[b]), (a, b, rects[a], rects[b])


def test_more_labels_appear_as_you_zoom_in_without_overlapping(panel, qtbot):
    view = panel.view
    settle(qtbot, view)
    at_rest = view.node_labels.texts()
    assert 0 < len(at_rest) < panel.data.size
    assert_no_overlap(view.node_labels.view_rects())
    view.vb.scaleBy((1 / 3, 1 / 3))
    settle(qtbot, view)
    closer = view.node_labels.texts()
    assert len(closer) > len(at_rest)
    assert_no_overlap(view.node_labels.view_rects())
    # every label drawn belongs to a node on screen
    rect = view.vb.viewRect()
    for label in view.node_labels.labels:
        assert rect.adjusted(-60, -60, 60, 60).contains(label.x, label.y)
    # at rest, the most used skill is labelled before any less important one
    data = panel.data
    skills = [i for i in range(data.size) if data.kind[i] != MEMORY]
    busiest = max(skills, key=lambda i: (data.use_count[i] + 2 * len(data.neighbours[i]), -i))
    view.fit()
    settle(qtbot, view)
    assert short_title(data.labels[busiest], 42) in view.node_labels.texts()


def test_the_selected_and_hovered_labels_always_show(panel, qtbot):
    view, data = panel.view, panel.data
    settle(qtbot, view)
    at_rest = set(view.node_labels.texts())
    quiet = [i for i in range(data.size) if data.kind[i] != MEMORY and short_title(data.labels[i], 42) not in at_rest]
    selected, hovered = quiet[0], quiet[-1]
    panel.open_node(data.ids[selected])
    assert short_title(data.labels[selected], 42) in view.node_labels.texts()
    where = view.node_scene_pos(data.ids[hovered]).toPoint()
    qtbot.mouseMove(view.viewport(), where)
    qtbot.waitUntil(lambda: view.hovered == hovered, timeout=3000)
    texts = view.node_labels.texts()
    assert short_title(data.labels[hovered], 42) in texts
    assert short_title(data.labels[selected], 42) in texts


def test_memory_cards_get_short_titles(panel, qtbot):
    view, data = panel.view, panel.data
    view.vb.scaleBy((1 / 4, 1 / 4))
    settle(qtbot, view)
    cards = {short_title(data.labels[i], CARD_TITLE) for i in range(data.size) if data.kind[i] == MEMORY}
    shown_cards = [t for t in view.node_labels.texts() if t in cards]
    assert shown_cards, "zoomed in, some memory cards are labelled"
    assert all(len(t) <= CARD_TITLE for t in shown_cards)
    long = max((data.labels[i] for i in range(data.size) if data.kind[i] == MEMORY), key=len)
    assert len(long) > CARD_TITLE and short_title(long, CARD_TITLE).endswith("…")


def test_nodes_keep_a_minimum_size_on_screen(demo_home, qtbot):
    data = graph_from_payload(build_learning_graph(demo_home))
    layout = LayoutEngine().layout(data.layout_graph(), TIMELINE)
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(160, 160)  # a small canvas: the fit zooms far out
    view.show()
    qtbot.waitExposed(view)
    view.set_graph(data, layout, np.ones(data.size, dtype=bool), keep_camera=False)
    qtbot.waitUntil(lambda: not view.drawing)
    natural = 2.0 * data.radii() * view._size_scale
    assert natural.min() < MIN_NODE_PX  # the fit shrank some glyphs below the minimum
    nodes = view.node_item.data["data"] >= 0
    sizes = np.asarray(view.node_item.data["size"][nodes], dtype=float)
    assert len(sizes) == data.size
    assert sizes.min() >= MIN_NODE_PX
