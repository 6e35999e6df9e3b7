"""Benchmark: a home full of hostile files opens in the usual time.

Two copies of the 1,000-skill benchmark home (``bench/graph_build.py``'s generator):
one clean, one where 5 % of the SKILL.md files hold a YAML bomb (a "billion laughs"
of 9^11 values) in their tags or related skills, a tenth of the usage records hold
``Infinity``, ``NaN``, 5,000-digit numbers or deep lists, and config.yaml holds
``.inf`` budgets, ``skills.base_dir: /`` and a bomb of its own under an unused key.

Prints the cold graph build (a fresh GraphBuilder, best of several rounds, the two
homes alternating so both see the machine in the same state) for each, the ratio,
and PASS/FAIL for the target: hostile ≤ 2× clean. The clean build is the floor.

Why 2×: a clean SKILL.md is read by the fast line reader, a bomb needs a full YAML
parse of its distinct nodes before it is refused (about half a millisecond each), and
50 of them in 1,000 skills is far beyond any real home. Before the bounds the hostile
home did not open at all.

Run: ``.venv/bin/python bench/hostile_home.py``.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "engine"))

from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.learning.graph import GraphBuilder  # noqa: E402

SIZE = 1000
ROUNDS = 5
TARGET = 2.0


def _generator():
    spec = importlib.util.spec_from_file_location("graph_build_bench", HERE / "graph_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bomb(levels: int = 12) -> list[str]:
    lines = ['l0: &l0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return lines


def make_hostile(clean: HermesHome, target: Path) -> HermesHome:
    shutil.copytree(clean.path, target)
    home = HermesHome.resolve(target)
    skill_files = sorted(home.skills_dir.rglob("SKILL.md"))
    for index, path in enumerate(skill_files[:: len(skill_files) // (SIZE // 20)]):
        name = path.parent.name
        key = "tags" if index % 2 else "related_skills"
        path.write_text(
            "\n".join(["---", f"name: {name}", "description: hostile", *bomb(),
                       "metadata:", "  hermes:", f"    {key}: *l11", "---", "body", ""])
        )
    usage = json.loads(home.skills_usage_file.read_text())
    hostile_values = ["Infinity", "NaN", "9" * 5000, "[" * 12 + "]" * 12]
    text = json.dumps(usage, indent=2, sort_keys=True)
    for index, name in enumerate(sorted(usage)[:: 10]):
        value = hostile_values[index % len(hostile_values)]
        text = text.replace(f'"{name}": {{', f'"{name}": {{\n    "use_count": {value},', 1)
    home.skills_usage_file.write_text(text)
    home.config_file.write_text(
        "memory:\n  memory_char_limit: .inf\n  user_char_limit: " + "9" * 5000 + "\n"
        "skills:\n  base_dir: /\n"
        "unused:\n" + "\n".join("  " + line for line in bomb()) + "\n"
    )
    return home


def cold_build(home: HermesHome) -> tuple[float, dict]:
    start = time.perf_counter()
    payload = GraphBuilder(home).build()
    return time.perf_counter() - start, payload


def main() -> int:
    clean = _generator().generate(SIZE)
    with tempfile.TemporaryDirectory() as scratch:
        hostile = make_hostile(clean, Path(scratch) / "hostile")
        best = {"clean": float("inf"), "hostile": float("inf")}
        payloads = {}
        for _ in range(ROUNDS):
            for label, home in (("clean", clean), ("hostile", hostile)):
                seconds, payloads[label] = cold_build(home)
                best[label] = min(best[label], seconds)
    ratio = best["hostile"] / best["clean"]
    shown = {label: len(payload["nodes"]) for label, payload in payloads.items()}
    print(
        f"{SIZE} skills  clean (floor) {best['clean'] * 1000:7.1f} ms   hostile "
        f"{best['hostile'] * 1000:7.1f} ms = {ratio:.2f}x floor"
    )
    print(
        f"        nodes shown: clean {shown['clean']}, hostile {shown['hostile']}; "
        f"hostile warnings: {len(payloads['hostile']['warnings'])}"
    )
    ok = ratio <= TARGET
    print(f"target: hostile home <= {TARGET}x clean: {ratio:.2f}x  {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
