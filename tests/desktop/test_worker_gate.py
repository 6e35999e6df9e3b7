"""Workers wait while the window paints its first frame (hermes_studio.worker_gate), and the
UI thread's collector leaves a worker's gc_paused section alone."""

from __future__ import annotations

import gc
import threading

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QLabel

from hermes_memory import pausing
from hermes_memory.pausing import gc_paused
from hermes_studio import app as studio_app
from hermes_studio.gc_policy import UiThreadCollector
from hermes_studio.graph.workers import GraphJobs, GraphRequest
from hermes_studio.worker_gate import GATE, WorkerGate, _FirstPaint
from hermes_studio.workspace import Workspace


@pytest.fixture(autouse=True)
def _gate_open_after():
    yield
    GATE.release()
    pausing.install(None)


def _waiting_since(gate: WorkerGate, before: int):
    return lambda: gate.waited > before


def test_a_read_asked_for_while_the_gate_is_held_runs_once_it_is_released(qtbot, home):
    workspace = Workspace(home, watch=False)
    ran, answers = threading.Event(), []
    try:
        GATE.hold()
        before = GATE.waited
        workspace.read(ran.set, answers.append)
        qtbot.waitUntil(_waiting_since(GATE, before), timeout=5000)  # the reader waits at the gate
        assert not ran.is_set()
        GATE.release()
        qtbot.waitUntil(lambda: len(answers) == 1, timeout=5000)
        assert ran.is_set()
    finally:
        GATE.release()
        workspace.close()


def test_a_graph_job_waits_at_the_gate_on_its_thread_and_never_on_the_ui_thread(qtbot, home):
    jobs = GraphJobs(home)
    GATE.hold()
    try:
        before = GATE.waited
        assert jobs.run(GraphRequest()) is not None  # here, on the UI thread: no waiting
        assert GATE.waited == before

        done = []
        worker = threading.Thread(target=lambda: done.append(jobs.run(GraphRequest(reasons=frozenset({"refresh"})))))
        worker.start()
        qtbot.waitUntil(_waiting_since(GATE, before), timeout=5000)
        assert done == []
        GATE.release()
        worker.join(30)
        assert len(done) == 1 and done[0] is not None
    finally:
        GATE.release()


class _PaintRecorder(QObject):
    """Whether the gate was held when the window painted, each time it did."""

    def __init__(self, window, order: list[str] | None = None):
        super().__init__(window)
        self.held_at_paint: list[bool] = []
        self.order = order if order is not None else []
        window.installEventFilter(self)

    def eventFilter(self, watched, event):  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Paint:
            self.held_at_paint.append(GATE.held)
            self.order.append("painted")
        return False


def test_a_screenshot_holds_the_workers_until_the_window_has_painted(qtbot, tmp_path):
    window = QLabel("first frame")
    qtbot.addWidget(window)
    window.resize(300, 200)
    recorder = _PaintRecorder(window)
    assert studio_app.save_screenshot(window, tmp_path / "shot.png")
    window.removeEventFilter(recorder)
    assert recorder.held_at_paint[:1] == [True]  # the first frame: workers held back
    qtbot.waitUntil(lambda: not GATE.held, timeout=5000)  # and let go once it is painted


def test_the_hold_ends_by_itself_when_the_window_never_paints(qtbot):
    window = QLabel("never shown")
    qtbot.addWidget(window)
    GATE.hold()
    _FirstPaint(window, GATE, limit_ms=50)
    qtbot.waitUntil(lambda: not GATE.held, timeout=5000)


def test_the_collector_leaves_a_workers_gc_paused_section_alone(qapp):
    collector = UiThreadCollector()
    collections: list[int] = []

    def record(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    inside, leave = threading.Event(), threading.Event()

    def section():
        with gc_paused():
            inside.set()
            leave.wait(10)

    worker = threading.Thread(target=section)
    gc.callbacks.append(record)
    try:
        worker.start()
        assert inside.wait(10)
        kept = [[] for _ in range(3 * gc.get_threshold()[0])]  # a collection is due
        collector._check()
        assert collections == []  # not while the worker's section runs
        leave.set()
        worker.join(10)
        kept.extend([] for _ in range(3 * gc.get_threshold()[0]))
        collector._check()
        assert collections  # and as due once it has ended
    finally:
        leave.set()
        gc.callbacks.remove(record)
        collector.deleteLater()


def test_what_was_made_before_the_window_shows_is_aged_at_once(qtbot, tmp_path, monkeypatch):
    """The modules, classes and widgets made at start-up live as long as the app: out of
    the young generations before the first frame (frozen, or in the oldest generation), so
    that the first collections on the UI thread do not walk them."""
    kept = [[] for _ in range(1000)]
    young = {id(item) for generation in (0, 1) for item in gc.get_objects(generation=generation)}
    assert id(kept[0]) in young and id(kept[-1]) in young
    studio_app.age_start_up_objects()
    young = {id(item) for generation in (0, 1) for item in gc.get_objects(generation=generation)}
    assert id(kept[0]) not in young and id(kept[-1]) not in young

    order: list[str] = []
    real_age = studio_app.age_start_up_objects
    monkeypatch.setattr(studio_app, "age_start_up_objects", lambda: (order.append("aged"), real_age()))
    window = QLabel("first frame")
    qtbot.addWidget(window)
    recorder = _PaintRecorder(window, order)
    assert studio_app.save_screenshot(window, tmp_path / "shot.png")
    window.removeEventFilter(recorder)
    assert order[:2] == ["aged", "painted"]


def test_a_graph_ready_before_the_first_frame_is_shown_after_it(qtbot, home):
    from hermes_studio.graph.workers import GraphWorker

    worker = GraphWorker(home)
    shown: list[object] = []
    worker.sig_ready.connect(shown.append)
    snapshot = GraphJobs(home).run(GraphRequest())
    try:
        GATE.hold()
        worker._finished(GraphRequest(), snapshot)  # (the build's answer, arriving now)
        qtbot.wait(50)
        assert shown == []  # held while the first frame is pending
        GATE.release()
        qtbot.waitUntil(lambda: shown == [snapshot], timeout=5000)
    finally:
        GATE.release()
        worker.close()
