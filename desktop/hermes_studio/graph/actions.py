"""What the graph's buttons do: engine calls, each returning the engine's result dict.

These functions run on the Workspace's threads (reads on the reader, changes on the
single writer); they only call the engine, which does every read, lock and write. Every
change's result carries ``"undo"`` and ``"redo"``: the :class:`Undo` steps that
:func:`undo` runs to take it back (restore an archived skill, re-add a deleted entry at its
old position, unpin, put the old text back) and to do it again; the app's undo stack keeps
them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hermes_memory import api
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
from hermes_memory.memory.edits import check_entry
from hermes_memory.memory.entries import FILE_NAMES, fingerprint
from hermes_memory.memory.store import MemoryStore, StoreReadError
from hermes_memory.skills import list_archived, skill_md_error
from hermes_memory.skills.frontmatter import split_frontmatter


@dataclass(frozen=True)
class Undo:
    """One step that undoes (or redoes) an action, run by :func:`undo`."""

    #: restore | archive (a skill), pin | unpin, edit_skill (write ``other`` as SKILL.md),
    #: readd | remove (a memory entry ``text``), swap (memory ``text`` becomes ``other``)
    kind: str
    label: str  # for tooltips and the Edit menu ("restore 'x'")
    name: str = ""  # the skill
    target: str = ""  # "memory" or "user"
    position: int = 0
    text: str = ""
    other: str = ""


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
def _steps(result: dict[str, Any], undo_step: Undo, redo_step: Undo) -> dict[str, Any]:
    if result.get("ok"):
        result = {**result, "undo": undo_step, "redo": redo_step}
    return result


def set_pin(home: HermesHome, node_id: str, pinned: bool) -> dict[str, Any]:
    result = pin_node(home, node_id) if pinned else unpin_node(home, node_id)
    pin, unpin = Undo("pin", f"pin '{node_id}'", name=node_id), Undo(
        "unpin", f"unpin '{node_id}'", name=node_id
    )
    return _steps(result, unpin if pinned else pin, pin if pinned else unpin)


def edit(home: HermesHome, node_id: str, content: str, revision: str | None = None) -> dict[str, Any]:
    before = node_detail(home, node_id)
    result = edit_node(home, node_id, content, revision=revision)
    if not before.get("ok"):
        return result
    old = str(before.get("content") or "")
    if parse_node_kind(node_id) == "memory":
        target = write_kind(node_id)
        new = content.strip()
        return _steps(
            result,
            Undo("swap", "put the earlier text back", target=target, text=new, other=old),
            Undo("swap", "edit the entry again", target=target, text=old, other=new),
        )
    return _steps(
        result,
        Undo("edit_skill", f"put the earlier SKILL.md of '{node_id}' back", name=node_id, other=old),
        Undo("edit_skill", f"edit '{node_id}' again", name=node_id, other=content),
    )


def archive(home: HermesHome, node_id: str) -> dict[str, Any]:
    result = delete_node(home, node_id)
    name = str(result.get("name") or node_id)
    return _steps(
        result,
        Undo("restore", f"restore '{name}'", name=name),
        Undo("archive", f"archive '{name}' again", name=name),
    )


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
    if not text:
        return result
    return _steps(
        result,
        Undo("readd", f"put the entry back in {FILE_NAMES[target]}", target=target,
             position=position, text=text),
        Undo("remove", f"delete the entry from {FILE_NAMES[target]} again", target=target,
             text=text),
    )


def undo(home: HermesHome, step: Undo) -> dict[str, Any]:
    """Run one undo (or redo) step through the engine."""
    if step.kind == "restore":
        return restore_node(home, step.name)
    if step.kind == "archive":
        return delete_node(home, step.name)
    if step.kind == "pin":
        return pin_node(home, step.name)
    if step.kind == "unpin":
        return unpin_node(home, step.name)
    if step.kind == "edit_skill":
        return edit_node(home, step.name, step.other)
    if step.kind == "swap":
        return api.swap_entry(home, step.target, step.text, step.other)
    if step.kind == "remove":
        return api.remove_entry(home, step.target, step.text)
    return api.insert_entry(home, step.target, step.position, step.text)


def restore(home: HermesHome, name: str) -> dict[str, Any]:
    result = restore_node(home, name)
    return _steps(
        result,
        Undo("archive", f"archive '{name}' again", name=name),
        Undo("restore", f"restore '{name}'", name=name),
    )
