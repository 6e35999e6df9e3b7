"""The engine's one face for the desktop (and, later, for a remote home over ``serve``).

Plain functions over a :class:`~hermes_memory.home.HermesHome`, taking and returning plain,
JSON-serialisable data (dicts, lists, strings, numbers). The desktop calls them in-process
for a local home; a remote home will carry the same calls as JSON lines. Nothing here
imports Qt, and nothing here keeps state between calls: every call re-reads the disk.

Each flow keeps its own section below; the work itself lives in the flow's package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .home import HermesHome

# --- memory stores -------------------------------------------------------------------


def consolidate_groups(home: HermesHome) -> dict[str, Any]:
    """Near-duplicate and overlapping entries of MEMORY.md and USER.md: ``{"groups": [{"id",
    "kind" ("duplicate"/"overlap"), "score", "entries": [{"target", "file", "index",
    "fingerprint", "text", "chars"}], "keep", "pairs", "saves", "saves_by_store", "meters":
    {target: "1,783 → 1,402 / 2,200"}}], "count", "saves", "meters": {target: {"used",
    "after", "limit", "text"}}, "stale": [{"reason" ("superseded"/"unreferenced"), "entry",
    "message", ...}], "errors", "thresholds"}``. Rules in :mod:`hermes_memory.memory.consolidate`."""
    from .memory.consolidate import consolidation_report

    return consolidation_report(home)


def consolidate_propose(home: HermesHome, group_id: str, merged_text: str | None = None) -> dict[str, Any]:
    """Stage the merge of one group in the pending queue (never applied here). Without
    ``merged_text`` the review model words it. ``{"ok": True, "pending_ids", "merged_text",
    "source", "meters": {target: {"before", "after", "text"}}, "message"}`` or
    ``{"ok": False, "error"}`` with nothing staged."""
    from .memory.consolidate_merge import propose

    return propose(home, group_id, merged_text)


# --- skills and the learning graph ---------------------------------------------------


def skills_check(home: HermesHome) -> dict[str, Any]:
    """Skill health: ``{"findings": [{"skill", "code", "severity", "message", "fix",
    "directory"}], "count", "skills_checked", "skills_with_problems", "by_severity",
    "warnings", "thresholds"}``; codes and rules in :mod:`hermes_memory.skills.health`."""
    from .skills.health import check_skills

    return check_skills(home)


# --- the staged-write queue (pending/) -----------------------------------------------
# Every item (list, show) carries: id, kind ("memory"/"skill"), summary, origin and
# origin_label ("agent"/"background review"), created_at/created/age_seconds, session_id,
# would_apply, stale + stale_reason, refusal, broken + broken_reason, failed + last_error.
# Actions answer {"ok": bool, "message" or "error", ...}; nothing here raises for a bad id.


def _pending_call(action: Callable[[], Any]) -> dict[str, Any]:
    from .pending import PendingError

    try:
        return action()
    except PendingError as exc:
        return {"ok": False, "error": str(exc)}


def pending_list(home: HermesHome) -> dict[str, Any]:
    """``{"items": [...], "count", "problems", "gate": {"memory": bool, "skills": bool}}``:
    every staged write, oldest first, and whether each write-approval gate is on."""
    from .pending import Context, PendingQueue
    from .pending.items import gate_state, item

    queue = PendingQueue(home)
    listing = queue.list()
    context = Context(home)
    items = [item(record, queue.preview(record, context)) for record in listing.records]
    return {"items": items, "count": len(items), "problems": listing.problems, "gate": gate_state(home)}


def pending_count(home: HermesHome) -> dict[str, int]:
    """``{"count", "memory", "skills"}`` without reading the records (for a badge)."""
    from .pending import PendingQueue

    counts = PendingQueue(home).count()
    return {"count": sum(counts.values()), **counts}


def pending_show(home: HermesHome, pending_id: str) -> dict[str, Any]:
    """The item plus its dry run: ``diff`` (memory: ``entries`` added/replaced/removed;
    skills: ``unified``), ``meter_now``/``meter_after`` (``"1,934 / 2,200 · 87 %"``), ``payload``."""
    from .pending import Context, PendingQueue
    from .pending.items import detailed_item

    def show() -> dict[str, Any]:
        return {"ok": True, **detailed_item(PendingQueue(home).find(pending_id), Context(home))}

    return _pending_call(show)


def pending_approve(home: HermesHome, pending_id: str, ops: list[int] | None = None) -> dict[str, Any]:
    """Write it (or only the batch ops numbered in ``ops``, 1-based; the rest stay queued)."""
    from .pending import PendingQueue

    return _pending_call(lambda: PendingQueue(home).approve(pending_id, ops).as_dict())


def pending_reject(home: HermesHome, pending_id: str) -> dict[str, Any]:
    from .pending import PendingQueue

    return _pending_call(lambda: PendingQueue(home).reject(pending_id).as_dict())


def pending_edit(home: HermesHome, pending_id: str, text: str) -> dict[str, Any]:
    """Replace what it writes: new text for a single add/replace/create/edit/write_file, or a
    JSON payload; validated (and re-pinned) as a new staged write would be."""
    from .pending import PendingQueue

    return _pending_call(lambda: PendingQueue(home).edit(pending_id, text).as_dict())


def pending_decide_all(home: HermesHome, approve: bool) -> dict[str, Any]:
    """``approve all`` (skips broken and failed records) or ``reject all``."""
    from .pending import PendingQueue

    decisions = PendingQueue(home).decide_all(approve)
    return {"ok": all(d.ok for d in decisions), "decisions": [d.as_dict() for d in decisions]}


# --- history and provenance (history/) -----------------------------------------------

# --- session history (sessions/) -----------------------------------------------------
