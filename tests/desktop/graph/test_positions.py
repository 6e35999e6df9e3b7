"""The graph worker: positions kept per home, the other mode laid out in advance, sliced
drawing, and rebuilds that trust the folder watcher's changed paths."""

from __future__ import annotations

import os

import numpy as np

from hermes_memory.memory.store import MemoryStore
from hermes_studio.graph.layout import CLUSTERS, TIMELINE, LayoutEngine
from hermes_studio.graph.workers import PositionCache


def _positions(panel) -> dict[str, tuple[float, float]]:
    snapshot = panel.snapshot
    return dict(zip(snapshot.data.ids, map(tuple, snapshot.layout.positions.tolist()), strict=True))


def _close(panel) -> None:
    panel.close_panel()
    panel.workspace.close()


def test_a_relaunch_reuses_the_saved_positions_and_places_only_new_nodes(make_panel, demo_home, tmp_path):
    cache = PositionCache(demo_home)
    assert cache.path.is_relative_to(os.environ["XDG_CACHE_HOME"])  # tests never touch ~/.cache

    first = make_panel(demo_home, watch=False)
    assert first.snapshot.layout.full and first.snapshot.layout.moved == first.data.size
    before = _positions(first)
    _close(first)
    assert cache.path.is_file()

    second = make_panel(demo_home, watch=False)
    assert second.snapshot.layout.moved == 0 and not second.snapshot.layout.full
    assert _positions(second) == before
    _close(second)

    MemoryStore(demo_home).add("user", "Dana prefers answers with the command first.")  # ids stay put
    third = make_panel(demo_home, watch=False)
    after = _positions(third)
    new = set(after) - set(before)
    assert len(new) == 1 and third.snapshot.layout.moved == 1
    assert {k: v for k, v in after.items() if k not in new} == {k: before[k] for k in after if k not in new}


def test_the_first_switch_to_clusters_finds_its_positions_ready(make_panel, demo_home, qtbot):
    panel = make_panel(demo_home, watch=False)
    qtbot.waitUntil(lambda: panel.worker.jobs.layouts.has(CLUSTERS), timeout=20000)
    panel.clusters_button.click()
    qtbot.waitUntil(lambda: panel.snapshot.request.mode == CLUSTERS, timeout=20000)
    assert panel.snapshot.layout.moved == 0
    panel.timeline_button.click()
    qtbot.waitUntil(lambda: panel.snapshot.request.mode == TIMELINE, timeout=20000)
    assert panel.snapshot.layout.moved == 0


def test_a_damaged_cache_file_means_a_fresh_layout(make_panel, demo_home):
    cache = PositionCache(demo_home)
    cache.path.parent.mkdir(parents=True)
    cache.path.write_text('{"version": 1, "frames": {"timeline": {"key": 3}}}', encoding="utf-8")
    panel = make_panel(demo_home, watch=False)
    assert panel.snapshot.layout.full and panel.snapshot.layout.moved == panel.data.size


def test_exported_state_round_trips_through_json():
    import json

    from hermes_studio.graph.layout import LayoutGraph

    ids = [f"n{i}" for i in range(40)]
    graph = LayoutGraph(
        ids, ["a" if i % 2 else "b" for i in range(40)],
        np.linspace(1.7e9, 1.72e9, 40), np.full(40, 6.0), np.array([[0, 1], [2, 3]]),
    )
    engine = LayoutEngine()
    laid = {mode: engine.layout(graph, mode).positions for mode in (TIMELINE, CLUSTERS)}
    copy = LayoutEngine()
    assert copy.import_state(json.loads(json.dumps(engine.export_state())))
    for mode in (TIMELINE, CLUSTERS):
        again = copy.layout(graph, mode)
        assert again.moved == 0 and not again.full
        assert np.array_equal(again.positions, laid[mode])


def test_a_cancelled_layout_keeps_nothing():
    import pytest

    from hermes_studio.graph.layout import LayoutCancelled, LayoutGraph

    graph = LayoutGraph(["a", "b", "c"], ["x", "x", "y"], np.array([1.7e9, 1.71e9, 1.72e9]), np.full(3, 6.0), np.zeros((0, 2)))
    engine = LayoutEngine()
    with pytest.raises(LayoutCancelled):
        engine.layout(graph, CLUSTERS, should_stop=lambda: True)
    assert not engine.has(CLUSTERS)
    assert engine.layout(graph, CLUSTERS).moved == 3


def test_every_glyph_is_handed_to_the_canvas_at_once_with_its_own_style(make_panel, demo_home):
    from hermes_studio.graph.model import MEMORY

    panel = make_panel(demo_home, watch=False)
    view = panel.view
    assert not view.drawing
    data, shown = panel.data, view.shown
    glyphs = view.node_item.data
    pinned = int(data.pinned[shown].sum())
    assert len(glyphs) == len(shown) + pinned
    assert sorted(glyphs["data"][: len(shown)].tolist()) == sorted(shown.tolist())
    # each glyph points at the atlas image of its own style (what pyqtgraph's setData gives)
    atlas = view.node_item.fragmentAtlas
    for k in range(len(glyphs)):
        style = (glyphs["symbol"][k], float(glyphs["size"][k]), glyphs["pen"][k], glyphs["brush"][k])
        assert tuple(glyphs["sourceRect"][k]) == tuple(atlas[[style]][0])
    memory = [k for k in range(len(shown)) if data.kind[glyphs["data"][k]] == MEMORY]
    assert memory and all(glyphs["symbol"][k] == "d" for k in memory)
    view.grab()  # and it paints


def test_an_agent_edit_rebuilds_with_the_changed_path_the_watcher_saw(make_panel, demo_home, qtbot):
    from graph_helpers import skill_dir

    from hermes_memory.fileio import atomic_write_text

    panel = make_panel(demo_home)
    builder = panel.worker.jobs.builder
    hints: list = []
    build = builder.build

    def recording_build(*args, **kwargs):
        hints.append(kwargs.get("changed"))
        return build(*args, **kwargs)

    builder.build = recording_build
    skill_md = skill_dir(demo_home, "idempotency-keys") / "SKILL.md"
    text = skill_md.read_text(encoding="utf-8")
    atomic_write_text(skill_md, text.replace("description:", "description: Edited.", 1), ".tmp_")
    qtbot.waitUntil(lambda: "Edited." in str(panel.data.node("idempotency-keys").get("description")), timeout=10000)
    assert hints and all(h is not None and str(skill_md) in h for h in hints)
    assert builder.index.files_parsed == 1


def _slow_clusters(panel, monkeypatch, *, until_stopped: bool):
    """Make laying out Clusters slow (it honours cancelling, as the real one does)."""
    import time

    from hermes_studio.graph.layout import LayoutCancelled

    layouts = panel.worker.jobs.layouts
    real = layouts._clusters
    entered = []

    def slow(graph):
        entered.append(time.monotonic())
        deadline = time.monotonic() + (30.0 if until_stopped else 0.5)
        while time.monotonic() < deadline:
            if layouts._should_stop is not None and layouts._should_stop():
                raise LayoutCancelled
            time.sleep(0.01)
        return real(graph)

    monkeypatch.setattr(layouts, "_clusters", slow)
    return entered


def test_a_rebuild_during_the_layout_made_in_advance_is_served_first(demo_home, qtbot, monkeypatch):
    from hermes_studio.graph import GraphPanel
    from hermes_studio.workspace import Workspace

    workspace = Workspace(demo_home, watch=False)
    panel = GraphPanel(workspace, start=False)
    qtbot.addWidget(panel)
    entered = _slow_clusters(panel, monkeypatch, until_stopped=True)
    panel.worker.request(mode=TIMELINE, reason="open")
    try:
        qtbot.waitUntil(lambda: bool(entered), timeout=20000)  # Clusters is being laid out in advance
        first = panel.snapshot
        panel.worker.request(reason="refresh")  # e.g. the person asked for all skills
        qtbot.waitUntil(lambda: panel.snapshot is not first, timeout=10000)  # not 30 s later
        assert panel.snapshot.request.mode == TIMELINE
        assert not panel.worker.jobs.layouts.has(CLUSTERS)  # the cancelled head start kept nothing
    finally:
        _close(panel)


def test_a_switch_during_the_layout_made_in_advance_is_served_by_it(demo_home, qtbot, monkeypatch):
    from hermes_studio.graph import GraphPanel
    from hermes_studio.workspace import Workspace

    workspace = Workspace(demo_home, watch=False)
    panel = GraphPanel(workspace, start=False)
    qtbot.addWidget(panel)
    entered = _slow_clusters(panel, monkeypatch, until_stopped=False)
    panel.worker.request(mode=TIMELINE, reason="open")
    try:
        qtbot.waitUntil(lambda: bool(entered), timeout=20000)
        panel.clusters_button.click()
        qtbot.waitUntil(lambda: panel.snapshot.request.mode == CLUSTERS, timeout=20000)
        assert len(entered) == 1  # the head start only: the switch takes its result as it is
        assert panel.snapshot.layout.moved == 0  # every position came from the head start
    finally:
        _close(panel)


def test_the_cache_is_written_in_a_pause_not_between_a_layout_and_its_snapshot(demo_home, tmp_path):
    from hermes_studio.graph.workers import GraphJobs, GraphRequest

    cache = PositionCache(demo_home, tmp_path / "layouts")
    jobs = GraphJobs(demo_home, positions=cache)
    snapshot = jobs.run(GraphRequest(mode=TIMELINE))
    assert snapshot.layout.full and not cache.path.exists()  # the snapshot did not wait for the disk

    jobs.prepare(CLUSTERS)  # the other mode in advance: only the layout
    assert jobs.layouts.has(CLUSTERS) and not cache.path.exists()
    jobs.tidy(should_yield=lambda: True)  # a request waits: nothing now
    assert not cache.path.exists()
    assert "sort key 1" not in snapshot.data.derived  # (the table's sort keys left for later too)

    jobs.tidy()  # a pause: the positions go to disk, both modes
    saved = LayoutEngine()
    assert cache.load(saved) and saved.has(TIMELINE) and saved.has(CLUSTERS)
    assert "sort key 1" in snapshot.data.derived


def test_a_switch_back_reuses_the_layout_of_the_same_graph(demo_home, tmp_path, monkeypatch):
    from hermes_studio.graph.workers import GraphJobs, GraphRequest

    jobs = GraphJobs(demo_home, positions=PositionCache(demo_home, tmp_path / "layouts"))
    first = jobs.run(GraphRequest(mode=TIMELINE))
    clusters = jobs.run(GraphRequest(mode=CLUSTERS, reasons=frozenset({"layout"})))
    passes = []
    monkeypatch.setattr(jobs.layouts, "layout", lambda *a, **k: passes.append(a))
    again = jobs.run(GraphRequest(mode=TIMELINE, reasons=frozenset({"layout"})))
    assert again.data is first.data and not passes  # no second pass over the nodes
    assert np.array_equal(again.layout.positions, first.layout.positions)
    assert again.layout.moved == 0 and not again.layout.full
    assert again.layout.rings == first.layout.rings
    assert jobs.run(GraphRequest(mode=CLUSTERS, reasons=frozenset({"layout"}))).layout.anchors == clusters.layout.anchors


def test_closing_writes_the_positions_a_panel_laid_out(demo_home, qtbot):
    from hermes_studio.graph import GraphPanel
    from hermes_studio.workspace import Workspace

    workspace = Workspace(demo_home, watch=False)
    panel = GraphPanel(workspace, start=False)
    qtbot.addWidget(panel)
    panel.prepare_when_drawn = False  # as in the window until its start-up reads are done
    panel.worker.request(mode=TIMELINE, reason="open")
    qtbot.waitUntil(lambda: panel.ready, timeout=20000)
    cache = PositionCache(demo_home)
    assert not cache.path.exists()
    _close(panel)
    saved = LayoutEngine()
    assert cache.load(saved) and saved.has(TIMELINE)


def test_the_cache_text_made_in_pieces_is_the_json_of_the_state():
    import json

    from hermes_studio.graph.layout import LayoutGraph
    from hermes_studio.graph.workers import JSON_PIECE, json_in_pieces

    n = 2 * JSON_PIECE + 7  # (lists of several pieces, the last one short)
    graph = LayoutGraph(
        [f"n{i}\u00e9\"" for i in range(n)], [f"c{i % 5}" for i in range(n)],
        np.linspace(1.7e9, 1.72e9, n), np.full(n, 6.0), np.array([[0, 1], [2, 3]]),
    )
    engine = LayoutEngine()
    for mode in (TIMELINE, CLUSTERS):
        engine.layout(graph, mode)
    state = engine.export_state()
    assert json_in_pieces(state) == json.dumps(state, separators=(",", ":"))
    assert json_in_pieces([]) == "[]" and json_in_pieces({"a": [1] * (JSON_PIECE + 1)}) == json.dumps(
        {"a": [1] * (JSON_PIECE + 1)}, separators=(",", ":"))


def test_after_a_switch_saving_and_sort_keys_wait_for_a_pause(make_panel, demo_home, qtbot, monkeypatch):
    from hermes_studio.graph import workers
    from hermes_studio.graph.table import COLUMNS

    monkeypatch.setattr(workers, "TIDY_AFTER_MS", 1000)
    panel = make_panel(demo_home, watch=False)
    cache = PositionCache(demo_home)
    qtbot.waitUntil(cache.path.exists, timeout=20000)  # right after the head start
    assert all(f"sort key {c}" in panel.data.derived for c in range(len(COLUMNS)))
    tidied: list[bool] = []
    tidy = panel.worker.jobs.tidy
    monkeypatch.setattr(panel.worker.jobs, "tidy", lambda should_yield=None: (tidied.append(True), tidy(should_yield)))
    panel.ready = False
    panel.set_mode(CLUSTERS)
    qtbot.waitUntil(lambda: panel.ready and panel.snapshot.request.mode == CLUSTERS, timeout=20000)
    assert tidied == []  # not while the person is switching
    qtbot.waitUntil(lambda: bool(tidied), timeout=5000)
