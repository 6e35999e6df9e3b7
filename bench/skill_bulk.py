"""Benchmark: archiving 1 and 500 skills in a home of 10,000 learned skills.

On a copy of the generated home of ``bench/graph_build.py`` (cached under
``$TMPDIR/hermes-bench-homes``; the copy is what gets changed), prints per batch size:

* the engine step: archive (then restore, pin and unpin) through the same functions the
  desktop's single and bulk actions call, with the folder scan handed in (the scan is
  printed once on its own: it is the same for any batch size);
* for one skill, also the graph's node actions as the desktop calls them, with nothing
  handed in (``node delete`` archives, ``node restore`` brings it back): they find the
  skill themselves with a full scan through the home's index, which the window's graph
  keeps, so only changed SKILL.md files are read (``hermes-memory node`` on its own reads
  them all once);
* write floor: one atomic write of ``.usage.json`` plus the folder moves (there and back),
  the least any archive must do on disk;
* rewrite floor: the write floor plus reading, parsing and serialising the sidecar once,
  the least any archive must do that re-reads the file under the lock as the agent's
  format requires (a whole-file JSON object: it cannot be patched in place);

floor and step run in alternate rounds and the best of each is kept, so both see the
machine in the same state. Targets (PASS/FAIL): each step ≤ 3× its rewrite floor (an
archive or restore also writes and removes its intent and appends to the history, each
fsynced), and a batch of 500 ≤ 5% of 500 single archives. Against the write floor alone
the ratio is printed for reference: at 10,000 records parsing and serialising 3.4 MB of
pretty JSON is most of the work, and only patching the file's text in place (not done:
every write re-reads and re-serialises the whole object, as the agent does) could avoid it.

Run: ``.venv/bin/python bench/skill_bulk.py [--count 10000] [--batch 500] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from graph_build import generate  # noqa: E402
from hermes_memory.fileio import atomic_write_text  # noqa: E402
from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.learning.mutations import delete_node, restore_node  # noqa: E402
from hermes_memory.skills.index import SkillIndex  # noqa: E402
from hermes_memory.skills.lifecycle import archive_many, restore_many, set_pinned_many  # noqa: E402
from hermes_memory.skills.shared_index import shared_index  # noqa: E402
from hermes_memory.skills.usage import serialise  # noqa: E402

TARGET_REWRITE = 3.0
TARGET_BATCH_SHARE = 0.05


def copy_home(count: int, where: Path) -> HermesHome:
    source = generate(count)
    dest = where / "home"
    shutil.copytree(source.path, dest, symlinks=True)
    return HermesHome.resolve(dest)


def floor(home: HermesHome, directories: list[Path], *, rewrite: bool) -> float:
    """One atomic write of the sidecar and each folder moved out and back."""
    path = home.skills_usage_file
    aside = home.skills_dir / ".bench-aside"
    aside.mkdir(exist_ok=True)
    start = time.perf_counter()
    raw = path.read_bytes()
    text = serialise(json.loads(raw)) if rewrite else raw.decode()
    for directory in directories:
        os.rename(directory, aside / directory.name)
    atomic_write_text(path, text, temp_prefix=".usage_")
    elapsed = time.perf_counter() - start
    for directory in directories:  # the way back is the restore's floor, timed apart
        os.rename(aside / directory.name, directory)
    aside.rmdir()
    return elapsed


def timed(call, *args, **kwargs) -> tuple[float, object]:
    start = time.perf_counter()
    result = call(*args, **kwargs)
    return time.perf_counter() - start, result


def check(result) -> None:
    ok = result["ok"] if isinstance(result, dict) else result.ok
    if not ok:
        message = result["message"] if isinstance(result, dict) else result.message
        raise SystemExit(f"benchmark step refused: {message}")


def node_action(action):
    """A node action on one skill, as the desktop calls it: no scan handed in."""

    def call(home, chosen, scan):
        del scan
        (name,) = chosen
        return action(home, name)

    return call


SINGLE_ONLY = ("node delete", "node restore")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hermes-skill-bulk-") as tmp:
        home = copy_home(args.count, Path(tmp))
        # the app's window keeps the home's index for its graph, which node actions use
        kept_index = shared_index(home)
        kept_index.scan()
        scan_time, scan = timed(lambda: SkillIndex(home).scan())
        usage = json.loads(home.skills_usage_file.read_bytes())
        names = [n for n, r in sorted(usage.items()) if not r.get("pinned") and scan.get(n)]
        print(f"home: {args.count:,} skills, .usage.json {home.skills_usage_file.stat().st_size / 1e6:.1f} MB; "
              f"folder scan {scan_time * 1000:.0f} ms (once per action, not per skill)")
        rows = []
        for size in (1, args.batch):
            actions = ("archive", "restore", "pin", "unpin", *(SINGLE_ONLY if size == 1 else ()))
            best = {key: float("inf") for key in ("write", "rewrite", *actions)}
            for round_no in range(args.rounds):
                chosen = names[round_no * size:(round_no + 1) * size]
                dirs = [Path(scan.get(n).directory) for n in chosen]
                best["write"] = min(best["write"], floor(home, dirs, rewrite=False))
                best["rewrite"] = min(best["rewrite"], floor(home, dirs, rewrite=True))
                steps = [
                    ("archive", archive_many),
                    ("restore", restore_many),
                    ("pin", lambda home, c, scan: set_pinned_many(home, c, True, scan=scan)),
                    ("unpin", lambda home, c, scan: set_pinned_many(home, c, False, scan=scan)),
                ]
                if size == 1:
                    steps += [("node delete", node_action(delete_node)), ("node restore", node_action(restore_node))]
                for action, call in steps:
                    elapsed, result = timed(call, home, chosen, scan=scan)
                    check(result)
                    best[action] = min(best[action], elapsed)
                    if action in ("archive", "restore", *SINGLE_ONLY):
                        scan = SkillIndex(home).scan()  # the folders as they are now, as a caller's
            rows.append((size, best))
        return report(rows, args.batch)


def report(rows, batch: int) -> int:
    failed = False
    print(f"{'skills':>6} {'step':>12} {'time':>9} {'write floor':>12} {'×':>6} {'rewrite floor':>14} {'×':>6}  target")
    single_archive = None
    for size, best in rows:
        for action in ("archive", "restore", "pin", "unpin", *(SINGLE_ONLY if size == 1 else ())):
            seconds = best[action]
            ratio_write, ratio_rewrite = seconds / best["write"], seconds / best["rewrite"]
            ok = ratio_rewrite <= TARGET_REWRITE
            failed |= not ok
            print(f"{size:>6} {action:>12} {seconds * 1000:>7.0f}ms {best['write'] * 1000:>10.0f}ms "
                  f"{ratio_write:>5.1f}× {best['rewrite'] * 1000:>12.0f}ms {ratio_rewrite:>5.1f}×  "
                  f"≤ {TARGET_REWRITE:g}× rewrite floor: {'PASS' if ok else 'FAIL'}")
        if size == 1:
            single_archive = best["archive"]
    if single_archive is not None and len(rows) > 1:
        share = rows[-1][1]["archive"] / (single_archive * batch)
        ok = share <= TARGET_BATCH_SHARE
        failed |= not ok
        print(f"archive {batch} at once = {share:.1%} of {batch} single archives "
              f"(≤ {TARGET_BATCH_SHARE:.0%}): {'PASS' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
