"""The cycle collector runs on the UI thread only (a worker collecting a Qt object deadlocks)."""

from __future__ import annotations

import gc
import threading

from hermes_studio import app as studio_app
from hermes_studio import gc_policy
from hermes_studio.gc_policy import UiThreadCollector


class _Finalised:
    """Records on which thread it was freed."""

    def __init__(self, threads: list[str]):
        self.threads = threads
        self.myself = self  # a reference cycle: only the cycle collector frees it

    def __del__(self):
        self.threads.append(threading.current_thread().name)


def test_a_cycle_a_worker_drops_is_freed_on_the_ui_thread(qtbot):
    threads: list[str] = []
    kept: list[list] = []

    def work():
        _Finalised(threads)
        # Well past the youngest generation's threshold: CPython would collect right here.
        kept.extend([] for _ in range(20 * gc.get_threshold()[0]))

    worker = threading.Thread(target=work, name="worker")
    worker.start()
    worker.join()
    assert threads == []  # nothing collected on the worker
    qtbot.waitUntil(lambda: bool(threads), timeout=5000)
    assert threads == [threading.main_thread().name]


def test_collections_follow_the_interpreters_thresholds():
    collector = UiThreadCollector()
    gc.collect()
    assert collector.collect_due() is None  # nothing allocated since

    threshold0, threshold1, _ = gc.get_threshold()
    done = []
    kept = []
    for _ in range(threshold1 + 2):
        kept.append([[] for _ in range(threshold0 + 10)])
        done.append(collector.collect_due())
    # The youngest generation each time, the middle one once the youngest had been
    # collected more than threshold1 times since: CPython's own schedule.
    assert done == [0] * (threshold1 + 1) + [1]


def test_stop_gives_collection_back_to_the_interpreter():
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        collector = UiThreadCollector()
        collector.start()
        assert collector.active and not gc.isenabled()
        collector.stop()
        assert not collector.active and gc.isenabled()
    finally:
        if not was_enabled:
            gc.disable()


def test_the_app_runs_with_collection_on_its_ui_thread(tmp_path, monkeypatch, qapp):
    seen = []

    def record(window, target):
        seen.append(gc.isenabled())
        return window.grab().save(str(target), "PNG")

    monkeypatch.setattr(studio_app, "save_screenshot", record)
    gc.enable()
    try:
        assert studio_app.main(["--screenshot", str(tmp_path / "shot.png")]) == 0
        assert seen == [False]
        assert gc.isenabled()  # given back once the app is done
    finally:
        gc.disable()  # as this test module's fixture had it


def test_an_idle_app_checks_ever_less_often():
    collector = UiThreadCollector()
    gc.collect()
    intervals = []
    for _ in range(6):
        collector._check()
        intervals.append(collector._timer.interval())
    assert intervals == sorted(intervals) and intervals[-1] == gc_policy.LONGEST_INTERVAL_MS
    kept = [[] for _ in range(2 * gc.get_threshold()[0])]
    collector._check()
    assert collector._timer.interval() == gc_policy.CHECK_INTERVAL_MS
    del kept


def _until_full_collection(collector: UiThreadCollector, kept: list) -> None:
    """Allocate and collect on the collector's schedule until it runs a full collection."""
    threshold0, threshold1, threshold2 = gc.get_threshold()
    for _ in range((threshold1 + 2) * (threshold2 + 2)):
        kept.append([[] for _ in range(threshold0 + 10)])
        if collector.collect_due() == 2:
            return
    raise AssertionError("no full collection came on the interpreter's schedule")


def test_what_a_full_collection_leaves_alive_is_frozen():
    collector = UiThreadCollector()
    frozen = gc.get_freeze_count()
    kept: list = []
    try:
        _until_full_collection(collector, kept)
        # the next full collection walks only what is made from now on
        assert gc.get_objects(generation=2) == []
        assert gc.get_freeze_count() >= frozen + len(kept)
        garbage: list[str] = []
        _Finalised(garbage)  # a cycle made after the freeze is still freed
        _until_full_collection(collector, kept)
        assert garbage == [threading.current_thread().name]
    finally:
        gc.unfreeze()


def test_start_freezes_what_exists_and_stop_gives_it_back():
    collector = UiThreadCollector()
    kept = [[] for _ in range(1000)]
    collector.start()
    try:
        assert gc.get_freeze_count() >= len(kept)
        walked = {id(o) for g in range(3) for o in gc.get_objects(generation=g)}
        assert id(kept[0]) not in walked and id(kept[-1]) not in walked
    finally:
        collector.stop()
    assert gc.get_freeze_count() == 0


def test_a_scans_objects_join_the_frozen_ones():
    from hermes_memory.pausing import gc_paused

    collector = UiThreadCollector()
    collector.start()
    made: list = []

    def scan():
        with gc_paused():
            made.extend([str(i)] for i in range(5000))

    try:
        before = gc.get_freeze_count()
        worker = threading.Thread(target=scan)
        worker.start()
        worker.join()
        # in the permanent generation: no collection walks them (they were left in the
        # youngest generation, for the next collection on the UI thread to walk)
        assert gc.get_freeze_count() >= before + len(made)
        young = {id(o) for o in gc.get_objects(generation=0)}
        assert id(made[0]) not in young and id(made[-1]) not in young
    finally:
        collector.stop()


def test_no_collection_walks_a_scan_while_it_runs():
    from hermes_memory.pausing import gc_paused

    collector = UiThreadCollector()
    collector.start()
    inside, leave = threading.Event(), threading.Event()
    collections: list[int] = []

    def scan():
        with gc_paused():
            inside.set()
            leave.wait(10)

    def seen(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    worker = threading.Thread(target=scan)
    worker.start()
    gc.callbacks.append(seen)
    try:
        assert inside.wait(10)
        kept = [[] for _ in range(5 * gc.get_threshold()[0])]  # a collection is due
        collector._check()
        assert collections == []
        leave.set()
        worker.join()  # (its end froze what it and everyone else had made)
        kept.extend([] for _ in range(5 * gc.get_threshold()[0]))
        collector._check()
        assert collections  # due, and no scan runs any more
        del kept
    finally:
        leave.set()
        gc.callbacks.remove(seen)
        collector.stop()
