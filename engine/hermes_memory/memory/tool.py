"""The ``memory`` tool: its JSON schema and a dispatcher any agent loop can call.

The dispatcher validates in upstream's order (spec §2.9.1) and always returns a JSON
string. The schema avoids ``allOf``/``if``: some backends reject conditional schemas, so
``old_text`` is documented as required for replace/remove instead of enforced.
"""

from __future__ import annotations

import json
from typing import Any

from ..pending.gate import staged_write
from . import entries as fmt
from .store import MemoryStore, StoreReadError

_ACTIONS = ["add", "replace", "remove"]

MEMORY_TOOL_SCHEMA: dict[str, Any] = {
    "name": "memory",
    "description": (
        "Save durable facts to persistent memory that is shown to you at the start of every "
        "future session.\n\n"
        "HOW: prefer one call with an `operations` list; the character budget is checked "
        "against the final state. A successful response means the write is complete, so do "
        "not repeat it.\n"
        "WHEN: save without being asked. Most valuable first: the user's preferences and "
        "corrections, then facts about their environment, then procedures.\n"
        "IF FULL: send one batch that removes or shortens entries and adds the new one.\n"
        "TARGETS: 'user' is who the user is and what they prefer; 'memory' is your notes on "
        "the environment, conventions, quirks and lessons learned.\n"
        "SKIP: trivia, anything easy to look up again, raw data, task progress, logs of "
        "finished work and TODO lists; use session_search for past conversations, and keep "
        "step-by-step procedures in skills."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": _ACTIONS,
                "description": "Single-operation form. Omit when `operations` is given.",
            },
            "target": {
                "type": "string",
                "enum": ["memory", "user"],
                "description": "'memory' for your notes, 'user' for the user profile.",
            },
            "content": {
                "type": "string",
                "description": "The entry text for 'add', or the new full text for 'replace'.",
            },
            "old_text": {
                "type": "string",
                "description": "REQUIRED for 'replace' and 'remove': a short unique "
                "substring of the entry to change.",
            },
            "operations": {
                "type": "array",
                "description": "Several operations applied all-or-nothing, in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "action": {"type": "string", "enum": _ACTIONS},
                        "content": {"type": "string"},
                        "old_text": {"type": "string"},
                    },
                    "required": ["action"],
                },
            },
        },
        "required": ["target"],
    },
}


def _error(message: str) -> dict:
    """A validation error as upstream's ``tool_error(message, success=False)``."""
    return {"error": message, "success": False}


def _type_error(arguments: dict[str, Any]) -> dict | None:
    """Tool arguments come from a model as any JSON: refuse the wrong types clearly."""
    for name, value in arguments.items():
        if value is not None and not isinstance(value, str):
            return _error(f"{name} must be a string, not {type(value).__name__}.")
    return None


def _missing_old_text(store: MemoryStore, action: str, target: str) -> dict:
    """Recoverable: clients drop optional arguments, so hand back the inventory (PR 49997)."""
    entries = store.read_entries(target) if store.home.path.is_dir() else []
    return {
        "success": False,
        "error": (
            f"'{action}' needs old_text -- a short unique substring of the entry to {action}. "
            f"None was provided. Reissue the {action} with old_text set to part of one of the "
            "current_entries below."
        ),
        **store.inventory(target, entries),
    }


def dispatch(
    action: str | None = None,
    target: str = "memory",
    content: str | None = None,
    old_text: str | None = None,
    operations: Any = None,
    store: MemoryStore | None = None,
) -> dict:
    """The tool's result as a dict (see :func:`memory_tool` for the JSON string)."""
    if store is None:
        return _error("Memory is not available. It may be disabled in config or this environment.")
    if not isinstance(target, str) or target not in fmt.TARGETS:
        return _error(f"Invalid target '{target}'. Use 'memory' or 'user'.")
    if operations:
        if not isinstance(operations, list):
            return _error("operations must be a list of {action, content?, old_text?} objects.")
        staged = staged_write(store, {"action": "batch", "target": target, "operations": operations})
        return staged or store.apply_batch(target, operations)
    wrong_type = _type_error({"action": action, "content": content, "old_text": old_text})
    if wrong_type:
        return wrong_type
    if action == "add" and not content:
        return _error("Content is required for 'add' action.")
    if action in ("replace", "remove") and not old_text:
        try:
            return _missing_old_text(store, action, target)
        except StoreReadError as exc:  # an unreadable file must not crash the tool
            return {"success": False, "error": str(exc)}
    if action == "replace" and not content:
        return _error("content is required for 'replace' action.")
    if action in ("add", "replace", "remove"):  # the write-approval gate (spec §2.9.3)
        payload = {"action": action, "target": target, "content": content, "old_text": old_text}
        staged = staged_write(store, payload)
        if staged:
            return staged
    if action == "add":
        return store.add(target, content)
    if action == "replace":
        return store.replace(target, old_text, content)
    if action == "remove":
        return store.remove(target, old_text)
    return _error(f"Unknown action '{action}'. Use: add, replace, remove")


def memory_tool(
    action: str | None = None,
    target: str = "memory",
    content: str | None = None,
    old_text: str | None = None,
    operations: Any = None,
    store: MemoryStore | None = None,
) -> str:
    """Run one ``memory`` tool call and return its JSON payload, as the agent would."""
    result = dispatch(action, target, content, old_text, operations, store)
    text = json.dumps(result, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a refusal echoed a lone surrogate: escape it, stay sendable
        text = json.dumps(result)
    return text
