"""Benchmark: resolving a session by its title (case-insensitive) at 10,000 and 100,000 sessions.

``session_search`` asks ``SessionStore.resolve_session_by_title`` on every call, with the
query as the title. Builds (under a temporary folder) a ``state.db`` of N titled sessions
with upstream's unique title index, then times over ~60 lookups (titles as stored, in
other cases, and text that is no title):

* floor: ``SELECT id FROM sessions WHERE title = ?`` (the exact, case-sensitive lookup
  the index answers, the least any title lookup must do);
* lookup: ``resolve_session_by_title`` on an open store;
* scan: the ``title = ? COLLATE NOCASE`` query the lookup replaced, for reference.

Each lookup's best of ``--repeat`` runs is kept (floor, lookup and scan alternate). Targets
(PASS/FAIL): every lookup's answer equals the scan's; the lookup's p50 ≤ 25× the floor's
p50 at each size (it seeks the index once per title variant or gap between them, each seek
a round trip from Python: 5-12 of them on this small, repetitive vocabulary); and it does
not grow with the sessions: its p50 at the largest size ≤ 2× that at the smallest (the
scan's grows with them).

    .venv/bin/python bench/session_title.py [--sessions 10000 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

from hermes_memory.sessions import create_modern_db  # noqa: E402
from hermes_memory.sessions.store import SessionStore  # noqa: E402

TARGET = 25.0
TARGET_GROWTH = 2.0
WORDS = ["Deploy", "notes", "Tower", "trip", "quarterly", "taxes", "fix", "flaky", "CI", "plan",
         "review", "the", "API", "budget", "kitchen", "garden", "router", "backup", "GPU", "invoice"]  # fmt: skip
SCAN = "SELECT id FROM sessions WHERE title = ? COLLATE NOCASE ORDER BY started_at DESC LIMIT 1"
EXACT = "SELECT id FROM sessions WHERE title = ?"


def build(path: Path, count: int, rng: random.Random) -> list[str]:
    create_modern_db(path)
    titles: list[str] = []
    seen: set[str] = set()
    while len(titles) < count:
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))
        if rng.random() < 0.5:
            title += f" {rng.randint(1, 999)}"
        if title not in seen:
            seen.add(title)
            titles.append(title)
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO sessions (id, source, started_at, title) VALUES (?, 'cli', ?, ?)",
        [(f"s{n}", 1_700_000_000.0 + n, title) for n, title in enumerate(titles)],
    )
    conn.commit()
    conn.close()
    return titles


def best(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def run(count: int, repeat: int, folder: Path) -> tuple[bool, float]:
    rng = random.Random(count)
    titles = build(folder / f"state-{count}.db", count, rng)
    queries = rng.sample(titles, 20)
    queries += [title.swapcase() for title in rng.sample(titles, 20)]
    queries += [f"{rng.choice(WORDS)} is not a title {n}" for n in range(20)]
    floors, lookups, scans = [], [], []
    agree = True
    with SessionStore(folder / f"state-{count}.db") as store:
        store.resolve_session_by_title("warm up")
        conn = store.conn
        for query in queries:
            floors.append(best(lambda q=query: conn.execute(EXACT, (q,)).fetchone(), repeat))
            lookups.append(best(lambda q=query: store.resolve_session_by_title(q), repeat))
            scans.append(best(lambda q=query: conn.execute(SCAN, (q,)).fetchone(), repeat))
            row = conn.execute(SCAN, (query,)).fetchone()
            agree &= store.resolve_session_by_title(query) == (row[0] if row else None)
    floor, lookup, scan = (statistics.median(values) for values in (floors, lookups, scans))
    ratio = lookup / floor
    ok = ratio <= TARGET and agree
    print(f"{count:>8,} sessions  floor p50 {floor * 1e3:7.3f} ms  lookup p50 {lookup * 1e3:7.3f} ms "
          f"({ratio:4.1f}× floor, ≤ {TARGET:g}×)  NOCASE scan p50 {scan * 1e3:7.2f} ms  "
          f"answers {'equal' if agree else 'DIFFER'}: {'PASS' if ok else 'FAIL'}")  # fmt: skip
    return ok, lookup


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hermes-session-title-") as tmp:
        results = [run(count, args.repeat, Path(tmp)) for count in sorted(args.sessions)]
    ok = all(passed for passed, _ in results)
    if len(results) > 1:
        growth = results[-1][1] / results[0][1]
        grows_ok = growth <= TARGET_GROWTH
        ok &= grows_ok
        print(f"lookup p50 at {max(args.sessions):,} = {growth:.2f}× that at {min(args.sessions):,} sessions "
              f"(≤ {TARGET_GROWTH:g}×): {'PASS' if grows_ok else 'FAIL'}")  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
