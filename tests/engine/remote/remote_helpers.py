"""Shared pieces of the remote-home tests: where this tree's engine is, and how the
"remote" side starts it."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from hermes_memory.home import HermesHome

REPO = Path(__file__).resolve().parents[3]
ENGINE_DIR = REPO / "engine"
DEMO_HOME = REPO / "resources" / "demo-home"


def remote_command(extra_env: str = "") -> str:
    """How the "remote" side starts this tree's engine with this interpreter."""
    return (f"env -u HERMES_HOME PYTHONPATH={shlex.quote(str(ENGINE_DIR))} {extra_env}"
            f"{shlex.quote(sys.executable)} -m hermes_memory.cli")


def write_pending(home: HermesHome, subsystem: str, record_id: str, payload: dict) -> Path:
    """A staged write as the agent leaves it in ``pending/<subsystem>/``."""
    record = {"id": record_id, "subsystem": subsystem, "action": payload.get("action", ""),
              "summary": f"{payload.get('action')} staged", "origin": "foreground",
              "created_at": 1_790_000_000.0, "payload": payload}  # fmt: skip
    path = home.path / "pending" / subsystem / f"{record_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")
    return path
