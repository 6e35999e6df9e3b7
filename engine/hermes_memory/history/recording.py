"""Recording versions: the hooks the engine's writers call, and who is writing.

:func:`record_memory_write` runs inside ``MemoryStore.mutate`` while the store lock is
held, right after the atomic write: if the file on disk had changed since the last
recorded version (the agent or a person wrote it), that state is recorded first, then the
new one. :func:`record_skill_change` runs right after a skill's SKILL.md, pin, state,
archive or restore changed. Both are telemetry: a history failure is logged and never
undoes or blocks the write itself.

Who writes is a context variable: engine writes default to ``app`` (this app or its CLI);
:func:`writing_as` sets another origin, a session id, or extra event fields (``restore``
marks its version as restoring another).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import time
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..home import HermesHome
from ..memory.entries import serialise_entries
from .storage import HistoryStore, content_hash, encode_entries

if TYPE_CHECKING:
    from ..memory.store import StoreFile
    from .stamps import SkillStamps

log = logging.getLogger(__name__)

#: Who made a change, as recorded (upstream's two write origins, then ours).
FOREGROUND = "foreground"  # the agent, in a conversation
BACKGROUND_REVIEW = "background_review"  # the agent's background review or curator
APP = "app"  # this app or its CLI
HAND = "hand"  # a person editing the files by hand (or another tool)
UNKNOWN = "unknown"
ORIGINS = (FOREGROUND, BACKGROUND_REVIEW, APP, HAND, UNKNOWN)
#: The optional event fields a log summary shows: what a version restores or reverts,
#: where an imported write came from, for a staged write who approved it (the
#: proposer is the origin) or, when a person edited it first, who had proposed it, and
#: the support files a skill change wrote or removed.
SUMMARY_EXTRAS = ("restores", "reverts", "source", "platform", "approved_by", "proposed_by", "files")
ORIGIN_LABELS = {
    FOREGROUND: "agent",
    BACKGROUND_REVIEW: "background review",
    APP: "this app",
    HAND: "by hand",
    UNKNOWN: "unknown",
}

_writer: ContextVar[dict[str, Any] | None] = ContextVar("hermes_history_writer", default=None)


@contextlib.contextmanager
def writing_as(origin: str = APP, session: str | None = None, **fields: Any) -> Iterator[None]:
    """Record the engine writes made inside this block with ``origin``, ``session`` and
    any extra event ``fields`` (for example ``action="restore", restores=ID``)."""
    values = {"origin": origin, **fields}
    if session:
        values["session"] = session
    token = _writer.set(values)
    try:
        yield
    finally:
        _writer.reset(token)


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def hashes_of(entries: list[str]) -> list[str]:
    return [content_hash(entry) for entry in entries]


def memory_event(
    target: str,
    entries: list[str],
    raw: str | None,
    *,
    origin: str,
    action: str,
    ts: float | None = None,
    blobs: dict[str, str],
    known: set[str] | frozenset[str] = frozenset(),
    parent: list[str] | None = None,
    depth: int = 0,
    **fields: Any,
) -> dict[str, Any]:
    """A memory version event, stored as an edit of ``parent`` (the hashes of the version
    before it, ``depth`` edits after a full one) when that is smaller; the texts it needs
    that ``known`` lacks go into ``blobs``."""
    hashes = hashes_of(entries)
    for digest, entry in zip(hashes, entries, strict=True):
        if digest not in known:
            blobs[digest] = entry
    event: dict[str, Any] = {
        "id": new_id(), "ts": round(time.time() if ts is None else ts, 6), "kind": target,
        "action": action, "origin": origin, "n": len(hashes),
        **encode_entries(hashes, parent, depth),
    }  # fmt: skip
    old, new = set(parent or ()), set(hashes)
    event["added"], event["removed"] = len(new - old), len(old - new)  # so a log needs no replay
    if raw is not None and raw.strip() and raw != serialise_entries(entries):
        digest = content_hash(raw)  # the file is not in the tool's exact form: keep its text
        event["raw"] = digest
        if digest not in known:
            blobs[digest] = raw
    event.update({key: value for key, value in fields.items() if value is not None})
    return event


def next_depth(event: dict[str, Any], depth: int) -> int:
    return 0 if "entries" in event else depth + 1


def same_version(head: tuple[dict[str, Any], list[str], int] | None, entries: list[str], raw: str | None) -> bool:
    """True when ``entries`` and ``raw`` are the version ``head`` (from ``HistoryStore.head``)."""
    if head is None:
        return not entries and not (raw or "").strip()
    event, hashes, _depth = head
    if hashes != hashes_of(entries):
        return False
    exact = raw is not None and raw.strip() and raw != serialise_entries(entries)
    return event.get("raw") == (content_hash(raw) if exact else None)


def record_memory_write(home: HermesHome, target: str, before: StoreFile, after: list[str]) -> None:
    """Record ``before`` (if history had not seen it) and ``after`` for one engine write."""
    try:
        store = HistoryStore(home)
        with store.locked():
            head = store.head(target)
            parent, depth = (head[1], head[2]) if head else (None, 0)
            known = set(parent or ())
            blobs: dict[str, str] = {}
            events = []
            if not same_version(head, before.entries, before.raw):
                events.append(memory_event(
                    target, before.entries, before.raw, origin=UNKNOWN, action="capture",
                    blobs=blobs, known=known, parent=parent, depth=depth,
                ))  # fmt: skip
                parent, depth = hashes_of(before.entries), next_depth(events[0], depth)
                known |= set(parent)
            writer = dict(_writer.get() or {})
            origin = writer.pop("origin", APP)
            action = writer.pop("action", "write")
            events.append(
                memory_event(target, after, None, origin=origin, action=action, blobs=blobs,
                             known=known, parent=parent, depth=depth, **writer)  # fmt: skip
            )
            store.append(events, blobs)
    except Exception as exc:  # noqa: BLE001 - history must never fail a write that happened
        log.warning("history not recorded for %s: %s", target, exc)


@functools.lru_cache(maxsize=16)
def archive_prefix(home: HermesHome) -> str:
    """The archive folder's path with a trailing separator: what an archived skill's folder starts with."""
    return os.path.join(str(home.skills_archive_dir), "")


def skill_state(
    home: HermesHome,
    name: str,
    directory: str | Path | None,
    usage: Any = None,
    record: dict[str, Any] | None = None,
    stamps: SkillStamps | None = None,
) -> dict[str, Any]:
    """The recorded fields of one skill now: SKILL.md hash and text, pin and state.

    ``record``: its ``.usage.json`` record as the caller just wrote it, saving a read;
    ``usage``: the home's usage records, read once by a caller that asks for many skills
    (else read here; reading them per skill made a capture quadratic in the skills);
    ``stamps``: a SKILL.md unchanged since they last saw it is not read, and its
    ``text`` is None though its ``md`` is known."""
    from ..skills.usage import read_usage  # skills imports this module: import late

    text = md = None
    if directory is not None:
        skill_md = os.path.join(directory, "SKILL.md")
        info = None
        if stamps is not None:
            info, md = stamps.look(skill_md)
        if md is None and (stamps is None or info is not None):
            with contextlib.suppress(OSError, UnicodeDecodeError), open(skill_md, "rb") as file:
                text = file.read().decode("utf-8")
            md = content_hash(text) if text is not None else None
            if info is not None and md is not None:
                stamps.remember(skill_md, info, md)
    if record is None:
        record = (usage if usage is not None else read_usage(home)).record(name)
    # (string tests: Path.parents per skill was a third of a capture at 10,000 skills)
    archived = directory is not None and str(directory).startswith(archive_prefix(home))
    state = "missing" if md is None else "archived" if archived else "active"
    if state == "active" and record.get("state") not in (None, "", "active", "archived"):
        state = str(record["state"])  # "stale" and states we do not know
    return {
        "md": md,
        "text": text,
        "pinned": bool(record.get("pinned")),
        "state": state,
    }


def skill_event(name: str, state: dict[str, Any], *, origin: str, action: str, ts: float | None = None,
                **fields: Any) -> dict[str, Any]:  # fmt: skip
    event = {
        "id": new_id(), "ts": round(time.time() if ts is None else ts, 6), "kind": "skill",
        "skill": name, "action": action, "origin": origin, "md": state["md"],
        "pinned": state["pinned"], "state": state["state"],
    }  # fmt: skip
    event.update({key: value for key, value in fields.items() if value is not None})
    return event


def record_skill_changes(
    home: HermesHome, changes: list[tuple[str, str, str | Path | None, dict[str, Any] | None]]
) -> None:
    """:func:`record_skill_change` for many skills (``(name, action, directory, record)``
    each) at once: one lock, one pass over the log's tail for their last events, one
    append, so a batch of 500 costs about what one change does."""
    if not changes:
        return
    try:
        states = [(name, action, skill_state(home, name, directory, record=record))
                  for name, action, directory, record in changes]  # fmt: skip
        store = HistoryStore(home)
        with store.locked():
            heads = _last_skill_events(store, {name for name, _, _ in states})
            writer = dict(_writer.get() or {})
            origin = writer.pop("origin", APP)
            writer.pop("action", None)
            events, blobs = [], {}
            for name, action, state in states:
                events.append(skill_event(name, state, origin=origin, action=action, **writer))
                head = heads.get(name)
                if state["text"] is not None and (head is None or head.get("md") != state["md"]):
                    blobs[state["md"]] = state["text"]
            store.append(events, blobs)
    except Exception as exc:  # noqa: BLE001 - history must never fail a change that happened
        log.warning("history not recorded for %d skill(s): %s", len(changes), exc)


def _last_skill_events(store: HistoryStore, names: set[str]) -> dict[str, dict[str, Any]]:
    """The newest recorded event of each named skill, in one backwards read."""
    heads: dict[str, dict[str, Any]] = {}
    for event in store._backwards({"kind": "skill"}):
        name = event.get("skill")
        if name in names and name not in heads:
            heads[name] = event
            if len(heads) == len(names):
                break
    return heads


def record_skill_change(
    home: HermesHome, name: str, action: str, directory: str | Path | None, *, before_text: str | None = None,
    record: dict[str, Any] | None = None, files: list[str] | None = None,
) -> None:
    """Record a skill's state after an engine change (``before_text``: its SKILL.md as
    the engine found it, recorded first when history had not seen that text; ``record``:
    its ``.usage.json`` record as just written, else it is read; ``files``: the support
    files the change wrote or removed, relative to the skill's folder)."""
    try:
        state = skill_state(home, name, directory, record=record)
        store = HistoryStore(home)
        with store.locked():
            head = store.last_event({"kind": "skill", "skill": name})
            events, blobs = [], {}
            if before_text is not None and (head is None or head.get("md") != content_hash(before_text)):
                before = {**state, "md": content_hash(before_text), "text": before_text}
                events.append(skill_event(name, before, origin=UNKNOWN, action="capture"))
                blobs[before["md"]] = before_text
            writer = dict(_writer.get() or {})
            origin = writer.pop("origin", APP)
            writer.pop("action", None)
            if files:
                writer["files"] = list(files)
            events.append(skill_event(name, state, origin=origin, action=action, **writer))
            if state["text"] is not None and (head is None or head.get("md") != state["md"]):
                blobs[state["md"]] = state["text"]
            store.append(events, blobs)
    except Exception as exc:  # noqa: BLE001 - history must never fail a change that happened
        log.warning("history not recorded for skill %s: %s", name, exc)
