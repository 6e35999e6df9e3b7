"""Small providers that record what the manager hands them."""

from __future__ import annotations

import threading
from typing import Any

from hermes_memory.providers import MemoryProvider, RecallStatus


class RecordingProvider(MemoryProvider):
    """An external provider that records every call in ``calls`` (thread-safe)."""

    def __init__(
        self, name: str = "recorder", *, tools: list[dict] | None = None, log: list | None = None
    ):
        self._name = name
        self._tools = tools or []
        self.calls: list[tuple] = []
        self.shared_log = log  # cross-provider ordering, e.g. shutdown order
        self._lock = threading.Lock()
        self.prefetch_result = ""
        self.recall: RecallStatus | None = None

    def _record(self, *entry: Any) -> None:
        with self._lock:
            self.calls.append(entry)
        if self.shared_log is not None:
            self.shared_log.append((self._name, entry[0]))

    def named(self, method: str) -> list[tuple]:
        return [call for call in self.calls if call[0] == method]

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        self._record("initialize", session_id, kwargs)

    def get_tool_schemas(self) -> list[dict]:
        return list(self._tools)

    def system_prompt_block(self) -> str:
        return f"{self._name} block"

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        self._record("prefetch", query, session_id)
        return self.prefetch_result

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        self._record("queue_prefetch", query, session_id)

    def recall_status(self):
        return self.recall

    def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None) -> None:
        self._record("sync_turn", user_content, assistant_content, session_id, messages)

    def handle_tool_call(self, tool_name: str, args: dict, **kwargs: Any) -> str:
        self._record("handle_tool_call", tool_name, args)
        return '{"ok": true}'

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        self._record("on_turn_start", turn_number, message, kwargs)

    def on_session_end(self, messages) -> None:
        self._record("on_session_end", messages)

    def on_session_switch(
        self, new_session_id, *, parent_session_id="", reset=False, rewound=False, **kwargs
    ):
        self._record(
            "on_session_switch",
            new_session_id,
            parent_session_id,
            reset,
            {**kwargs, "rewound": rewound},
        )

    def on_memory_write(self, action, target, content, metadata=None) -> None:
        self._record("on_memory_write", action, target, content, metadata)

    def on_delegation(self, task, result, *, child_session_id="", **kwargs) -> None:
        self._record("on_delegation", task, result, child_session_id)

    def shutdown(self) -> None:
        self._record("shutdown")


class FailingProvider(RecordingProvider):
    """Raises from every hook the manager isolates."""

    def _fail(self, method: str):
        self._record(method)
        raise RuntimeError(f"{method} exploded")

    def initialize(self, session_id, **kwargs):
        self._fail("initialize")

    def system_prompt_block(self):
        self._fail("system_prompt_block")

    def prefetch(self, query, *, session_id=""):
        self._fail("prefetch")

    def queue_prefetch(self, query, *, session_id=""):
        self._fail("queue_prefetch")

    def recall_status(self):
        self._fail("recall_status")

    def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None):
        self._fail("sync_turn")

    def handle_tool_call(self, tool_name, args, **kwargs):
        self._fail("handle_tool_call")

    def on_turn_start(self, turn_number, message, **kwargs):
        self._fail("on_turn_start")

    def on_session_end(self, messages):
        self._fail("on_session_end")

    def on_memory_write(self, action, target, content, metadata=None):
        self._fail("on_memory_write")

    def on_delegation(self, task, result, *, child_session_id="", **kwargs):
        self._fail("on_delegation")

    def shutdown(self):
        self._fail("shutdown")


class BuiltinStandIn(RecordingProvider):
    """A provider named "builtin", to check the manager's builtin rules without a store."""

    def __init__(self, **kwargs: Any):
        super().__init__("builtin", **kwargs)

    def system_prompt_block(self) -> str:
        return "BUILTIN BLOCK"


def tool(name: str) -> dict:
    return {
        "name": name,
        "description": f"the {name} tool",
        "parameters": {"type": "object", "properties": {}},
    }
