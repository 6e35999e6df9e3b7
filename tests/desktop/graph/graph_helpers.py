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
