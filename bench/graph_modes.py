"""Benchmark: switching the graph between Timeline and Clusters in the real widget.

For homes of 3,000 and 10,000 learned skills, a ``GraphPanel`` over a watching
``Workspace`` (as in the app, offscreen) opens with an empty cache folder, then:

* first switch right away: Clusters is clicked as soon as the first graph is shown, as
  a new user might (the worker may still be laying Clusters out in advance);
* switch back to Timeline, and to Clusters again;
* first switch after a pause: a fresh panel and cache, Clusters clicked once the
  worker is idle.

Each figure is the time from the click to the new layout drawn, with the longest stall
of the UI thread's event loop meanwhile (a 10 ms heartbeat timer) and whether a switch
taking over 200 ms showed progress at the 200 ms mark. Floor, same run: a bare
pyqtgraph scatter of the same number of points set and painted. For reference, the
worker's share of a first switch: the same graph laid out in Clusters from scratch,
alone (the worker stopped).

Targets, in every round: every switch ≤ 0.5 s at 3,000 skills and ≤ 1.5 s at 10,000;
progress shown whenever a switch takes over 200 ms; UI stall ≤ 50 ms.

Run: ``.venv/bin/python bench/graph_modes.py [--sizes 3000,10000] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"
# An installed app runs from compiled bytecode: keep it between runs, out of the tree, even
# where the environment says not to write it (else every module imported lazily on a worker
# thread is compiled there, holding the GIL for tens of ms, which no user's app does)
sys.dont_write_bytecode = False
sys.pycache_prefix = str(Path(tempfile.gettempdir()) / "hermes-app-start-pycache")
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="hermes-modes-cache-")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "desktop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from graph_build import generate  # noqa: E402
from hermes_studio.app import UI_SWITCH_INTERVAL_S  # noqa: E402
from hermes_studio.gc_policy import UiThreadCollector  # noqa: E402
from hermes_studio.graph import GraphPanel  # noqa: E402
from hermes_studio.graph.layout import CLUSTERS, TIMELINE, LayoutEngine  # noqa: E402
from hermes_studio.graph.workers import PositionCache  # noqa: E402
from hermes_studio.workspace import Workspace  # noqa: E402

TARGETS = {3000: 0.5, 10000: 1.5}
STALL_LIMIT_MS = 50
PROGRESS_AFTER_MS = 200


class Heartbeat:
    """The longest gap between ticks of a 10 ms timer: how long the event loop was blocked."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.reset()
        self.timer.start()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.worst = max(self.worst, now - self.last)
        self.worst_cpu = max(self.worst_cpu, cpu - self.last_cpu)
        self.last, self.last_cpu = now, cpu

    def reset(self) -> None:
        self.last, self.worst = time.perf_counter(), 0.0
        self.last_cpu, self.worst_cpu = time.thread_time(), 0.0

    def stall_ms(self) -> float:
        """The longest gap between ticks, wall clock (includes time the OS or another
        thread holding the GIL kept the UI thread from running)."""
        return max(0.0, self.worst - 0.010) * 1000

    def busy_ms(self) -> float:
        """The UI thread's own CPU time in the longest-working gap: its own blocking work."""
        return self.worst_cpu * 1000


def pump_until(condition, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    loop = QEventLoop()
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the graph")
        QTimer.singleShot(5, loop.quit)
        loop.exec()


def open_panel(home) -> tuple[GraphPanel, Workspace]:
    cache = PositionCache(home)
    cache.path.unlink(missing_ok=True)  # a first launch: no saved positions
    workspace = Workspace(home)
    panel = GraphPanel(workspace)
    panel.resize(1100, 700)
    panel.show()
    pump_until(lambda: panel.ready and panel.data is not None)
    return panel, workspace


def close_panel(panel: GraphPanel, workspace: Workspace) -> None:
    panel.close_panel()
    workspace.close()
    panel.deleteLater()
    QApplication.processEvents()


def switch(panel: GraphPanel, mode: str, heart: Heartbeat) -> tuple[float, float, bool, float]:
    """(seconds to the new layout drawn, longest stall in ms, progress shown at 200 ms,
    the UI thread's longest own work between two ticks in ms)."""
    progress = {"shown": None}
    drawn = []

    def check() -> None:
        if not drawn:
            progress["shown"] = bool(panel.busy_label.text())

    def ready() -> None:
        if panel.snapshot.request.mode == mode:
            drawn.append(time.perf_counter())

    probe = QTimer()
    probe.setSingleShot(True)
    probe.timeout.connect(check)
    panel.sig_ready.connect(ready)
    probe.start(PROGRESS_AFTER_MS)
    heart.reset()
    start = time.perf_counter()
    (panel.clusters_button if mode == CLUSTERS else panel.timeline_button).click()
    pump_until(lambda: bool(drawn))  # every node of the new layout is on the canvas
    elapsed = drawn[0] - start
    stall, busy = heart.stall_ms(), heart.busy_ms()
    probe.stop()
    panel.sig_ready.disconnect(ready)
    return elapsed, stall, progress["shown"] is not False, busy


def floor_paint(n: int) -> float:
    plot = pg.PlotWidget()
    plot.resize(900, 700)
    plot.show()
    rng = np.random.default_rng(1)
    item = pg.ScatterPlotItem(pxMode=True)
    plot.addItem(item)
    QApplication.processEvents()
    start = time.perf_counter()
    item.setData(x=rng.normal(size=n) * 500, y=rng.normal(size=n) * 500, size=8, brush=pg.mkBrush(90, 140, 220))
    plot.grab()
    elapsed = time.perf_counter() - start
    plot.close()
    plot.deleteLater()
    return elapsed


def run(size: int, rounds: int, heart: Heartbeat) -> bool:
    home = generate(size)
    target = TARGETS[size]
    rows: dict[str, list[tuple[float, float, bool, float]]] = {}
    floors, layouts = [], []
    for _ in range(rounds):
        floors.append(floor_paint(size))
        panel, workspace = open_panel(home)
        rows.setdefault("first switch right away (to Clusters)", []).append(switch(panel, CLUSTERS, heart))
        rows.setdefault("back to Timeline", []).append(switch(panel, TIMELINE, heart))
        rows.setdefault("to Clusters again", []).append(switch(panel, CLUSTERS, heart))
        graph = panel.data.layout_graph()
        close_panel(panel, workspace)
        start = time.perf_counter()
        LayoutEngine().layout(graph, CLUSTERS)
        layouts.append(time.perf_counter() - start)
        panel, workspace = open_panel(home)
        pump_until(lambda panel=panel: not panel.worker.busy and panel.worker.jobs.layouts.has(CLUSTERS))
        rows.setdefault("first switch after a pause (to Clusters)", []).append(switch(panel, CLUSTERS, heart))
        close_panel(panel, workspace)
    floor = min(floors)
    print(f"\n{size:,} skills (floor: a bare scatter of {size:,} points set and painted, "
          f"best {floor * 1000:.0f} ms of {rounds})")
    print(f"  (for reference: Clusters laid out from scratch, alone: best {min(layouts) * 1000:.0f} ms, "
          f"worst {max(layouts) * 1000:.0f} ms)")
    ok = True
    for label, results in rows.items():
        times = [r[0] for r in results]
        stalls = [r[1] for r in results]
        busy = [r[3] for r in results]
        progress_ok = all(r[2] or r[0] <= PROGRESS_AFTER_MS / 1000 for r in results)
        good = max(times) <= target
        stall_ok = max(stalls) <= STALL_LIMIT_MS  # in every round
        ok &= good and progress_ok and stall_ok
        print(f"  {label:<42} best {min(times) * 1000:5.0f} ms, worst {max(times) * 1000:5.0f} ms "
              f"= {max(times) / floor:5.1f}× the floor; target ≤ {target:.1f} s: {'PASS' if good else 'FAIL'}")
        print(f"  {'':<42} longest UI stall {min(stalls):4.0f}–{max(stalls):4.0f} ms (≤ {STALL_LIMIT_MS}: "
              f"{'PASS' if stall_ok else 'FAIL'}), of which the UI thread's own work "
              f"{min(busy):4.0f}–{max(busy):4.0f} ms; progress shown past 200 ms: "
              f"{'PASS' if progress_ok else 'FAIL'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="3000,10000")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    # The app's own process settings (see hermes_studio.app.main): a short GIL switch
    # interval, and the cycle collector on the UI thread only.
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)
    UiThreadCollector(app).start()
    heart = Heartbeat()
    ok = all([run(int(size), args.rounds, heart) for size in args.sizes.split(",")])
    load = os.getloadavg()
    print(f"\nload average during the run: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores")
    heart.timer.stop()
    del app
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
