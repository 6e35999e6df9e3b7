"""The write-approval gate of the ``memory`` tool (spec §2.9.3).

With ``memory.write_approval: true`` a write the tool would make is checked as a direct
write would be (target enabled, anchors resolved under the store's lock, content scan,
budget), pinned, and staged in the queue instead of written. The tool then returns the
staged payload upstream returns. A write that would fail now is refused, not queued
(upstream's pre-pinning queue filled with writes that failed on every approval).
There is no interactive prompt here, so every gated write is staged, as upstream does for
the gateway, scripts and cron.
"""

from __future__ import annotations

import contextvars
from typing import Any

from ..memory.store import MemoryStore
from .applying import pin_memory_write
from .memory_ops import MemoryPlan
from .queue import PendingQueue
from .records import FOREGROUND, MEMORY
from .summaries import memory_summary

#: Who is writing: ``foreground`` (the agent's turn) or ``background_review`` (spec §5).
write_origin: contextvars.ContextVar[str] = contextvars.ContextVar("write_origin", default=FOREGROUND)
#: The agent session the write belongs to, when the caller knows it.
write_session: contextvars.ContextVar[str | None] = contextvars.ContextVar("write_session", default=None)

STAGED_MESSAGE = (
    "Staged for approval (memory.write_approval is on). Not yet saved — review with "
    "/memory pending."
)


def approval_required(store: MemoryStore) -> bool:
    return bool(getattr(store.config, "write_approval", False))


def staged_write(store: MemoryStore, payload: dict[str, Any]) -> dict[str, Any] | None:
    """``None`` when the gate is off (write directly); else the staged reply or a refusal."""
    if not approval_required(store):
        return None
    plan = pin_memory_write(store, payload)
    if not isinstance(plan, MemoryPlan):
        return plan
    record = PendingQueue(store.home).stage(
        MEMORY, plan.payload, memory_summary(plan.payload), write_origin.get(),
        session_id=write_session.get(),
    )  # fmt: skip
    return {"success": True, "staged": True, "pending_id": record.id, "message": STAGED_MESSAGE}
