"""Records as plain data for the CLI's ``--json``, the engine face and the desktop's Inbox.

Every item has the same keys, whatever the record: ``id``, ``kind`` (``memory``/``skill``),
``summary``, ``origin`` with ``origin_label``, ``created_at``/``created``/``age_seconds``,
``session_id``, ``stale``/``stale_reason``, ``broken``/``broken_reason``, ``failed``/``last_error``
and a preview's ``would_apply``/``refusal``. ``show`` adds the diff and the store's meter.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from .applying import Context, preview
from .records import BACKGROUND_REVIEW, MEMORY, PendingRecord, one_line
from .summaries import memory_op_line

ORIGIN_LABELS = {"foreground": "agent", BACKGROUND_REVIEW: "background review"}


def _iso(stamp: float) -> str | None:
    if stamp <= 0:
        return None
    try:
        return datetime.fromtimestamp(stamp, UTC).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return None


def item(record: PendingRecord, check: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    now = time.time() if now is None else now
    broken = record.problem is not None
    stale = bool(check.get("stale"))
    refusal = None if check.get("would_apply") or broken else check.get("reason")
    ops = []
    if record.subsystem == MEMORY and not broken:
        ops = [{"n": n, "action": op.get("action"), "text": memory_op_line(op)[2:]}
               for n, op in enumerate(record.operations(), start=1)]  # fmt: skip
    return {
        "id": record.id,
        "kind": record.kind,
        "subsystem": record.subsystem,
        "action": record.action,
        "target": record.target,
        "summary": one_line(record.summary or f"{record.action} {record.target}", 200),
        "origin": record.origin,
        "origin_label": ORIGIN_LABELS.get(record.origin, record.origin),
        "auto": record.origin == BACKGROUND_REVIEW,
        "created_at": record.created_at,
        "created": _iso(record.created_at),
        "age_seconds": max(0.0, now - record.created_at) if record.created_at > 0 else None,
        "session_id": record.session_id,
        "depends_on": record.depends_on,
        "ops": ops,
        "would_apply": bool(check.get("would_apply")),
        "stale": stale,
        "stale_reason": check.get("reason") if stale else None,
        "refusal": refusal if not stale else None,
        "broken": broken,
        "broken_reason": record.problem,
        "failed": record.failed,
        "last_error": record.data.get("last_error") if record.failed else None,
        "attempts": record.data.get("attempts") if isinstance(record.data.get("attempts"), int) else 0,
        "path": str(record.path) if record.path else None,
    }


def gate_state(home) -> dict[str, bool]:
    """Whether each subsystem's write-approval gate is on (``<subsystem>.write_approval``)."""
    from ..config import get_config_value

    return {sub: get_config_value(home, f"{sub}.write_approval") is True for sub in ("memory", "skills")}


def detailed_item(record: PendingRecord, context: Context) -> dict[str, Any]:
    """An item plus the dry run: the diff, the meter now and after, and the payload."""
    check = preview(context, record)
    result = item(record, check)
    result["diff"] = check.get("diff")
    result["meter_now"] = check.get("meter_now")
    result["meter_after"] = check.get("meter_after")
    result["payload"] = record.payload if not record.problem else None
    return result
