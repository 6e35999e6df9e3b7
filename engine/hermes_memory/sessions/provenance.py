"""Where a memory entry came from: the sessions in which the agent wrote it.

The agent writes memory through its ``memory`` tool, and every call is recorded in
``state.db`` as an assistant message whose ``tool_calls`` JSON names the function
``memory``. An entry's provenance is the list of single ``add``/``replace`` calls, or
batch ``operations`` items, whose ``content`` contains the entry text (whitespace
normalised). Calls whose tool result says ``"success": false`` are left out: a blocked or
over-budget write did not put anything on disk.

:func:`memory_provenance` answers for many entries with one pass over the table, so the
graph builder can date every memory card at once.
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
    target = arguments.get("target")
    operations = arguments.get("operations")
    if isinstance(operations, list) and operations:
        for op in operations:
            if isinstance(op, dict) and op.get("action") in WRITE_ACTIONS:
                content = op.get("content")
                if isinstance(content, str) and content.strip():
                    yield op["action"], op.get("target", target), content
        return
    action, content = arguments.get("action"), arguments.get("content")
    if action in WRITE_ACTIONS and isinstance(content, str) and content.strip():
        yield action, target, content


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
    store = SessionStore.open(db)
    try:
        # One pass: the memory calls and the memory tool's results, in time order.
        rows = store.query(
            """
            SELECT m.id, m.session_id, m.role, m.timestamp, m.tool_calls, m.tool_call_id,
                   m.content, s.source
            FROM messages m LEFT JOIN sessions s ON s.id = m.session_id
            WHERE (m.role = 'assistant' AND m.tool_calls LIKE '%memory%')
               OR (m.role = 'tool' AND (m.tool_name = 'memory' OR m.tool_name IS NULL)
                   AND m.content LIKE '%success%')
            ORDER BY m.timestamp, m.id
            """
        )
    finally:
        if store is not db:
            store.close()

    # A tool result answers the latest call with its id in that session (providers reuse
    # ids such as call_1 from turn to turn), so results are matched as the scan goes.
    latest: dict[tuple[str, str], list[tuple[str, ProvenanceEvent]]] = {}
    failed: set[int] = set()  # id() of events whose write was refused
    for row in rows:
        if row["role"] == "tool":
            key = (row["session_id"], row["tool_call_id"])
            if row["tool_call_id"] and _failed(row["content"]):
                failed.update(id(event) for _, event in latest.get(key, []))
            continue
        for call_id, arguments in _memory_calls(row["tool_calls"]):
            produced = []
            for action, target, content in _writes(arguments):
                written = _normalise(content)
                for entry, needle in needles:
                    if needle in written:
                        event = ProvenanceEvent(
                            session_id=row["session_id"],
                            message_id=row["id"],
                            timestamp=float(row["timestamp"]),
                            action=action,
                            target=target,
                            source=row["source"],
                            tool_call_id=call_id,
                        )
                        produced.append((entry, event))
            if call_id:
                latest[(row["session_id"], call_id)] = produced
            for entry, event in produced:
                result[entry].events.append(event)
    if failed:
        for provenance in result.values():
            provenance.events = [e for e in provenance.events if id(e) not in failed]
    return result
