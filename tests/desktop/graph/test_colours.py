"""Colours that stay put: a category's colour comes from its name and survives live updates,
launches and other homes; the legend is drawn from the same book as the nodes."""

from __future__ import annotations

from graph_helpers import agent_writes_skill
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from hermes_studio.graph.colours import PALETTE, ColourBook, neutral_colour, preferred_slot
from hermes_studio.graph.style import DARK_CANVAS


def rgb(colour: QColor) -> tuple[int, int, int]:
    return colour.getRgb()[:3]


def colours_by_category(panel) -> dict[str, tuple[int, int, int]]:
    """The drawn colour of each category's nodes (all of a category's nodes agree)."""
    found: dict[str, set] = {}
    for node_id in panel.view.shown_ids():
        category = panel.data.categories[panel.data.index[node_id]]
        found.setdefault(category, set()).add(rgb(panel.view.node_brush(node_id)))
    assert all(len(colours) == 1 for colours in found.values()), found
    return {category: colours.pop() for category, colours in found.items()}


def test_a_name_gives_the_same_colour_in_any_home_and_order():
    one, two = ColourBook(), ColourBook()
    one.assign(["devops", "research", "writing"])
    two.assign(["writing", "research", "devops"])
    assert one.slots == two.slots
    lonely = ColourBook()
    lonely.assign(["research"])
    assert lonely.slots["research"] == preferred_slot("research") == one.slots["research"]


def test_more_categories_than_colours_share_the_neutral_colour():
    names = [f"category-{k:02d}" for k in range(len(PALETTE) + 5)]  # biggest first
    book = ColourBook()
    book.assign(names)
    colours = book.category_colours(names, DARK_CANVAS)
    coloured = names[: len(PALETTE)]
    assert len({rgb(colours[n]) for n in coloured}) == len(PALETTE)  # all told apart
    assert all(colours[n] == neutral_colour(DARK_CANVAS) for n in names[len(PALETTE):])


def test_saved_colours_that_are_junk_are_dropped():
    book = ColourBook.from_json({
        "version": 1, "slots": {"a": 2, "b": 99, "c": "x", "d": True},
        "custom": {"e": "#123456", "f": "not a colour"},
        "groups": [{"query": "docker", "colour": "#ff0000"}, {"query": " ", "colour": "#00ff00"}, "junk"],
    })
    assert book.slots == {"a": 2}
    assert book.custom == {"e": "#123456"}
    assert book.groups == [("docker", "#ff0000")]
    assert ColourBook.from_json("garbage").slots == {}


def test_colours_stay_put_when_the_agent_adds_a_category(panel, demo_home, qtbot):
    before = colours_by_category(panel)
    agent_writes_skill(demo_home, "astronomy", "star-charts",
                       "---\nname: star-charts\ndescription: Draw a star chart for a date\n---\n# Star charts\n")
    qtbot.waitUntil(lambda: "star-charts" in panel.data.index, timeout=15000)
    qtbot.waitUntil(lambda: not panel.view.drawing)
    after = colours_by_category(panel)
    assert "astronomy" in after
    assert {c: after[c] for c in before} == before
    # the legend says what the canvas shows, also for the new category
    for category, colour in after.items():
        assert rgb(panel.sidebar.category_swatch(category)) == colour, category


def test_colours_and_a_recolour_survive_a_relaunch(make_panel, demo_home, qtbot):
    first = make_panel(demo_home)
    category = first.data.category_names()[0]
    first.set_category_colour(category, QColor("#123456"))
    before = colours_by_category(first)
    assert before[category] == (0x12, 0x34, 0x56)
    first.close_panel()
    first.workspace.close()
    again = make_panel(demo_home)
    assert colours_by_category(again) == before
    again.set_category_colour(category, None)  # back to the colour of its name
    qtbot.waitUntil(lambda: not again.view.drawing)
    assert colours_by_category(again)[category] == rgb(again.colour_book.category_colour(category, DARK_CANVAS))
    assert colours_by_category(again)[category] != (0x12, 0x34, 0x56)


def test_the_legend_follows_colour_by_kind(panel, qtbot):
    panel.colour_box.setChecked(True)
    qtbot.waitUntil(lambda: not panel.view.drawing)
    key = {name: colour for role, name, colour in panel.sidebar.key_entries() if role == "kind"}
    data = panel.data
    skill = next(i for i in data.ids if data.kind[data.index[i]] == 0)
    memory = next(i for i in data.ids if data.kind[data.index[i]] == 1)
    assert rgb(key["skill"]) == rgb(panel.view.node_brush(skill))
    assert rgb(key["memory card"]) == rgb(panel.view.node_brush(memory))
    # the category swatches are hollow: their colour is not what the nodes show now
    assert all(panel.sidebar.category_swatch(name) is None for name in data.category_names())
    panel.colour_box.setChecked(False)
    qtbot.waitUntil(lambda: not panel.view.drawing)
    assert not [e for e in panel.sidebar.key_entries() if e[0] == "kind"]
    name = data.category_names()[0]
    assert panel.sidebar.category_swatch(name) is not None


def test_a_colour_group_colours_what_its_search_finds(panel, qtbot):
    panel.add_colour_group("docker", QColor("#ff2020"))
    qtbot.waitUntil(lambda: not panel.view.drawing)
    data = panel.data
    hits = [i for i in data.ids if "docker" in data.haystack[data.index[i]]]
    assert hits
    for node_id in panel.view.shown_ids():
        red = rgb(panel.view.node_brush(node_id)) == (0xFF, 0x20, 0x20)
        assert red == (node_id in hits), node_id
    [group] = [e for e in panel.sidebar.key_entries() if e[0] == "group"]
    assert group[1] == "docker" and rgb(group[2]) == (0xFF, 0x20, 0x20)
    panel.remove_colour_group("docker")
    qtbot.waitUntil(lambda: not panel.view.drawing)
    assert all(rgb(panel.view.node_brush(i)) != (0xFF, 0x20, 0x20) for i in hits)


def test_drawing_the_legend_filters_nothing_again(panel):
    """The legend's tooltips are item changes of the category list: they must not each
    re-run the filters and redraw the canvas (ten redraws per snapshot on the demo home)."""
    categories = panel.category_list
    categories.blockSignals(True)
    for row in range(categories.count()):
        categories.item(row).setToolTip("")  # so that drawing the legend changes every item
    categories.blockSignals(False)
    filtered = []
    panel.sidebar.sig_filters.connect(filtered.append)
    panel._show_legend()
    assert filtered == []
    assert "nodes" in categories.item(0).toolTip()
    categories.item(0).setCheckState(Qt.CheckState.Unchecked)  # a real tick still filters
    assert filtered
