"""Benchmark: an agent's write on a remote host → the app's status-bar meter updated.

Starts a real sshd on 127.0.0.1 (keys in a temp dir, as the tests do) and opens a copy of
the demo home twice in the same run: as a remote home (``ssh://127.0.0.1:PORT/…``, the
real ``Workspace`` over ``serve --stdio`` and the real ``StatusMeters`` widget), and as a
local home (the same widgets over the folder watcher: the floor). Each round writes one
entry through the engine's store beside the remote engine, as the agent does, and times
until the meter shows the new character count.

Target: remote write → meter p95 ≤ 1 s (the ratio to the local floor is printed too).
Run: ``.venv/bin/python bench/remote_desktop.py [--writes 30]``.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "desktop"))
sys.path.insert(0, str(ROOT / "tests" / "engine" / "remote"))
if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from remote_helpers import DEMO_HOME, remote_command, running_sshd, sshd_missing  # noqa: E402

from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.memory.entries import char_count  # noqa: E402
from hermes_memory.memory.store import MemoryStore  # noqa: E402
from hermes_studio.memory.widget import StatusMeters  # noqa: E402
from hermes_studio.remote.home import RemoteHome  # noqa: E402
from hermes_studio.workspace import Workspace  # noqa: E402

P95_TARGET = 1.0
TIMEOUT = 10.0


def spin_until(loop: QEventLoop, condition, timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        if condition():
            return True
    return False


def latencies(home: HermesHome, workspace: Workspace, writes: int) -> list[float]:
    """Write ``writes`` times; seconds from each write to the meter showing its count."""
    loop = QEventLoop()
    meters = StatusMeters(workspace)
    workspace.refresh_all()
    meter = meters.meters["memory"]
    store = MemoryStore(home)
    if not spin_until(loop, lambda: "memory" in workspace.statuses, 60):
        raise SystemExit(f"the meter never loaded ({workspace.connection_message or 'no status'})")
    entries = store.read_entries("memory")
    store.remove("memory", entries[-1][:40])  # room for the bench entry
    store.add("memory", "Bench write -1")
    previous, found = "Bench write -1", []
    spin_until(loop, lambda: False, 1.0)  # settle: the first change's events pass
    for number in range(writes):
        text = f"Bench write {number:03d} " + "x" * (number % 7)
        written = time.perf_counter()
        result = store.replace("memory", previous, text)
        assert result.get("success"), result
        previous = text
        used = f"{char_count(store.read_entries('memory')):,}"
        if not spin_until(loop, lambda u=used: u in meter.text(), TIMEOUT):
            raise SystemExit(f"the meter did not show {used} within {TIMEOUT:g} s: {meter.text()!r}")
        found.append(time.perf_counter() - written)
        spin_until(loop, lambda: False, random.uniform(0.05, 0.3))  # out of step with polls
    meters.deleteLater()
    return found


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, int(0.95 * len(values)) - 1)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=30)
    args = parser.parse_args()
    missing = sshd_missing()
    if missing:
        print(f"remote_desktop: {missing}; FAIL")
        return 1
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as work, running_sshd(Path(work)) as sshd:
        os.environ["HERMES_MEMORY_SSH_OPTIONS"] = f"-F {shlex.quote(str(sshd.client_config))}"
        os.environ["HERMES_MEMORY_REMOTE_COMMAND"] = remote_command()
        homes = {}
        for name in ("remote", "local"):
            shutil.copytree(DEMO_HOME, Path(work) / name)
            homes[name] = HermesHome.resolve(Path(work) / name)
        local_workspace = Workspace(homes["local"])
        local = latencies(homes["local"], local_workspace, args.writes)
        local_workspace.close()
        remote_workspace = Workspace(RemoteHome.parse(sshd.url(homes["remote"].path)))
        remote = latencies(homes["remote"], remote_workspace, args.writes)
        remote_workspace.close()
    del app
    ok = p95(remote) <= P95_TARGET
    print(f"agent write -> status-bar meter, {args.writes} writes each")
    print(f"  local home (folder watcher, the floor): median {statistics.median(local) * 1000:6.0f} ms, "
          f"p95 {p95(local) * 1000:6.0f} ms")
    print(f"  remote home over loopback SSH:          median {statistics.median(remote) * 1000:6.0f} ms, "
          f"p95 {p95(remote) * 1000:6.0f} ms = {p95(remote) / p95(local):.1f}x the floor "
          f"(target p95 <= {P95_TARGET * 1000:.0f} ms)  {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
