"""The layouts: determinism, warm starts that move only new nodes, rings, no overlaps."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from hermes_memory.learning import build_learning_graph
from hermes_studio.graph.layout import (
    CLUSTERS,
    TIMELINE,
    LayoutEngine,
    LayoutGraph,
    bucket_label,
    choose_unit,
    neighbour_pairs,
)
from hermes_studio.graph.model import graph_from_payload


def _ts(*args: int) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()


def synthetic(n: int, seed: int = 3) -> LayoutGraph:
    rng = np.random.default_rng(seed)
    ids = [f"skill-{i}" for i in range(n)]
    categories = [f"cat{i % 7}" for i in range(n)]
    times = _ts(2026, 1, 1) + rng.uniform(0, 200 * 86400, n)
    radii = 5 + rng.uniform(0, 6, n)
    edges = np.array([(i, (i + 7) % n) for i in range(n)])
    return LayoutGraph(ids, categories, times, radii, edges)


def overlapping_pairs(graph: LayoutGraph, pos: np.ndarray, tolerance: float = 0.8) -> int:
    i, j = neighbour_pairs(pos, np.arange(graph.size), float(2 * graph.radii.max() + 3))
    d = np.hypot(*(pos[i] - pos[j]).T)
    return int((d < (graph.radii[i] + graph.radii[j]) * tolerance).sum() // 2)


@pytest.mark.parametrize("mode", [TIMELINE, CLUSTERS])
def test_layout_is_deterministic_and_has_no_overlaps(mode):
    graph = synthetic(400)
    first = LayoutEngine().layout(graph, mode).positions
    second = LayoutEngine().layout(graph, mode).positions
    assert np.array_equal(first, second)
    assert first.shape == (400, 2)
    assert np.isfinite(first).all()
    assert overlapping_pairs(graph, first) == 0


@pytest.mark.parametrize("mode", [TIMELINE, CLUSTERS])
def test_a_new_node_does_not_move_the_others(mode):
    graph = synthetic(300)
    engine = LayoutEngine()
    before = engine.layout(graph, mode)
    grown = synthetic(301)
    grown.ids[-1] = "brand-new"
    after = engine.layout(grown, mode)
    assert not after.full
    assert after.moved == 1
    assert np.array_equal(after.positions[:300], before.positions[:300])


@pytest.mark.parametrize("mode", [TIMELINE, CLUSTERS])
def test_removing_a_node_keeps_the_rest_in_place(mode):
    graph = synthetic(200)
    engine = LayoutEngine()
    before = engine.layout(graph, mode).positions
    keep = [i for i in range(200) if i != 50]
    smaller = LayoutGraph(
        [graph.ids[i] for i in keep], [graph.categories[i] for i in keep],
        graph.times[keep], graph.radii[keep], np.zeros((0, 2), dtype=int),
    )
    after = engine.layout(smaller, mode)
    assert after.moved == 0
    assert np.array_equal(after.positions, before[keep])


def test_timeline_puts_older_nodes_nearer_the_core():
    graph = synthetic(500)
    result = LayoutEngine().layout(graph, TIMELINE)
    radius = np.hypot(*result.positions.T)
    order = np.argsort(graph.times)
    oldest, newest = order[:50], order[-50:]
    assert radius[oldest].max() < radius[newest].min()
    # every node lies inside the band of its ring
    assert len(result.rings) == 7
    assert [r.label for r in result.rings][:2] == ["Jan 2026", "Feb 2026"]
    for ring in result.rings:
        assert ring.outer > ring.inner


def test_ring_units_follow_the_span():
    day = 86400.0
    start = _ts(2026, 4, 20)
    assert choose_unit(np.array([start + k * day for k in range(5)])) == "1 day"
    assert choose_unit(np.array([start + k * 30 * day for k in range(8)])) == "2 months"
    assert choose_unit(np.array([start])) is None
    assert bucket_label(int(start // (7 * day)), "1 week") == "16 Apr 2026"


def test_timeline_without_dates_uses_five_even_rings():
    graph = synthetic(50)
    graph.times[:] = np.nan
    result = LayoutEngine().layout(graph, TIMELINE)
    assert len(result.rings) == 5
    assert result.unit == ""


def test_clusters_group_nodes_around_their_category(demo_home):
    data = graph_from_payload(build_learning_graph(demo_home))
    result = LayoutEngine().layout(data.layout_graph(), CLUSTERS)
    anchors = {a.category: a for a in result.anchors}
    assert set(anchors) == set(data.categories)
    for index, category in enumerate(data.categories):
        x, y = result.positions[index]
        distance = {name: np.hypot(x - a.x, y - a.y) for name, a in anchors.items()}
        assert min(distance, key=distance.get) == category
        assert distance[category] <= anchors[category].radius
    assert overlapping_pairs(data.layout_graph(), result.positions) == 0


def _nearest_free_spot(placed: dict, radius: float) -> tuple[float, float, float]:
    """The packing rule spelt out one candidate at a time: 48 spots around each placed
    disc, in placing order; the first free one nearest the origin wins."""
    import math

    if not placed:
        return (0.0, 0.0, radius)
    best, best_d = None, math.inf
    for ox, oy, other in placed.values():
        reach = other + radius + 8.0
        for step in range(48):
            a = step * 2 * math.pi / 48
            x, y = ox + reach * math.cos(a), oy + reach * math.sin(a)
            d = math.hypot(x, y)
            if d < best_d and all(
                math.hypot(x - px, y - py) >= pr + radius + 8.0 - 1e-6 for px, py, pr in placed.values()
            ):
                best, best_d = (x, y, radius), d
    return best


def test_category_discs_are_packed_by_the_nearest_free_spot_rule():
    from hermes_studio.graph.layout import _pack_discs

    rng = np.random.default_rng(11)
    for trial in range(12):
        count = int(rng.integers(1, 18))
        # equal sizes too: ties between spots at the same distance go to the first
        sizes = rng.choice([25.0, 60.0, float(rng.uniform(10, 300))], size=count)
        discs = {f"c{k}": float(size) for k, size in enumerate(sizes)}
        order = sorted(discs, key=lambda name: -discs[name])
        expected: dict = {}
        for name in order:
            expected[name] = _nearest_free_spot(expected, discs[name])
        assert _pack_discs(discs, order) == expected, trial

