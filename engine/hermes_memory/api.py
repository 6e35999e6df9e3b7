"""The engine's one face for the desktop (and, later, for a remote home over ``serve``).

Plain functions over a :class:`~hermes_memory.home.HermesHome`, taking and returning plain,
JSON-serialisable data (dicts, lists, strings, numbers). The desktop calls them in-process
for a local home; a remote home will carry the same calls as JSON lines. Nothing here
imports Qt, and nothing here keeps state between calls: every call re-reads the disk.

Each flow keeps its own section below; the work itself lives in the flow's package.
"""

from __future__ import annotations

from .history import service as history_service
from .home import HermesHome

# --- memory stores -------------------------------------------------------------------

# --- skills and the learning graph ---------------------------------------------------

# --- the staged-write queue (pending/) -----------------------------------------------

# --- history and provenance (history/) -----------------------------------------------
# Every version of MEMORY.md, USER.md and each skill, with when, who (origin) and which
# session; all return {"ok": ..., ...} and never raise for a refusal. Times are epoch
# seconds. See hermes_memory.history.service for each one's fields.


def history_log(
    home: HermesHome,
    kind: str | None = None,
    skill: str | None = None,
    since: float | None = None,
    limit: int | None = None,
) -> dict:
    """Versions newest first (``kind``: memory, user or skill; ``skill``: one skill)."""
    return history_service.log(home, kind=kind, skill=skill, since=since, limit=limit)


def history_show(home: HermesHome, version_id: str) -> dict:
    """One version: its entries (with fingerprints) or SKILL.md text, and its change."""
    return history_service.show(home, version_id)


def history_diff(home: HermesHome, version_id: str, other_id: str | None = None) -> dict:
    """Entry-level diff a version made, or between two versions, or to ``"now"``."""
    return history_service.diff(home, version_id, other_id)


def history_restore(home: HermesHome, version_id: str, entry: str | None = None) -> dict:
    """Restore a version (or one entry of it by fingerprint) through the normal write path."""
    return history_service.restore(home, version_id, entry)


def history_capture(home: HermesHome) -> dict:
    """Record changes made outside the engine (call at open and on each file event)."""
    return history_service.capture(home)


def history_import_sessions(home: HermesHome) -> dict:
    """Backfill past memory writes from state.db, with their sessions."""
    return history_service.import_sessions(home)


def history_size(home: HermesHome) -> dict:
    """Where the history folder is and how many bytes it takes (for a "forget" dialog)."""
    return history_service.size(home)


def history_forget(home: HermesHome, before: float | None = None) -> dict:
    """Erase history (all of it, or what was recorded before ``before``)."""
    return history_service.forget(home, before)


def history_entry_lineage(home: HermesHome, fingerprint: str) -> dict:
    """One entry's story through its replaces: each step's version, time, origin, session."""
    return history_service.lineage(home, fingerprint)


def history_state_at(home: HermesHome, when: float | None = None, texts: bool = False) -> dict:
    """Both stores' sizes (and entries with ``texts``) and every skill's state at ``when``."""
    return history_service.state_at(home, when, texts)


def history_growth(home: HermesHome) -> dict:
    """One point per version (time, both stores' entries and chars, active skills)."""
    return history_service.growth(home)


def history_provenance(home: HermesHome) -> dict:
    """Per memory entry and per skill: first seen, last changed, by whom, sessions."""
    return history_service.provenance(home)


def session_taught(home: HermesHome, session_id: str) -> dict:
    """What one session wrote to memory and skills."""
    return history_service.taught(home, session_id)


def session_revert(home: HermesHome, session_id: str, dry_run: bool = True) -> dict:
    """Undo what one session taught where unchanged since (``dry_run`` by default)."""
    return history_service.revert(home, session_id, dry_run=dry_run)


# --- session history (sessions/) -----------------------------------------------------
