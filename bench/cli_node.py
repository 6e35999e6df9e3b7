"""Benchmark: ``hermes-memory node show|pin|unpin|delete|restore`` of one skill at 10,000 skills.

On a private copy of the generated home of ``bench/graph_build.py`` (cached under
``$TMPDIR/hermes-bench-homes``; only the copy is changed, and each change is taken back
in the same round: pin then unpin, delete then restore), each command runs as its own
process, as a person runs it, for two skills: the one a person asked about
(``audit-calendar-4798``, early in the scan order) and the last unpinned skill in scan
order (a lookup stops at the first skill of the name, so this is the longest walk), and
``node show`` of a name no skill has (the whole walk, then the archive). Printed per
command: the best wall time of the rounds and the peak RSS of that process, against the
floor measured in the same rounds, ``hermes-memory status`` (the interpreter and the
CLI's imports, reading two small files).

Before the rounds, one ``node show`` runs with an empty names cache (the first command on
a home reads every SKILL.md once; printed for reference). The names cache lives in a
private ``$XDG_CACHE_HOME`` that goes with the copy.

Target (PASS/FAIL): each command ≤ 1.5× the floor. ``--against PATH`` also times the
same commands with the engine at PATH (say ``/work/main/engine``), interleaved in the
same rounds, for a before/after on one machine state.

Run: ``.venv/bin/python bench/cli_node.py [--count 10000] [--rounds 5] [--against PATH]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"
sys.path.insert(0, str(ENGINE))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from graph_build import generate  # noqa: E402
from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.skills.index import SkillIndex  # noqa: E402
from hermes_memory.skills.usage import read_usage  # noqa: E402

TARGET = 1.5
ASKED = "audit-calendar-4798"
ABSENT = "no-such-skill-here"


# A small interpreter starts each command and times it: a child's peak RSS counts the
# memory of the process that forked it (Linux carries it over at exec), so the bench's own
# (a scan of the home) must not be that process.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawn(sys.executable, [sys.executable, *sys.argv[1:]], os.environ)
_pid, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run(engine: Path, home: Path, cache: Path, *args: str) -> tuple[float, float]:
    """``(wall seconds, peak RSS MB)`` of one ``hermes-memory --home HOME ARGS`` process."""
    env = {**os.environ, "PYTHONPATH": str(engine), "XDG_CACHE_HOME": str(cache)}
    command = [sys.executable, "-c", LAUNCHER, "-m", "hermes_memory.cli", "--home", str(home), *args]
    with tempfile.TemporaryFile() as errors:
        result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=errors, text=True, check=False)
        errors.seek(0)
        error = errors.read().decode(errors="replace")
    elapsed, rss_kb, code = result.stdout.split()[-3:]
    if int(code) != 0 and not (args[-1] == ABSENT and int(code) == 1):
        raise SystemExit(f"{' '.join(args)} failed ({code}) with {engine}: {error.strip()}")
    return float(elapsed), int(rss_kb) / 1024


def last_unpinned(home: HermesHome) -> str:
    records = read_usage(home).records
    skills = SkillIndex(home).scan().skills
    return next(s.name for s in reversed(skills) if not records.get(s.name, {}).get("pinned"))


def commands(name: str) -> list[tuple[str, ...]]:
    # each change is followed by the one that takes it back, so every round starts alike
    return [("node", "show", name), ("node", "pin", name), ("node", "unpin", name),
            ("node", "delete", name), ("node", "restore", name)]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another engine folder to time in the same rounds")
    args = parser.parse_args()
    engines = {"this": ENGINE}
    if args.against:
        engines["against"] = args.against.resolve()
    with tempfile.TemporaryDirectory(prefix="hermes-cli-node-") as tmp:
        source = generate(args.count)
        home_path = Path(tmp) / "home"
        shutil.copytree(source.path, home_path, symlinks=True)
        home = HermesHome.resolve(home_path)
        cache = Path(tmp) / "cache"
        late = last_unpinned(home)
        steps = [*commands(ASKED), *commands(late), ("node", "show", ABSENT)]
        cold, _ = run(ENGINE, home_path, cache, "node", "show", ASKED)  # an empty names cache
        best: dict[tuple[str, tuple[str, ...]], tuple[float, float]] = {}
        floors: list[float] = []
        floor_rss = 0.0
        for round_ in range(args.rounds):  # alternate, so that a busy moment hits all alike
            elapsed, floor_rss = run(ENGINE, home_path, cache, "status")
            floors.append(elapsed)
            order = list(engines.items())
            for label, engine in order if round_ % 2 == 0 else reversed(order):
                for step in steps:  # (in order: each change is taken back by the next step)
                    elapsed, rss = run(engine, home_path, cache, *step)
                    key = (label, step)
                    if key not in best or elapsed < best[key][0]:
                        best[key] = (elapsed, rss)
        floor = min(floors)
    try:
        load = os.getloadavg()
    except OSError:
        load = (0.0, 0.0, 0.0)
    print(f"{args.count:,} skills, best of {args.rounds} rounds; load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"floor: hermes-memory status {floor * 1000:6.0f} ms, RSS {floor_rss:.0f} MB")
    print(f"first node show on the home (names cache empty): {cold * 1000:6.0f} ms = {cold / floor:.2f}x floor")
    failed = False
    for step in steps:
        elapsed, rss = best[("this", step)]
        ratio = elapsed / floor
        ok = ratio <= TARGET
        failed |= not ok
        line = f"  {' '.join(step):<40} {elapsed * 1000:6.0f} ms = {ratio:4.2f}x floor  RSS {rss:3.0f} MB  {'PASS' if ok else 'FAIL'}"
        if "against" in engines:
            other, other_rss = best[("against", step)]
            line += f"   | against: {other * 1000:6.0f} ms = {other / floor:4.2f}x, RSS {other_rss:3.0f} MB"
        print(line)
    print(f"target: each command <= {TARGET}x the floor: {'FAIL' if failed else 'PASS'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
