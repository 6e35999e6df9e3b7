"""``skills/.usage.json``: the agent's per-skill telemetry and provenance sidecar.

A JSON object keyed by frontmatter name. Writes happen under ``.usage.json.lock`` (the
agent's lock), re-read the file under it, keep every field and record we do not know,
and go through temp file + ``os.replace`` with ``indent=2, sort_keys=True``, exactly as
the agent writes it. A file that does not parse is reported and never overwritten: the
agent's own loader would silently treat it as empty and lose everything in it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from ..fileio import (
    DEFAULT_LOCK_TIMEOUT,
    MAX_SETTINGS_BYTES,
    atomic_write_text,
    file_lock,
    read_regular_bytes,
)
from ..home import HermesHome

T = TypeVar("T")

STATE_ACTIVE = "active"
STATE_STALE = "stale"
STATE_ARCHIVED = "archived"

#: Timestamp fields in the order the learning graph picks a skill's time from.
TIMESTAMP_PRIORITY = (
    "last_activity_at", "last_used_at", "last_viewed_at", "last_patched_at", "created_at",
)


class UsageError(RuntimeError):
    """``.usage.json`` cannot be read or updated safely; the message says what to do."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def empty_record(now: str | None = None) -> dict[str, Any]:
    """A fresh record, as the agent creates one on first touch."""
    return {
        "created_by": None,
        "use_count": 0,
        "view_count": 0,
        "last_used_at": None,
        "last_viewed_at": None,
        "patch_count": 0,
        "last_patched_at": None,
        "created_at": now or now_iso(),
        "state": STATE_ACTIVE,
        "pinned": False,
        "archived_at": None,
    }


_EPOCH_CACHE: dict[str, int | None] = {}


def to_epoch(value: Any) -> int | None:
    """Epoch seconds from a number, a numeric string or an ISO-8601 string; else None."""
    if isinstance(value, str):
        # the same few thousand timestamps come back on every graph build
        try:
            return _EPOCH_CACHE[value]
        except KeyError:
            pass
        result = _string_to_epoch(value)
        if len(_EPOCH_CACHE) >= 50_000:
            _EPOCH_CACHE.clear()
        _EPOCH_CACHE[value] = result
        return result
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return int(value)
    return None


def _string_to_epoch(value: str) -> int | None:
    text = value.strip()
    if not text:
        return None
    try:
        return int(float(text))
    except ValueError:
        pass
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp())


def count_value(value: Any) -> int:
    """A counter field as an int; anything unusable counts as 0."""
    if isinstance(value, bool):
        return int(value)
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


#: ``created_by`` values that mark a skill as learned (``learn`` is the /learn marker).
LEARNED_CREATORS = frozenset({"agent", "learn"})


def has_learning_signal(source: str, record: dict[str, Any]) -> bool:
    """The graph's "learned" rule: not a base or external skill, and made or used."""
    return source not in ("base", "external") and (
        record.get("created_by") in LEARNED_CREATORS or count_value(record.get("use_count")) > 0
    )


def record_timestamp(record: dict[str, Any]) -> int | None:
    """The first usable timestamp in priority order (not the latest), as upstream."""
    for key in TIMESTAMP_PRIORITY:
        value = to_epoch(record.get(key))
        if value:  # upstream treats 0 like "missing"
            return value
    return None


def is_curator_managed(record: Any) -> bool:
    return isinstance(record, dict) and (
        record.get("created_by") == "agent" or record.get("agent_created") is True
    )


@dataclass(frozen=True)
class UsageSnapshot:
    """One read of the file. ``records`` holds only the dict-valued entries."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    exists: bool = False
    error: str | None = None

    def record(self, name: str) -> dict[str, Any]:
        return self.records.get(name) or {}


def _decode(home: HermesHome, raw: bytes) -> dict[str, Any]:
    path = home.skills_usage_file
    try:
        data = json.loads(raw.decode("utf-8-sig")) if raw.strip() else {}
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text; fix or move it aside.") from None
    except ValueError as exc:
        raise UsageError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); fix or move it "
            "aside. Nothing was changed."
        ) from None
    if not isinstance(data, dict):
        raise UsageError(f"{path} does not hold a JSON object; fix or move it aside.")
    return data


def read_usage(home: HermesHome) -> UsageSnapshot:
    """The current records; a missing file is empty, a broken one gives ``error``."""
    try:
        raw = read_regular_bytes(home.skills_usage_file, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return UsageSnapshot()
    except OSError as exc:
        return UsageSnapshot(exists=True, error=f"Could not read {home.skills_usage_file}: {exc.strerror}")
    try:
        data = _decode(home, raw)
    except UsageError as exc:
        return UsageSnapshot(exists=True, error=str(exc))
    records = {str(key): value for key, value in data.items() if isinstance(value, dict)}
    return UsageSnapshot(records=records, exists=True)


def serialise(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


def update_usage(
    home: HermesHome,
    mutate: Callable[[dict[str, Any]], T],
    *,
    timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> T:
    """Run ``mutate(data)`` on the whole file under the lock and write it back if changed.

    Raises :class:`UsageError` (nothing written) when the file is broken, and whatever
    ``mutate`` raises. The file is only rewritten when its content actually changed.
    """
    path = home.skills_usage_file
    with file_lock(path, timeout=timeout):
        try:
            raw = read_regular_bytes(path, MAX_SETTINGS_BYTES)
        except FileNotFoundError:
            raw = b""
        except OSError as exc:
            raise UsageError(f"Could not read {path}: {exc.strerror}") from None
        data = _decode(home, raw)
        before = serialise(data)
        result = mutate(data)
        after = serialise(data)
        if after != before:
            atomic_write_text(path, after, temp_prefix=".usage_")
        return result


def mutate_record(
    home: HermesHome, name: str, change: Callable[[dict[str, Any]], None], **kwargs: Any
) -> dict[str, Any]:
    """Apply ``change`` to ``name``'s record (created fresh when missing); return a copy."""

    def apply(data: dict[str, Any]) -> dict[str, Any]:
        record = data.get(name)
        if not isinstance(record, dict):
            record = empty_record()
        change(record)
        data[name] = record
        return dict(record)

    return update_usage(home, apply, **kwargs)
