"""Skill health in the graph (badges, the "Has problems" filter, the overview's count) and an
overview that follows the filters and the timeline's playhead."""

from __future__ import annotations

import re

import numpy as np
from graph_helpers import agent_writes_skill
from PySide6.QtGui import QColor

from hermes_studio.graph.health import BADGE_COLOURS, ERROR, health_arrays
from hermes_studio.graph.model import MEMORY


def badge_of(panel, node_id: str) -> QColor | None:
    item = panel.view.badge_item
    if not item.isVisible() or len(item.data) == 0:
        return None
    index = panel.data.index[node_id]
    where = np.flatnonzero(item.data["data"] == index)
    return item.data["brush"][int(where[0])].color() if len(where) else None


def overview_counts(panel) -> tuple[int, int]:
    """(learned skills, memory cards) as the overview states them."""
    text = panel.details.hint.text()
    skills, memories = re.search(r"<b>(\d+)</b> learned skills.*?<b>(\d+)</b> memory cards", text).groups()
    return int(skills), int(memories)


def shown_counts(panel) -> tuple[int, int]:
    data, shown = panel.data, panel.view.shown
    memory = int((data.kind[shown] == MEMORY).sum())
    return len(shown) - memory, memory


def test_a_broken_skill_gets_a_badge_the_filter_and_the_overview_count(panel, demo_home, qtbot):
    # the closing --- never came: the agent would show this frontmatter as the body
    agent_writes_skill(demo_home, "testing", "half-written",
                       "---\nname: half-written\ndescription: A skill whose header was cut off\n# Body\n", use_count=3)
    qtbot.waitUntil(lambda: "half-written" in panel.data.index, timeout=15000)
    qtbot.waitUntil(lambda: not panel.view.drawing)
    data = panel.data
    assert "frontmatter-unclosed" in data.node("half-written")["healthCodes"]
    assert badge_of(panel, "half-written") == QColor(BADGE_COLOURS[ERROR])
    assert "frontmatter not closed" in panel.view.tooltip_html(data.index["half-written"])
    counts, _worst = health_arrays(data)
    healthy = next(i for i in data.ids if counts[data.index[i]] == 0 and data.kind[data.index[i]] != MEMORY)
    assert badge_of(panel, healthy) is None
    # only errors and warnings carry a dot: the demo's stale skills (notes) do not
    badged = {panel.data.ids[i] for i in panel.view.badge_item.data["data"]}
    assert badged == {i for i in data.ids if _worst[data.index[i]] >= 1} == {"half-written"}
    stale = next(i for i in data.ids if data.node(i).get("healthCodes") == ["stale"])
    assert badge_of(panel, stale) is None
    assert "not used for a long time" in panel.view.tooltip_html(data.index[stale])
    # "Has problems" keeps every skill with any finding
    panel.sidebar.problems_box.setChecked(True)
    assert set(panel.view.shown_ids()) == {i for i in data.ids if counts[data.index[i]] > 0}
    assert "half-written" in panel.view.shown_ids() and stale in panel.view.shown_ids()
    troubled = int((counts > 0).sum())
    qtbot.waitUntil(lambda: (
        f"<b>{troubled}</b> skills with health problems (<b>1</b> the agent mis-reads, "
        f"<b>{troubled - 1}</b> only stale or never used)"
    ) in panel.details.hint.text())  # the filtered overview comes from the worker
    panel.sidebar.problems_box.setChecked(False)
    assert len(panel.view.shown_ids()) == data.size


def test_the_overview_follows_the_search_and_the_playhead(panel, qtbot):
    assert overview_counts(panel) == shown_counts(panel)
    panel.search.setText("docker")
    qtbot.waitUntil(lambda: "<h3>Shown now</h3>" in panel.details.hint.text())  # made by the worker
    assert overview_counts(panel) == shown_counts(panel) != (0, 0)
    panel.search.clear()
    assert "<h3>What the agent learned</h3>" in panel.details.hint.text()  # the snapshot's own, at once
    panel.scrubber.scrub(0.4)  # with recorded history the past comes from the engine, on a worker
    qtbot.waitUntil(lambda: 0 < len(panel.view.shown) < panel.data.size, timeout=10_000)
    qtbot.waitUntil(lambda: overview_counts(panel) == shown_counts(panel))
    panel.scrubber.scrub(1.0)
    qtbot.waitUntil(lambda: len(panel.view.shown) == panel.data.size, timeout=10_000)
    assert "<h3>What the agent learned</h3>" in panel.details.hint.text()
    assert overview_counts(panel) == shown_counts(panel)


def test_the_filtered_overview_is_made_off_the_ui_thread_and_a_stale_one_is_dropped(panel, qtbot, monkeypatch):
    import threading

    from hermes_studio.graph import workers

    made, release = [], threading.Event()
    real = workers.overview_html

    def slow_overview(data, mask=None):
        made.append((threading.current_thread() is threading.main_thread(), int(np.sum(mask))))
        if len(made) == 1:
            release.wait(10)  # the first answer is late: the person typed on meanwhile
        return real(data, mask)

    monkeypatch.setattr(workers, "overview_html", slow_overview)
    shown_texts = []
    set_overview = panel.details.set_overview
    monkeypatch.setattr(panel.details, "set_overview", lambda text: (shown_texts.append(text), set_overview(text)))
    for text in ("d", "do", "doc", "docker"):  # typed while the first overview is made
        panel.search.setText(text)
    wanted = shown_counts(panel)
    release.set()
    qtbot.waitUntil(lambda: len(made) == 2 and bool(shown_texts))
    qtbot.wait(100)
    assert [on_ui for on_ui, _count in made] == [False, False]
    assert made[1][1] == len(panel.view.shown)  # "d" (running) and "docker" (the newest) only
    assert len(shown_texts) == 1 and overview_counts(panel) == wanted  # the answer for "d" was dropped
