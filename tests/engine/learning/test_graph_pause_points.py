"""A graph build stops at pause points its host can hold it at (hermes_memory.pausing), and
says when it is inside a section the cycle collector should leave alone (gc_paused)."""

from __future__ import annotations

import threading

from hermes_memory import pausing
from hermes_memory.learning.graph import GraphBuilder


def test_a_build_passes_a_pause_point_per_folder_on_its_own_thread(learning_home):
    plain = GraphBuilder(learning_home.home).build()  # (no host: the pause points do nothing)
    holds: list[str] = []
    pausing.install(lambda: holds.append(threading.current_thread().name))
    try:
        results = {}
        worker = threading.Thread(
            target=lambda: results.update(payload=GraphBuilder(learning_home.home).build()), name="builder"
        )
        worker.start()
        worker.join()
    finally:
        pausing.install(None)

    skill_folders = {path.parent for path in learning_home.home.path.rglob("SKILL.md")}
    assert len(holds) > len(skill_folders)  # each folder of the walk, then each step of the build
    assert set(holds) == {"builder"}
    assert results["payload"]["nodes"] == plain["nodes"]
    assert results["payload"]["edges"] == plain["edges"]


def test_a_hold_keeps_the_build_waiting_until_it_returns(learning_home):
    reached, go = threading.Event(), threading.Event()

    def hold():
        reached.set()
        go.wait(10)

    pausing.install(hold)
    try:
        done = threading.Event()
        worker = threading.Thread(target=lambda: (GraphBuilder(learning_home.home).build(), done.set()))
        worker.start()
        assert reached.wait(10)
        assert not done.is_set()  # held at its first pause point
        go.set()
        worker.join(30)
        assert done.is_set()
    finally:
        pausing.install(None)
        go.set()


def test_gc_pause_active_is_true_only_while_some_thread_is_inside_it():
    inside, leave = threading.Event(), threading.Event()

    def section():
        with pausing.gc_paused():
            inside.set()
            leave.wait(10)

    assert not pausing.gc_pause_active()
    worker = threading.Thread(target=section)
    worker.start()
    try:
        assert inside.wait(10)
        assert pausing.gc_pause_active()
    finally:
        leave.set()
        worker.join(10)
    assert not pausing.gc_pause_active()
