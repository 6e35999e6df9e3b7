"""``history capture``: record what someone else changed since the last recorded version.

The agent, a person with an editor, or another tool may write MEMORY.md, USER.md and
skills without going through this engine. A capture compares each with the newest
version history holds (ours, or the curator ledger's for skills) and records any
difference, under the store's own lock for memory files so it never reads half a write.

Who made a captured change is worked out, not guessed blindly:

* every new or edited entry matches a ``memory`` call in ``state.db`` made since the last
  version: the agent (``foreground``), with its session(s);
* otherwise, when the file is not in the exact form the memory tool writes (entries
  joined by delimiters, nothing else; an editor leaves a trailing newline, blank lines,
  CRLF or ``##`` sections): a person by hand;
* otherwise ``unknown``. A skill change the curator ledger already explains is not
  recorded twice; who made any other skill change is worked out by :mod:`.skill_origin`
  from the ledger and ``state.db``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..fileio import LockTimeout, file_lock
from ..home import HermesHome
from ..memory.entries import TARGETS, serialise_entries
from ..memory.store import MemoryStore, StoreReadError, read_store_file
from ..sessions.errors import SessionStoreError
from ..sessions.provenance import memory_calls
from .recording import (
    FOREGROUND,
    HAND,
    UNKNOWN,
    memory_event,
    same_version,
    skill_event,
    skill_state,
)
from .skill_origin import skill_origin
from .stamps import SkillStamps
from .storage import HistoryError, HistoryStore, content_hash
from .timeline import Timeline, entry_diff


def _normalise(text: str) -> str:
    return " ".join(text.split())


def attribute(
    home: HermesHome, target: str, old: list[str], new: list[str], since: float | None, drifted: bool
) -> dict[str, Any]:
    """The ``origin``/``session``/``sessions``/``taught`` fields of a captured version."""
    diff = entry_diff(old, new)
    written = diff["added"] + [pair["after"] for pair in diff["changed"]]
    gone = diff["removed"] + [pair["before"] for pair in diff["changed"]]
    calls = []
    if home.state_db.is_file() and (written or gone):
        try:
            calls = memory_calls(home, since=since)
        except SessionStoreError:
            calls = []
    ops = [(call.session_id, action, content, old_text)
           for call in reversed(calls) for action, op_target, content, old_text in call.ops
           if (op_target or "memory") == target]  # fmt: skip
    taught: dict[str, str] = {}
    for entry in written:
        needle = _normalise(entry)
        for session, _action, content, _old in ops:
            if content and needle in _normalise(content):
                taught[content_hash(entry)] = session
                break
    sessions = list(dict.fromkeys(taught.values()))
    for entry in gone:
        for session, action, _content, old_text in ops:
            if action in ("replace", "remove") and old_text and old_text in entry:
                if session not in sessions:
                    sessions.append(session)
                break
    if sessions and len(taught) == len(written):
        origin = FOREGROUND
    elif drifted:
        origin = HAND
    else:
        origin = UNKNOWN
    fields: dict[str, Any] = {"origin": origin}
    if len(sessions) == 1:
        fields["session"] = sessions[0]
    elif sessions:
        fields["sessions"] = sessions
        fields["taught"] = taught
    return fields


def capture_memory(home: HermesHome, target: str, store: HistoryStore) -> dict[str, Any] | None:
    """Record ``target``'s file if it differs from its newest version; the new event."""
    path = home.store_file(target)
    lock_timeout = MemoryStore(home).lock_timeout
    with file_lock(path, lock_timeout):
        current = read_store_file(path)
        with store.locked():
            head = store.head(target)
            if same_version(head, current.entries, current.raw):
                return None
            parent, depth = (head[1], head[2]) if head else (None, 0)
            old = []
            if parent is not None:
                blobs = store.read_blobs(set(parent))
                old = [blobs.get(h, "") for h in parent]
            # the memory tool writes exactly its entries joined by delimiters; an editor
            # leaves a trailing newline, blank lines, CRLF or ## sections behind
            drifted = bool(current.raw.strip()) and current.raw != serialise_entries(current.entries)
            fields = attribute(home, target, old, current.entries, head[0]["ts"] if head else None, drifted)
            blobs_out: dict[str, str] = {}
            event = memory_event(
                target, current.entries, current.raw, action="capture", blobs=blobs_out,
                known=set(parent or ()), parent=parent, depth=depth, **fields,
            )  # fmt: skip
            store.append([event], blobs_out)
            return event


def _local_skills(home: HermesHome, usage: Any = None, scanned_after_ns: int | None = None) -> dict[str, str]:
    """``name -> directory`` of the skills in this home's own skills folder (``usage``:
    the usage records, if the caller has read them; ``scanned_after_ns``: see :func:`capture`)."""
    from ..skills.lifecycle import list_archived
    from ..skills.shared_index import shared_index

    found: dict[str, str] = {}
    for item in reversed(list_archived(home, usage)):  # newest archive last, so it wins
        found[item.name] = item.path
    index = shared_index(home)  # the open graph's index, if any: only changed files are read
    scan = (index.scanned_after(scanned_after_ns) if scanned_after_ns is not None else None) or index.scan()
    root = home.skills_dir.resolve()
    own: dict[str, bool] = {}  # a skill root's path -> is it this home's folder (resolved once)
    for skill in scan.skills:
        key = str(skill.root.path)
        if key not in own:
            own[key] = Path(key).resolve() == root
        if own[key]:
            found[skill.name] = skill.directory
    return found


def capture_skills(home: HermesHome, store: HistoryStore, scanned_after_ns: int | None = None) -> list[dict[str, Any]]:
    from ..skills.usage import read_usage_shared  # (skills imports the history: import late)

    timeline = Timeline(home, lazy=True)  # skill versions need no memory replays
    usage = read_usage_shared(home)  # once for all the skills (read-only here)
    skills = _local_skills(home, usage, scanned_after_ns)
    names = set(skills) | {
        name for name in timeline.skill_names()
        if timeline.skill_fields(timeline.latest("skill", name))["state"] != "missing"
    }  # fmt: skip
    stamps = SkillStamps(store)  # SKILL.md files unchanged since the last capture are not read
    events, blobs = [], {}
    for name in sorted(names):
        state = skill_state(home, name, skills.get(name), usage=usage, stamps=stamps)
        head = timeline.latest("skill", name)
        known = timeline.skill_fields(head)
        same_text = (known["md"] or "")[:20] == (state["md"] or "")
        pin_known = head is not None and head.get("source") != "ledger"
        if same_text and known["state"] == state["state"] and (
            known["pinned"] == state["pinned"] or not pin_known and not state["pinned"]
        ):
            continue
        if state["text"] is None and state["md"] is not None:  # known by its stamp: its text is needed now
            state = skill_state(home, name, skills.get(name), usage=usage)
        ledger = [event for event in timeline.chain("skill", name) if event.get("source") == "ledger"]
        events.append(skill_event(name, state, action="capture", **skill_origin(home, name, state, head, ledger)))
        if state["text"] is not None:
            blobs[state["md"]] = state["text"]
    if events:
        with store.locked():
            store.append(events, blobs)
    stamps.save()  # (after the versions: a capture that failed stamps nothing)
    return events


def capture(home: HermesHome, scanned_after_ns: int | None = None) -> dict[str, Any]:
    """Record every change made outside this engine since the last recorded versions.

    ``scanned_after_ns`` (``time.time_ns()``): a caller that watches the home for every
    change since then (the app, at open) lets this trust a scan of the skills that this
    process started after it (the graph's), instead of checking every folder again."""
    store = HistoryStore(home)
    recorded, problems = [], []
    for target in TARGETS:
        try:
            event = capture_memory(home, target, store)
        except (StoreReadError, LockTimeout, HistoryError) as exc:
            problems.append(str(exc))
            continue
        if event:
            recorded.append(event)
    if home.skills_dir.is_dir():
        try:
            recorded += capture_skills(home, store, scanned_after_ns)
        except (HistoryError, OSError) as exc:
            problems.append(str(exc))
    return {"ok": not problems, "recorded": len(recorded),
            "events": [e["id"] for e in recorded], "problems": problems}  # fmt: skip
