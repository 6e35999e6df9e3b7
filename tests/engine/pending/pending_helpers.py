"""Shared pieces of the staged-write queue tests: a home's entries, skills, and records
written exactly as upstream's agent writes them."""

from __future__ import annotations

import json
import time
from pathlib import Path

MEMORY = [
    "Project uses pnpm, not npm.",
    "Deploys go through the release branch after the nightly job.",
    "The staging database is on port 5433.",
]
USER = ["Name: Dana. Prefers short answers."]


def skill_text(name: str, body: str = "1. Run `docker logs --since 10m <container>`.\n") -> str:
    return f"---\nname: {name}\ndescription: Read container logs\n---\n# {name}\n\n{body}"


def write_upstream(home, subsystem: str, record_id: str, payload: dict, *, summary: str = "",
                   origin: str = "foreground", created_at: float | None = None, **extra) -> Path:
    """A record as upstream's ``stage_write`` leaves it (indent 2, no trailing newline)."""
    data = {"id": record_id, "subsystem": subsystem, "action": payload.get("action", ""),
            "summary": summary or f"{payload.get('action')} staged", "origin": origin,
            "created_at": time.time() if created_at is None else created_at,
            "payload": payload, **extra}  # fmt: skip
    path = home.path / "pending" / subsystem / f"{record_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}  # fmt: skip
