"""Time that reads right: every node sits inside the ring labelled with the period of its date."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF

from hermes_memory.learning import build_learning_graph
from hermes_studio.graph.layout import TIMELINE, LayoutEngine
from hermes_studio.graph.model import graph_from_payload


def ring_containing(rings, when: float) -> int:
    """The ring whose period holds ``when`` (the last one starting at or before it)."""
    return max(k for k, ring in enumerate(rings) if ring.start <= when)


def test_every_node_disc_lies_inside_the_ring_of_its_date(demo_home):
    data = graph_from_payload(build_learning_graph(demo_home))
    result = LayoutEngine().layout(data.layout_graph(), TIMELINE)
    assert len(result.rings) >= 3  # the demo home spans several periods
    distance = np.hypot(result.positions[:, 0], result.positions[:, 1])
    radii = data.radii()
    checked = 0
    for i in range(data.size):
        if math.isnan(data.times[i]):
            continue
        ring = result.rings[ring_containing(result.rings, data.times[i])]
        assert ring.inner <= distance[i] - radii[i] and distance[i] + radii[i] <= ring.outer, (
            f"{data.ids[i]} dated {data.times[i]} drawn at r={distance[i]:.1f} (±{radii[i]:.1f}) "
            f"outside its ring {ring.label} [{ring.inner:.0f}, {ring.outer:.0f}]"
        )
        checked += 1
    assert checked == data.size  # every demo node is dated


def test_each_ring_label_is_drawn_inside_its_own_ring(panel):
    """The label "May–Jun" must sit on the band of the May and June nodes, not the next one."""
    view = panel.view
    rings = panel.snapshot.layout.rings
    labels = view.frame_labels.labels
    rects = view.frame_labels.view_rects()
    centre = view.mapFromScene(view.vb.mapViewToScene(QPointF(0, 0))).toPointF()

    def on_screen(radius: float) -> float:
        edge = view.mapFromScene(view.vb.mapViewToScene(QPointF(0, radius))).toPointF()
        return abs(centre.y() - edge.y())

    for ring in rings:
        [where] = [rects[k] for k, label in enumerate(labels) if label.text == ring.label]
        top, bottom = centre.y() - where.bottom(), centre.y() - where.top()
        assert on_screen(ring.inner) <= top and bottom <= on_screen(ring.outer), ring.label


def test_a_may_card_sits_on_the_may_ring_in_the_app(panel):
    data, layout = panel.data, panel.snapshot.layout
    may = [i for i in range(data.size) if np.datetime64(int(data.times[i]), "s").astype(object).month == 5]
    assert may, "the demo home has nodes dated in May"
    for i in may:
        x, y = layout.positions[i]
        [ring] = [r for r in layout.rings if r.inner <= math.hypot(x, y) <= r.outer]
        assert ring.label.startswith("May"), (data.ids[i], ring.label)
