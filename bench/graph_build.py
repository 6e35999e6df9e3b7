"""Benchmark: building the learning graph for homes of 100, 1,000 and 10,000 learned skills.

Prints, per size:

* floor: reading the first 4,000 bytes of every SKILL.md (paths known in advance), the
  least any build must do; measured in the same run, best of several;
* cold: a fresh :class:`GraphBuilder` (nothing cached) building the payload;
* warm: a kept builder rebuilding after one SKILL.md was edited (median of several);

and, at 10,000 skills, PASS/FAIL for the targets cold ≤ 3× floor and warm ≤ 5% of cold.

Generated homes are cached under ``$TMPDIR/hermes-bench-homes`` (delete it to rebuild).
Run: ``.venv/bin/python bench/graph_build.py [--sizes 100,1000,10000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "engine"))

from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.learning.graph import GraphBuilder  # noqa: E402

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
    start = time.perf_counter()
    payload = GraphBuilder(home).build()
    return time.perf_counter() - start, payload


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


def best(function, repeats: int) -> float:
    return min(function() for _ in range(repeats))


def run(count: int) -> tuple[float, float, float]:
    home = generate(count)
    paths = skill_files(home)
    repeats = 5 if count < 10_000 else 3
    floor_raw(paths)  # warm the page cache before anything is timed
    floor = best(lambda: floor_open(paths), repeats)
    raw = best(lambda: floor_raw(paths), repeats)
    cold, payload = cold_build(home)
    for _ in range(repeats - 1):
        cold = min(cold, cold_build(home)[0])
    warm = statistics.median(warm_rebuilds(home, paths, 7, hinted=False))
    hinted = statistics.median(warm_rebuilds(home, paths, 7, hinted=True))
    stats = payload["stats"]
    print(
        f"{count:>6} skills  floor {floor * 1000:7.1f} ms (raw os.read {raw * 1000:6.1f} ms)  "
        f"cold {cold * 1000:7.1f} ms = {cold / floor:4.2f}x floor"
    )
    print(
        f"        rebuild after one edit: {warm * 1000:6.1f} ms = {warm / cold:6.2%} of cold "
        f"(every file stat-checked); {hinted * 1000:6.1f} ms = {hinted / cold:6.2%} "
        "(changed path given, as by a folder watcher)"
    )
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
            ("cold <= 3x floor", f"{cold / floor:.2f}x", cold <= 3 * floor),
            ("rebuild <= 5% of cold, every file checked", f"{warm / cold:.2%}", warm <= 0.05 * cold),
            ("rebuild <= 5% of cold, changed path given", f"{hinted / cold:.2%}", hinted <= 0.05 * cold),
        ]
        for label, figure, ok in verdicts:
            print(f"target at 10,000: {label}: {figure}  {'PASS' if ok else 'FAIL'}")
        return 0 if all(ok for _, _, ok in verdicts) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
