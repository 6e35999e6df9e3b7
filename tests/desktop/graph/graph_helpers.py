"""Constants and helpers shared by the graph tests (imported by name: tests are not a package)."""

from __future__ import annotations

from pathlib import Path

from hermes_memory.home import HermesHome

#: The demo home's graph, as the engine builds it (48 learned skills + 21 memory cards).
DEMO_LEARNED_SKILLS = 48
DEMO_MEMORY_CARDS = 21
DEMO_NODES = DEMO_LEARNED_SKILLS + DEMO_MEMORY_CARDS


def skill_dir(home: HermesHome, name: str) -> Path:
    found = [p.parent for p in home.skills_dir.rglob("SKILL.md") if p.parent.name == name]
    assert len(found) == 1, found
    return found[0]


def within(payload: dict, root: str, depth: int) -> set[str]:
    """The ids at most ``depth`` edges from ``root``, from the engine's payload (undirected)."""
    links: dict[str, set[str]] = {}
    for edge in payload["edges"]:
        links.setdefault(edge["source"], set()).add(edge["target"])
        links.setdefault(edge["target"], set()).add(edge["source"])
    reached, frontier = {root}, {root}
    for _ in range(depth):
        frontier = {n for f in frontier for n in links.get(f, ())} - reached
        reached |= frontier
    return reached


_AGENT_WRITES_SKILL = """
import json, sys
from hermes_memory.home import HermesHome
from hermes_memory.skills.usage import empty_record, update_usage

home = HermesHome.resolve(sys.argv[1])
category, name, text, fields = sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
skill = home.skills_dir / category / name
skill.mkdir(parents=True)
(skill / "SKILL.md").write_text(text, encoding="utf-8")

def mark(data):
    data[name] = {**empty_record(), "created_by": "agent", **fields}

update_usage(home, mark)
"""


def agent_writes_skill(home: HermesHome, category: str, name: str, text: str, **record) -> None:
    """Another process (as the agent) writes a new learned skill: its SKILL.md ``text`` and
    its ``.usage.json`` record (``created_by: agent`` plus ``record``)."""
    import json
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", _AGENT_WRITES_SKILL, str(home.path), category, name, text,
                    json.dumps(record)], check=True, timeout=60)  # fmt: skip
