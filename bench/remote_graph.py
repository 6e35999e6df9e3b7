"""Benchmark: a remote home over loopback SSH against the same home opened locally.

Starts a real sshd on 127.0.0.1 (host and user keys in a temp dir, as the tests do) and a
1,000-skill home (bench/graph_build.py's generator), then prints:

* connection setup: ssh + ``serve --stdio`` start + handshake (median of 5);
* the first graph build in a fresh process: locally (``api.graph_build`` in a new
  interpreter with the engine imported, as a serve process has it) and as the first call of a fresh
  remote ``serve`` (the call's round trip, JSON over ssh included);
* the warm graph build (best of 7, in alternate rounds), locally in-process and as a call over ssh;
* agent write → change event at the client: 30 writes through the engine's store beside
  the remote engine, the time until the ``changed`` event arrives (median, p95).

Targets: each remote build ≤ 1.5× the local build (the setup is counted apart), and
write → event p95 ≤ 1 s. Run: ``.venv/bin/python bench/remote_graph.py``.
"""

from __future__ import annotations

import os
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "tests" / "engine" / "remote"))

from remote_helpers import remote_command, running_sshd, sshd_missing  # noqa: E402

from graph_build import generate  # noqa: E402
from hermes_memory import api  # noqa: E402
from hermes_memory.memory.store import MemoryStore  # noqa: E402
from hermes_memory.remote.client import EngineClient  # noqa: E402

SKILLS = 1000
BUILD_RATIO = 1.5
EVENT_P95 = 1.0


def local_fresh_build(home_root: Path) -> float:
    script = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(ROOT / 'engine')!r})\n"
        "from hermes_memory import api\n"
        "from hermes_memory.home import HermesHome\n"
        "import hermes_memory.learning.graph\n"  # a serve process has it imported (the CLI)
        f"home = HermesHome.resolve({str(home_root)!r})\n"
        "start = time.perf_counter()\n"
        "api.graph_build(home)\n"
        "print(time.perf_counter() - start)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def write_to_event_latencies(store: MemoryStore, client: EngineClient, writes: int = 30) -> list[float]:
    """Each write changes one bench entry (the first makes room for it if the store is full)."""
    entries = store.read_entries("memory")
    while entries and not store.add("memory", "Bench write -1").get("success"):
        store.remove("memory", entries.pop()[:40])
    while not client.events.empty():
        client.events.get()
    time.sleep(0.5)
    while not client.events.empty():
        client.events.get()
    latencies, previous = [], "Bench write -1"
    for i in range(writes):
        text = f"Bench write {i}"
        written = time.perf_counter()
        result = store.replace("memory", previous, text)
        assert result.get("success"), result
        previous = text
        while "memory" not in client.events.get(timeout=10)["what"]:
            pass
        latencies.append(time.perf_counter() - written)
        time.sleep(random.uniform(0.05, 0.3))  # not in step with the server's polls
    return latencies


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> int:
    missing = sshd_missing()
    if missing:
        print(f"remote_graph: {missing}; FAIL")
        return 1
    home = generate(SKILLS)
    with tempfile.TemporaryDirectory() as work, running_sshd(Path(work)) as sshd:
        os.environ["HERMES_MEMORY_SSH_OPTIONS"] = f"-F {shlex.quote(str(sshd.client_config))}"
        os.environ["HERMES_MEMORY_REMOTE_COMMAND"] = remote_command()
        url = sshd.url(home.path)

        setups, fresh_remote, fresh_local = [], [], []
        for _ in range(5):
            client = EngineClient.over_ssh(url, timeout=120)
            setup, _ = timed(client.connect)
            setups.append(setup)
            fresh_remote.append(timed(lambda c=client: c.call("graph_build"))[0])
            client.close()
            fresh_local.append(local_fresh_build(home.path))

        client = EngineClient.over_ssh(url, timeout=120)
        client.connect()
        payload = client.call("graph_build")
        assert len(payload["nodes"]) >= SKILLS, "the remote graph is missing skills"
        warm_remote, warm_local = [], []
        for _ in range(7):  # alternate rounds, so both see the machine in the same state
            warm_remote.append(timed(lambda: client.call("graph_build"))[0])
            warm_local.append(timed(lambda: api.graph_build(home))[0])
        warm_remote, warm_local = min(warm_remote), min(warm_local)

        store = MemoryStore(home)
        original = home.memory_file.read_bytes()  # the cached home is shared: put it back
        try:
            latencies = write_to_event_latencies(store, client)
        finally:
            home.memory_file.write_bytes(original)
        client.close()

    setup = statistics.median(setups)
    cold_local, cold_remote = min(fresh_local), min(fresh_remote)
    p95 = sorted(latencies)[int(0.95 * len(latencies)) - 1]
    cold_ok = cold_remote <= BUILD_RATIO * cold_local
    warm_ok = warm_remote <= BUILD_RATIO * warm_local
    event_ok = p95 <= EVENT_P95
    print(f"remote home over loopback SSH, {SKILLS:,} skills ({len(payload['nodes'])} nodes)")
    print(f"  connection setup (ssh + serve + handshake): {setup * 1000:7.1f} ms (median of 5)")
    print(f"  first build, fresh process: local {cold_local * 1000:7.1f} ms, remote "
          f"{cold_remote * 1000:7.1f} ms = {cold_remote / cold_local:.2f}x (target <= "
          f"{BUILD_RATIO}x, setup apart)  {verdict(cold_ok)}")
    print(f"  warm build:                 local {warm_local * 1000:7.1f} ms, remote "
          f"{warm_remote * 1000:7.1f} ms = {warm_remote / warm_local:.2f}x (target <= "
          f"{BUILD_RATIO}x)  {verdict(warm_ok)}")
    print(f"  agent write -> change event: median {statistics.median(latencies) * 1000:.0f} ms, "
          f"p95 {p95 * 1000:.0f} ms (target <= {EVENT_P95 * 1000:.0f} ms)  {verdict(event_ok)}")
    return 0 if cold_ok and warm_ok and event_ok else 1


if __name__ == "__main__":
    sys.exit(main())
