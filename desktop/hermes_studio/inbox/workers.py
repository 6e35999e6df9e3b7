"""The engine-face calls the Inbox makes, as ``(method, params)`` for ``Workspace.call``.

Listing, showing and checking go to the reader thread, deciding to the single writer
thread. Every answer is a plain dict with ``ok`` (:func:`answered`; a call that failed
answers a refusal), so the panel always hears back, for a local or a remote home alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Call = tuple[str, dict[str, Any]]


def answered(result: dict[str, Any]) -> dict[str, Any]:
    """A listing or count (which carry no ``ok``) marked as read; refusals stay as they are."""
    return result if "ok" in result else {"ok": True, **result}


def count_work() -> Call:
    return "pending_count", {}


def list_work() -> Call:
    return "pending_list", {}


def show_work(pending_id: str) -> Call:
    return "pending_show", {"pending_id": pending_id}


def check_edit_work(pending_id: str, text: str) -> Call:
    return "pending_check_edit", {"pending_id": pending_id, "text": text}


def approve_work(pending_id: str, ops: Sequence[int] | None = None) -> Call:
    return "pending_approve", {"pending_id": pending_id, "ops": list(ops) if ops else None}


def reject_work(pending_id: str) -> Call:
    return "pending_reject", {"pending_id": pending_id}


def edit_and_approve_work(pending_id: str, text: str) -> Call:
    """Save the edit, then approve it; a refused approval leaves the edited record queued."""
    return "pending_edit_and_approve", {"pending_id": pending_id, "text": text}


def decide_many_work(pending_ids: Sequence[str], approve: bool) -> Call:
    """Approve or reject each of ``pending_ids`` in turn; one refusal does not stop the rest."""
    return "pending_decide_many", {"pending_ids": list(pending_ids), "approve": approve}
