"""Latency of the holographic provider at a realistic fact count, with and without NumPy.

Every add rebuilds its category bank from all of that category's vectors (the upstream
format keeps banks current for other readers), so add cost grows with the category
size; recall must stay interactive. Targets: search and prefetch under 50 ms, probe and
reason under 500 ms at 2,000 facts.

    .venv/bin/python bench/holographic_provider.py [--facts N]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import tempfile
import time

from hermes_memory.home import HermesHome
from hermes_memory.providers.plugins.holographic import HolographicMemoryProvider, hrr

RECALL_TARGET_S = 0.05
ENTITY_TARGET_S = 0.5
WORDS = (
    "deploy docker pnpm editor theme config server database backup python rust tests ci "
    "release cache staging metrics alerts budget invoice laptop shell"
).split()
NAMES = ["Alice Smith", "Bob Jones", "Carol White", "Hermes Project", "Docker Compose", "New York"]
CATEGORIES = ["general", "project", "user_pref", "tool"]


def _median(action, rounds: int = 7) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run(facts: int, vectors: bool) -> bool:
    hrr.set_numpy_enabled(vectors)
    random.seed(7)
    with tempfile.TemporaryDirectory() as tmp:
        home = HermesHome.resolve(tmp)
        provider = HolographicMemoryProvider(home=home)
        provider.initialize("bench", hermes_home=tmp, platform="cli")
        store = provider.store
        start = time.perf_counter()
        for n in range(facts):
            text = f"{random.choice(NAMES)} {' '.join(random.sample(WORDS, 6))} (note {n})"
            store.add_fact(text, category=random.choice(CATEGORIES))
        add_ms = (time.perf_counter() - start) / facts * 1000

        def tool(**args):
            return lambda: json.loads(provider.handle_tool_call("fact_store", args))

        timings = {
            "search": _median(tool(action="search", query="docker deploy release")),
            "prefetch": _median(lambda: provider.prefetch("which editor theme on the laptop")),
            "probe": _median(tool(action="probe", entity="Alice Smith")),
            "reason": _median(tool(action="reason", entities=["Alice Smith", "Hermes Project"])),
        }
        provider.shutdown()
    label = "numpy" if vectors else "keywords"
    print(f"[{label}] {facts} facts: add {add_ms:.1f} ms/fact (mean)")
    ok = True
    for name, seconds in timings.items():
        target = RECALL_TARGET_S if name in ("search", "prefetch") else ENTITY_TARGET_S
        verdict = "ok" if seconds <= target else "SLOW"
        ok = ok and seconds <= target
        print(
            f"[{label}]   {name:<8} {seconds * 1000:8.1f} ms  (target {target * 1000:.0f} ms) {verdict}"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=2000)
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the bank-capacity warning is expected at this size
    results = [run(args.facts, vectors=True), run(args.facts, vectors=False)]
    hrr.set_numpy_enabled(True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
