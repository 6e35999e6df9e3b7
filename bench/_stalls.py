"""Where the UI thread stalls: a heartbeat on the UI thread and a watchdog thread that
records the UI thread's stack (and which other threads run Python) whenever a tick is late.

Not a bench itself (its name starts with an underscore). Run the app under it:

    python bench/_stalls.py [--min-ms 30] [--switch] -- --home H --screenshot out.png

It prints each stall over ``--min-ms`` with the frames seen during it (innermost of the
project's own code first), counted over the samples taken. ``--switch`` also switches the
graph to Clusters and back once it is drawn, and reports stalls during those switches.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import functools
import gc
import os
import pstats
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "desktop"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# An installed app runs from compiled bytecode: keep it between runs, out of the tree, even
# where the environment says not to write it (else every module imported lazily on a worker
# thread is compiled there, holding the GIL for tens of ms, which no user's app does)
sys.dont_write_bytecode = False
sys.pycache_prefix = str(Path(tempfile.gettempdir()) / "hermes-app-start-pycache")

SAMPLE_S = 0.002


class Watchdog:
    def __init__(self, min_ms: float) -> None:
        self.min_s = min_ms / 1000
        self.last = time.perf_counter()
        self.cpu = time.thread_time()
        self.threads: dict[str, float] = {}
        self.on = False
        self.ui = threading.get_ident()
        self.current: list | None = None  # samples of the stall in progress
        self.stalls: list[tuple] = []  # (start, length, samples, label, UI cpu, gc ms, other threads)
        self.label = ""
        self.profile: cProfile.Profile | None = None
        self.profiles: list = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="stall-watchdog")
        # the cycle collector holds the GIL throughout, so the watchdog samples nothing
        # during a collection: its time is counted apart (UI thread's collections only)
        self.gc_ms = 0.0
        self._gc_start = 0.0
        gc.callbacks.append(self._collecting)

    def _collecting(self, phase: str, _info: dict) -> None:
        if threading.get_ident() != self.ui:
            return
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.gc_ms += (time.perf_counter() - self._gc_start) * 1000

    def tick(self) -> None:
        if self.profile is not None:
            self.profile.disable()
        now, cpu, threads = time.perf_counter(), time.thread_time(), self._thread_cpu()
        length = now - self.last - 0.010
        if length >= self.min_s and self.on:
            used = {name: spent - self.threads.get(name, 0.0) for name, spent in threads.items()}
            self.stalls.append((self.last, length, self.current or [], self.label, cpu - self.cpu, self.gc_ms, used))
            if self.profile is not None:
                self.profiles.append((length, cpu - self.cpu, self.label, self.profile))
        if self.profile is not None:
            self.profile = cProfile.Profile(time.thread_time)
            self.profile.enable()
        self.current = None
        self.last, self.cpu, self.gc_ms, self.threads = now, cpu, 0.0, threads

    def _thread_cpu(self) -> dict[str, float]:
        """CPU time of every other thread of the process (the Python ones by name, the rest
        together), to tell which of them ran during a stall."""
        spent: dict[str, float] = {}
        for thread in threading.enumerate():
            if thread.ident in (self.ui, self.thread.ident) or thread.ident is None:
                continue
            try:
                spent[thread.name] = time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
            except OSError:  # ended meanwhile
                continue
        spent["(whole process)"] = time.process_time()
        return spent

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            late = time.perf_counter() - self.last
            if late < 0.015 or not self.on:
                continue
            frames = sys._current_frames()
            ui = frames.get(self.ui)
            others = []
            for ident, frame in frames.items():
                if ident in (self.ui, threading.get_ident()):
                    continue
                top = traceback.extract_stack(frame)[-1]
                if not any(word in top.name for word in ("wait", "_worker", "select", "poll", "read_events", "_bootstrap")):
                    others.append(_where(frame))
            sample = (_where(ui) if ui is not None else "?", tuple(others))
            if self.current is None:
                self.current = []
            self.current.append(sample)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()


def _where(frame) -> str:
    """The stack, outermost first, trimmed to the frames worth reading."""
    stack = traceback.extract_stack(frame)
    lines = []
    for entry in stack:
        name = entry.filename
        if "hermes_studio" in name or "hermes_memory" in name or "pyqtgraph" in name or "site-packages" not in name:
            short = name.split("/desktop/")[-1].split("/engine/")[-1].split("site-packages/")[-1]
            lines.append(f"{short}:{entry.lineno} {entry.name}")
    return " > ".join(lines[-6:])


def report(watch: Watchdog, top: int) -> None:
    print(f"\n{len(watch.stalls)} stalls ≥ {watch.min_s * 1000:.0f} ms")
    for _start, length, samples, label, cpu, gc_ms, used in sorted(watch.stalls, key=lambda s: -s[1])[:top]:
        print(f"\n== {length * 1000:.0f} ms, UI cpu {cpu * 1000:.0f} ms, of which cycle collection "
              f"{gc_ms:.0f} ms [{label}] ({len(samples)} samples)")
        ran = ", ".join(f"{name} {spent * 1000:.0f}" for name, spent in sorted(used.items(), key=lambda u: -u[1])
                        if spent >= 0.002)
        print(f"  CPU ms of the other threads meanwhile: {ran}")
        ui = collections.Counter(s[0] for s in samples)
        for stack, count in ui.most_common(4):
            print(f"  UI ×{count}: {stack}")
        others = collections.Counter(o for s in samples for o in s[1])
        for stack, count in others.most_common(3):
            print(f"  other ×{count}: {stack}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--min-ms", type=float, default=30)
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--switch", action="store_true")
    parser.add_argument("--profile", action="store_true", help="cProfile the UI thread in each stall")
    parser.add_argument("app_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    app_args = [a for a in args.app_args if a != "--"]

    from PySide6.QtCore import QEventLoop, QTimer

    from hermes_studio import app
    from hermes_studio.graph.layout import CLUSTERS, TIMELINE
    from hermes_studio.graph.panel import GraphPanel

    watch = Watchdog(args.min_ms)
    if args.profile:
        watch.profile = cProfile.Profile(time.thread_time)
    watch.start()
    theme = app.apply_theme

    def apply_theme(qapp, *a, **k):
        theme(qapp, *a, **k)
        timer = QTimer(qapp)
        timer.setInterval(10)
        timer.timeout.connect(watch.tick)
        timer.start()
        app._heartbeat = timer

    app.apply_theme = apply_theme
    shown = GraphPanel.showEvent

    def show_event(self, event):
        watch.on, watch.label, watch.last, watch.cpu = True, "start", time.perf_counter(), time.thread_time()
        watch.threads = watch._thread_cpu()
        return shown(self, event)

    GraphPanel.showEvent = show_event
    wait = GraphPanel.wait_ready

    def pump_until(condition, timeout=60.0):
        deadline = time.monotonic() + timeout
        loop = QEventLoop()
        while not condition() and time.monotonic() < deadline:
            QTimer.singleShot(5, loop.quit)
            loop.exec()

    def switched(panel, seen, mode):
        return bool(seen) and panel.snapshot.request.mode == mode

    def later_than(moment):
        return time.perf_counter() > moment

    def wait_ready(self, timeout_ms=3000):
        ready = wait(self, timeout_ms)
        drawn = time.perf_counter()
        watch.label = "after draw"
        pump_until(lambda: time.perf_counter() - drawn > 1.0)
        if args.switch:
            for mode in (CLUSTERS, TIMELINE, CLUSTERS):
                watch.label = f"switch to {mode}"
                button = self.clusters_button if mode == CLUSTERS else self.timeline_button
                seen: list[int] = []
                self.sig_ready.connect(functools.partial(seen.append, 1))
                button.click()
                pump_until(functools.partial(switched, self, seen, mode))
                settled = time.perf_counter()
                pump_until(functools.partial(later_than, settled + 0.3))
        watch.on = False
        return ready

    GraphPanel.wait_ready = wait_ready
    code = app.main(app_args)
    watch.stop()
    report(watch, args.top)
    for length, cpu, label, profile in sorted(watch.profiles, key=lambda p: -p[1])[:4]:
        print(f"\n##### profile of a {length * 1000:.0f} ms stall, UI cpu {cpu * 1000:.0f} ms [{label}]")
        pstats.Stats(profile).sort_stats("cumulative").print_stats(35)
    return code


if __name__ == "__main__":
    sys.exit(main())
