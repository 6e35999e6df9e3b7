"""What the graph's buttons do: engine calls, each returning the engine's result dict.

These functions run on the Workspace's threads (reads on the reader, changes on the
single writer); they only call the engine, which does every read, lock and write. A
destructive action's result carries ``"undo"``: what :func:`undo` needs to put things
back (restore an archived skill; re-add a deleted memory entry at its old position).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hermes_memory.home import HermesHome
from hermes_memory.learning import (
    delete_node,
    edit_node,
    node_detail,
    parse_node_kind,
    pin_node,
    restore_node,
    unpin_node,
)
from hermes_memory.learning.memory_cards import parse_memory_id
from hermes_memory.memory.edits import check_entry, save_draft
from hermes_memory.memory.entries import FILE_NAMES, fingerprint
from hermes_memory.memory.store import MemoryStore, StoreReadError
from hermes_memory.skills import list_archived, skill_md_error
from hermes_memory.skills.frontmatter import split_frontmatter


@dataclass(frozen=True)
class Undo:
    """How to reverse one destructive action."""

    kind: str  # "restore" (a skill) or "readd" (a memory entry)
    label: str  # for the button's tooltip
    name: str = ""  # the skill
    target: str = ""  # "memory" or "user"
    position: int = 0
    text: str = ""


def write_kind(node_id: str) -> str:
    """The Workspace change kind a mutation of ``node_id`` produces."""
    if parse_node_kind(node_id) == "memory":
        try:
            return parse_memory_id(node_id).target
        except ValueError:
            return "memory"
    return "skills"


# --- reads (reader thread) ----------------------------------------------------------------
def detail(home: HermesHome, node_id: str) -> dict[str, Any]:
    return node_detail(home, node_id)


def archived(home: HermesHome) -> list[dict[str, Any]]:
    return [item.as_dict() for item in list_archived(home)]


def skill_body(content: str) -> str:
    """The Markdown after a SKILL.md's frontmatter (the engine's own splitter)."""
    text = content.lstrip("\ufeff")
    yaml_text, body = split_frontmatter(text)
    return body if yaml_text is not None else text


def skill_problem(content: str, name: str) -> str | None:
    """Why the editor's text would be refused (the agent's SKILL.md rules), or None."""
    return skill_md_error(content, allow_name=name)


def memory_problem(content: str) -> str | None:
    check = check_entry(content)
    if check.empty:
        return "empty memory — use delete to remove it"
    return check.problem


# --- changes (writer thread) ----------------------------------------------------------------
def set_pin(home: HermesHome, node_id: str, pinned: bool) -> dict[str, Any]:
    return pin_node(home, node_id) if pinned else unpin_node(home, node_id)


def edit(home: HermesHome, node_id: str, content: str, revision: str | None = None) -> dict[str, Any]:
    return edit_node(home, node_id, content, revision=revision)


def archive(home: HermesHome, node_id: str) -> dict[str, Any]:
    result = delete_node(home, node_id)
    if result.get("ok"):
        name = str(result.get("name") or node_id)
        result["undo"] = Undo("restore", f"restore '{name}'", name=name)
    return result


def delete_memory(home: HermesHome, node_id: str) -> dict[str, Any]:
    position, text, target = -1, "", ""
    try:
        parsed = parse_memory_id(node_id)
        target = parsed.target
        entries = MemoryStore(home).read_entries(target)
        for index, entry in enumerate(entries):
            if parsed.fingerprint is None or fingerprint(entry) == parsed.fingerprint:
                if parsed.fingerprint is not None or index == parsed.index:
                    position, text = index, entry
                    break
    except (ValueError, StoreReadError):
        pass  # delete_node words the refusal
    result = delete_node(home, node_id)
    if result.get("ok") and text:
        result["undo"] = Undo(
            "readd", f"put the entry back in {FILE_NAMES[target]}", target=target,
            position=position, text=text,
        )
    return result


def undo(home: HermesHome, step: Undo) -> dict[str, Any]:
    if step.kind == "restore":
        return restore_node(home, step.name)
    return readd_memory(home, step.target, step.position, step.text)


def readd_memory(home: HermesHome, target: str, position: int, text: str) -> dict[str, Any]:
    """Put a deleted entry back where it was (under the store's lock, budget and scan)."""
    store = MemoryStore(home)
    try:
        current = store.read_entries(target)
    except StoreReadError as exc:
        return {"ok": False, "message": str(exc)}
    if text in current:
        return {"ok": True, "message": f"the entry is already in {FILE_NAMES[target]}"}
    position = max(0, min(position, len(current)))
    draft = current[:position] + [text] + current[position:]
    result = save_draft(store, target, current, draft)
    if result.get("success"):
        return {"ok": True, "message": f"put the entry back in {FILE_NAMES[target]}"}
    return {"ok": False, "message": str(result.get("error") or "the store refused it")}


def restore(home: HermesHome, name: str) -> dict[str, Any]:
    return restore_node(home, name)
