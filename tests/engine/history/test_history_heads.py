"""The memory heads a process remembers after its own appends: used only while the
event log is exactly as it left it, so another engine process writing in between, a
rewrite or a damaged tail never makes a version start from the wrong parent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from history_helpers import entries

from hermes_memory.history import storage
from hermes_memory.history.service import forget
from hermes_memory.history.storage import HistoryStore
from hermes_memory.history.timeline import Timeline

WRITER = Path(__file__).with_name("writer_process.py")


def _other_engine_writes(home, name: str) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    subprocess.run([sys.executable, str(WRITER), str(home.path), name, "1"], check=True, env=env,
                   timeout=60, capture_output=True)  # fmt: skip


def _versions(home) -> list[tuple[str, str, list[str]]]:
    timeline = Timeline(home)
    return [(e["action"], e["origin"], timeline.entries(e)) for e in timeline.chain("memory")]


def test_writes_interleaved_with_another_engine_process_chain_correctly(home, store):
    store.add("memory", "mine 0")
    _other_engine_writes(home, "other")  # appends while this process remembers its head
    store.add("memory", "mine 1")
    store.add("memory", "mine 2")  # from the remembered head of this process's own append
    assert _versions(home) == [
        ("write", "app", ["mine 0"]),
        ("write", "app", ["mine 0", "other wrote entry 0"]),
        ("write", "app", ["mine 0", "other wrote entry 0", "mine 1"]),
        ("write", "app", ["mine 0", "other wrote entry 0", "mine 1", "mine 2"]),
    ]  # no "capture" of an unseen version: each write found the true head
    assert _versions(home)[-1][2] == entries(home)


def test_the_remembered_head_is_dropped_when_the_log_changes_under_it(home, store):
    for n in range(20):  # past a checkpoint: heads are rebuilt from deltas
        store.add("memory", f"fact {n}")
    assert str(HistoryStore(home).events_path) in storage._HEADS
    forget(home, before=None)  # the log goes; the next write starts a new chain
    store.add("memory", "after forget")
    assert _versions(home) == [("capture", "unknown", [f"fact {n}" for n in range(20)]),
                               ("write", "app", [*(f"fact {n}" for n in range(20)), "after forget"])]  # fmt: skip
    with open(HistoryStore(home).events_path, "a", encoding="utf-8") as handle:
        handle.write('{"id": "cut", "ts": 1')  # a crash mid-append by someone else
    store.add("memory", "after the damage")
    assert _versions(home)[-1][2] == entries(home)
