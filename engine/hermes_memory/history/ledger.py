"""Upstream's curator ledger read as skill history (spec §2.1); never written here.

``skills/.curator_ledger.jsonl`` holds one line per skill mutation the agent, its curator
or ``hermes curator`` made, with ``before``/``after`` lists of ``{path, sha256}`` and the
triggering session in ``evidence.session_id``. The texts live in
``<home>/.curator_backups/blobs/<sha256>``. Each usable line becomes a skill event with
the id ``ledger-<id>``; blank, malformed or hostile lines are skipped and counted.

A line whose paths name no SKILL.md (``write_file``/``remove_file`` of a support file,
a file tool writing ``references/…``) says nothing about SKILL.md: its event carries
the support files it changed (``files``, relative to the skill's folder) and no SKILL.md
hash or state of its own; the reader takes both from the version before it
(:class:`~.timeline.Timeline`, the log index). It never reads as the skill gone.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..home import HermesHome
from ..skills.usage import to_epoch
from .recording import BACKGROUND_REVIEW, FOREGROUND, HAND, UNKNOWN

LEDGER_NAME = ".curator_ledger.jsonl"
LEDGER_PREFIX = "ledger-"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_ACTOR_ORIGINS = {"agent": FOREGROUND, "curator": BACKGROUND_REVIEW, "user": HAND}
#: Ledger actions that leave a skill archived or gone.
_GONE = {"delete": "missing", "purge": "missing", "archive": "archived"}
#: Actions that leave the skill in place, even on a line that names only support files.
_BACK = {"create", "restore", "rollback"}
MAX_LEDGER_BYTES = 64 * 1024 * 1024


def ledger_path(home: HermesHome):
    return home.skills_dir / LEDGER_NAME


def curator_blob(home: HermesHome, digest: str) -> str | None:
    """The text of one curator blob, or ``None`` (bad name, missing, not UTF-8)."""
    if not _SHA256.match(digest or ""):
        return None
    path = home.path / ".curator_backups" / "blobs" / digest
    try:
        if path.is_symlink() or path.stat().st_size > MAX_LEDGER_BYTES:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _paths(items: Any) -> list[str]:
    if not isinstance(items, list):
        return []
    return [item["path"] for item in items if isinstance(item, dict) and isinstance(item.get("path"), str)]


def _is_skill_md(path: str) -> bool:
    return path.replace("\\", "/").rsplit("/", 1)[-1] == "SKILL.md"


def _skill_md(items: Any) -> str | None:
    if not isinstance(items, list):
        return None
    for item in items:
        if isinstance(item, dict) and str(item.get("path", "")).endswith("SKILL.md"):
            digest = item.get("sha256")
            if isinstance(digest, str) and _SHA256.match(digest):
                return digest
    return None


def _support_file(path: str, skill: str) -> str:
    """A support file's path inside its skill's folder (the ledger stores absolute
    paths, perhaps of a home since moved): what follows the folder named after the
    skill, else the file name."""
    path = path.replace("\\", "/")
    marker = f"/{skill}/"
    at = path.rfind(marker)
    return path[at + len(marker) :] if at >= 0 else path.rsplit("/", 1)[-1]


def read_ledger(home: HermesHome) -> tuple[list[dict[str, Any]], list[str]]:
    """``(events, problems)``: the ledger's lines as skill events, oldest first."""
    path = ledger_path(home)
    try:
        if path.is_symlink():
            return [], [f"{path} is a symbolic link; the curator ledger was not read"]
        if path.stat().st_size > MAX_LEDGER_BYTES:
            return [], [f"{path} is too large to be a curator ledger; it was not read"]
        text = path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [f"Could not read {path}: {exc.strerror or exc}"]
    events, problems = [], []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            problems.append(f"{LEDGER_NAME} line {number}: not JSON, skipped")
            continue
        ts = to_epoch(item.get("ts")) if isinstance(item, dict) else None
        skill = item.get("skill") if isinstance(item, dict) else None
        if ts is None or not isinstance(skill, str) or not skill or skill == "?":
            problems.append(f"{LEDGER_NAME} line {number}: no skill or time, skipped")
            continue
        action = str(item.get("action") or "change")
        evidence = item.get("evidence") if isinstance(item.get("evidence"), dict) else {}
        session = evidence.get("session_id")
        md = _skill_md(item.get("after"))
        paths = _paths(item.get("before")) + _paths(item.get("after"))
        event = {
            "id": LEDGER_PREFIX + str(item.get("id") or number),
            "ts": _precise(item["ts"], ts) if isinstance(item["ts"], str) else float(ts),
            "kind": "skill",
            "skill": skill,
            "action": action,
            "origin": _ACTOR_ORIGINS.get(item.get("actor"), UNKNOWN),
            "md": md,
            "md_before": _skill_md(item.get("before")),
            "state": _GONE.get(action, "active" if md else "missing"),
            "source": "ledger",
        }
        files = list(dict.fromkeys(_support_file(path, skill) for path in paths if not _is_skill_md(path)))
        if files:
            event["files"] = files
        if action not in _GONE and not any(_is_skill_md(path) for path in paths):
            # only support files changed: SKILL.md and the state are the version before's
            del event["md"], event["md_before"], event["state"]
            event["support_only"] = True
            if action in _BACK:
                event["state"] = "active"
        if isinstance(session, str) and session:
            event["session"] = session
        events.append(event)
    events.sort(key=lambda event: event["ts"])
    return events, problems


def _precise(text: str, whole: int) -> float:
    """Fractional seconds of an ISO time when present, else the whole seconds."""
    match = re.search(r"T\d{2}:\d{2}:\d{2}(\.\d+)", text)
    return whole + float(match.group(1)) if match else float(whole)
