"""The growth scrubber replays recorded history: dragging it to a date shows the graph as
it was and, on the Memory tab, the stores as they were (read-only, "Restore this version"),
with each drag coalesced into few engine calls on the reader thread."""

from __future__ import annotations

import versions_helpers as seeded
from PySide6.QtCore import QPoint, QRectF, Qt

from hermes_memory.memory.entries import fingerprint, serialise_entries
from hermes_studio.main_window import MainWindow


def x_at(scrubber, when: float) -> int:
    lo, hi = scrubber.span
    rect = QRectF(scrubber.track.rect()).adjusted(6, 4, -6, -6)
    return round(rect.left() + (when - lo) / (hi - lo) * rect.width())


def shown_memory_fingerprints(graph) -> set[str]:
    return {i.split(":")[3] for i in graph.view.shown_ids() if i.startswith("memory:memory:")}


def open_window(qtbot, home, view: str = "graph") -> MainWindow:
    window = MainWindow(home, view=view)
    qtbot.addWidget(window)
    window.resize(1300, 820)
    window.show()
    assert window.graph.wait_ready(20000)
    qtbot.waitUntil(lambda: window.graph.scrubber.history, timeout=10000)
    return window


def test_dragging_replays_the_graph_and_memory_and_restores_a_version(qtbot, history_home, times):
    window = open_window(qtbot, history_home)
    graph, scrubber, past = window.graph, window.graph.scrubber, window.past
    assert shown_memory_fingerprints(graph) == {fingerprint(e) for e in (seeded.FIRST[0], seeded.EDITED, seeded.ADDED)}
    track = scrubber.track
    y = track.height() // 2
    then = (times["first"] + times["before_user"]) / 2  # two entries, before USER.md and the third
    target = x_at(scrubber, then)
    start = max(target - 40, 8)
    qtbot.mousePress(track, Qt.MouseButton.LeftButton, pos=QPoint(start, y))
    moves = 0
    for x in range(start, target + 1, 2):
        qtbot.mouseMove(track, QPoint(x, y))
        moves += 1
    qtbot.mouseRelease(track, Qt.MouseButton.LeftButton, pos=QPoint(target, y))
    qtbot.waitUntil(lambda: graph.replay.state is not None and graph.replay.when is not None
                    and abs(graph.replay.state.get("at", 0) - graph.replay.when) < 1e-6, timeout=5000)  # fmt: skip
    assert graph.replay.requests < moves  # a drag is coalesced, never queued move by move
    assert graph.replay.state["memory"]["entry_count"] == 2

    # the graph as it was: the first entry; the edited one still had its old text, the third not yet
    qtbot.waitUntil(lambda: shown_memory_fingerprints(graph) == {fingerprint(seeded.FIRST[0])}, timeout=5000)
    # the Memory tab as it was: read-only, with Restore
    window.set_view("memory")
    assert past.isVisible() and not window.memory.tabs.isVisible()
    view = past.views["memory"]
    assert view.isReadOnly() and view.toPlainText() == serialise_entries(seeded.FIRST)
    assert "no version" in past.captions["user"].text()  # USER.md was first written later
    assert not past.restore_buttons["user"].isEnabled()
    before = history_home.memory_file.read_bytes()
    with qtbot.waitSignal(past.sig_restored, timeout=10000) as restored:
        qtbot.mouseClick(past.restore_buttons["memory"], Qt.MouseButton.LeftButton)
    assert restored.args[0]["ok"], restored.args[0]
    assert history_home.memory_file.read_bytes() == seeded.expected_bytes(seeded.FIRST)
    window.undo()
    qtbot.waitUntil(lambda: history_home.memory_file.read_bytes() == before, timeout=10000)

    qtbot.mouseClick(past.back_button, Qt.MouseButton.LeftButton)  # back to now: the editors return
    assert scrubber.date_label.text() == "now"
    assert not past.isVisible() and window.memory.tabs.isVisible()
    qtbot.waitUntil(lambda: len(shown_memory_fingerprints(graph)) == 3, timeout=10000)
    window.close()


def test_an_unreadable_history_at_the_playhead_says_so(qtbot, history_home, times):
    window = open_window(qtbot, history_home, view="memory")
    from hermes_memory.history.storage import HistoryStore

    store = HistoryStore(history_home)
    # (once the capture at open is done and the late watch is in place, its catch-up
    # included: either could otherwise write the log again between these two steps)
    workspace = window.workspace
    qtbot.waitUntil(lambda: workspace.watching and not workspace.watch_starting and not workspace.capturing,
                    timeout=20000)
    store.events_path.unlink()
    store.events_path.mkdir()
    window.graph.replay.request(times["added"])
    qtbot.waitUntil(lambda: "could not be read" in window.past.captions["memory"].text(), timeout=5000)
    assert not window.past.restore_buttons["memory"].isEnabled()
    assert window.graph.error is None  # the graph keeps working
    window.close()


def test_the_track_spans_learning_before_history_began(qtbot):
    import numpy as np

    from hermes_studio.graph.timeline import TimelineScrubber

    scrubber = TimelineScrubber()
    qtbot.addWidget(scrubber)
    learned = (np.array([2.0, 0.0, 1.0]), np.array([0.0, 3.0, 0.0]))
    scrubber.set_data(*learned, (1000.0, 4000.0), [1000.0, 2500.0])
    assert scrubber.span == (1000.0, 4000.0) and not scrubber.history
    points = [{"ts": 3000.0, "kind": "memory"}, {"ts": 5000.0, "kind": "skill"}]
    scrubber.set_history(points, now=6000.0)
    assert scrubber.history and scrubber.span == (1000.0, 6000.0)
    assert scrubber.time_at(0.0) == 1000.0  # before the first version: the learning times
    assert scrubber.track.memories.sum() == 1 + 3  # one version, and the cards learned before it
    assert scrubber.track.skills.sum() == 1 + 2  # one version, and the skills learned before it
    assert scrubber.track.ticks == [0.0, 0.3]
    scrubber.set_data(*learned, (1000.0, 4000.0), [])  # a rebuild keeps the history track
    assert scrubber.history and scrubber.span == (1000.0, 6000.0)
