"""Benchmark: the graph's table twin and bulk actions at 10,000 skills.

On the generated home of ``bench/graph_build.py`` (10,000 learned skills, 24 memories), in a
real :class:`GraphPanel` offscreen, prints each figure beside a floor measured in the same run:

* sorting the table by a column (a click on its header: the model's numpy sort, the reset,
  the shared selection put back), median of 5 per column; floor: ``np.argsort`` of the same
  keys. For reference, one sort of the same model through a ``QSortFilterProxyModel`` (what
  the table does not use, because it asks Python for every comparison);
* selection sync: a lasso of 1,000 nodes and a click in the graph (the table follows), a click
  and a Shift-click of 1,000 rows in the table (the canvas follows); floor: the canvas moving
  its highlight alone (its own redraw on any click); the sync is the rest;
* a bulk archive of 500 skills through ``skills_bulk`` (one engine call, as the app makes
  it), against the same archives one by one through the engine as the graph's single
  Archive makes them (``delete_node``); the one-by-one figure is the mean of a sample
  (``--sample``, default 40) times 500, since 500 of them take many minutes at 10,000 skills.

Targets: sorting ≤ 100 ms, selection sync ≤ 50 ms beyond the floor, bulk ≤ 3× one by one. The archives run on
a private copy of the home (the cached home is never changed).

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python bench/table.py [--skills 10000] [--archives 500]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "engine"))
sys.path.insert(0, str(ROOT / "desktop"))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from PySide6.QtCore import QSortFilterProxyModel, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from graph_build import generate  # noqa: E402
from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.learning.mutations import delete_node  # noqa: E402
from hermes_studio.graph import GraphPanel  # noqa: E402
from hermes_studio.graph.table import COLUMN_KEYS  # noqa: E402
from hermes_studio.workspace import LocalBackend, Workspace  # noqa: E402

SORT_TARGET_MS = 100.0
SYNC_TARGET_MS = 50.0
BULK_TARGET_RATIO = 3.0


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def timed(action) -> float:
    start = time.perf_counter()
    action()
    QApplication.processEvents()
    return time.perf_counter() - start


def timed_sync(action) -> float:
    """The synchronous part of a selection change; the repaint runs after, untimed."""
    QApplication.processEvents()
    start = time.perf_counter()
    action()
    elapsed = time.perf_counter() - start
    QApplication.processEvents()
    return elapsed


def open_panel(home: HermesHome) -> tuple[GraphPanel, Workspace]:
    workspace = Workspace(home, watch=False)
    panel = GraphPanel(workspace)
    panel.resize(1400, 900)
    panel.show()
    panel.twin.set_layout("both")
    if not panel.wait_ready(600_000):
        raise SystemExit("the graph did not come up")
    QApplication.processEvents()
    return panel, workspace


def bench_sort(panel: GraphPanel) -> bool:
    table, model = panel.twin.table, panel.twin.model
    print(f"\nSorting {model.rowCount():,} rows: a header click, the sort and the table's repaint "
          "(median of 5 per column, the first computing the column's keys; max shown too)")
    worst = 0.0
    for key in ("name", "uses", "last_used", "category", "health"):
        column = COLUMN_KEYS.index(key)
        runs, floors = [], []
        for round_ in range(5):
            order = Qt.SortOrder.AscendingOrder if round_ % 2 else Qt.SortOrder.DescendingOrder
            if round_ == 0:  # as if the keys had not been computed in idle time yet
                model._keys.pop(column, None)
            runs.append(timed(lambda c=column, o=order: table.sortByColumn(c, o)))
            keys = model._key(column)
            start = time.perf_counter()
            np.argsort(keys, kind="stable")
            floors.append(time.perf_counter() - start)
        median, floor = statistics.median(runs), statistics.median(floors)
        worst = max(worst, median)
        print(f"  {key:<10} {ms(median)} (first {ms(runs[0]).strip()})   floor (argsort) {ms(floor)}   "
              f"ratio {median / max(floor, 1e-9):6.1f}×")
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy_time = timed(lambda: proxy.sort(COLUMN_KEYS.index("name")))
    print(f"  reference: the same sort through QSortFilterProxyModel {ms(proxy_time)}")
    ok = worst <= SORT_TARGET_MS / 1000
    print(f"  sorting ≤ {SORT_TARGET_MS:.0f} ms: worst {ms(worst)}  {verdict(ok)}")
    return ok


def bench_sync(panel: GraphPanel) -> bool:
    twin = panel.twin
    model, table = twin.model, twin.table
    ids = model.ordered_ids()
    rng = np.random.default_rng(3)
    print(f"\nSelection sync ({len(ids):,} rows; median of 5; the work until both views hold the "
          "new selection, before the repaint; sync = that minus the canvas's own highlight)")
    picks = [[ids[i] for i in rng.choice(len(ids), 1000, replace=False)] for _ in range(5)]
    cases = {
        "graph → table: lasso of 1,000": [timed_sync(lambda p=p: panel.selection.set(p)) for p in picks],
        "graph → table: one click": [timed_sync(lambda i=i: panel.view.click_node(int(panel.data.index[ids[i]])))
                                     for i in rng.choice(len(ids), 5)],
    }
    table_click, table_range = [], []
    for row in rng.choice(len(ids) - 1000, 5).tolist():
        table_click.append(timed_sync(lambda r=row: table.choose(r, Qt.KeyboardModifier.NoModifier)))
        table_range.append(timed_sync(lambda r=row: table.choose(r + 999, Qt.KeyboardModifier.ShiftModifier)))
        assert len(panel.selection) == 1000
    cases["table → graph: one click"] = table_click
    cases["table → graph: Shift-click 1,000"] = table_range
    # the floor: the canvas alone moving its highlight (its own redraw on any click), with
    # nobody following; what a case takes beyond it is the sync
    floors = []
    for i in rng.choice(len(ids), 5).tolist():
        twin._applying = True
        try:
            floors.append(timed_sync(lambda i=i: panel.view.select(ids[i])))
        finally:
            twin._applying = False
    floor = statistics.median(floors)
    ok = True
    for name, runs in cases.items():
        median = statistics.median(runs)
        sync = max(0.0, median - floor)
        ok &= sync <= SYNC_TARGET_MS / 1000
        print(f"  {name:<33} {ms(median)}   floor (canvas highlight alone) {ms(floor)}   "
              f"sync {ms(sync)}   ratio {median / max(floor, 1e-9):5.1f}×")
    print(f"  selection sync ≤ {SYNC_TARGET_MS:.0f} ms: {verdict(ok)}")
    return ok


def bench_bulk(source: HermesHome, archives: int, sample: int, names: list[str]) -> bool:
    with tempfile.TemporaryDirectory(prefix="hermes-table-bench-") as temp:
        root = Path(temp) / "home"
        print(f"\nBulk archive: copying the home to {root} …", flush=True)
        shutil.copytree(source.path, root, symlinks=True)
        home = HermesHome.resolve(root)
        backend = LocalBackend(home)
        one_by_one = names[:sample]
        batch = names[sample : sample + archives]
        start = time.perf_counter()
        for name in one_by_one:
            result = delete_node(home, name)
            assert result["ok"], result
        each = (time.perf_counter() - start) / len(one_by_one)
        start = time.perf_counter()
        result = backend.call("skills_bulk", {"action": "archive", "names": batch})
        bulk = time.perf_counter() - start
        assert result["ok"] and len(result["done"]) == len(batch), result.get("message")
        floor = each * len(batch)
        ratio = bulk / floor
        print(f"  one by one (delete_node), mean of {len(one_by_one)}: {ms(each)} each, "
              f"× {len(batch)} = {floor:7.1f} s")
        print(f"  skills_bulk of {len(batch)}: {bulk:7.1f} s   ratio {ratio:4.2f}×")
        ok = ratio <= BULK_TARGET_RATIO
        print(f"  bulk ≤ {BULK_TARGET_RATIO:.0f}× one by one: {verdict(ok)}")
        return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--archives", type=int, default=500)
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--skip-bulk", action="store_true")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    home = generate(args.skills)
    panel, workspace = open_panel(home)
    results = [bench_sort(panel), bench_sync(panel)]
    candidates = [i for i in panel.data.ids
                  if (n := panel.data.node(i))["kind"] == "skill" and not n.get("pinned")]
    panel.close_panel()
    workspace.close()
    panel.deleteLater()
    app.processEvents()
    if not args.skip_bulk:
        results.append(bench_bulk(home, args.archives, args.sample, candidates))
    print(f"\noverall: {verdict(all(results))}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
