"""Homes for the Changes tests, and a stand-in agent run as a real subprocess.

The agent is the history tests' one (``tests/engine/history/agent_process.py``): it writes
MEMORY.md/USER.md as upstream's memory tool does (flock, re-read, temp file + rename,
without this engine) and records each call in ``state.db``, so captures know its session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from hermes_memory import api
from hermes_memory.memory.entries import serialise_entries

AGENT = Path(__file__).resolve().parents[2] / "engine" / "history" / "agent_process.py"
ENTRIES = ["Project uses pnpm, not npm.", "The staging database is on port 5433."]
SKILL_TEXT = "---\nname: {name}\ndescription: Do {name} well\n---\n# {name}\n\n{body}"


def _env() -> dict:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def agent_command(home, session: str, ops: list[dict]) -> list[str]:
    return [sys.executable, str(AGENT), str(home.path), session, json.dumps(ops)]


def run_agent(home, session: str, ops: list[dict]) -> None:
    subprocess.run(agent_command(home, session, ops), check=True, env=_env(), timeout=60)


def start_agent(home, session: str, ops: list[dict]) -> subprocess.Popen:
    return subprocess.Popen(agent_command(home, session, ops), env=_env())


def add(content: str, target: str = "memory") -> dict:
    return {"action": "add", "target": target, "content": content}


def write_skill(home, name: str, body: str = "1. Do it.\n", category: str = "devops") -> Path:
    """A skill written as the agent writes one (temp file, then renamed into place)."""
    folder = home.skills_dir / category / name
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / ".SKILL.md.tmp"
    temp.write_text(SKILL_TEXT.format(name=name, body=body), encoding="utf-8")
    os.replace(temp, folder / "SKILL.md")
    _mark_learned(home, name)
    return folder / "SKILL.md"


def _mark_learned(home, name: str) -> None:
    """The agent's ``.usage.json`` record of a skill it made (so the graph shows it)."""
    usage = home.skills_dir / ".usage.json"
    data = json.loads(usage.read_text(encoding="utf-8")) if usage.exists() else {}
    if name in data:
        return
    data[name] = {"created_by": "agent", "use_count": 1, "view_count": 0, "patch_count": 0,
                  "created_at": "2026-11-30T09:00:00+00:00", "last_used_at": "2026-11-30T10:00:00+00:00",
                  "state": "active", "pinned": False}  # fmt: skip
    temp = usage.with_name(".usage.json.tmp")
    temp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(temp, usage)


def seed(home) -> None:
    """Entries, a skill, and their first versions in history."""
    home.memory_file.write_text(serialise_entries(ENTRIES), encoding="utf-8")
    home.user_file.write_text("Name: Dana.", encoding="utf-8")
    write_skill(home, "container-logs")
    assert api.history_capture(home)["ok"]
    time.sleep(0.02)


def stage(home, subsystem: str, record_id: str, payload: dict, summary: str) -> Path:
    """A staged write in upstream's format (one JSON file per record, renamed into place)."""
    data = {"id": record_id, "subsystem": subsystem, "action": payload["action"], "summary": summary,
            "origin": "foreground", "created_at": time.time(), "payload": payload}  # fmt: skip
    folder = home.path / "pending" / subsystem
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".tmp_{record_id}"
    temp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(temp, folder / f"{record_id}.json")
    return folder / f"{record_id}.json"
