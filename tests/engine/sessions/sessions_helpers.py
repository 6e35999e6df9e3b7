"""Builders for generated state.db files, shared by the session-history tests.

(A module with its own name rather than conftest, so test modules can import it without
clashing with the other test folders' conftest modules.)
"""

from __future__ import annotations

import json
from pathlib import Path

from hermes_memory.sessions import SessionWriter

#: 2023-11-14 22:13:20 UTC; every generated timestamp counts from here.
T0 = 1_700_000_000.0


def memory_call(call_id: str, **arguments) -> list[dict]:
    """An assistant ``tool_calls`` value with one ``memory`` call."""
    return [{"id": call_id, "type": "function",
             "function": {"name": "memory", "arguments": json.dumps(arguments)}}]  # fmt: skip


class Corpus:
    """A small writer front that numbers timestamps so tests can predict every value."""

    def __init__(self, path: Path):
        self.path = path
        self.writer = SessionWriter(path)
        self.clock = T0

    def session(self, sid: str, source: str = "cli", *, at: float | None = None, **kwargs) -> str:
        started = self.clock if at is None else at
        self.clock = max(self.clock, started)
        return self.writer.create_session(sid, source, started_at=started, **kwargs)

    def say(self, sid: str, role: str, content: str | None = None, **kwargs) -> int:
        self.clock += 10
        kwargs.setdefault("timestamp", self.clock)
        return self.writer.append_message(sid, role, content, **kwargs)

    def end(self, sid: str, reason: str) -> None:
        self.clock += 10
        self.writer.end_session(sid, reason, ended_at=self.clock)

    def close(self) -> Path:
        self.writer.close()
        return self.path
