"""How session data is shown to a model or a person: dates, links, capped message text."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")

#: The root home has no profile directory; Hermes calls it "default".
DEFAULT_PROFILE = "default"


def format_when(timestamp: float | str | None) -> str:
    """``March 05, 2025 at 02:30 PM`` in local time, as upstream shows the model.

    ``"unknown"`` when there is no timestamp; a string that is not a number is shown as
    it is, and one that cannot be converted as its text (upstream's rules).
    """
    if timestamp is None:
        return "unknown"
    try:
        if isinstance(timestamp, str):
            if not timestamp.replace(".", "").replace("-", "").isdigit():
                return timestamp
            timestamp = float(timestamp)
        return datetime.fromtimestamp(float(timestamp)).strftime("%B %d, %Y at %I:%M %p")
    except (OverflowError, OSError, ValueError, TypeError):
        return str(timestamp)


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
    """A message for a tool response, shaped as upstream's: ANSI stripped, content capped.

    A capped content ends with ``…`` and the dict gains ``content_truncated`` and
    ``original_content_chars``. ``tool_calls`` (as stored) and ``tool_call_id`` are kept;
    keys without a value are left out, except ``content``: a null content is meaningful
    (an assistant turn that only calls tools).
    """
    get = message.get
    content = get("content")
    is_text = isinstance(content, str)
    if is_text and "\x1b" in content:  # the regex only where an escape can be
        content = strip_ansi(content)
    item: dict[str, Any] = {}
    for key in ("id", "role"):
        if (value := get(key)) is not None:
            item[key] = value
    item["content"] = content  # kept when null: an assistant turn that only calls tools
    if (value := get("timestamp")) is not None:
        item["timestamp"] = value
    for key in ("tool_name", "tool_calls", "tool_call_id"):
        if value := get(key):
            item[key] = value
    if anchor_id is not None and get("id") == anchor_id:
        item["anchor"] = True
    if is_text and len(content) > cap:
        item["content"] = content[: max(0, cap - 1)] + "…"
        item["content_truncated"] = True
        item["original_content_chars"] = len(content)
    return item
