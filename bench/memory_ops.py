"""Median latency of the store's add/replace/remove against a same-run I/O floor.

The floor writes the same bytes with the same lock + temp file + fsync + ``os.replace``
but no reading, parsing, scanning or budget work, so the ratio shows what the store adds
on top of the unavoidable disk cost. Target: ratio <= 3 for every operation.

    .venv/bin/python bench/memory_ops.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from hermes_memory.fileio import atomic_write_text, file_lock
from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import serialise_entries
from hermes_memory.memory.store import MemoryStore

TARGET_RATIO = 3.0


def _entries(count: int) -> list[str]:
    return [f"Fact {n}: the build for service {n} uses pnpm and runs on node 22" for n in range(count)]


def _timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run(rounds: int) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        home = HermesHome.resolve(tmp)
        home.memories_dir.mkdir(parents=True)
        base = _entries(24)  # ~1,600 chars: a realistic, fairly full MEMORY.md
        home.memory_file.write_text(serialise_entries(base), encoding="utf-8")
        store = MemoryStore(home)
        extra = "Deploys run from the release branch after the nightly job"
        timings: dict[str, list[float]] = {"add": [], "replace": [], "remove": [], "floor": []}
        payload = serialise_entries([*base, extra])
        for _ in range(rounds):
            timings["add"].append(_timed(lambda: store.add("memory", extra)))
            timings["replace"].append(
                _timed(lambda: store.replace("memory", "nightly job", extra + " (checked)"))
            )
            timings["remove"].append(_timed(lambda: store.remove("memory", "(checked)")))

            def floor() -> None:
                with file_lock(home.memory_file):
                    atomic_write_text(home.memory_file, payload, ".mem_")

            timings["floor"].append(_timed(floor))
            # restore the base file so each round starts from the same state
            home.memory_file.write_text(serialise_entries(base), encoding="utf-8")
    floor_median = statistics.median(timings["floor"])
    print(f"rounds: {rounds}; store of {len(base)} entries; floor = lock + write + fsync + replace")
    print(f"{'operation':<10}{'median ms':>12}{'p95 ms':>10}{'ratio':>8}")
    ok = True
    for name in ("floor", "add", "replace", "remove"):
        samples = sorted(timings[name])
        median = statistics.median(samples)
        p95 = samples[int(0.95 * (len(samples) - 1))]
        ratio = median / floor_median
        ok &= name == "floor" or ratio <= TARGET_RATIO
        print(f"{name:<10}{median * 1000:>12.3f}{p95 * 1000:>10.3f}{ratio:>8.2f}")
    print(f"{'PASS' if ok else 'FAIL'}: every median ratio <= {TARGET_RATIO}")
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    raise SystemExit(0 if run(parser.parse_args().rounds) else 1)
