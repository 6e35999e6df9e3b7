"""History as plain data: the functions the CLI and the engine face (``api.py``) call.

Every function takes a home and plain values and returns a JSON-serialisable dict with
``ok`` (and ``error`` when it is false); none raises for a refusal or a damaged file.
"""

from __future__ import annotations

import difflib
from typing import Any

from ..home import HermesHome
from ..memory.entries import TARGETS
from ..memory.store import StoreReadError, read_store_file
from ..pausing import gc_paused
from . import backfill, undo
from . import capture as capture_module
from .log_index import log_summaries
from .provenance import provenance as provenance_of
from .recording import skill_state
from .storage import HistoryError, HistoryStore
from .timeline import NOW, Timeline, entry_diff, public


def _guard(function):
    def wrapped(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return function(*args, **kwargs)
        except (HistoryError, StoreReadError) as exc:
            return {"ok": False, "error": str(exc)}

    wrapped.__doc__ = function.__doc__
    wrapped.__name__ = function.__name__
    return wrapped


def _unknown(event_id: str) -> dict[str, Any]:
    return {"ok": False, "error": f"No history version '{event_id}'. 'history log' lists them."}


@_guard
def log(
    home: HermesHome,
    kind: str | None = None,
    skill: str | None = None,
    since: float | None = None,
    limit: int | None = None,
    shape: Any = None,
) -> dict[str, Any]:
    """Recorded versions, newest first, optionally of one store or skill and after a time
    (``shape``: what to make of the log index's rows instead of summaries, see
    :func:`log_index.log_summaries`)."""
    with gc_paused():  # many small objects, all kept: the collector would only walk them
        return _log(home, kind, skill, since, limit, shape)


def _log(home: HermesHome, kind: str | None, skill: str | None, since: float | None,
         limit: int | None, shape: Any) -> dict[str, Any]:  # fmt: skip
    events, total, problems = log_summaries(home, kind, skill, since, limit, shape)
    return {"ok": True, "total": total, "events": events, "problems": problems}


@_guard
def show(home: HermesHome, event_id: str) -> dict[str, Any]:
    """One version: what it holds (entries with fingerprints, or SKILL.md) and its change."""
    timeline = Timeline(home)
    event = timeline.get(event_id)
    if event is None:
        return _unknown(event_id)
    result: dict[str, Any] = {"ok": True, "event": public(event), "summary": timeline.summary(event),
                              "diff": timeline.diff(timeline.parent(event), event)}  # fmt: skip
    if event["kind"] == "skill":
        result["text"] = timeline.text(event.get("md"))
    else:
        result["entries"] = [{"fingerprint": h[:12], "text": text}
                             for h, text in zip(event["entries"], timeline.entries(event), strict=True)]  # fmt: skip
        result["raw"] = timeline.text(event.get("raw")) if event.get("raw") else None
    return result


def _now_diff(home: HermesHome, timeline: Timeline, event: dict[str, Any]) -> dict[str, Any]:
    if event["kind"] in TARGETS:
        current = read_store_file(home.store_file(event["kind"])).entries
        return {"ok": True, "kind": event["kind"], **entry_diff(timeline.entries(event), current)}
    name = event["skill"]
    directory = capture_module._local_skills(home).get(name)
    state = skill_state(home, name, directory)
    before = timeline.skill_fields(event)
    old_text = timeline.text(before["md"]) or ""
    lines = list(difflib.unified_diff(old_text.splitlines(keepends=True),
                                      (state["text"] or "").splitlines(keepends=True),
                                      "a/SKILL.md", "b/SKILL.md"))  # fmt: skip
    changes = {key: {"before": before[key], "after": state[key]}
               for key in ("state", "pinned") if before[key] != state[key]}  # fmt: skip
    return {"ok": True, "kind": "skill", "skill": name, "unified_diff": "".join(lines),
            "changes": changes, "empty": not lines and not changes}  # fmt: skip


@_guard
def diff(home: HermesHome, event_id: str, other: str | None = None) -> dict[str, Any]:
    """The change a version made (from its parent), from it to ``other``, or to ``"now"``."""
    timeline = Timeline(home)
    event = timeline.get(event_id)
    if event is None:
        return _unknown(event_id)
    if other == NOW:
        return _now_diff(home, timeline, event)
    if other is None:
        timeline.prefetch([event])  # its texts and its parent's, not every text recorded
        return {"ok": True, **timeline.diff(timeline.parent(event), event)}
    second = timeline.get(other)
    if second is None:
        return _unknown(other)
    timeline.prefetch([event, second])
    if (second["kind"], second.get("skill")) != (event["kind"], event.get("skill")):
        return {"ok": False, "error": f"{event_id} and {other} are versions of different things; "
                                      "compare versions of one store or one skill."}  # fmt: skip
    return {"ok": True, **timeline.diff(event, second)}


@_guard
def restore(home: HermesHome, event_id: str, entry: str | None = None) -> dict[str, Any]:
    """Restore a version, or one ``entry`` (fingerprint) of it, as a new undoable version;
    ``previous`` names the version to restore to undo it."""
    result = undo.restore(home, event_id, entry)
    if result.get("ok") and result.get("version"):
        timeline = Timeline(home, with_ledger=False)
        new = timeline.get(result["version"])
        parent = timeline.parent(new) if new else None
        result["previous"] = parent["id"] if parent else None
    return result


@_guard
def lineage(home: HermesHome, entry_fingerprint: str) -> dict[str, Any]:
    """One entry's story (from its first text through each replace to now)."""
    found = Timeline(home).lineage(entry_fingerprint)
    if found is None:
        return {"ok": False, "error": f"History has no entry with fingerprint '{entry_fingerprint}'."}
    return {"ok": True, **found}


@_guard
def state_at(home: HermesHome, when: float | None = None, texts: bool = False) -> dict[str, Any]:
    """Both stores and every skill as recorded at ``when`` (epoch seconds; default now)."""
    return {"ok": True, **Timeline(home).state_at(when, texts=texts)}


@_guard
def growth(home: HermesHome) -> dict[str, Any]:
    """Both stores' size and the active skills after each version, oldest first."""
    return {"ok": True, "points": Timeline(home).growth()}


@_guard
def provenance(home: HermesHome) -> dict[str, Any]:
    """First seen, last changed, by whom and in which sessions, per entry and per skill."""
    return {"ok": True, **provenance_of(home)}


@_guard
def capture(home: HermesHome, scanned_after_ns: int | None = None) -> dict[str, Any]:
    """Record the changes made outside this engine since the last recorded versions."""
    return capture_module.capture(home, scanned_after_ns)


@_guard
def import_sessions(home: HermesHome) -> dict[str, Any]:
    """Backfill the agent's past memory writes from ``state.db``."""
    return backfill.import_sessions(home)


@_guard
def forget(home: HermesHome, before: float | None = None) -> dict[str, Any]:
    """Erase all history, or the versions recorded before ``before``."""
    return HistoryStore(home).forget(before)


@_guard
def taught(home: HermesHome, session_id: str) -> dict[str, Any]:
    """What one session wrote (entries and skills)."""
    return {"ok": True, **undo.taught(home, session_id)}


@_guard
def revert(home: HermesHome, session_id: str, dry_run: bool = False) -> dict[str, Any]:
    """Undo what one session taught where it is unchanged since; list the rest."""
    return undo.revert(home, session_id, dry_run=dry_run)


def size(home: HermesHome) -> dict[str, Any]:
    """Where the history is and how much disk it takes."""
    store = HistoryStore(home)
    return {"ok": True, "bytes": store.size_bytes(), "path": str(store.dir)}

