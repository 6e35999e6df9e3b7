"""Benchmark: building the learning graph for homes of 100, 1,000 and 10,000 learned skills.

Prints, per size:

* floor: reading the first 4,000 bytes of every SKILL.md (paths known in advance), the
  least any build must do;
* cold: a fresh :class:`GraphBuilder` (nothing cached) building the payload; floor and
  cold are measured in alternate rounds and the best of each is kept, so both see the
  machine in the same state;
* minimal scan: for reference, the least a pure-Python scan can do (walk the folders,
  stat each skill folder, read and parse each frontmatter, keep nothing), same rounds;
  and the same walk parsing each frontmatter with PyYAML's C loader, as the agent does;
* first build in a fresh process: cold again, but without the per-process memo tables
  (known frontmatter lines, timestamps) that earlier builds in this process filled, and
  with a heap still to grow; with the user and system CPU, page faults and RSS growth
  of that process's build;
* rebuild after one SKILL.md was edited (median of several), with every file
  stat-checked and with the changed path given, as the desktop's folder watcher does;
* the parts of a cold build (scan, usage records, skill nodes, memory edges, history
  keys; of the fastest of three), and how many history versions the home holds (the history keys
  are read from history's summary index, and cost more the more versions there are);

and, at 10,000 skills, PASS/FAIL for the targets cold ≤ 4× floor and a rebuild with the
changed path given ≤ 5% of cold.

Generated homes are cached under ``$TMPDIR/hermes-bench-homes`` (delete it to rebuild).
Run: ``.venv/bin/python bench/graph_build.py [--sizes 100,1000,10000]``.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))

from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.learning.graph import GraphBuilder  # noqa: E402
from hermes_memory.pausing import gc_paused  # noqa: E402
from hermes_memory.skills.frontmatter import frontmatter_text  # noqa: E402
from hermes_memory.skills.index import parse_head  # noqa: E402

GENERATOR_VERSION = "3"
CACHE = Path(tempfile.gettempdir()) / "hermes-bench-homes"
HEAD_BYTES = 4000
CATEGORIES = [
    "devops", "research", "writing", "data", "security", "frontend", "backend", "mlops",
    "finance", "productivity", "email", "calendar", "docs", "testing", "cloud", "mobile",
    "design", "support", "sales", "legal", "hr", "ops", "database", "networking",
    "monitoring", "automation", "scraping", "media", "translation", "education",
    "health", "travel", "shopping", "social", "gaming", "hardware", "iot", "blockchain",
    "analytics", "compliance",
]
VERBS = ["debug", "deploy", "summarise", "draft", "audit", "migrate", "monitor", "test",
         "review", "backup", "scrape", "translate", "optimise", "triage", "sync", "plan"]
NOUNS = ["docker", "postgres", "invoices", "pull-requests", "emails", "k8s", "logs",
         "papers", "reports", "css", "api", "terraform", "slack", "calendar", "notebooks",
         "certificates", "dns", "backups", "tickets", "pipelines"]
WORDS = ("when the user asks to check the current state first then run the command and "
         "verify the output carefully before reporting back with a short summary").split()


def _skill_md(rng: random.Random, name: str, category: str, related: list[str], flat: bool) -> str:
    tags = rng.sample(NOUNS, rng.randint(2, 4))
    lines = [
        "---",
        f"name: {name}",
        f"description: {rng.choice(VERBS).capitalize()} {rng.choice(NOUNS)} the reliable way",
        f"version: 1.{rng.randint(0, 9)}.{rng.randint(0, 20)}",
        "author: Hermes",
        "license: MIT",
        "metadata:",
        "  hermes:",
        f"    tags: [{', '.join(tags)}]",
    ]
    if related:
        lines.append(f"    related_skills: [{', '.join(related)}]")
    if flat:
        lines.append(f"    category: {category}")
    lines.append("---")
    body = [f"# {name.replace('-', ' ').title()}", "", "## When to Use", ""]
    for section in ("Prerequisites", "How to Run", "Procedure", "Pitfalls", "Verification"):
        body += [f"## {section}", ""]
        for step in range(rng.randint(8, 20)):
            body.append(f"{step + 1}. " + " ".join(rng.choices(WORDS, k=rng.randint(6, 16))))
        body.append("")
    return "\n".join(lines + body) + "\n"


def generate(count: int) -> HermesHome:
    """A home with ``count`` learned skills, usage records and memory; cached on disk."""
    root = CACHE / f"v{GENERATOR_VERSION}-{count}"
    marker = root / ".bench-complete"
    if marker.exists():
        return HermesHome.resolve(root)
    if root.exists():
        shutil.rmtree(root)
    rng = random.Random(count)
    skills_dir = root / "skills"
    names = [f"{rng.choice(VERBS)}-{rng.choice(NOUNS)}-{i}" for i in range(count)]
    usage = {}
    for i, name in enumerate(names):
        category = CATEGORIES[i % len(CATEGORIES)]
        flat = i % 10 == 0
        directory = skills_dir / name if flat else skills_dir / category / name
        directory.mkdir(parents=True)
        related = rng.sample(names, min(len(names), rng.randint(0, 3)))
        (directory / "SKILL.md").write_text(_skill_md(rng, name, category, related, flat))
        if i % 7 == 0:
            (directory / "references").mkdir()
            (directory / "references" / "notes.md").write_text("Background notes.\n")
        used = rng.randint(0, 40)
        usage[name] = {
            "created_by": "agent" if i % 3 else None,
            "use_count": used if i % 3 else max(used, 1),
            "view_count": rng.randint(0, 60),
            "last_used_at": f"2026-0{rng.randint(1, 6)}-{rng.randint(10, 28)}T10:00:00+00:00",
            "last_viewed_at": None,
            "patch_count": rng.randint(0, 5),
            "last_patched_at": None,
            "created_at": "2026-01-02T09:00:00+00:00",
            "state": "active",
            "pinned": i % 50 == 0,
            "archived_at": None,
        }
    (skills_dir / ".usage.json").write_text(json.dumps(usage, indent=2, sort_keys=True))
    memories = root / "memories"
    memories.mkdir()
    memory_entries = [
        f"Project note {i}: the user runs {rng.choice(names)} on Fridays and prefers "
        f"{rng.choice(NOUNS)} over {rng.choice(NOUNS)}; " + " ".join(rng.choices(WORDS, k=20))
        for i in range(16)
    ]
    user_entries = [
        f"User fact {i}: works with {rng.choice(NOUNS)} and {rng.choice(NOUNS)} daily."
        for i in range(8)
    ]
    (memories / "MEMORY.md").write_text("\n§\n".join(memory_entries))
    (memories / "USER.md").write_text("\n§\n".join(user_entries))
    old = time.time() - 86400  # a home nobody is writing to
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (old, old))
    marker.write_text("ok\n")
    return HermesHome.resolve(root)


def skill_files(home: HermesHome) -> list[str]:
    found = []
    for dirpath, dirnames, filenames in os.walk(home.skills_dir):
        dirnames[:] = [d for d in dirnames if d not in ("references", ".archive", ".hub")]
        if "SKILL.md" in filenames:
            found.append(os.path.join(dirpath, "SKILL.md"))
    return found


def floor_open(paths: list[str]) -> float:
    start = time.perf_counter()
    for path in paths:
        with open(path, "rb") as handle:
            handle.read(HEAD_BYTES)
    return time.perf_counter() - start


def floor_raw(paths: list[str]) -> float:
    start = time.perf_counter()
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        os.read(fd, HEAD_BYTES)
        os.close(fd)
    return time.perf_counter() - start


def cold_build(home: HermesHome) -> tuple[float, dict]:
    builder = GraphBuilder(home)
    start = time.perf_counter()
    payload = builder.build()
    elapsed = time.perf_counter() - start
    del builder  # freeing its caches is not part of the build (the app keeps them)
    return elapsed, payload


#: The parts of a cold build the breakdown times: (label, attribute path on the builder).
PARTS = (
    ("scan (walk, read, parse)", "index.scan"),
    ("usage records", "_read_usage"),
    ("skill nodes, health, edges", "_skill_part"),
    ("memory cards' edges", "_memory_edges"),
    ("history keys", "_history.attach"),
)


def cold_build_parts(home: HermesHome) -> tuple[float, dict[str, float]]:
    """A cold build as :func:`cold_build`, and the time of each of its :data:`PARTS`."""
    builder = GraphBuilder(home)
    spent: dict[str, float] = {}
    for label, where in PARTS:
        owner_path, _, name = where.rpartition(".")
        owner = builder
        for step in filter(None, owner_path.split(".")):
            owner = getattr(owner, step)
        original = getattr(owner, name)

        def timed(*args, _original=original, _label=label, **kwargs):
            start = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_label] = spent.get(_label, 0.0) + time.perf_counter() - start

        setattr(owner, name, timed)  # on this instance only
    start = time.perf_counter()
    builder.build()
    elapsed = time.perf_counter() - start
    del builder
    return elapsed, spent


def history_versions(home: HermesHome) -> int:
    """Lines in the home's history log (the history keys cost more with more of them)."""
    try:
        with open(home.root / ".memory-studio" / "history" / "events.jsonl", "rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return 0


def _yaml_head(text: str, dir_name: str, rel: tuple[str, ...]) -> object:
    yaml_text = frontmatter_text(text)
    return yaml.load(yaml_text, Loader=yaml.CSafeLoader) if yaml_text else {}  # noqa: S506


def minimal_scan(home: HermesHome, parse=parse_head) -> float:
    """Walk, stat each skill folder (nested skills), read and parse every frontmatter."""
    start = time.perf_counter()
    parsed = []
    with gc_paused():
        stack: list[tuple[str, tuple[str, ...]]] = [(str(home.skills_dir), ())]
        while stack:
            directory, rel = stack.pop()
            if rel and os.stat(directory).st_nlink == 2:  # no subfolders: read SKILL.md
                try:
                    fd = os.open(directory + "/SKILL.md", os.O_RDONLY | os.O_NOFOLLOW)
                except OSError:
                    continue
                try:
                    os.fstat(fd)
                    data = os.read(fd, HEAD_BYTES)
                finally:
                    os.close(fd)
                parsed.append(parse(codecs.utf_8_decode(data)[0], rel[-1], rel))
                continue
            with os.scandir(directory) as entries:
                for entry in entries:
                    if entry.name == "SKILL.md":
                        with open(entry.path, "rb") as handle:
                            text = handle.read(HEAD_BYTES).decode()
                        parsed.append(parse(text, rel[-1] if rel else "", rel))
                    elif entry.is_dir() and entry.name not in ("references", ".archive", ".hub"):
                        stack.append((entry.path, (*rel, entry.name)))
    elapsed = time.perf_counter() - start
    del parsed
    return elapsed


#: Modules a build imports on first use (the engine loads them lazily): imported before
#: the fresh-process build is timed, and timed on their own.
LAZY_MODULES = "hermes_memory.config, hermes_memory.memory.store, yaml"


def fresh_process_build(home: HermesHome) -> tuple[float, float, tuple[float, float, int, float]]:
    """The first build in a new interpreter, imports not timed, the time of the imports
    that build would otherwise load on first use, and what the build cost the process:
    (user CPU s, system CPU s, minor page faults, growth of the peak RSS in MB). A first
    build grows the heap (page faults, in system time) and fills the per-process tables
    (in user time): what it pays beyond a cold build in a warm process."""
    script = (
        "import resource, sys, time\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent.parent / 'engine')!r})\n"
        "from hermes_memory.home import HermesHome\n"
        "from hermes_memory.learning.graph import GraphBuilder\n"
        "start = time.perf_counter()\n"
        f"import {LAZY_MODULES}\n"
        "lazy = time.perf_counter() - start\n"
        f"builder = GraphBuilder(HermesHome.resolve({str(home.root)!r}))\n"
        "before = resource.getrusage(resource.RUSAGE_SELF)\n"
        "start = time.perf_counter()\n"
        "builder.build()\n"
        "elapsed = time.perf_counter() - start\n"
        "after = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(elapsed, lazy, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,\n"
        "      after.ru_minflt - before.ru_minflt, (after.ru_maxrss - before.ru_maxrss) / 1024)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    build, lazy, user, system, faults, grown = result.stdout.split()
    return float(build), float(lazy), (float(user), float(system), int(faults), float(grown))


def warm_rebuilds(home: HermesHome, paths: list[str], rounds: int, hinted: bool) -> list[float]:
    """Rebuild times after editing one SKILL.md; ``hinted`` passes the edited path as a
    folder watcher would, otherwise every file is checked with a stat."""
    builder = GraphBuilder(home)
    builder.build()
    times = []
    rng = random.Random(1)
    for _ in range(rounds):
        path = rng.choice(paths)
        text = Path(path).read_text()
        Path(path).write_text(text.replace("the reliable way", "the reliable way!", 1))
        start = time.perf_counter()
        payload = builder.build(changed=[path] if hinted else None)
        times.append(time.perf_counter() - start)
        assert builder.index.files_parsed <= rounds, builder.index.files_parsed
        assert any(n.get("description", "").endswith("way!") for n in payload["nodes"])
        Path(path).write_text(text)
        os.utime(path, (time.time() - 86400,) * 2)
        builder.build(changed=[path] if hinted else None)
    return times


def run(count: int) -> tuple[float, float, float, float]:
    home = generate(count)
    paths = skill_files(home)
    rounds = 9 if count < 10_000 else 7
    floor_raw(paths)  # warm the page cache before anything is timed
    fresh_runs = [fresh_process_build(home) for _ in range(3)]
    fresh, _, fresh_cost = min(fresh_runs)
    lazy = min(imports for _, imports, _ in fresh_runs)
    floors, raws, colds, minimals = [], [], [], []
    payload: dict = {}
    for _ in range(rounds):  # alternate, so that a busy moment hits all of them alike
        floors.append(floor_open(paths))
        raws.append(floor_raw(paths))
        elapsed, payload = cold_build(home)
        colds.append(elapsed)
        minimals.append(minimal_scan(home))
    floor, raw, cold, minimal = min(floors), min(raws), min(colds), min(minimals)
    part_total, parts = min((cold_build_parts(home) for _ in range(3)), key=lambda run: run[0])
    with_yaml = min(minimal_scan(home, _yaml_head) for _ in range(3))
    warm = statistics.median(warm_rebuilds(home, paths, 7, hinted=False))
    hinted = statistics.median(warm_rebuilds(home, paths, 7, hinted=True))
    stats = payload["stats"]
    print(
        f"{count:>6} skills  floor {floor * 1000:7.1f} ms (raw os.read {raw * 1000:6.1f} ms)  "
        f"cold {cold * 1000:7.1f} ms = {cold / floor:4.2f}x floor"
    )
    print(
        f"        minimal pure-Python scan {minimal * 1000:6.1f} ms = {minimal / floor:4.2f}x floor; "
        f"first build in a fresh process {fresh * 1000:6.1f} ms = {fresh / floor:4.2f}x floor "
        f"(+ {lazy * 1000:.1f} ms of imports it loads on first use)"
    )
    user, system, faults, grown = fresh_cost
    print(f"        that first build's process: {user * 1000:.0f} ms user, {system * 1000:.0f} ms system CPU, "
          f"{faults:,} page faults, peak RSS +{grown:.0f} MB")
    print(f"        the same walk parsing with PyYAML's C loader (the agent's parser) "
          f"{with_yaml * 1000:6.1f} ms = {with_yaml / floor:4.2f}x floor")
    print(
        f"        rebuild after one edit: {warm * 1000:6.1f} ms = {warm / cold:6.2%} of cold "
        f"(every file stat-checked); {hinted * 1000:6.1f} ms = {hinted / cold:6.2%} "
        "(changed path given, as by a folder watcher)"
    )
    rest = max(part_total - sum(parts.values()), 0.0)
    shown = "; ".join(f"{label} {value * 1000:.1f} ms = {value / floor:.2f}x" for label, value in parts.items())
    print(f"        parts of the fastest of 3 cold builds: {shown}; the rest {rest * 1000:.1f} ms = {rest / floor:.2f}x")
    print(f"        history: {history_versions(home):,} versions in the home's log")
    print(
        f"        payload: {len(payload['nodes'])} nodes, {len(payload['edges'])} edges "
        f"({stats['related_edges']} related, {stats['memory_skill_edges']} memory), "
        f"{len(payload['clusters'])} clusters, {len(payload['warnings'])} warnings"
    )
    return floor, cold, warm, hinted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"homes cached in {CACHE}")
    results = {size: run(size) for size in sizes}
    if 10_000 in results:
        floor, cold, warm, hinted = results[10_000]
        verdicts = [
            ("cold <= 4x floor", f"{cold / floor:.2f}x", cold <= 4 * floor),
            ("rebuild <= 5% of cold, changed path given", f"{hinted / cold:.2%}", hinted <= 0.05 * cold),
        ]
        for label, figure, ok in verdicts:
            print(f"target at 10,000: {label}: {figure}  {'PASS' if ok else 'FAIL'}")
        # for reference only: the desktop always passes the changed paths
        print(f"reference at 10,000: rebuild with every file stat-checked: {warm / cold:.2%} of cold")
        return 0 if all(ok for _, _, ok in verdicts) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
