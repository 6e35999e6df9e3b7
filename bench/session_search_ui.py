"""Benchmark: a keystroke in the Sessions tab's search box → its results on screen.

Uses the ``state.db`` of ``bench/session_search.py`` (built once and cached under /tmp; a
million messages by default), opened by the real panel over a real Workspace. Each query
of that benchmark is typed one key every ``--gap`` ms; for every keystroke the time runs
from the key event until the panel shows the answer for that text or for a later one
(keystrokes coalesce while a search is in flight, so a key's answer may be a newer
text's). The floor, measured in the same run, is the raw FTS5 query of that benchmark
(``MATCH ... ORDER BY rank LIMIT 20`` on an open connection) for each query's full text.

Target: p95 keystroke → results ≤ 150 ms at 1,000,000 messages, in the tab's default
order (newest first); ``--order best`` measures the relevance order for comparison.

    .venv/bin/python bench/session_search_ui.py                   # 1,000,000 messages
    .venv/bin/python bench/session_search_ui.py --messages 100000 --queries 20
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "engine"), str(ROOT / "desktop"), str(ROOT / "bench")]

from PySide6.QtCore import QEventLoop  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.sessions import sanitize_fts5_query  # noqa: E402
from hermes_studio.sessions import SessionsPanel  # noqa: E402
from hermes_studio.workspace import Workspace  # noqa: E402
from session_search import bench_queries, build_db, percentile  # noqa: E402

TARGET_P95_MS = 150.0
ANSWER_TIMEOUT_S = 10.0


def wait(condition, timeout: float = ANSWER_TIMEOUT_S) -> bool:
    loop = QEventLoop()
    deadline = time.perf_counter() + timeout
    while not condition() and time.perf_counter() < deadline:
        loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    return condition()


def floor_ms(path: Path, queries: list[str], repeat: int) -> list[float]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    sql = "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT 20"
    times = []
    for query in queries:
        match = sanitize_fts5_query(query)
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            conn.execute(sql, (match,)).fetchall()
            best = min(best, time.perf_counter() - started)
        times.append(best * 1000)
    conn.close()
    return times


def type_queries(panel: SessionsPanel, queries: list[str], gap_ms: int) -> list[float]:
    """Per keystroke, ms until results for its text (or a newer one) were shown."""
    typed: dict[int, float] = {}  # serial -> when its key went in
    latencies: list[float] = []

    def shown(serial: int) -> None:
        now = time.perf_counter()
        for key_serial in [s for s in typed if s <= serial]:
            latencies.append((now - typed.pop(key_serial)) * 1000)

    panel.sig_results_shown.connect(shown)
    box = panel.search_box
    for query in queries:
        box.clear()  # lists the recent sessions; not measured
        wait(lambda: panel.live.shown >= panel.live.serial and not panel.live.in_flight)
        for char in query:
            QTest.keyClicks(box, char)
            typed[panel.live.serial] = time.perf_counter()
            wait(lambda: False, gap_ms / 1000)  # the event loop runs, as between real keys
        if not wait(lambda: not typed):
            raise SystemExit(f"no results for {query!r} within {ANSWER_TIMEOUT_S:g} s")
    panel.sig_results_shown.disconnect(shown)
    return latencies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--gap", type=int, default=70, help="ms between keystrokes")
    parser.add_argument("--repeat", type=int, default=5, help="floor runs per query (best kept)")
    parser.add_argument("--order", choices=("newest", "best"), default="newest",
                        help="the tab's order (best: the relevance search, which ranks every match)")
    args = parser.parse_args(argv)

    db = build_db(args.messages)
    queries = bench_queries(args.queries)
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory(prefix="hermes-bench-ui-") as folder:
        root = Path(folder)
        (root / "memories").mkdir()
        (root / "state.db").symlink_to(db)  # SQLite follows it to the cached file and its WAL
        workspace = Workspace(HermesHome.resolve(root), watch=False)
        panel = SessionsPanel(workspace)
        panel.resize(1200, 760)
        panel.show()
        if not wait(lambda: panel.ready, 60):
            raise SystemExit("the panel did not load")
        panel.order_box.setCurrentIndex(panel.order_box.findData(args.order))
        type_queries(panel, queries[:3], args.gap)  # warm the page cache and the code paths
        latencies = type_queries(panel, queries, args.gap)
        floor = floor_ms(db, queries, args.repeat)
        panel.close_panel()
        panel.close()
        workspace.close()
    del app
    p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
    f50, f95 = percentile(floor, 50), percentile(floor, 95)
    passed = p95 <= TARGET_P95_MS
    print(f"session search in the UI ({args.order} first), {args.messages:,} messages, {len(queries)} queries, "
          f"{len(latencies)} keystrokes {args.gap} ms apart")  # fmt: skip
    print(f"  keystroke → results shown: p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   max {max(latencies):7.1f} ms")
    print(f"  floor (raw FTS5 MATCH, LIMIT 20): p50 {f50:7.1f} ms   p95 {f95:7.1f} ms")
    print(f"  ratio p95 / floor p95: {p95 / max(f95, 1e-6):.1f}x")
    print(f"  target p95 ≤ {TARGET_P95_MS:g} ms: {'PASS' if passed else 'FAIL'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
