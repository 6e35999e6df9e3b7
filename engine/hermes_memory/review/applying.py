"""A review's changes in the staged-write queue's format, queued or written.

A proposal becomes an upstream record (:mod:`hermes_memory.pending.changes`): removed
entries become pinned replace/remove ops, a skill file change a ``create``/``edit``/
``write_file`` pinned to the text it was planned against. The same record is what a
propose-mode review queues and what an apply-mode review writes at once, through the
queue's own write path, so a review's write and a person's approval take one path to disk
and refuse for the same reasons (stale, over budget, pinned since).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..home import HermesHome
from ..pending import BACKGROUND_REVIEW, MEMORY, SKILLS, PendingQueue, PendingRecord
from ..pending.applying import Context, apply_record, preview
from ..pending.changes import memory_change_payload, skill_change_payload, summary_for
from ..pending.records import make_record
from .proposals import MEMORY as MEMORY_KIND
from .proposals import Proposal
from .skill_changes import SKILL_MD


def to_record(proposal: Proposal) -> PendingRecord:
    """The proposal as an upstream record with the same id (not written)."""
    if proposal.kind == MEMORY_KIND:
        subsystem = MEMORY
        payload = memory_change_payload(proposal.target, list(proposal.before), list(proposal.after))
        extra: dict[str, Any] = {}
    else:
        subsystem = SKILLS
        payload, extra = skill_change_payload(
            proposal.operation, proposal.target, proposal.file or SKILL_MD,
            proposal.before if isinstance(proposal.before, str) else None,
            proposal.after if isinstance(proposal.after, str) else "", proposal.category,
        )  # fmt: skip
    return make_record(
        subsystem, proposal.id, payload, summary_for(subsystem, payload), BACKGROUND_REVIEW,
        session_id=proposal.session_id or None, depends_on=list(proposal.depends_on) or None,
        **extra,
    )  # fmt: skip


def queue_proposals(home: HermesHome, proposals: Iterable[Proposal]) -> list[str]:
    """Stage the proposals in order; all or none (a failure withdraws those written)."""
    queue = PendingQueue(home)
    written: list[PendingRecord] = []
    try:
        for proposal in proposals:
            record = to_record(proposal)
            written.append(queue.stage(record.subsystem, record.payload, record.summary,
                                       record.origin, record_id=record.id, **_extras(record)))  # fmt: skip
    except BaseException:
        for record in written:
            if record.path is not None:
                record.path.unlink(missing_ok=True)
        raise
    return [record.id for record in written]


def _extras(record: PendingRecord) -> dict[str, Any]:
    standard = {"id", "subsystem", "action", "summary", "origin", "created_at", "payload"}
    return {k: v for k, v in record.data.items() if k not in standard}


def apply_proposal(home: HermesHome, proposal: Proposal) -> dict[str, Any]:
    """Write the change now; ``{"success": True, "message"}`` or ``{"success": False,
    "error", "stale"?}``. Nothing is written on refusal."""
    return apply_record(home, to_record(proposal), origin=BACKGROUND_REVIEW)


def staleness(home: HermesHome, proposal: Proposal) -> str | None:
    """Why writing the proposal would be refused as stale right now, or None (reads only)."""
    check = preview(Context(home), to_record(proposal))
    return check.get("reason") if check.get("stale") else None
