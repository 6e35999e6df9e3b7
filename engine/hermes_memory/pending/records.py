"""One staged write as upstream stores it: ``<home>/pending/<subsystem>/<id>.json``.

The record is a JSON object (spec §1.2): ``id``, ``subsystem``, ``action``, ``summary``,
``origin``, ``created_at`` (epoch seconds) and ``payload`` (the exact tool arguments to
replay). ``origin`` and our ``session_id`` name the proposer, whom history records as the
writer when a person approves the record. Every other key is kept as it was read; the optional keys we add are ignored by
upstream's readers: ``session_id``, ``depends_on``, ``base_sha256`` (the hash of the skill
file a change was planned against, ``null`` for "did not exist"), ``migrated_from``, and
after a refused approval ``status: "failed"``, ``last_error``, ``attempts``, ``failed_at``.

Reading never raises for a bad file: an unreadable, malformed, huge or hostile record
comes back with ``problem`` set, so the rest of the queue stays usable.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MEMORY = "memory"
SKILLS = "skills"
SUBSYSTEMS = (MEMORY, SKILLS)
#: Each subsystem folder's log of decisions; outside upstream's ``*.json`` glob.
DECISIONS = ".decisions.jsonl"
KIND = {MEMORY: "memory", SKILLS: "skill"}
FOREGROUND = "foreground"
BACKGROUND_REVIEW = "background_review"
#: No honest record comes near this (a skill's SKILL.md is at most 100,000 characters).
MAX_RECORD_BYTES = 4 * 1024 * 1024
NEW_ID = re.compile(r"^[0-9a-f]{8}$")
MEMORY_ACTIONS = ("add", "replace", "remove", "batch")
SKILL_ACTIONS = ("create", "edit", "patch", "delete", "write_file", "remove_file", "batch")
DESTRUCTIVE = ("replace", "remove")


def new_id(taken: set[str] | None = None) -> str:
    """``uuid4().hex[:8]`` as upstream, never one already in the queue."""
    while True:
        candidate = uuid.uuid4().hex[:8]
        if not taken or candidate not in taken:
            return candidate


def encode(data: dict[str, Any]) -> str:
    """Upstream's layout: indent 2, non-ASCII kept, no trailing newline; lone surrogates
    (which UTF-8 cannot hold) fall back to ASCII escapes."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2, ensure_ascii=True)
    return text


def _number(value: Any) -> float:
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, (int, float)):
        return float(value) if value == value else 0.0  # NaN sorts as 0
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return 0.0
    return 0.0


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass
class PendingRecord:
    id: str  # the file stem: the only id we trust (a record's own "id" may lie)
    subsystem: str
    data: dict[str, Any]
    path: Path | None = None
    problem: str | None = None  # why the record cannot be used ("broken")

    @property
    def kind(self) -> str:
        return KIND[self.subsystem]

    @property
    def payload(self) -> dict[str, Any]:
        payload = self.data.get("payload")
        return payload if isinstance(payload, dict) else {}

    @property
    def action(self) -> str:
        return _text(self.payload.get("action")) or _text(self.data.get("action"))

    @property
    def origin(self) -> str:
        return _text(self.data.get("origin")) or FOREGROUND

    @property
    def created_at(self) -> float:
        return _number(self.data.get("created_at"))

    @property
    def summary(self) -> str:
        return _text(self.data.get("summary")).strip()

    @property
    def session_id(self) -> str | None:
        return _text(self.data.get("session_id")) or None

    @property
    def target(self) -> str:
        """``memory``/``user`` for memory writes, the skill's name for skill writes."""
        key = "target" if self.subsystem == MEMORY else "name"
        return _text(self.payload.get(key))

    @property
    def failed(self) -> bool:
        return self.data.get("status") == "failed"

    @property
    def depends_on(self) -> list[str]:
        value = self.data.get("depends_on")
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def operations(self) -> list[dict[str, Any]]:
        """The ops a memory record applies: the batch's list, or the payload itself."""
        if self.action == "batch":
            ops = self.payload.get("operations")
            return [op for op in ops if isinstance(op, dict)] if isinstance(ops, list) else []
        return [self.payload]


def make_record(subsystem: str, record_id: str, payload: dict[str, Any], summary: str,
                origin: str = FOREGROUND, **extra: Any) -> PendingRecord:  # fmt: skip
    data: dict[str, Any] = {
        "id": record_id,
        "subsystem": subsystem,
        "action": _text(payload.get("action")),
        "summary": summary.strip(),
        "origin": origin or FOREGROUND,
        "created_at": time.time(),
        "payload": payload,
    }
    # None means "not known" and is left out; for base_sha256 it means "did not exist"
    data.update({k: v for k, v in extra.items() if v is not None or k == "base_sha256"})
    return PendingRecord(record_id, subsystem, data)


def shape_problem(subsystem: str, data: Any) -> str | None:
    """Why a parsed record cannot be replayed, or None."""
    if not isinstance(data, dict):
        return "it is not a JSON object"
    declared = data.get("subsystem")
    if declared not in (None, "", subsystem):
        return f"it says it belongs to '{declared}', but it is in the {subsystem} queue"
    payload = data.get("payload")
    if not isinstance(payload, dict):
        return "it has no payload object (the arguments to replay)"
    action = payload.get("action")
    if subsystem == MEMORY:
        if action not in MEMORY_ACTIONS:
            return f"Unknown staged action '{action}'"
        if payload.get("target") not in ("memory", "user"):
            return f"its target {payload.get('target')!r} is neither 'memory' nor 'user'"
        if action == "batch":
            ops = payload.get("operations")
            if not isinstance(ops, list) or not ops or not all(isinstance(o, dict) for o in ops):
                return "its batch has no list of operations"
        return None
    if action not in SKILL_ACTIONS:
        return f"Unknown staged action '{action}'"
    if not isinstance(payload.get("name"), str) or not payload["name"]:
        return "it names no skill"
    return None


def read_record(path: Path, subsystem: str, record_id: str | None = None) -> PendingRecord:
    """Read one record file; a bad one comes back with ``problem`` set (never raises
    except ``FileNotFoundError``, for a record decided while we looked)."""
    record_id = record_id or path.name.split(".json", 1)[0]
    broken = PendingRecord(record_id, subsystem, {}, path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise
    except OSError as exc:
        broken.problem = f"it cannot be read ({exc.strerror})"
        return broken
    broken.data = {"created_at": info.st_mtime}
    if stat.S_ISLNK(info.st_mode):
        broken.problem = "it is a symbolic link, not a record file"
        return broken
    if not stat.S_ISREG(info.st_mode):
        broken.problem = "it is not a regular file"
        return broken
    if info.st_size > MAX_RECORD_BYTES:
        broken.problem = (
            f"it is {info.st_size:,} bytes, far larger than any staged write "
            f"(at most {MAX_RECORD_BYTES // (1024 * 1024)} MiB)"
        )
        return broken
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        broken.problem = f"it cannot be read ({exc.strerror})"
        return broken
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        broken.problem = f"it is not UTF-8 text (bad byte at offset {exc.start})"
        return broken
    except RecursionError:
        broken.problem = "it is nested too deeply to be a staged write"
        return broken
    except ValueError as exc:
        broken.problem = f"it is not valid JSON ({exc})"
        return broken
    problem = shape_problem(subsystem, data)
    if problem:
        broken.problem = problem
        if isinstance(data, dict):
            broken.data = {**data, "created_at": data.get("created_at", info.st_mtime)}
        return broken
    return PendingRecord(record_id, subsystem, data, path)


def one_line(text: Any, width: int = 100) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
