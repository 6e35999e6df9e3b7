"""The canvas paints as few times as it can (each paint at 10,000 nodes and their edges is
about 30 ms of the UI thread), and the turns that follow a paint wait for it."""

from __future__ import annotations

import numpy as np
import pytest

from hermes_studio.graph import glyphs as glyphs_module
from hermes_studio.graph import view as view_module
from hermes_studio.graph.layout import CLUSTERS
from hermes_studio.graph.view import LABEL_SETTLE_MS, GraphView


@pytest.fixture
def paints(monkeypatch) -> list[int]:
    """One entry per paint of any canvas made from now on."""
    painted: list[int] = []
    paint = GraphView.paintEvent

    def counting(self, event):
        painted.append(1)
        return paint(self, event)

    monkeypatch.setattr(GraphView, "paintEvent", counting)
    return painted


@pytest.fixture
def view(paints, view):
    """The conftest's canvas, its paints counted from its first show."""
    return view


def _drawn(view, snapshot, qtbot) -> None:
    data = snapshot.data
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    qtbot.waitUntil(lambda: not view.drawing, timeout=5000)
    qtbot.wait(LABEL_SETTLE_MS * 3)


def test_a_fit_paints_the_canvas_once_and_places_the_labels_once(view, snapshot, paints, qtbot, monkeypatch):
    _drawn(view, snapshot, qtbot)
    whole = view.vb.viewRect()
    view.vb.setRange(whole.adjusted(whole.width() / 4, whole.height() / 4, -whole.width() / 4, -whole.height() / 4),
                     padding=0)
    qtbot.wait(LABEL_SETTLE_MS * 3)
    placed: list[int] = []
    place = view_module.GraphView._draw_labels
    monkeypatch.setattr(view_module.GraphView, "_draw_labels", lambda self: (placed.append(1), place(self)))
    paints.clear()
    view.fit()
    qtbot.wait(LABEL_SETTLE_MS * 3)  # the labels' settle timer has fired meanwhile
    assert len(placed) == 1  # by the fit; not again for the same camera
    assert len(paints) == 1


def test_a_new_graph_is_not_placed_or_painted_again_once_drawn(view, snapshot, paints, qtbot):
    data = snapshot.data
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    qtbot.waitUntil(lambda: not view.drawing, timeout=5000)
    qtbot.wait(10)  # the paint of what the last turn drew
    labels = view.node_labels.labels
    paints.clear()
    qtbot.wait(LABEL_SETTLE_MS * 3)  # past the labels' settle timer the fit started
    assert paints == [] and view.node_labels.labels is labels


def test_a_new_graphs_glyph_styles_are_worked_out_once_over_its_turns(view, snapshot, monkeypatch, qtbot):
    monkeypatch.setattr(view_module, "ATLAS_PER_TURN", 2)  # the demo's styles then take many turns
    calls: list[int] = []
    distinct = glyphs_module.distinct_styles

    def counting(**kwargs):
        calls.append(1)
        return distinct(**kwargs)

    monkeypatch.setattr(view_module, "distinct_styles", counting)
    monkeypatch.setattr(glyphs_module, "distinct_styles", counting)
    data = snapshot.data
    view.set_graph(data, snapshot.layout, np.ones(data.size, dtype=bool), keep_camera=False)
    qtbot.waitUntil(lambda: not view.drawing, timeout=10000)
    assert len(view.node_item.fragmentAtlas) > 4  # (so there were several turns)
    assert {int(i) for i in view.node_item.data["data"] if i >= 0} == set(range(data.size))
    assert len(calls) == 1


def test_what_waits_for_a_paint_runs_after_it(view, paints, qtbot):
    ran: list[int] = []
    view.update()
    view.after_paint(lambda: ran.append(len(paints)))
    assert ran == []  # never in the same turn
    qtbot.waitUntil(lambda: bool(ran), timeout=2000)
    assert ran[0] >= 1


def test_what_waits_for_a_paint_runs_anyway_when_none_comes(view, paints, qtbot):
    ran: list[str] = []
    view.hide()
    view.after_paint(lambda: ran.append("hidden"))
    qtbot.waitUntil(lambda: bool(ran), timeout=2000)
    view.show()
    qtbot.waitExposed(view)
    view.setUpdatesEnabled(False)  # shown, but no paint comes
    view.after_paint(lambda: ran.append("no paint"))
    qtbot.waitUntil(lambda: len(ran) == 2, timeout=2000)
    view.setUpdatesEnabled(True)
    assert ran == ["hidden", "no paint"]


def test_progress_stays_shown_until_the_new_layout_is_drawn(panel, qtbot):
    when_worker_done: list[str] = []
    panel.worker.sig_busy.connect(lambda busy: busy or when_worker_done.append(panel.busy_label.text()))
    panel.ready = False
    panel.set_mode(CLUSTERS)
    qtbot.waitUntil(lambda: panel.ready and panel.snapshot.request.mode == CLUSTERS, timeout=20000)
    assert when_worker_done and when_worker_done[-1] == "updating…"  # (its snapshot was being drawn)
    assert panel.busy_label.text() == ""
