"""The graph's "Has problems" filter and the local graph (switch, depth, centre) are
remembered per home across launches, like the graph's other settings."""

from __future__ import annotations

import shutil

import pytest
from graph_helpers import within

from hermes_memory.home import HermesHome
from hermes_memory.learning import build_learning_graph
from hermes_studio import app as studio_app


def copy_of_demo(folder) -> HermesHome:
    shutil.copytree(studio_app.bundled_demo_home(), folder)
    return HermesHome.resolve(folder)


@pytest.fixture
def make_window(open_window, discard_on_close):
    return open_window


def test_has_problems_and_the_local_graph_come_back_on_the_next_launch(make_window, tmp_path, qtbot):
    home = copy_of_demo(tmp_path / "demo-home")
    payload = build_learning_graph(home)
    problems = {node["id"] for node in payload["nodes"] if node.get("healthCount")}
    root = max(sorted(problems), key=lambda n: len(within(payload, n, 2) & problems))
    expected = within(payload, root, 2) & problems
    assert len(expected) > 1

    first = make_window(home)
    side = first.graph.sidebar
    side.problems_box.setChecked(True)
    first.graph.open_node(root)
    side.local_box.setChecked(True)
    side.depth_slider.setValue(2)
    assert set(first.graph.view.shown_ids()) == expected
    first.close()

    second = make_window(home)
    panel, side = second.graph, second.graph.sidebar
    assert side.problems_box.isChecked() and panel.state.problems_only
    assert side.local_box.isChecked() and side.depth_slider.value() == 2 and side.depth_label.text() == "depth 2"
    assert (panel.state.local_root, panel.state.local_depth) == (root, 2)
    assert set(panel.view.shown_ids()) == expected
    assert panel.view.selected_id() == root  # the centre is selected again, its details shown
    qtbot.waitUntil(lambda: panel.details.node_id() == root, timeout=5000)
    assert "Select a node" not in panel.message.label.text()

    # another home keeps its own (none yet)
    other = make_window(copy_of_demo(tmp_path / "other-home"))
    assert not other.graph.sidebar.problems_box.isChecked() and not other.graph.sidebar.local_box.isChecked()
    assert len(other.graph.view.shown_ids()) == other.graph.data.size
    other.close()

    # switching them off is remembered too; the depth stays for the next time
    side.problems_box.setChecked(False)
    side.local_box.setChecked(False)
    second.close()
    third = make_window(home)
    side = third.graph.sidebar
    assert not side.problems_box.isChecked() and not side.local_box.isChecked()
    assert side.depth_slider.value() == 2
    assert len(third.graph.view.shown_ids()) == third.graph.data.size


def test_a_remembered_centre_gone_from_the_home_lifts_the_local_graph(make_window, tmp_path):
    home = copy_of_demo(tmp_path / "demo-home")
    first = make_window(home)
    root = next(i for i in first.graph.data.ids if not i.startswith("memory:"))
    first.graph.open_node(root)
    first.graph.sidebar.local_box.setChecked(True)
    first.close()
    skill = next(p.parent for p in home.skills_dir.rglob("SKILL.md") if p.parent.name == root)
    shutil.rmtree(skill)

    second = make_window(home)
    assert root not in second.graph.data.index
    assert len(second.graph.view.shown_ids()) == second.graph.data.size  # not an empty canvas
    assert second.graph.selection.ids == []


def test_a_home_left_in_clusters_opens_in_clusters_laid_out_once(make_window, tmp_path, qtbot):
    home = copy_of_demo(tmp_path / "demo-home")
    first = make_window(home)
    first.graph.clusters_button.setChecked(True)
    qtbot.waitUntil(lambda: first.graph.snapshot.request.mode == "clusters", timeout=10000)
    first.close()

    second = make_window(home)
    panel = second.graph
    assert panel.mode == "clusters" and panel.clusters_button.isChecked()
    # the first graph shown is laid out in clusters: no timeline first, then clusters again
    assert panel.snapshot.request.mode == "clusters" and panel.snapshot.serial == 1
    assert panel.worker.last_request.reasons == frozenset({"open"})
