"""Median latency of ``pending approve`` against a memory op's locked-write floor, same run.

The floor takes the store's lock and writes MEMORY.md's bytes through temp file + fsync +
``os.replace``: the unavoidable cost of any memory write. An approval adds finding and
claiming the record, reading it and config.yaml (parsed once: it was written more than
2 s before, as a home's is), the store's re-read and budget check, the
decision log line and removing the claim. Also shown: the store's own ``add`` (the same
write without the queue). Target: approve <= 3x the floor. Each round stages a fresh
record (not timed) in a queue that also holds 300 other records, as queues in the wild do.

    .venv/bin/python bench/pending_approve.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

from hermes_memory.fileio import RACY_NS, atomic_write_text, file_lock
from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import serialise_entries
from hermes_memory.memory.store import MemoryStore
from hermes_memory.pending import MEMORY, PendingQueue

TARGET_RATIO = 3.0
CONFIG = "memory:\n  memory_char_limit: 2200\n  user_char_limit: 1375\n  write_approval: true\n"


def _timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _add(content: str) -> dict:
    return {"action": "add", "target": "memory", "content": content, "old_text": None}


def run(rounds: int) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        home = HermesHome.resolve(tmp)
        home.memories_dir.mkdir(parents=True)
        home.config_file.write_text(CONFIG, encoding="utf-8")
        base = [f"Fact {n}: the build for service {n} uses pnpm and runs on node 22" for n in range(24)]
        home.memory_file.write_text(serialise_entries(base), encoding="utf-8")
        payload = serialise_entries([*base, "Deploys run from the release branch"])
        queue = PendingQueue(home)
        for n in range(300):  # the backlog: other people's records, never touched here
            queue.stage("skills", {"action": "delete", "name": f"skill-{n}"}, "delete", "foreground")
        store = MemoryStore(home)
        # config.yaml is parsed once per version, but not reused within 2 s of a change
        # (fileio.RACY_NS): like a home's, this one was not written just before the approvals
        time.sleep(max(0.0, RACY_NS / 1e9 + 0.1 - (time.time() - home.config_file.stat().st_ctime)))
        timings: dict[str, list[float]] = {"floor": [], "store add": [], "approve": []}
        for n in range(rounds):
            content = f"Deploys run from the release branch (round {n})"

            def floor() -> None:
                with file_lock(home.memory_file):
                    atomic_write_text(home.memory_file, payload, ".mem_")

            timings["floor"].append(_timed(floor))
            home.memory_file.write_text(serialise_entries(base), encoding="utf-8")
            timings["store add"].append(_timed(lambda text=content: store.add("memory", text)))
            home.memory_file.write_text(serialise_entries(base), encoding="utf-8")
            record = queue.stage(MEMORY, _add(content), f"add to memory: {content}", "foreground")
            decisions: list = []
            timings["approve"].append(_timed(lambda rid=record.id, out=decisions: out.append(
                PendingQueue(home).approve(rid))))  # fmt: skip
            assert decisions[0].ok, decisions[0]
            home.memory_file.write_text(serialise_entries(base), encoding="utf-8")
    floor_median = statistics.median(timings["floor"])
    print(f"rounds: {rounds}; MEMORY.md of {len(base)} entries; 300 other records queued; "
          "floor = lock + write + fsync + replace")  # fmt: skip
    print(f"{'operation':<12}{'median ms':>12}{'p95 ms':>10}{'ratio':>8}")
    for name, samples in timings.items():
        samples = sorted(samples)
        median = statistics.median(samples)
        p95 = samples[int(0.95 * (len(samples) - 1))]
        print(f"{name:<12}{median * 1000:>12.3f}{p95 * 1000:>10.3f}{median / floor_median:>8.2f}")
    ratio = statistics.median(timings["approve"]) / floor_median
    ok = ratio <= TARGET_RATIO
    print(f"{'PASS' if ok else 'FAIL'}: pending approve median = {ratio:.2f}x the floor "
          f"(target <= {TARGET_RATIO})")  # fmt: skip
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    raise SystemExit(0 if run(parser.parse_args().rounds) else 1)
