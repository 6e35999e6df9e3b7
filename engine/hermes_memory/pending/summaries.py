"""The one-line summaries upstream writes into records (spec §1.4), for display parity:
the agent's ``/memory pending`` and ours show the same words for the same write."""

from __future__ import annotations

from typing import Any

from ..skills.frontmatter import parse_frontmatter

_LABELS = {"memory": "memory", "user": "user profile"}


def _op_content(op: dict[str, Any]) -> str:
    content = op.get("content")
    if not isinstance(content, str):
        content = op.get("new_text")
    return content if isinstance(content, str) else ""


def _op_old(op: dict[str, Any]) -> str:
    value = op.get("matched_entry") or op.get("old_text")
    return value if isinstance(value, str) else ""


def memory_op_line(op: dict[str, Any]) -> str:
    """One batch line in the pinned wording (whole-entry contract, #117952)."""
    action = op.get("action")
    if action == "add":
        return f"- add: {_op_content(op)}"
    if action == "remove":
        return f"- remove: {_op_old(op)}"
    if action == "replace":
        return f"- replace entry matching '{_op_old(op)}' -> whole entry becomes: {_op_content(op)}"
    return f"- {action}: ?"


def memory_summary(payload: dict[str, Any]) -> str:
    """``"<summary>: <detail[:120]>"`` as the memory gate writes it."""
    action = payload.get("action")
    label = _LABELS.get(payload.get("target"), str(payload.get("target")))
    if action == "batch":
        ops = [op for op in payload.get("operations") or [] if isinstance(op, dict)]
        head = f"apply {len(ops)} op(s) to {label}"
        detail = "\n".join(memory_op_line(op) for op in ops)
    elif action == "add":
        head, detail = f"add to {label}", _op_content(payload)
    elif action == "replace":
        head = f"replace in {label}"
        detail = f"entry matching: {_op_old(payload)}\nwhole entry becomes: {_op_content(payload)}"
    else:
        head, detail = f"remove from {label}", _op_old(payload)
    return f"{head}: {detail[:120]}".strip()


def _size(text: str) -> str:
    return f"{len(text)} chars" if len(text) < 1024 else f"{len(text) // 1024 + 1} KB"


def skill_gist(payload: dict[str, Any], exists: bool | None = None) -> str:
    """The skills gate's one-line gist."""
    action = payload.get("action")
    name = payload.get("name")
    file_path = payload.get("file_path") or "SKILL.md"
    if action in ("create", "edit"):
        content = payload.get("content") if isinstance(payload.get("content"), str) else ""
        description = str(parse_frontmatter(content)[0].get("description") or "")[:140]
        verb = "create" if action == "create" and not exists else "rewrite"
        return f"{verb} '{name}' — {description} ({_size(content)})"
    if action == "patch":
        old = payload.get("old_string") if isinstance(payload.get("old_string"), str) else ""
        new = payload.get("new_string") if isinstance(payload.get("new_string"), str) else ""
        return f"patch '{name}' {file_path} (+{new.count(chr(10)) + 1}/-{old.count(chr(10)) + 1} lines)"
    if action == "write_file":
        return f"write {file_path} in '{name}'"
    if action == "remove_file":
        return f"remove {file_path} from '{name}'"
    if action == "delete":
        return f"delete skill '{name}'"
    return f"{action} '{name}'"
