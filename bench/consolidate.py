"""Consolidation: the finder's precision and recall on the labelled set, and the time to
find groups in a full pair of stores against a same-run floor.

The stores are filled to their default budgets (MEMORY.md 2,200 and USER.md 1,375
characters) with entries from the labelled set, so they hold real duplicates and
overlaps. The floor is one pass that tokenises every entry (what any finder must do at
least once); the finder adds the pairwise comparison on top. A store of a few hundred
entries is timed too, for scale (not judged).

Pass: groups found in <= 50 ms (median) and ratio to the floor <= TARGET_RATIO, and
precision >= PRECISION_FLOOR.

    .venv/bin/python bench/consolidate.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from hermes_memory.memory.consolidate import find_groups, is_near_duplicate, make_entry
from hermes_memory.memory.entries import TARGETS, char_count

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "engine" / "memory"))
from consolidation_pairs import PAIRS, UNRELATED  # noqa: E402

LIMITS = {"memory": 2_200, "user": 1_375}
BUDGET_MS = 50.0
TARGET_RATIO = 25.0
PRECISION_FLOOR = 0.95


def _texts() -> list[str]:
    return list(dict.fromkeys(text for a, b, _ in PAIRS for text in (a, b)))


def full_stores(scale: int = 1) -> dict[str, list[str]]:
    """Both stores filled to their budgets (times ``scale``), alternating entries."""
    texts = _texts()
    stores: dict[str, list[str]] = {t: [] for t in TARGETS}
    position = 0
    for target in TARGETS:
        while True:
            text = texts[position % len(texts)]
            if position >= len(texts):
                text = f"{text} (copy {position // len(texts)})"
            position += 1
            if char_count([*stores[target], text]) > LIMITS[target] * scale:
                break
            stores[target].append(text)
    return stores


def _median_ms(action, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def precision_recall() -> tuple[float, float]:
    tp = fp = fn = 0
    for a, b, label in PAIRS:
        found, wanted = is_near_duplicate(a, b), label != UNRELATED
        tp += found and wanted
        fp += found and not wanted
        fn += wanted and not found
    return tp / (tp + fp), tp / (tp + fn)


def run(rounds: int) -> bool:
    precision, recall = precision_recall()
    print(f"labelled set: {len(PAIRS)} pairs; precision {precision:.3f}, recall {recall:.3f}")
    stores = full_stores()
    count = sum(len(v) for v in stores.values())
    used = {t: char_count(v) for t, v in stores.items()}

    def floor() -> None:
        for target in TARGETS:
            for index, text in enumerate(stores[target]):
                make_entry(target, index, text)

    floor_ms = _median_ms(floor, rounds)
    find_ms = _median_ms(lambda: find_groups(stores, LIMITS), rounds)
    groups = find_groups(stores, LIMITS)
    ratio = find_ms / floor_ms
    print(f"full stores: {count} entries, MEMORY.md {used['memory']:,} / 2,200, USER.md {used['user']:,} / 1,375; "
          f"{groups['count']} groups")
    print(f"{'step':<26}{'median ms':>10}{'ratio':>8}")
    print(f"{'floor (tokenise once)':<26}{floor_ms:>10.3f}{1:>8.2f}")
    print(f"{'find groups':<26}{find_ms:>10.3f}{ratio:>8.2f}")
    big = full_stores(scale=8)
    big_count = sum(len(v) for v in big.values())
    big_ms = _median_ms(lambda: find_groups(big, {t: LIMITS[t] * 8 for t in TARGETS}), max(3, rounds // 10))
    print(f"{'find groups, ' + str(big_count) + ' entries':<26}{big_ms:>10.3f}   (scale, not judged)")
    ok = find_ms <= BUDGET_MS and ratio <= TARGET_RATIO and precision >= PRECISION_FLOOR
    print(f"{'PASS' if ok else 'FAIL'}: find <= {BUDGET_MS:g} ms, ratio <= {TARGET_RATIO:g}, "
          f"precision >= {PRECISION_FLOOR}")
    return ok


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    raise SystemExit(0 if run(parser.parse_args().rounds) else 1)
