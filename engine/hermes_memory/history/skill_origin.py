"""Who changed a skill on disk, for ``history capture`` (the skill half of its attribution).

Worked out from what the agent leaves behind, never guessed:

* the curator ledger holds a line whose SKILL.md after-hash is the text on disk now: its
  actor wrote it (``agent`` the agent, ``curator`` its background review, ``user`` a person
  through ``hermes curator``), with the line's session;
* a ``skill_manage`` call in ``state.db`` since the last recorded version writes exactly
  this text (a create or edit with this content, a patch whose new text is in it): the
  agent, with the calls' sessions; a delete explains a skill that is gone;
* otherwise a changed text is a person's (or another tool's) by hand when the agent would
  have left a trace of writing it: its ``state.db`` is readable and no tool call since the
  last version names the skill, and it keeps a curator ledger (which its background review
  writes; the review's own calls may not be in ``state.db``);
* otherwise ``unknown``: no ``state.db``, no ledger, a call that names the skill without
  explaining the text, or a skill history sees for the first time (bundled or installed
  skills were not written by hand).
"""

from __future__ import annotations

import json
from typing import Any

from ..home import HermesHome
from ..sessions.errors import SessionStoreError
from ..sessions.store import SessionStore
from .ledger import ledger_path
from .recording import FOREGROUND, HAND, UNKNOWN


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value


def _skill_manage_calls(tool_calls: Any, name: str) -> list[dict[str, Any]]:
    """The arguments of the ``skill_manage`` calls on skill ``name`` in one message."""
    calls = _json(tool_calls)
    calls = [calls] if isinstance(calls, dict) else calls
    found = []
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, dict) else None
        function = function if isinstance(function, dict) else call if isinstance(call, dict) else {}
        arguments = _json(function.get("arguments"))
        if function.get("name") == "skill_manage" and isinstance(arguments, dict) and arguments.get("name") == name:
            found.append(arguments)
    return found


def _explains(arguments: dict[str, Any], text: str | None) -> bool:
    """Whether one ``skill_manage`` call leaves SKILL.md as ``text`` (None: gone)."""
    action = arguments.get("action")
    if action == "delete":
        return text is None
    if text is None or arguments.get("file_path") not in (None, "", "SKILL.md"):
        return False
    if action in ("create", "edit"):
        content = arguments.get("content")
        return isinstance(content, str) and content.strip() == text.strip()
    if action == "patch":
        new = arguments.get("new_string")
        return isinstance(new, str) and bool(new.strip()) and new in text
    return False


def _like(name: str) -> str:
    escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _state_db_calls(home: HermesHome, name: str, since: float | None) -> list[tuple[str, Any]] | None:
    """``(session, tool_calls)`` of the assistant messages since ``since`` that name the
    skill, oldest first; None when ``state.db`` cannot tell (missing, unreadable, no calls)."""
    if not home.state_db.is_file():
        return None
    try:
        with SessionStore.open(home) as store:
            rows = store.query(
                "SELECT session_id, tool_calls FROM messages WHERE role = 'assistant' "
                "AND tool_calls LIKE ? ESCAPE '\\' AND timestamp > ? ORDER BY timestamp, id",
                (_like(name), since if since is not None else float("-inf")),
            )  # fmt: skip
    except (SessionStoreError, OSError):
        return None
    return [(row["session_id"], row["tool_calls"]) for row in rows]


def _from_ledger(ledger: list[dict[str, Any]], md: str | None) -> dict[str, Any] | None:
    """The newest ledger line that wrote exactly this SKILL.md, as origin fields."""
    if md is None:
        return None
    for event in reversed(ledger):
        if event.get("support_only"):
            continue  # it wrote a support file, not this SKILL.md
        if (event.get("md") or "")[:20] == md:
            fields = {"origin": event.get("origin") or UNKNOWN}
            if event.get("session"):
                fields["session"] = event["session"]
            return fields
    return None


def skill_origin(home: HermesHome, name: str, state: dict[str, Any], head: dict[str, Any] | None,
                 ledger: list[dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """The ``origin`` (and ``session``/``sessions``) of a captured skill version.

    ``state`` is the skill now (:func:`~.recording.skill_state`), ``head`` the newest
    version history holds (None: never seen), ``ledger`` this skill's ledger events."""
    text = state["text"] if state["state"] != "missing" else None
    text_changed = head is None or (head.get("md") or "")[:20] != (state["md"] or "")
    if text_changed:
        known = _from_ledger(ledger, state["md"])
        if known is not None:
            return known
    since = head["ts"] if head is not None else None
    messages = _state_db_calls(home, name, since)
    if messages is None:
        return {"origin": UNKNOWN}
    sessions = [session for session, calls in messages
                if any(_explains(args, text) for args in _skill_manage_calls(calls, name))]  # fmt: skip
    sessions = list(dict.fromkeys(s for s in sessions if s))
    if sessions:
        return {"origin": FOREGROUND, **({"session": sessions[0]} if len(sessions) == 1 else {"sessions": sessions})}
    if text_changed and head is not None and not messages and ledger_path(home).is_file():
        return {"origin": HAND}
    return {"origin": UNKNOWN}
