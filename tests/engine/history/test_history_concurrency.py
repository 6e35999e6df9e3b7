"""Several processes writing and capturing at once: every version kept, none torn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from history_helpers import entries, run_agent

from hermes_memory.history.capture import capture
from hermes_memory.history.storage import HistoryStore
from hermes_memory.history.timeline import Timeline
from hermes_memory.history.undo import taught

WRITER = Path(__file__).with_name("writer_process.py")


def test_concurrent_writers_and_captures(home, write_config):
    write_config("memory:\n  memory_char_limit: 100000\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    writers = [
        subprocess.Popen([sys.executable, str(WRITER), str(home.path), f"w{n}", "15"],
                         stdout=subprocess.PIPE, text=True, env=env)  # fmt: skip
        for n in range(3)
    ]
    run_agent(home, "s-live", [{"action": "add", "target": "memory", "content": f"agent fact {n}"}
                               for n in range(10)])  # fmt: skip
    written = sum(int(p.communicate(timeout=120)[0]) for p in writers)
    capture(home)
    assert written == 45
    log = HistoryStore(home).read_events()
    assert log.problems == []  # no torn or interleaved line
    recorded = log.events
    assert sum(1 for e in recorded if e["action"] == "write") == 45
    assert len({e["id"] for e in recorded}) == len(recorded)
    # The newest version is the file, and every version's text is in the pack.
    timeline = Timeline(home)
    assert timeline.entries(timeline.chain("memory")[-1]) == entries(home)
    assert len(entries(home)) == 55
    assert all(not t.startswith("(text ") for e in timeline.chain("memory") for t in timeline.entries(e))
    # Each write's own change is exactly one added entry over the version before it.
    for event in timeline.chain("memory"):
        parent = timeline.parent(event)
        if event["action"] == "write" and parent is not None:
            assert len(set(event["entries"]) - set(parent["entries"])) == 1
    # What the agent taught is found, whether a capture or one of our writes saw it first.
    lesson = taught(home, "s-live")
    assert sorted(lesson["memory"]["memory"]["added"]) == sorted(f"agent fact {n}" for n in range(10))
