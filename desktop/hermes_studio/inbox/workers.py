"""The engine face calls the Inbox makes, packaged for the Workspace's threads.

Each function returns a zero-argument callable: listing, showing and checking go to the
reader thread, deciding to the single writer thread. They only call ``hermes_memory.api``
and always answer with a plain dict (an engine bug becomes ``{"ok": False, "error"}``), so
the panel always hears back.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

from hermes_memory import api
from hermes_memory.home import HermesHome

from ..engine_work import Work, reported

log = logging.getLogger(__name__)
_reported = functools.partial(reported, refused={"ok": False}, nothing_done="nothing was changed", log=log)


def count_work(home: HermesHome) -> Work:
    return _reported(lambda: {"ok": True, **api.pending_count(home)})


def list_work(home: HermesHome) -> Work:
    return _reported(lambda: {"ok": True, **api.pending_list(home)})


def show_work(home: HermesHome, pending_id: str) -> Work:
    return _reported(lambda: api.pending_show(home, pending_id))


def check_edit_work(home: HermesHome, pending_id: str, text: str) -> Work:
    return _reported(lambda: api.pending_check_edit(home, pending_id, text))


def approve_work(home: HermesHome, pending_id: str, ops: Sequence[int] | None = None) -> Work:
    chosen = list(ops) if ops else None
    return _reported(lambda: api.pending_approve(home, pending_id, chosen))


def reject_work(home: HermesHome, pending_id: str) -> Work:
    return _reported(lambda: api.pending_reject(home, pending_id))


def edit_and_approve_work(home: HermesHome, pending_id: str, text: str) -> Work:
    """Save the edit, then approve it; a refused approval leaves the edited record queued."""

    def run() -> dict:
        edited = api.pending_edit(home, pending_id, text)
        if not edited.get("ok"):
            return {**edited, "decision": "edited"}
        approved = api.pending_approve(home, pending_id)
        if not approved.get("ok"):
            reason = approved.get("error") or approved.get("message") or "refused"
            return {**approved, "ok": False, "error": f"The edit was saved and stays queued, but "
                    f"approving it was refused: {reason}"}  # fmt: skip
        return approved

    return _reported(run)


def decide_many_work(home: HermesHome, pending_ids: Sequence[str], approve: bool) -> Work:
    """Approve or reject each of ``pending_ids`` in turn; one refusal does not stop the rest."""
    ids = list(pending_ids)

    def run() -> dict:
        decide = api.pending_approve if approve else api.pending_reject
        decisions = [{"id": ident, **decide(home, ident)} for ident in ids]
        return {"ok": all(d.get("ok") for d in decisions), "decisions": decisions}

    return _reported(run)
