"""Where a memory entry came from: the sessions in which the agent wrote it.

The agent writes memory through its ``memory`` tool, and every call is recorded in
``state.db`` as an assistant message whose ``tool_calls`` JSON names the function
``memory``. An entry's provenance is the list of single ``add``/``replace`` calls, or
batch ``operations`` items, whose ``content`` contains the entry text (whitespace
normalised). Calls whose tool result says ``"success": false`` are left out: a blocked or
over-budget write did not put anything on disk.

:func:`memory_provenance` answers for many entries with one pass over the table, so the
graph builder can date every memory card at once. :func:`memory_calls` is that pass: the
agent's memory calls that were not refused, in time order, which history replays
(``history import-sessions``) and matches with captured versions (``sessions taught``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..home import HermesHome
from .store import SessionStore

WRITE_ACTIONS = ("add", "replace")


@dataclass(frozen=True)
class ProvenanceEvent:
    """One memory-tool write that produced (or restated) an entry."""

    session_id: str
    message_id: int
    timestamp: float
    action: str  # "add" | "replace"
    target: str | None  # "memory" | "user"
    source: str | None  # the session's platform (cli, telegram, cron...)
    tool_call_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "message_id": self.message_id,
            "timestamp": self.timestamp,
            "action": self.action,
            "target": self.target,
            "source": self.source,
        }


@dataclass
class Provenance:
    entry: str
    events: list[ProvenanceEvent] = field(default_factory=list)

    @property
    def first_seen(self) -> float | None:
        """Epoch seconds of the first write that contained the entry, if any."""
        return min((e.timestamp for e in self.events), default=None)

    @property
    def last_changed(self) -> float | None:
        """Epoch seconds of the latest write that contained the entry, if any."""
        return max((e.timestamp for e in self.events), default=None)

    @property
    def sessions(self) -> list[str]:
        return list(dict.fromkeys(e.session_id for e in self.events))

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.entry,
            "first_seen": self.first_seen,
            "last_changed": self.last_changed,
            "sessions": self.sessions,
            "events": [e.to_dict() for e in self.events],
        }


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _memory_calls(tool_calls: Any) -> Iterator[tuple[str | None, dict[str, Any]]]:
    """``(tool_call_id, arguments)`` of each ``memory`` call in a tool_calls JSON value."""
    calls = _json(tool_calls)
    if isinstance(calls, dict):
        calls = [calls]
    if not isinstance(calls, list):
        return
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else call
        if function.get("name") != "memory":
            continue
        arguments = _json(function.get("arguments"))
        if isinstance(arguments, dict):
            yield call.get("id"), arguments


def _writes(arguments: dict[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """``(action, target, content)`` for every add/replace in one call's arguments."""
    for action, target, content, _old in write_ops(arguments):
        if action in WRITE_ACTIONS and content:
            yield action, target, content


def write_ops(arguments: dict[str, Any]) -> list[tuple[str, str | None, str | None, str | None]]:
    """``(action, target, content, old_text)`` for every add/replace/remove in one call's
    arguments, batches flattened (``new_text`` is an alias of ``content``, as upstream)."""
    target = arguments.get("target")
    operations = arguments.get("operations")
    batched = isinstance(operations, list) and bool(operations)
    ops = [op for op in operations if isinstance(op, dict)] if batched else [arguments]
    found = []
    for op in ops:
        action = op.get("action")
        if action not in ("add", "replace", "remove"):
            continue
        content = op.get("content", op.get("new_text"))
        content = content.strip() if isinstance(content, str) and content.strip() else None
        old_text = op.get("old_text")
        old_text = old_text.strip() if isinstance(old_text, str) and old_text.strip() else None
        op_target = op.get("target", target) if batched else target
        found.append((action, op_target if isinstance(op_target, str) else None, content, old_text))
    return found


@dataclass(frozen=True)
class MemoryCall:
    """One ``memory`` tool call the agent made and that was not refused."""

    session_id: str
    message_id: int
    timestamp: float
    source: str | None
    call_id: str | None
    arguments: dict[str, Any]

    @property
    def ops(self) -> list[tuple[str, str | None, str | None, str | None]]:
        return write_ops(self.arguments)


#: Clocks and writers are not perfectly ordered; the id search starts this much earlier.
SINCE_SLACK_SECONDS = 3600.0


def _first_id_after(store: SessionStore, when: float) -> int:
    """A message id at or before the first message later than ``when``, found by a binary
    search over the primary key (``timestamp`` has no index of its own)."""
    bounds = store.query_one("SELECT MIN(id), MAX(id) FROM messages")
    low, high = (bounds[0], bounds[1]) if bounds and bounds[0] is not None else (0, 0)
    while low < high:
        middle = (low + high) // 2
        row = store.query_one("SELECT id, timestamp FROM messages WHERE id >= ? ORDER BY id LIMIT 1", (middle,))
        if row is None or float(row["timestamp"] or 0) > when:
            high = middle
        else:
            low = row["id"] + 1
    return low


def memory_calls(
    db: HermesHome | str | os.PathLike[str] | SessionStore,
    *,
    since: float | None = None,
    session_id: str | None = None,
) -> list[MemoryCall]:
    """The agent's memory calls in time order, from one table scan, without the ones its
    tool result says were refused (``"success": false``). ``since`` keeps calls after
    that time; ``session_id`` one session's."""
    where, params = "", []
    if session_id is not None:
        where += " AND m.session_id = ?"
        params.append(session_id)
    store = SessionStore.open(db)
    try:
        if since is not None:
            # Message ids grow with time: start the scan near the first message after
            # ``since`` instead of at the first message ever (a capture runs this often).
            where += " AND m.id >= ? AND m.timestamp > ?"
            params += [_first_id_after(store, since - SINCE_SLACK_SECONDS), since]
        rows = store.query(
            f"""
            SELECT m.id, m.session_id, m.role, m.timestamp, m.tool_calls, m.tool_call_id,
                   m.content, s.source
            FROM messages m LEFT JOIN sessions s ON s.id = m.session_id
            WHERE ((m.role = 'assistant' AND m.tool_calls LIKE '%memory%')
               OR (m.role = 'tool' AND (m.tool_name = 'memory' OR m.tool_name IS NULL)
                   AND m.content LIKE '%success%')){where}
            ORDER BY m.timestamp, m.id
            """,
            params,
        )
    finally:
        if store is not db:
            store.close()
    # A tool result answers the latest call with its id in that session (providers reuse
    # ids such as call_1 from turn to turn), so results are matched as the scan goes.
    calls: list[MemoryCall] = []
    latest: dict[tuple[str, str], list[int]] = {}
    failed: set[int] = set()  # positions in ``calls`` whose write was refused
    for row in rows:
        if row["role"] == "tool":
            key = (row["session_id"], row["tool_call_id"])
            if row["tool_call_id"] and _failed(row["content"]):
                failed.update(latest.get(key, ()))
            continue
        for call_id, arguments in _memory_calls(row["tool_calls"]):
            if call_id:
                latest[(row["session_id"], call_id)] = [len(calls)]
            calls.append(MemoryCall(row["session_id"], row["id"], float(row["timestamp"] or 0),
                                    row["source"], call_id, arguments))  # fmt: skip
    return [call for position, call in enumerate(calls) if position not in failed]


def _failed(content: Any) -> bool:
    result = _json(content)
    return isinstance(result, dict) and result.get("success") is False


def memory_provenance(
    db: HermesHome | str | os.PathLike[str] | SessionStore, entries: Iterable[str]
) -> dict[str, Provenance]:
    """Provenance for each entry (keyed by the entry text as given), from one table scan.

    Entries no session wrote (typed by a person, or older than the history) get a
    :class:`Provenance` with no events and ``None`` dates. Rewound and compacted rows
    count: undoing a turn does not undo the memory file write it made.
    """
    wanted = list(dict.fromkeys(e for e in entries if isinstance(e, str)))
    result = {entry: Provenance(entry) for entry in wanted}
    needles = [(entry, _normalise(entry)) for entry in wanted if _normalise(entry)]
    if not needles:
        return result
    for call in memory_calls(db):
        for action, target, content in _writes(call.arguments):
            written = _normalise(content)
            for entry, needle in needles:
                if needle in written:
                    result[entry].events.append(ProvenanceEvent(
                        session_id=call.session_id,
                        message_id=call.message_id,
                        timestamp=call.timestamp,
                        action=action,
                        target=target,
                        source=call.source,
                        tool_call_id=call.call_id,
                    ))  # fmt: skip
    return result
