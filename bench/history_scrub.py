"""Scrubbing a history of 2,000 versions: playhead moved -> graph shows that date.

A home with 2,000 recorded versions (MEMORY.md and USER.md of an agent keeping ~25
entries each, and skill changes) is opened in a real ``GraphPanel`` on a real
``Workspace``. Each step moves the scrubber to a new date and waits until the panel has
applied the engine's answer (``history_replay`` on the reader thread, then the graph's
visibility mask). Target: p95 per step <= 50 ms.

Floors from the same run: the round trip of a trivial engine call through the same
Workspace (``history_size``: thread hop and signal delivery, no history read), and
reading + JSON-decoding the history log once (what every step would cost without the
engine's identity-keyed cache). Also shown: the first step after the history grew (one
full re-read), which a drag pays once, not per step.

    .venv/bin/python bench/history_scrub.py [--versions 2000] [--steps 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time

if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from hermes_memory.history.recording import hashes_of, memory_event, next_depth, skill_event  # noqa: E402
from hermes_memory.history.storage import HistoryStore  # noqa: E402
from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.memory.entries import serialise_entries  # noqa: E402
from hermes_studio.graph import GraphPanel  # noqa: E402
from hermes_studio.workspace import Workspace  # noqa: E402

TARGET_S = 0.050
WORDS = "pnpm deploy postgres release branch tuesday review docker staging nightly tests weekday".split()


def write_history(home: HermesHome, count: int) -> None:
    """``count`` versions over a year, and the stores as the last ones left them."""
    rng = random.Random(11)
    start, step = time.time() - 365 * 86400, 365 * 86400 / count
    stores: dict[str, list[str]] = {"memory": [], "user": []}
    parents: dict[str, tuple[list[str], int]] = {}
    events, blobs, known = [], {}, set()
    for n in range(count):
        ts = start + n * step
        if n % 25 == 24:
            state = {"md": None, "pinned": False, "state": "missing" if n % 50 else "active"}
            events.append(skill_event(f"skill-{n % 40}", state, origin="background_review", action="patch", ts=ts))
            continue
        target = "memory" if rng.random() < 0.8 else "user"
        entries = stores[target]
        fact = f"Fact {n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12)))
        if len(entries) < 25 or rng.random() < 0.15:
            entries.append(fact)
        elif rng.random() < 0.85:
            entries[rng.randrange(len(entries))] = fact
        else:
            del entries[rng.randrange(len(entries))]
        parent, depth = parents.get(target, (None, 0))
        event = memory_event(target, list(entries), None, origin="foreground", action="write", ts=ts,
                             blobs=blobs, known=known, parent=parent, depth=depth,
                             session=f"s{int(ts) // 86400}")  # fmt: skip
        parents[target] = (hashes_of(entries), next_depth(event, depth))
        known.update(parents[target][0])
        events.append(event)
    store = HistoryStore(home)
    with store.locked():
        store.append(events, blobs)
    home.memory_file.write_text(serialise_entries(stores["memory"]), encoding="utf-8")
    home.user_file.write_text(serialise_entries(stores["user"]), encoding="utf-8")


def wait(condition, timeout: float = 30.0) -> None:
    loop = QEventLoop()
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the panel did not answer in time")
        loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--versions", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as tmp:
        home = HermesHome.resolve(tmp)
        home.memories_dir.mkdir(parents=True)
        write_history(home, args.versions)
        workspace = Workspace(home, watch=False)
        panel = GraphPanel(workspace)
        panel.resize(1100, 700)
        panel.show()
        panel.wait_ready(60000)
        wait(lambda: panel.scrubber.history)
        answered: list[float] = []
        panel.replay.sig_state.connect(lambda _when, _state: answered.append(time.perf_counter()))

        def step(fraction: float) -> float:
            count = len(answered)
            started = time.perf_counter()
            panel.scrubber.scrub(fraction)
            wait(lambda: len(answered) > count)
            return answered[-1] - started

        cold = step(0.5)  # the first read of the history
        rng = random.Random(5)
        steps = [step(rng.uniform(0.0, 0.999)) for _ in range(args.steps)]
        shown = f"{len(panel.view.shown_ids())} of {panel.data.size if panel.data else 0}"

        trips: list[float] = []
        for _ in range(50):
            done: list[float] = []
            started = time.perf_counter()
            workspace.call("history_size", {}, lambda _r, done=done: done.append(time.perf_counter()))
            wait(lambda done=done: bool(done))
            trips.append(done[0] - started)
        floor_trip = statistics.median(trips)
        log = HistoryStore(home).events_path
        decode = []
        for _ in range(5):
            started = time.perf_counter()
            json.loads("[" + ",".join(log.read_text(encoding="utf-8").splitlines()) + "]")
            decode.append(time.perf_counter() - started)
        floor_decode = statistics.median(decode)

        with HistoryStore(home).locked():  # the history grows: the next step reads it again
            HistoryStore(home).append([skill_event("skill-new", {"md": None, "pinned": False, "state": "active"},
                                                   origin="app", action="create")])  # fmt: skip
        grown = step(0.25)
        panel.close_panel()
        workspace.close()
        panel.deleteLater()
        app.processEvents()
    median, p95 = statistics.median(steps), percentile(steps, 0.95)
    ok = p95 <= TARGET_S
    print(f"scrubbing {args.versions:,} recorded versions, {len(steps)} steps ({shown} nodes shown at the last):")
    print(f"  floor: Workspace round trip of a trivial engine call {floor_trip * 1000:7.2f} ms")
    print(f"  floor: read + JSON-decode the history log once      {floor_decode * 1000:7.2f} ms")
    print(f"  step (playhead -> graph shows that date)  median {median * 1000:7.2f} ms "
          f"({median / floor_trip:.1f}x round trip, {median / floor_decode:.2f}x log read)")  # fmt: skip
    print(f"                                            p95    {p95 * 1000:7.2f} ms "
          f"({p95 / floor_trip:.1f}x round trip)")  # fmt: skip
    print(f"  first step (whole history read)                  {cold * 1000:7.2f} ms")
    print(f"  first step after the history grew                {grown * 1000:7.2f} ms")
    print(f"  {'PASS' if ok else 'FAIL'}: p95 per step <= {TARGET_S * 1000:.0f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
