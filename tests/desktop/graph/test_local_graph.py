"""The local graph: the selected node and its neighbours to the depth the slider gives."""

from __future__ import annotations

from graph_helpers import within

from hermes_memory.learning import build_learning_graph


def visible_rect_holds(panel, ids) -> bool:
    rect = panel.view.vb.viewRect()
    return all(rect.contains(*panel.view.pos[panel.data.index[i]]) for i in ids)


def test_the_local_graph_follows_the_slider_and_the_selection(panel, demo_home, qtbot):
    payload = build_learning_graph(demo_home)
    degree = {n: len(within(payload, n, 1)) for n in panel.data.ids}
    root = max(degree, key=lambda n: (degree[n], n))
    whole = panel.view.vb.viewRect()
    panel.open_node(root)
    panel.sidebar.local_box.setChecked(True)
    one = within(payload, root, 1)
    assert set(panel.view.shown_ids()) == one and len(one) > 1
    assert panel.view.selected_id() == root
    assert visible_rect_holds(panel, one)
    assert panel.view.vb.viewRect().width() < whole.width()  # the camera closed in
    panel.sidebar.depth_slider.setValue(2)
    two = within(payload, root, 2)
    assert set(panel.view.shown_ids()) == two and len(two) > len(one)
    assert panel.sidebar.depth_label.text() == "depth 2"
    assert visible_rect_holds(panel, two)
    # selecting a neighbour moves the centre there
    neighbour = sorted(one - {root})[0]
    panel.view.click_node(panel.data.index[neighbour])
    assert set(panel.view.shown_ids()) == within(payload, neighbour, 2)
    assert panel.view.selected_id() == neighbour
    # empty space keeps the neighbourhood; Clear filters ends it
    panel.view.click_node(None)
    assert set(panel.view.shown_ids()) == within(payload, neighbour, 2)
    panel.clear_filters()
    assert not panel.sidebar.local_box.isChecked()
    assert len(panel.view.shown_ids()) == panel.data.size


def test_the_local_graph_asks_for_a_selection_first(panel):
    panel.sidebar.local_box.setChecked(True)
    assert "Select a node" in panel.message.label.text()
    assert len(panel.view.shown_ids()) == panel.data.size
    node = panel.data.ids[0]
    panel.view.click_node(0)
    assert panel.view.selected_id() == node
    assert node in panel.view.shown_ids() and len(panel.view.shown_ids()) < panel.data.size
