"""Homes with recorded history for the History tests, written through the engine (so each
write is a real version) and by a real agent subprocess."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from hermes_memory.memory.entries import parse_entries, serialise_entries
from hermes_memory.memory.store import MemoryStore
from hermes_memory.skills.editing import edit_skill

WRITER = Path(__file__).with_name("agent_writer.py")
FIRST = ["Project uses pnpm, not npm.", "The staging database is on port 5433."]
ADDED = "Deploys go through the release branch after the nightly job."
EDITED = "The staging database is on port 5434 since the move."
SKILL = "container-logs"
SKILL_V1 = ("---\nname: container-logs\ndescription: Read container logs\n---\n# container-logs\n\n"
            "1. Run `docker logs --since 10m <container>`.\n")  # fmt: skip
SKILL_V2 = SKILL_V1 + "\n## Pitfalls\n- Check the container is running first.\n"
PAUSE = 0.05  # versions apart in time, so the scrubber can tell them apart


def seed_history(home) -> dict[str, float]:
    """Three versions of MEMORY.md (two entries; one added; one edited), one of USER.md
    and two of a skill. Returns when each step happened."""
    store = MemoryStore(home)
    times = {}
    for text in FIRST:
        assert store.add("memory", text)["success"]
    times["first"] = time.time()
    time.sleep(PAUSE)
    times["before_user"] = time.time()
    assert store.add("user", "Name: Dana. Prefers short answers.")["success"]
    time.sleep(PAUSE)
    assert store.add("memory", ADDED)["success"]
    times["added"] = time.time()
    time.sleep(PAUSE)
    assert store.replace("memory", "port 5433", EDITED)["success"]
    times["edited"] = time.time()
    skill = home.skills_dir / "devops" / SKILL
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_V1, encoding="utf-8")
    from hermes_memory.history.capture import capture

    capture(home)
    time.sleep(PAUSE)
    assert edit_skill(home, SKILL, SKILL_V2).ok
    return times


def entries(home, target: str = "memory") -> list[str]:
    path = home.memory_file if target == "memory" else home.user_file
    return parse_entries(path.read_text(encoding="utf-8"))


def expected_bytes(items: list[str]) -> bytes:
    return serialise_entries(items).encode("utf-8")


def run_agent(home, count: int, interval: float) -> subprocess.Popen:
    agent = subprocess.Popen([sys.executable, str(WRITER), str(home.path), str(count), str(interval)],
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert agent.stdout is not None and agent.stdout.readline().strip() == "ready"
    return agent


def agent_lines(agent: subprocess.Popen) -> list[str]:
    out, _ = agent.communicate(timeout=30)
    return [line for line in out.splitlines() if line and line != "done"]
