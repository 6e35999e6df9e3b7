"""The conversation a review looks at: one session from ``state.db``, made replayable.

Stored messages are not always a valid chat history for a model: a session can end in
the middle of a tool loop, compaction can leave a tool result whose call is gone, and
stored tool calls may carry their arguments as objects. :func:`replayable` repairs those
shapes so the request is one every OpenAI-compatible endpoint accepts; nothing is
invented, an unmatched piece becomes plain text instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..home import HermesHome
from ..sessions.errors import SessionStoreError
from ..sessions.store import SessionStore


class ReviewError(RuntimeError):
    """A review cannot start or finish; the message is for a person."""


def load_session(home: HermesHome, session_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(session, messages)`` for a session id (or an exact session title).

    Raises :class:`ReviewError` when the history cannot be read, the session does not
    exist, or it holds no messages.
    """
    try:
        with SessionStore.open(home) as store:
            session = store.get_session(session_id)
            if session is None:
                resolved = store.resolve_session_by_title(session_id)
                session = store.get_session(resolved) if resolved else None
            if session is None:
                raise ReviewError(
                    f"No session '{session_id}' in {home.state_db}. "
                    "List sessions with: hermes-memory sessions list"
                )
            messages = store.get_messages_as_conversation(session["id"])
    except SessionStoreError as exc:
        raise ReviewError(str(exc)) from exc
    if not messages:
        raise ReviewError(f"Session '{session['id']}' has no messages to review.")
    return session, messages


def text_of(content: Any) -> str:
    """Message content as text; list-style content keeps only its ``text`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part.get("text", "")
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "\n".join(part for part in parts if part)
    return "" if content is None else str(content)


def _normal_call(call: Any, fallback_id: str) -> dict[str, Any] | None:
    if not isinstance(call, Mapping):
        return None
    function = call.get("function") if isinstance(call.get("function"), Mapping) else call
    name = function.get("name")
    if not isinstance(name, str) or not name:
        return None
    arguments = function.get("arguments", "{}")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": str(call.get("id") or fallback_id),
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def tool_call_names(message: Mapping[str, Any]) -> list[str]:
    calls = message.get("tool_calls")
    names = []
    for call in calls if isinstance(calls, list) else []:
        normal = _normal_call(call, "")
        if normal:
            names.append(normal["function"]["name"])
    return names


def replayable(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """User, assistant and tool messages in a shape a chat endpoint accepts.

    System messages are dropped (the review brings its own). An assistant's tool calls
    stay only when every one of them is answered by the tool results that follow; a tool
    result stays only when it answers such a call. Otherwise both become plain text.
    """
    source = [m for m in messages if isinstance(m, Mapping)]
    out: list[dict[str, Any]] = []
    index = 0
    while index < len(source):
        message = source[index]
        role = message.get("role")
        if role == "assistant" and message.get("tool_calls"):
            raw_calls = message["tool_calls"] if isinstance(message["tool_calls"], list) else []
            calls = [
                c for c in (_normal_call(c, f"call_{index}_{n}") for n, c in enumerate(raw_calls)) if c
            ]
            results = []
            follow = index + 1
            while follow < len(source) and source[follow].get("role") == "tool":
                results.append(source[follow])
                follow += 1
            wanted = {call["id"] for call in calls}
            answered = {str(r.get("tool_call_id") or "") for r in results}
            if calls and wanted <= answered:
                out.append({"role": "assistant", "content": text_of(message.get("content")) or None,
                            "tool_calls": calls})  # fmt: skip
                for result in results:
                    if str(result.get("tool_call_id") or "") in wanted:
                        out.append({"role": "tool", "tool_call_id": str(result["tool_call_id"]),
                                    "content": text_of(result.get("content"))})  # fmt: skip
                    else:
                        out.append(_as_note(result))
            else:
                names = ", ".join(call["function"]["name"] for call in calls) or "unknown"
                text = text_of(message.get("content"))
                out.append({"role": "assistant",
                            "content": (text + "\n" if text else "") + f"[called tools: {names}]"})  # fmt: skip
                out.extend(_as_note(result) for result in results)
            index = follow
            continue
        if role == "tool":
            out.append(_as_note(message))
        elif role in ("user", "assistant"):
            out.append({"role": role, "content": text_of(message.get("content"))})
        index += 1
    return out


def _as_note(result: Mapping[str, Any]) -> dict[str, Any]:
    name = result.get("tool_name") or result.get("name") or "tool"
    return {"role": "assistant", "content": f"[{name} result] {text_of(result.get('content'))}"}
