"""The bounded digest of a conversation that a review replays to its model (spec §4.4).

Older turns collapse into one synthetic user message, one short line each; the most
recent ``tail`` messages stay verbatim. :func:`fit_digest` then shrinks the verbatim
window (and, as a last resort, drops the oldest digest lines) until the whole replay fits
a character budget, so a long session cannot make one review arbitrarily expensive.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .conversation import text_of, tool_call_names

DIGEST_HEADER = (
    "[Digest of the earlier conversation. To keep this review small, older turns are cut "
    "to one line each below; the most recent messages follow in full.]"
)
USER_LINE_CHARS = 300
ASSISTANT_LINE_CHARS = 200


def _flat(text: str, width: int) -> str:
    return text.replace("\r", " ").replace("\n", " ")[:width]


def digest_line(message: Mapping[str, Any]) -> str | None:
    """One old message as a digest line; ``None`` for roles the digest leaves out."""
    role = message.get("role")
    if role == "user":
        return f"USER: {_flat(text_of(message.get('content')), USER_LINE_CHARS)}"
    if role == "assistant":
        names = tool_call_names(message)
        if names:
            return f"ASSISTANT[tools: {', '.join(names)}]"
        return f"ASSISTANT: {_flat(text_of(message.get('content')), ASSISTANT_LINE_CHARS)}"
    return None


def tail_start(messages: Sequence[Mapping[str, Any]], tail: int) -> int:
    """Where the verbatim window begins: never on a tool result cut off from its call."""
    start = max(0, len(messages) - max(0, tail))
    while 0 < start < len(messages) and messages[start].get("role") == "tool":
        start -= 1
    return start


def _digest_message(lines: list[str], omitted: int = 0) -> dict[str, Any]:
    head = [DIGEST_HEADER]
    if omitted:
        head.append(f"[{omitted} older messages are left out entirely.]")
    return {"role": "user", "content": "\n".join(head + lines)}


def digest_history(messages: Sequence[Mapping[str, Any]], tail: int = 24) -> list[dict[str, Any]]:
    """``[digest] + the last tail messages``, or the messages unchanged when they are few."""
    if len(messages) <= tail:
        return [dict(m) for m in messages]
    start = tail_start(messages, tail)
    if start == 0:
        return [dict(m) for m in messages]
    lines = [line for line in map(digest_line, messages[:start]) if line is not None]
    return [_digest_message(lines), *(dict(m) for m in messages[start:])]


def message_chars(message: Mapping[str, Any]) -> int:
    size = len(text_of(message.get("content")))
    if message.get("tool_calls"):
        size += len(json.dumps(message["tool_calls"], ensure_ascii=False))
    return size


def clip_message(message: Mapping[str, Any], limit: int) -> dict[str, Any]:
    """The message with its text cut to ``limit`` characters (head and tail kept)."""
    out = dict(message)
    text = out.get("content")
    if isinstance(text, str) and len(text) > limit > 0:
        head, tail = int(limit * 0.75), int(limit * 0.2)
        cut = len(text) - head - tail
        out["content"] = f"{text[:head]}\n…[{cut:,} characters cut for the review]…\n{text[-tail:]}"
    return out


@dataclass(frozen=True)
class Digest:
    messages: list[dict[str, Any]]
    original: int  # messages in the session (after making them replayable)
    summarised: int  # old messages folded into the digest line list
    verbatim: int  # recent messages replayed in full
    omitted: int  # old messages dropped even from the digest to meet the budget
    chars: int

    def as_dict(self) -> dict[str, int]:
        return {
            "messages": self.original,
            "summarised": self.summarised,
            "verbatim": self.verbatim,
            "omitted": self.omitted,
            "chars": self.chars,
        }


def fit_digest(
    messages: Sequence[Mapping[str, Any]],
    *,
    tail: int = 24,
    max_chars: int = 120_000,
    max_message_chars: int = 4_000,
) -> Digest:
    """The largest replay within ``max_chars``: first fewer verbatim messages, then fewer
    digest lines (oldest first)."""
    clipped = [clip_message(m, max_message_chars) for m in messages]
    total = len(clipped)
    for keep in range(min(tail, total), -1, -1):
        start = tail_start(clipped, keep) if keep < total else 0
        replay = digest_history(clipped, keep) if start else [dict(m) for m in clipped]
        size = sum(message_chars(m) for m in replay)
        if size <= max_chars:
            verbatim = total - start
            return Digest(replay, total, start, verbatim, 0, size)
    # Even one line per message is too much: keep the newest lines that fit.
    lines = [line for line in map(digest_line, clipped) if line is not None]
    budget = max_chars - len(DIGEST_HEADER) - 64
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    kept.reverse()
    omitted = len(lines) - len(kept)
    replay = [_digest_message(kept, omitted)]
    return Digest(replay, total, total - omitted, 0, omitted, message_chars(replay[0]))
