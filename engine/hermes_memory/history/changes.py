"""What changed since a time, as a feed: the desktop's Changes tab (and ``serve``) read this.

Each change is one recorded version with what it did (its summary and its diff from the
version before), who made it, and what undoing it means. Undo restores the version before
through :mod:`.undo`, but only while the thing still is as this change left it: a later
write by anyone is never thrown away by undoing an older one (the History tab restores
older versions on purpose).
"""

from __future__ import annotations

from typing import Any

from ..home import HermesHome
from ..memory.entries import TARGETS, fingerprint
from ..memory.store import StoreReadError
from . import undo
from .recording import APP, HAND
from .storage import HistoryError
from .timeline import Timeline

#: Who counts as "the person": a change to a pinned skill by anyone else is flagged.
PERSON_ORIGINS = (APP, HAND)
#: A feed never carries more than this many changes (the newest are kept).
MAX_CHANGES = 500


def _memory_nodes(diff: dict[str, Any]) -> list[str]:
    """Fingerprints of the entries a memory change added or rewrote (graph node ids end in them)."""
    texts = list(diff.get("added") or []) + [pair["after"] for pair in diff.get("changed") or []]
    return [fingerprint(text) for text in texts]


def _verb(summary: dict[str, Any], diff: dict[str, Any]) -> str:
    """created, patched, archived, restored, pinned, unpinned (skills); added, changed,
    removed, edited (memory). (A change of support files only is "changed files".)"""
    if summary["kind"] == "skill":
        changes = diff.get("changes") or {}
        state = changes.get("state")
        if state:
            if state["before"] == "missing":
                return "created"
            if state["after"] in ("archived", "missing"):
                return "archived"
            return "restored"
        if diff.get("unified_diff"):
            return "patched"
        pin = changes.get("pinned")
        if pin:
            return "pinned" if pin["after"] else "unpinned"
        return "touched"
    parts = [name for name in ("added", "changed", "removed") if diff.get(name)]
    return parts[0] if len(parts) == 1 else "edited"


def _by_the_person(event: dict[str, Any]) -> bool:
    """Made or approved by the person (an approved staged write keeps its proposer as origin)."""
    return (event.get("origin") or "unknown") in PERSON_ORIGINS or event.get("approved_by") in PERSON_ORIGINS


def _excluded(event: dict[str, Any], excluded: set[str]) -> bool:
    """Whether the event's origin, or who approved it, is one the caller leaves out."""
    return (event.get("origin") or "unknown") in excluded or event.get("approved_by") in excluded


def change_item(timeline: Timeline, event: dict[str, Any]) -> dict[str, Any]:
    """One version as a feed item: the log's summary plus ``diff``, ``verb``, ``previous``
    (the version Undo restores, or None), ``nodes`` (skill name or entry fingerprints),
    ``pinned`` and ``flagged`` (a pinned skill changed by someone other than the person)."""
    summary = timeline.summary(event)
    parent = timeline.parent(event)
    diff = timeline.diff(parent, event)
    verb = "changed files" if _files_only(event) else _verb(summary, diff)
    item = {**summary, "diff": diff, "verb": verb, "previous": parent["id"] if parent else None}
    if event["kind"] == "skill":
        before, after = timeline.skill_fields(parent), timeline.skill_fields(event)
        item["nodes"] = [event["skill"]]
        item["pinned"] = bool(before["pinned"] or after["pinned"])
        item["flagged"] = item["pinned"] and not _by_the_person(event) and \
            not (diff.get("changes", {}).keys() == {"pinned"} and not diff.get("unified_diff"))
        item["undoable"] = not _files_only(event) and (parent is not None or after["state"] == "active")
    else:
        item["nodes"] = _memory_nodes(diff)
        item["pinned"] = item["flagged"] = False
        item["undoable"] = parent is not None
    return item


def since(home: HermesHome, when: float | None = None, limit: int | None = None,
          exclude_origins: list[str] | None = None) -> dict[str, Any]:  # fmt: skip
    """Changes recorded after ``when`` (epoch seconds; all when None), newest first, and
    the skills used since (``.usage.json``, which history does not version).
    ``exclude_origins`` leaves out changes made, or approved, by those origins."""
    timeline = Timeline(home)
    excluded = set(exclude_origins or ())
    events = [e for e in timeline.events if (when is None or e["ts"] > when) and not _excluded(e, excluded)]
    total = len(events)
    keep = min(limit or MAX_CHANGES, MAX_CHANGES)
    timeline.prefetch(events[-keep:])
    changes = [change_item(timeline, event) for event in reversed(events[-keep:])]
    return {"ok": True, "since": when, "total": total, "changes": changes,
            "used": skills_used_since(home, when), "problems": timeline.problems}  # fmt: skip


def skills_used_since(home: HermesHome, when: float | None) -> list[dict[str, Any]]:
    """``[{"skill", "last_used", "use_count"}]`` of skills used after ``when``, newest first."""
    from ..skills.usage import read_usage_shared, to_epoch

    snapshot = read_usage_shared(home)  # (only looked at)
    used = []
    for name, record in snapshot.records.items():
        stamp = to_epoch(record.get("last_used_at"))
        if stamp is not None and (when is None or stamp > when):
            used.append({"skill": name, "last_used": stamp, "use_count": int(record.get("use_count") or 0)})
    return sorted(used, key=lambda item: -item["last_used"])


def _files_only(event: dict[str, Any]) -> bool:
    """A skill change of its support files alone (a curator-ledger line naming no SKILL.md,
    or the engine's ``write_file``/``remove_file``): history keeps no copy of those files,
    so there is nothing to put back, and undoing it must never read as undoing a new
    skill (which archives it) when it is the first version history has of the skill."""
    return bool(event.get("support_only")) or (
        bool(event.get("files")) and event.get("action") in ("write_file", "remove_file")
    )


def _same_content(timeline: Timeline, a: dict[str, Any] | None, b: dict[str, Any]) -> bool:
    if a is None:
        return False
    if b["kind"] in TARGETS:
        return timeline.hashes(a) == timeline.hashes(b)
    first, second = timeline.skill_fields(a), timeline.skill_fields(b)
    return ((first["md"] or "")[:20], first["state"]) == ((second["md"] or "")[:20], second["state"])


def undo_change(home: HermesHome, version_id: str) -> dict[str, Any]:
    """Put back what was there before ``version_id``, if nothing changed it since."""
    from .capture import capture

    capture(home)  # the agent may have written a moment ago: compare with the latest
    timeline = Timeline(home)
    event = timeline.get(version_id)
    if event is None:
        return {"ok": False, "error": f"No history version '{version_id}'; it may have been forgotten."}
    latest = timeline.latest(event["kind"], event.get("skill"))
    what = f"skill '{event['skill']}'" if event["kind"] == "skill" else \
        {"memory": "MEMORY.md", "user": "USER.md"}[event["kind"]]
    if not _same_content(timeline, latest, event):
        return {"ok": False, "error": f"{what} changed again since this change; nothing was "
                                      "undone. The History tab can restore any version."}  # fmt: skip
    parent = timeline.parent(event)
    if event["kind"] == "skill" and _files_only(event):
        return {"ok": False, "error": f"This change wrote or removed support files of {what}; "
                                      "history keeps no copy of them, so nothing was undone."}  # fmt: skip
    if parent is None:
        if event["kind"] != "skill":
            return {"ok": False, "error": f"This is the first recorded version of {what}; "
                                          "there is nothing before it to restore."}  # fmt: skip
        from ..skills.lifecycle import archive_skill

        outcome = archive_skill(home, event["skill"])  # a new skill: undoing it archives it
        return {"ok": outcome.ok, ("message" if outcome.ok else "error"): outcome.message}
    result = undo.restore(home, parent["id"])
    if result.get("ok"):
        result.setdefault("message", f"Undid the change to {what}.")
    return result


def redo_change(home: HermesHome, version_id: str) -> dict[str, Any]:
    """Bring back the version ``version_id`` again (after :func:`undo_change`)."""
    return undo.restore(home, version_id)


def pin_skill(home: HermesHome, skill: str, pinned: bool = True) -> dict[str, Any]:
    from ..learning import pin_node, unpin_node

    return pin_node(home, skill) if pinned else unpin_node(home, skill)


def guarded(function):
    """The engine face's shape: a damaged history is a refusal with its reason."""

    def wrapped(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return function(*args, **kwargs)
        except (HistoryError, StoreReadError, OSError) as exc:
            return {"ok": False, "error": f"History cannot be read: {exc}"}

    wrapped.__doc__, wrapped.__name__ = function.__doc__, function.__name__
    return wrapped
