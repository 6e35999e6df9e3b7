"""Helpers for the history tests (a module with its own name, so test modules can import
it without clashing with other folders' conftest modules)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hermes_memory.history.storage import HistoryStore
from hermes_memory.memory.store import MemoryStore

AGENT = Path(__file__).resolve().parent / "agent_process.py"


def run_agent(home, session_id: str, ops: list[dict], source: str = "cli") -> None:
    """Run the stand-in agent as a real process writing memory and state.db."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    subprocess.run([sys.executable, str(AGENT), str(home.path), session_id, json.dumps(ops), source],
                   check=True, env=env, timeout=60)  # fmt: skip


def events(home) -> list[dict]:
    return HistoryStore(home).read_events().events


def entries(home, target: str = "memory") -> list[str]:
    return MemoryStore(home).read_entries(target)



def write_skill(home, name: str, body: str = "Use it well.\n", category: str | None = None) -> Path:
    """A learned skill in the home's skills folder, as the agent writes one."""
    directory = home.skills_dir / (category or "") / name
    directory.mkdir(parents=True, exist_ok=True)
    text = f"---\nname: {name}\ndescription: Do {name} well\n---\n# {name}\n\n{body}"
    (directory / "SKILL.md").write_text(text, encoding="utf-8")
    return directory
