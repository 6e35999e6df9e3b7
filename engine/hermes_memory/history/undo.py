"""Undo from history: restore a version or one entry, and what one session taught.

Everything here writes through the engine's normal paths (the memory store's locked
cycle with its budget and scanner, the skill functions with their guards), so a refusal
says why in the store's own words, and every write is itself recorded as a new version
(``restores`` / ``reverts`` say what it undid), so it can be undone in turn.
"""

from __future__ import annotations

import bisect
from typing import Any

from ..home import HermesHome
from ..memory import entries as fmt
from ..memory.store import MemoryStore, StoreReadError, StoreRefusal, content_problem, for_people
from ..sessions.errors import SessionStoreError
from ..sessions.provenance import memory_calls
from .recording import APP, writing_as
from .storage import HistoryError, HistoryStore, content_hash
from .timeline import Timeline, entry_diff


def _refused(error: str, **extra: Any) -> dict[str, Any]:
    return {"ok": False, "error": error, **extra}


def _new_version(home: HermesHome, kind: str, key: str, value: str) -> str | None:
    try:
        event = HistoryStore(home).last_event({"kind": kind, key: value})
    except HistoryError:
        return None
    return event["id"] if event else None


def _store_result(home: HermesHome, target: str, result: dict[str, Any], event_id: str) -> dict[str, Any]:
    if not result.get("success"):
        return _refused(for_people(result.get("error", "the store refused the write")))
    return {"ok": True, "message": result.get("message", ""), "target": target,
            "usage": result.get("usage"), "version": _new_version(home, target, "restores", event_id)}  # fmt: skip


# --- restore -------------------------------------------------------------------------
def restore(home: HermesHome, event_id: str, entry: str | None = None) -> dict[str, Any]:
    """Bring back the version ``event_id`` (a whole store or a skill), or one ``entry``
    (a fingerprint) of a memory version."""
    timeline = Timeline(home)
    event = timeline.get(event_id)
    if event is None:
        return _refused(f"No history version '{event_id}'. 'history log' lists them.")
    if event["kind"] == "skill":
        if entry:
            return _refused("--entry applies to memory versions, not to skills.")
        return _restore_skill(home, timeline, event)
    if entry:
        return _restore_entry(home, timeline, event, entry)
    target = event["kind"]
    texts = timeline.entries(event)
    missing = [h for h in event["entries"] if timeline.text(h) is None]
    if missing:
        return _refused(f"Version {event_id} lost the text of {len(missing)} entr(ies) "
                        "(history was damaged or partly forgotten); nothing was written.")  # fmt: skip
    for position, text in enumerate(texts, start=1):
        problem = content_problem(text)
        if problem:
            return _refused(f"Entry {position} of version {event_id} is refused now: {problem}")
    store = MemoryStore(home)
    limit = store.limit(target)

    def change(entries: list[str]) -> tuple[list[str], str]:
        if entries == texts:
            return entries, "The store already is at that version."
        used = fmt.char_count(texts)
        if used > limit:
            raise StoreRefusal({"success": False, "error": (
                f"Version {event_id} holds {used:,} characters, over the {limit:,} budget of "
                f"{fmt.FILE_NAMES[target]}; nothing was written. Restore single entries "
                "instead (--entry), or raise the budget in config.yaml.")})  # fmt: skip
        return list(texts), f"Restored {fmt.FILE_NAMES[target]} to version {event_id}."

    with writing_as(APP, action="restore", restores=event_id):
        result = store.mutate(target, change, drift_guard=True)
    return _store_result(home, target, result, event_id)


def _restore_entry(home: HermesHome, timeline: Timeline, event: dict[str, Any], fp: str) -> dict[str, Any]:
    target = event["kind"]
    fp = fp.strip().lower()
    digest = next((h for h in event["entries"] if fp and h.startswith(fp)), None)
    if digest is None:
        return _refused(f"Version {event['id']} has no entry {fp!r}; 'history show {event['id']}' lists them.")
    text = timeline.text(digest)
    if text is None:
        return _refused(f"The text of entry {fp} was lost from history; nothing was written.")
    store = MemoryStore(home)
    try:
        current = store.read_entries(target)
    except StoreReadError as exc:
        return _refused(str(exc))
    if text in current:
        return {"ok": True, "message": "That entry is already in the store.", "target": target, "version": None}
    lineage = timeline.lineage(digest[:12]) or {}
    successor = lineage.get("current_text") if lineage.get("current") else None
    with writing_as(APP, action="restore", restores=event["id"], entry=digest[:12]):
        if successor and successor in current:  # it was edited since: put the old text back
            result = store.replace_by_fingerprint(target, fmt.fingerprint(successor), text)
        else:
            result = store.add(target, text)
    return _store_result(home, target, result, event["id"])


def _restore_skill(home: HermesHome, timeline: Timeline, event: dict[str, Any]) -> dict[str, Any]:
    from ..skills.editing import edit_skill, read_skill_text
    from ..skills.lifecycle import archive_skill, find_skill, restore_skill, set_pinned

    name = event["skill"]
    wanted = timeline.skill_fields(event)
    done: list[str] = []
    with writing_as(APP, action="restore", restores=event["id"]):
        _scan, skill, _error = find_skill(home, name)
        if wanted["state"] in ("archived", "missing"):
            if skill is None:
                return {"ok": True, "message": f"'{name}' is already not among the active skills."}
            outcome = archive_skill(home, name)
            return {"ok": outcome.ok, ("message" if outcome.ok else "error"): outcome.message}
        if skill is None:
            outcome = restore_skill(home, name)
            if not outcome.ok:
                return _refused(f"'{name}' is not an active skill and could not be brought back "
                                f"from the archive: {outcome.message}")  # fmt: skip
            done.append(outcome.message)
            _scan, skill, _error = find_skill(home, name)
            if skill is None:
                return _refused(f"'{name}' was restored from the archive but cannot be found.")
        text = timeline.text(wanted["md"])
        if text is not None and read_skill_text(skill) != text:
            outcome = edit_skill(home, name, text)
            if not outcome.ok:
                return _refused(outcome.message, done=done)
            done.append(outcome.message)
        record = _usage_pinned(home, name)
        if record != wanted["pinned"]:
            outcome = set_pinned(home, name, wanted["pinned"])
            if not outcome.ok:
                return _refused(outcome.message, done=done)
            done.append(outcome.message)
    return {"ok": True, "message": "; ".join(done) or f"'{name}' already is as in {event['id']}.",
            "done": done}  # fmt: skip


def _usage_pinned(home: HermesHome, name: str) -> bool:
    from ..skills.usage import read_usage

    return bool(read_usage(home).record(name).get("pinned"))


# --- what one session taught ---------------------------------------------------------
def _net_effect(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Compose one session's successive diffs into its net effect on a store."""
    added: list[str] = []
    changed: list[list[str]] = []  # [original, latest]
    removed: list[str] = []
    for diff in steps:
        for text in diff["added"]:
            if text in removed:
                removed.remove(text)
            else:
                added.append(text)
        for pair in diff["changed"]:
            old, new = pair["before"], pair["after"]
            if old in added:
                added[added.index(old)] = new
            elif any(item[1] == old for item in changed):
                next(item for item in changed if item[1] == old)[1] = new
            else:
                changed.append([old, new])
        for text in diff["removed"]:
            if text in added:
                added.remove(text)
            elif any(item[1] == text for item in changed):
                item = next(item for item in changed if item[1] == text)
                changed.remove(item)
                removed.append(item[0])
            else:
                removed.append(text)
    return {
        "added": added,
        "changed": [{"before": old, "after": new} for old, new in changed if old != new],
        "removed": removed,
    }


def _session_of(event: dict[str, Any], session_id: str) -> bool:
    return event.get("session") == session_id or session_id in (event.get("sessions") or ())


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _explained_by(diff: dict[str, Any], op: tuple) -> dict[str, Any] | None:
    """The part of a diff one memory op of a session explains, or ``None``: the entry its
    add or replace wrote, and the entry its replace or remove pointed at."""
    action, _target, content, old_text = op
    if content:
        needle = _normalise(content)
        for text in diff["added"]:
            if _normalise(text) in needle:  # a replace the diff could not pair: its old text too
                gone = [t for t in diff["removed"] if action == "replace" and old_text and old_text in t]
                return {"added": [text], "changed": [], "removed": gone[:1]}
        for pair in diff["changed"]:
            if _normalise(pair["after"]) in needle:
                return {"added": [], "changed": [pair], "removed": []}
    if action == "remove" and old_text:
        for text in diff["removed"]:
            if old_text in text:
                return {"added": [], "changed": [], "removed": [text]}
    return None


def _unattributed_steps(timeline: Timeline, chain: list[dict[str, Any]], calls: list) -> dict[int, dict]:
    """For versions recorded without an author, what this session's calls explain: each
    op is matched with the first such version after the call that shows its effect (the
    agent may wait for a lock, so its change can land a few versions later)."""
    steps: dict[int, dict[str, Any]] = {}
    diffs: dict[int, dict[str, Any]] = {}
    times = [event["ts"] for event in chain]
    for ts, ops in calls:
        first = bisect.bisect_left(times, ts)
        for op in ops:
            for position in range(first, len(chain)):
                event = chain[position]
                if event.get("origin") not in (None, "unknown"):
                    continue
                if position not in diffs:
                    diffs[position] = entry_diff(timeline.entries(timeline.parent(event)),
                                                 timeline.entries(event))  # fmt: skip
                part = _explained_by(diffs[position], op)
                if part is None:
                    continue
                step = steps.setdefault(position, {"added": [], "changed": [], "removed": []})
                for key, items in part.items():
                    step[key] += [item for item in items if item not in step[key]]
                break
    return steps


def taught(home: HermesHome, session_id: str, timeline: Timeline | None = None) -> dict[str, Any]:
    """What one session wrote: its net effect on each store, the skills it changed, and
    its memory calls as ``state.db`` recorded them.

    A version counts when history recorded it for this session, or when it was recorded
    without an author (a capture, or the state found before one of our writes) and shows
    the effect of one of the session's ``memory`` calls made before it: then only the
    entries those calls explain count.
    """
    timeline = timeline or Timeline(home)
    calls, note = [], None
    if home.state_db.is_file():
        try:
            calls = memory_calls(home, session_id=session_id)
        except SessionStoreError as exc:
            note = str(exc)
    memory: dict[str, Any] = {}
    versions: list[str] = []
    for target in fmt.TARGETS:
        mine_calls = [(c.timestamp, [op for op in c.ops if (op[1] or "memory") == target]) for c in calls]
        mine_calls = [(ts, ops) for ts, ops in mine_calls if ops]
        chain = timeline.chain(target)
        found = _unattributed_steps(timeline, chain, mine_calls) if mine_calls else {}
        for position, event in enumerate(chain):
            if _session_of(event, session_id):
                diff = entry_diff(timeline.entries(timeline.parent(event)), timeline.entries(event))
                taught_by = event.get("taught")
                if isinstance(taught_by, dict):  # a capture that several sessions explain
                    mine = {h for h, s in taught_by.items() if s == session_id}
                    diff["added"] = [t for t in diff["added"] if content_hash(t) in mine]
                    diff["changed"] = [p for p in diff["changed"] if content_hash(p["after"]) in mine]
                    diff["removed"] = []
                found[position] = diff
        steps = [found[position] for position in sorted(found)]
        versions += [chain[position]["id"] for position in sorted(found)]
        memory[target] = _net_effect(steps)
    skills = []
    for name in timeline.skill_names():
        chain = timeline.chain("skill", name)
        mine = [e for e in chain if _session_of(e, session_id)]
        if not mine:
            continue
        first, last = mine[0], mine[-1]
        skills.append({
            "skill": name,
            "actions": [e.get("action") or "change" for e in mine],
            "versions": [e["id"] for e in mine],
            "created": first["_pos"] == 0 or first.get("action") == "create",
            "before": timeline.parent(first)["id"] if timeline.parent(first) else None,
            "unchanged_since": chain[-1] is last,
        })  # fmt: skip
    if calls and not versions:
        note = ("History has no versions from this session yet; run 'history import-sessions' "
                "(or 'history capture') so what it wrote can be reverted.")  # fmt: skip
    call_rows = [{"message_id": c.message_id, "ts": c.timestamp, "ops": [
        {"action": a, "target": t or "memory", "content": content, "old_text": old}
        for a, t, content, old in c.ops]} for c in calls]  # fmt: skip
    return {"session": session_id, "memory": memory, "skills": skills, "calls": call_rows,
            "versions": versions, "note": note}  # fmt: skip


def _revert_plan(entries: list[str], net: dict[str, Any]) -> tuple[list[str], list[dict], list[dict]]:
    """``(new entries, undone, left alone)`` for one store's current entries."""
    working = list(entries)
    undone, left = [], []
    for text in net["added"]:
        if text in working:
            working.remove(text)
            undone.append({"action": "remove", "entry": text})
        else:
            left.append({"entry": text, "why": "changed or removed since the session"})
    for pair in net["changed"]:
        old, new = pair["before"], pair["after"]
        if new not in working:
            left.append({"entry": new, "why": "changed or removed since the session"})
        elif old in working:
            working.remove(new)
            undone.append({"action": "remove", "entry": new})
        else:
            working[working.index(new)] = old
            undone.append({"action": "replace", "entry": new, "with": old})
    for text in net["removed"]:
        if text in working:
            left.append({"entry": text, "why": "already back in the store"})
        else:
            working.append(text)
            undone.append({"action": "add", "entry": text})
    return working, undone, left


def revert(home: HermesHome, session_id: str, *, dry_run: bool = False) -> dict[str, Any]:
    """Undo what ``session_id`` taught, where its entries are still as it left them, each
    store in one all-or-nothing write; anything changed since is listed and left alone."""
    timeline = Timeline(home)
    lesson = taught(home, session_id, timeline)
    store = MemoryStore(home)
    result: dict[str, Any] = {"session": session_id, "dry_run": dry_run, "ok": True,
                              "memory": {}, "skills": [], "note": lesson["note"]}  # fmt: skip
    for target in fmt.TARGETS:
        net = lesson["memory"][target]
        if not (net["added"] or net["changed"] or net["removed"]):
            continue
        outcome: dict[str, Any] = {}

        def change(entries: list[str], net=net, outcome=outcome, target=target) -> tuple[list[str], str]:
            working, undone, left = _revert_plan(entries, net)
            outcome.update(undone=undone, left_alone=left)
            for item in undone:
                problem = content_problem(item.get("with") or item["entry"]) if item["action"] != "remove" else None
                if problem:
                    raise StoreRefusal({"success": False, "error": problem})
            used, limit = fmt.char_count(working), store.limit(target)
            if used > limit:
                raise StoreRefusal({"success": False, "error": (
                    f"Undoing session {session_id} would put {fmt.FILE_NAMES[target]} at "
                    f"{used:,}/{limit:,} chars, over its budget; nothing was written. Free some "
                    "room first.")})  # fmt: skip
            if dry_run or not undone:
                return entries, "Nothing written (dry run)." if dry_run else "Nothing to undo."
            return working, f"Undid {len(undone)} change(s) of session {session_id}."

        if dry_run:
            try:
                change(store.read_entries(target))
            except StoreReadError as exc:
                outcome["error"] = str(exc)
            except StoreRefusal as refusal:
                outcome["error"] = for_people(refusal.payload["error"])
        else:
            with writing_as(APP, action="revert", reverts=session_id):
                written = store.mutate(target, change, drift_guard=True)
            if not written.get("success"):
                outcome["error"] = for_people(written.get("error", "refused"))
            elif outcome.get("undone"):
                outcome["version"] = _new_version(home, target, "reverts", session_id)
        if outcome.get("error"):
            result["ok"] = False
        result["memory"][target] = outcome
    result["skills"] = _revert_skills(home, timeline, lesson["skills"], session_id, dry_run)
    if any(item.get("error") for item in result["skills"]):
        result["ok"] = False
    return result


def _revert_skills(home: HermesHome, timeline: Timeline, skills: list[dict[str, Any]],
                   session_id: str, dry_run: bool) -> list[dict[str, Any]]:  # fmt: skip
    from ..skills.lifecycle import archive_skill

    report = []
    for item in skills:
        name = item["skill"]
        if not item["unchanged_since"]:
            report.append({"skill": name, "left_alone": "changed since the session"})
            continue
        if item["created"]:
            plan = {"skill": name, "undo": "archive (restorable)"}
            if not dry_run:
                with writing_as(APP, action="revert", reverts=session_id):
                    outcome = archive_skill(home, name)
                plan["ok" if outcome.ok else "error"] = outcome.message
            report.append(plan)
            continue
        if item["before"] is None:
            report.append({"skill": name, "left_alone": "no earlier version in history"})
            continue
        plan = {"skill": name, "undo": f"restore version {item['before']}"}
        if not dry_run:
            before = timeline.get(item["before"])
            with writing_as(APP, action="revert", reverts=session_id):
                outcome = _restore_skill(home, timeline, before)
            plan["ok" if outcome.get("ok") else "error"] = outcome.get("message") or outcome.get("error")
        report.append(plan)
    return report
