"""How session data is shown to a model or a person: dates, links, capped message text."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")

#: The root home has no profile directory; Hermes calls it "default".
DEFAULT_PROFILE = "default"


def format_when(timestamp: float | None) -> str:
    """``March 05, 2025 at 02:30 PM`` in local time (the format upstream shows the model)."""
    if timestamp is None:
        return ""
    try:
        return datetime.fromtimestamp(float(timestamp)).strftime("%B %d, %Y at %I:%M %p")
    except (OverflowError, OSError, ValueError):
        return ""


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def session_link(session_id: str, profile: str | None) -> str:
    """``@session:<profile>/<id>``, or a bare ``@session:<id>`` when the profile is unknown."""
    if not profile or profile == "custom":
        return f"@session:{session_id}"
    return f"@session:{profile}/{session_id}"


def present_message(
    message: dict[str, Any], cap: int, *, anchor_id: int | None = None
) -> dict[str, Any]:
    """A message for a tool response: ANSI stripped, content capped at ``cap`` characters.

    A capped content ends with ``…`` and the dict gains ``content_truncated`` and
    ``original_content_chars``.
    """
    content = strip_ansi(message.get("content") or "")
    item: dict[str, Any] = {
        "id": message["id"],
        "role": message["role"],
        "content": content,
        "timestamp": message.get("timestamp"),
    }
    if message.get("tool_name"):
        item["tool_name"] = message["tool_name"]
    if message.get("tool_calls"):
        calls = message["tool_calls"]
        names = [
            (call.get("function") or {}).get("name") or call.get("name")
            for call in calls
            if isinstance(call, dict)
        ] if isinstance(calls, list) else []
        item["tool_calls"] = [name for name in names if name]
    if len(content) > cap:
        item["content"] = content[: max(0, cap - 1)] + "…"
        item["content_truncated"] = True
        item["original_content_chars"] = len(content)
    if anchor_id is not None and message["id"] == anchor_id:
        item["anchor"] = True
    return item
