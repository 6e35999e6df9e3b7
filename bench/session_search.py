"""Benchmark: session_search discover latency against a raw FTS5 floor.

Builds (once, cached under /tmp keyed by size) a ``state.db`` with N messages of
realistic-ish text: a Zipf-distributed vocabulary of real and made-up words, dotted and
hyphenated technical terms, sessions from several sources (cron and subagent included),
user/assistant/tool turns. It then times, over the same ~50 queries:

* the floor: ``SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank
  LIMIT 20`` on an open connection;
* discover on an open store, as an agent holding its session database calls it
  (``session_search(store, query)``: title lookup, 300-row scan, demotion, dedup,
  hydration);
* discover from a path, opening and closing the database on every call.

Each query is measured ``--repeat`` times alternating the three, and its fastest run is
used (the slower ones mostly measure other processes on a shared machine);
the report gives p50/p95 across queries, their ratios to the floor, and the median of
each query's own ratio to its floor. Targets: that median (open store) <= 2.5x at
100,000 messages; p95 (from a path) <= 1.5x the floor's p95 at 1,000,000 messages.

    .venv/bin/python bench/session_search.py                 # 100,000 and 1,000,000
    .venv/bin/python bench/session_search.py --messages 50000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "engine"))

from hermes_memory.sessions import (  # noqa: E402
    SessionStore,
    sanitize_fts5_query,
    session_search,
)
from hermes_memory.sessions.schema import (  # noqa: E402
    EARLY_FTS_DDL,
    EARLY_SCHEMA_VERSION,
    EARLY_TABLES_DDL,
)

GENERATOR_VERSION = 3
#: (messages, statistic, form) -> the largest ratio to the floor that passes. "query-p50"
#: is the median over queries of each query's own ratio to its floor; "p50" and "p95"
#: compare the percentiles of the two latency distributions.
TARGETS = {
    (100_000, "query-p50", "store"): 2.5,
    (1_000_000, "p95", "path"): 1.5,
}

COMMON = (
    "the a to and of is in it you that for on with this be i can as are was not have but "
    "we if do will so at your or by from what all just my there an me use they one which"
).split()
TECH = (
    "config server deploy docker database error build test python script file memory "
    "session token model cache network request response timeout branch commit merge "
    "release install package version module import function class method schema index "
    "query search result update migrate backup restore permission user password login "
    "kubernetes nginx postgres sqlite redis queue worker thread process signal socket "
    "latency throughput benchmark profile logs metrics alert dashboard cluster node pod "
    "container volume mount path directory terminal shell bash zsh vim editor plugin "
    "telegram discord slack webhook cron schedule reminder calendar invoice budget travel"
).split()
TERMS = (
    "chat-send config.yaml docker-compose state.db pre-commit package.json e-mail "
    "read-only follow-up node.js main.py x86_64 utf-8 hot-reload set-up"
).split()
SOURCES = ("cli",) * 60 + ("telegram",) * 15 + ("discord",) * 5 + ("cron",) * 12 + (
    "subagent",
) * 5 + ("webhook",) * 3


def _made_up_words(rng: random.Random, count: int) -> list[str]:
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"] + ["qu", "th", "sh"]
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def vocabulary(seed: int = 7) -> tuple[list[str], list[float]]:
    """Words in Zipf order with cumulative weights for random.choices."""
    rng = random.Random(seed)
    made_up = _made_up_words(rng, 20_000)
    rng.shuffle(made_up)
    head = TECH + TERMS + made_up[:1850]
    rng.shuffle(head)  # technical words spread over the 2,000 most frequent
    words = COMMON + head + made_up[1850:]  # stop words stay the most frequent
    cumulative, total = [], 0.0
    for rank in range(1, len(words) + 1):
        total += 1.0 / rank**1.05
        cumulative.append(total)
    return words, cumulative


def cached_db_path(messages: int) -> Path:
    return Path("/tmp") / f"hermes_bench_state_{messages}_v{GENERATOR_VERSION}.db"


def _is_complete(path: Path, messages: int) -> bool:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM bench_meta WHERE key = 'messages'").fetchone()
            return row is not None and int(row[0]) == messages
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def build_db(messages: int, seed: int = 11) -> Path:
    path = cached_db_path(messages)
    if path.exists() and _is_complete(path, messages):
        return path
    started = time.perf_counter()
    words, cumulative = vocabulary()
    rng = random.Random(seed)
    temp = path.with_suffix(".building")
    for leftover in (temp, Path(f"{temp}-wal"), Path(f"{temp}-shm")):
        leftover.unlink(missing_ok=True)
    conn = sqlite3.connect(temp)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -200000")
    conn.executescript(EARLY_TABLES_DDL)
    conn.execute("INSERT INTO schema_version VALUES (?)", (EARLY_SCHEMA_VERSION,))

    sessions, rows = [], []
    clock = 1_700_000_000.0
    message_id = 0
    session_no = 0
    while message_id < messages:
        session_no += 1
        sid = f"2024{session_no:08d}_{rng.randrange(16**6):06x}"
        source = rng.choice(SOURCES)
        parent = sessions[-1][0] if source == "subagent" and sessions else None
        length = min(messages - message_id, max(2, int(rng.expovariate(1 / 25))))
        clock += rng.uniform(60, 7200)
        sessions.append((sid, source, "bench-model", parent, clock, clock + length * 30, length))
        text_lengths = [max(3, int(rng.expovariate(1 / 30))) for _ in range(length)]
        flat = rng.choices(words, cum_weights=cumulative, k=sum(text_lengths))
        position = 0
        for turn in range(length):
            n = text_lengths[turn]
            content = " ".join(flat[position : position + n]).capitalize() + "."
            position += n
            role = ("user", "assistant", "tool", "assistant")[turn % 4]
            tool_name = "terminal" if role == "tool" else None
            message_id += 1
            rows.append((message_id, sid, role, content, tool_name, clock + turn * 30))
    conn.executemany(
        "INSERT INTO sessions (id, source, model, parent_session_id, started_at, ended_at, "
        "message_count) VALUES (?, ?, ?, ?, ?, ?, ?)",
        sessions,
    )
    conn.executemany(
        "INSERT INTO messages (id, session_id, role, content, tool_name, timestamp) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.commit()
    # Bulk load first, then index everything at once: far faster than per-row triggers.
    conn.executescript(EARLY_FTS_DDL)
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
    conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('optimize')")
    conn.execute("CREATE TABLE bench_meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT INTO bench_meta VALUES ('messages', ?)", (str(messages),))
    conn.commit()
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("ANALYZE")
    conn.close()
    os.replace(temp, path)
    print(f"built {path} ({messages:,} messages, {len(sessions):,} sessions) "
          f"in {time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
    return path


def bench_queries(count: int = 50, seed: int = 5) -> list[str]:
    """A fixed mix: common, mid-frequency and rare words, pairs, phrases, terms, prefixes."""
    words, _ = vocabulary()
    rng = random.Random(seed)
    tech = [w for w in words[len(COMMON) : 600] if w not in TERMS]
    mid = words[600:3000]
    rare = words[8000:20000]
    queries = (
        rng.sample(TECH, 6)
        + rng.sample(tech, 8)
        + rng.sample(mid, 10)
        + rng.sample(rare, 8)
        + [f"{a} {b}" for a, b in zip(rng.sample(tech, 5), rng.sample(tech, 5), strict=True)]
        + [f"{a} OR {b}" for a, b in zip(rng.sample(tech, 3), rng.sample(mid, 3), strict=True)]
        + [f'"{a} {b}"' for a, b in zip(rng.sample(COMMON, 3), rng.sample(tech, 3), strict=True)]
        + rng.sample(TERMS, 4)
        + [w[:4] + "*" for w in rng.sample(tech, 3)]
    )
    return queries[:count]


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def measure(messages: int, queries: list[str], repeat: int, show: bool) -> dict:
    path = build_db(messages)
    floor_conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    floor_sql = (
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20"
    )
    store = SessionStore.open(path)

    def timed(run) -> tuple[float, object]:
        started = time.perf_counter()
        result = run()
        return time.perf_counter() - started, result

    forms = {
        "floor": lambda q: floor_conn.execute(floor_sql, (sanitize_fts5_query(q),)).fetchall(),
        "store": lambda q: session_search(store, q),
        "path": lambda q: session_search(path, q),
    }
    for query in queries:  # warm the page cache for all
        for run in forms.values():
            run(query)
    medians: dict[str, list[float]] = {name: [] for name in forms}
    for query in queries:
        times: dict[str, list[float]] = {name: [] for name in forms}
        for _ in range(repeat):
            for name, run in forms.items():
                elapsed, result = timed(lambda run=run, query=query: run(query))
                times[name].append(elapsed)
                if name != "floor" and not result.get("success"):
                    raise SystemExit(f"discover failed for {query!r}: {result}")
        for name in forms:
            # The fastest repeat: on a shared machine the slower ones time other processes.
            medians[name].append(min(times[name]))
        if show:
            f, d = medians["floor"][-1], medians["store"][-1]
            print(f"  {query!r:<28} floor {f * 1000:8.2f} ms  discover {d * 1000:8.2f} ms"
                  f"  x{d / f:5.2f}  {result['count']} results ({result.get('search_path')})")  # fmt: skip
    store.close()
    floor_conn.close()
    stats = {
        name: {"p50": percentile(values, 50), "p95": percentile(values, 95)}
        for name, values in medians.items()
    }
    print(f"state.db: {path} ({messages:,} messages), {len(queries)} queries x {repeat}")
    labels = {"floor": "raw FTS5 floor", "store": "discover (open store)",
              "path": "discover (from a path)"}  # fmt: skip
    for name, label in labels.items():
        print(f"  {label:<24} p50 {stats[name]['p50'] * 1000:8.2f} ms"
              f"   p95 {stats[name]['p95'] * 1000:8.2f} ms")  # fmt: skip
    report = {"messages": messages, "queries": len(queries), "repeat": repeat,
              "ms": {n: {k: round(v * 1000, 3) for k, v in st.items()} for n, st in stats.items()},
              "ratios": {}, "verdicts": {}}  # fmt: skip
    for form in ("store", "path"):
        per_query = [d / f if f else float("inf")
                     for d, f in zip(medians[form], medians["floor"], strict=True)]  # fmt: skip
        for stat in ("query-p50", "p50", "p95"):
            if stat == "query-p50":
                ratio = statistics.median(per_query)
            else:
                floor = stats["floor"][stat]
                ratio = stats[form][stat] / floor if floor else float("inf")
            key = f"{stat}_{form}"
            report["ratios"][key] = round(ratio, 3)
            target = TARGETS.get((messages, stat, form))
            verdict = "" if target is None else ("PASS" if ratio <= target else "FAIL")
            if target is not None:
                report["verdicts"][key] = {"target": target, "verdict": verdict}
            mark = f"  (target <= {target})  {verdict}" if target is not None else ""
            print(f"  {stat:>9} ratio, {form:<5} {ratio:6.2f}x the floor{mark}")
    print(json.dumps(report))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", default="100000,1000000",
                        help="comma-separated database sizes (default: 100000,1000000)")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--show", action="store_true", help="print per-query timings")
    args = parser.parse_args(argv)

    queries = bench_queries(args.queries)
    failed = False
    for size in (int(part) for part in str(args.messages).split(",") if part.strip()):
        report = measure(size, queries, args.repeat, args.show)
        failed |= any(v["verdict"] == "FAIL" for v in report["verdicts"].values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
