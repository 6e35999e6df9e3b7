"""Writing a proposal through the engine, and telling whether it still can be written.

The same function serves an apply-mode review (at the end of the run) and a person's
approval of a queued proposal, so both take exactly one path to disk.
"""

from __future__ import annotations

from typing import Any

from ..home import HermesHome
from ..memory.store import StoreReadError, read_store_file
from .memory_changes import commit_memory_change
from .proposals import MEMORY, Proposal
from .skill_changes import SKILL_MD
from .skill_writes import commit_skill_change, skill_staleness


def apply_proposal(home: HermesHome, proposal: Proposal) -> dict[str, Any]:
    """Write the change; ``{"success": True, "message"}`` or ``{"success": False,
    "error", "stale"?}``. Nothing is written on refusal."""
    if proposal.kind == MEMORY:
        if proposal.target not in ("memory", "user"):
            return {"success": False, "error": f"Unknown memory target '{proposal.target}'."}
        return commit_memory_change(
            home, proposal.target, list(proposal.before), list(proposal.after)
        )
    if not isinstance(proposal.after, str):
        return {"success": False, "error": "This skill proposal has no new text."}
    return commit_skill_change(
        home,
        proposal.operation,
        proposal.target,
        proposal.file or SKILL_MD,
        proposal.before if isinstance(proposal.before, str) else None,
        proposal.after,
        proposal.category,
    )


def staleness(home: HermesHome, proposal: Proposal) -> str | None:
    """Why approving would be refused as stale right now, or None (reads only)."""
    if proposal.kind == MEMORY:
        try:
            entries = read_store_file(home.store_file(proposal.target)).entries
        except (StoreReadError, ValueError) as exc:
            return str(exc)
        missing = [entry for entry in proposal.before if entry not in entries]
        if missing:
            return f"an entry it rewrites is gone: '{missing[0][:60]}'"
        return None
    return skill_staleness(
        home,
        proposal.target,
        proposal.file or SKILL_MD,
        proposal.before if isinstance(proposal.before, str) else None,
        proposal.operation,
    )
