"""Fixtures for the history tests: homes, an agent subprocess, and state.db builders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
for _path in (_HERE, _HERE.parent / "sessions", _HERE.parent / "skills"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from hermes_memory.history.storage import HistoryStore  # noqa: E402
from hermes_memory.memory.store import MemoryStore  # noqa: E402

AGENT = _HERE / "agent_process.py"


def run_agent(home, session_id: str, ops: list[dict], source: str = "cli") -> None:
    """Run the stand-in agent as a real process writing memory and state.db."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    subprocess.run([sys.executable, str(AGENT), str(home.path), session_id, json.dumps(ops), source],
                   check=True, env=env, timeout=60)  # fmt: skip


def events(home) -> list[dict]:
    return HistoryStore(home).read_events().events


def entries(home, target: str = "memory") -> list[str]:
    return MemoryStore(home).read_entries(target)


@pytest.fixture
def agent():
    return run_agent


@pytest.fixture
def store(home):
    return MemoryStore(home)


def write_skill(home, name: str, body: str = "Use it well.\n", category: str | None = None) -> Path:
    """A learned skill in the home's skills folder, as the agent writes one."""
    directory = home.skills_dir / (category or "") / name
    directory.mkdir(parents=True, exist_ok=True)
    text = f"---\nname: {name}\ndescription: Do {name} well\n---\n# {name}\n\n{body}"
    (directory / "SKILL.md").write_text(text, encoding="utf-8")
    return directory
