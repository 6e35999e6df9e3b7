"""Homes for the Inbox tests: entries, a skill, and staged records written exactly as
upstream's agent writes them (indent 2, no trailing newline, one file per record)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from hermes_memory.memory.entries import serialise_entries
from hermes_memory.pending.skill_ops import text_hash

ENTRIES = [
    "Project uses pnpm, not npm.",
    "Deploys go through the release branch after the nightly job.",
    "The staging database is on port 5433.",
]
SKILL = "container-logs"
SKILL_TEXT = (
    "---\nname: container-logs\ndescription: Read container logs\n---\n# container-logs\n\n"
    "1. Run `docker logs --since 10m <container>`.\n"
)


def seed(home) -> None:
    home.memory_file.write_text(serialise_entries(ENTRIES), encoding="utf-8")
    home.user_file.write_text("Name: Dana. Prefers short answers.", encoding="utf-8")
    skill = home.path / "skills" / "devops" / SKILL
    skill.mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text(SKILL_TEXT, encoding="utf-8")


def stage(home, subsystem: str, record_id: str, payload: dict, *, summary: str = "",
          origin: str = "foreground", age: float = 0.0, **extra) -> Path:  # fmt: skip
    """Write a record as the agent does: to a temporary name, then renamed into place."""
    data = {"id": record_id, "subsystem": subsystem, "action": payload.get("action", ""),
            "summary": summary or f"{payload.get('action')} staged", "origin": origin,
            "created_at": time.time() - age, "payload": payload, **extra}  # fmt: skip
    folder = home.path / "pending" / subsystem
    folder.mkdir(parents=True, exist_ok=True)
    temp = folder / f".tmp_{record_id}"
    temp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(temp, folder / f"{record_id}.json")
    return folder / f"{record_id}.json"


def stage_demo_records(home) -> None:
    """A few staged writes of every sort: a memory add, a batch, a skill edit, a stale
    replace and a broken record."""
    first = home.memory_file.read_text(encoding="utf-8").split("\n§\n")[0].strip()
    stage(home, "memory", "a1b2c3d4", {"action": "add", "target": "memory",
          "content": "CI caches ~/.cache/uv between runs; clear it when a lockfile bump fails."},
          summary="Add memory: CI caches ~/.cache/uv between runs", age=420,
          session_id="20261130_142210_9f3c")  # fmt: skip
    stage(home, "memory", "b7e2d041", {"action": "batch", "target": "user", "operations": [
        {"action": "add", "content": "Prefers reviews as bullet lists.", "old_text": None},
        {"action": "add", "content": "Works in Europe/Lisbon time.", "old_text": None}]},
        summary="2 user changes: prefers reviews as bullet lists; works in Europe/Lisbon time",
        origin="background_review", age=3 * 3600, session_id="20261130_091502_c4d1")  # fmt: skip
    skill_md = next((home.path / "skills").rglob("SKILL.md"))
    text = skill_md.read_text(encoding="utf-8")
    stage(home, "skills", "c0ffee12", {"action": "edit", "name": skill_md.parent.name,
          "content": text.rstrip("\n") + "\n\n## Pitfalls\n- Check the container is running first.\n"},
          summary=f"Edit skill {skill_md.parent.name}: add a Pitfalls section",
          origin="background_review", age=26 * 3600, session_id="20261129_173344_0b7a",
          base_sha256=text_hash(text))  # fmt: skip
    stage(home, "memory", "d00dfeed", {"action": "replace", "target": "memory",
          "content": first + " (checked again)", "old_text": first[:20],
          "matched_entry": first + " [an older wording]"},
          summary="Replace memory: an entry that has changed since", age=2 * 86400)  # fmt: skip
    folder = home.path / "pending" / "memory"
    (folder / "e5e5e5e5.json").write_text('{"id": "e5e5e5e5", "payload": ', encoding="utf-8")


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}  # fmt: skip
