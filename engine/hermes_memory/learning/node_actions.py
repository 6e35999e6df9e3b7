"""The graph's node actions with their undo steps, as plain data for any front-end.

Each change answers its mutation's result dict; a successful one also carries ``"undo"``
and ``"redo"``: plain step dicts (``kind``, ``label`` and the fields that kind needs) that
:func:`run_step` carries out to take it back (restore an archived skill, re-add a deleted
entry at its old position, unpin, put the old text back) and to do it again. A front-end
keeps the steps and sends them back as they came, so an undo works for a remote home too.

Step kinds: ``restore`` / ``archive`` (skill ``name``), ``pin`` / ``unpin`` (``name``),
``edit_skill`` (write ``other`` as ``name``'s SKILL.md), ``readd`` / ``remove`` (memory
entry ``text`` of ``target``, at ``position``), ``swap`` (memory ``text`` becomes ``other``).
"""

from __future__ import annotations

from typing import Any

from ..home import HermesHome
from ..memory.entries import FILE_NAMES, fingerprint
from ..memory.store import MemoryStore, StoreReadError
from .memory_cards import parse_memory_id
from .mutations import (
    delete_node,
    edit_node,
    node_detail,
    parse_node_kind,
    pin_node,
    restore_node,
    unpin_node,
)

STEP_KINDS = ("restore", "archive", "pin", "unpin", "edit_skill", "readd", "remove", "swap")


def step(kind: str, label: str, *, name: str = "", target: str = "", position: int = 0,
         text: str = "", other: str = "") -> dict[str, Any]:
    return {"kind": kind, "label": label, "name": name, "target": target,
            "position": position, "text": text, "other": other}


def write_kind(node_id: str) -> str:
    """What a change of ``node_id`` changes: ``memory``, ``user`` or ``skills``."""
    if parse_node_kind(node_id) == "memory":
        try:
            return parse_memory_id(node_id).target
        except ValueError:
            return "memory"
    return "skills"


def _steps(result: dict[str, Any], undo: dict[str, Any], redo: dict[str, Any]) -> dict[str, Any]:
    return {**result, "undo": undo, "redo": redo} if result.get("ok") else result


def set_pin(home: HermesHome, node_id: str, pinned: bool) -> dict[str, Any]:
    result = pin_node(home, node_id) if pinned else unpin_node(home, node_id)
    pin = step("pin", f"pin '{node_id}'", name=node_id)
    unpin = step("unpin", f"unpin '{node_id}'", name=node_id)
    return _steps(result, unpin if pinned else pin, pin if pinned else unpin)


def edit(home: HermesHome, node_id: str, content: str, revision: str | None = None) -> dict[str, Any]:
    before = node_detail(home, node_id)
    result = edit_node(home, node_id, content, revision=revision)
    if not before.get("ok"):
        return result
    old = str(before.get("content") or "")
    if parse_node_kind(node_id) == "memory":
        target, new = write_kind(node_id), content.strip()
        return _steps(result,
                      step("swap", "put the earlier text back", target=target, text=new, other=old),
                      step("swap", "edit the entry again", target=target, text=old, other=new))
    return _steps(result,
                  step("edit_skill", f"put the earlier SKILL.md of '{node_id}' back", name=node_id, other=old),
                  step("edit_skill", f"edit '{node_id}' again", name=node_id, other=content))


def archive(home: HermesHome, node_id: str) -> dict[str, Any]:
    result = delete_node(home, node_id)
    name = str(result.get("name") or node_id)
    return _steps(result, step("restore", f"restore '{name}'", name=name),
                  step("archive", f"archive '{name}' again", name=name))


def restore(home: HermesHome, name: str) -> dict[str, Any]:
    result = restore_node(home, name)
    return _steps(result, step("archive", f"archive '{name}' again", name=name),
                  step("restore", f"restore '{name}'", name=name))


def delete_memory(home: HermesHome, node_id: str) -> dict[str, Any]:
    position, text, target = -1, "", ""
    try:
        parsed = parse_memory_id(node_id)
        target = parsed.target
        for index, entry in enumerate(MemoryStore(home).read_entries(target)):
            if parsed.fingerprint is None or fingerprint(entry) == parsed.fingerprint:
                if parsed.fingerprint is not None or index == parsed.index:
                    position, text = index, entry
                    break
    except (ValueError, StoreReadError):
        pass  # delete_node words the refusal
    result = delete_node(home, node_id)
    if not text:
        return result
    name = FILE_NAMES[target]
    return _steps(result,
                  step("readd", f"put the entry back in {name}", target=target, position=position, text=text),
                  step("remove", f"delete the entry from {name} again", target=target, text=text))


def run_step(home: HermesHome, given: dict[str, Any]) -> dict[str, Any]:
    """Carry out one undo (or redo) step made by the functions above."""
    from .. import api

    kind = given.get("kind") if isinstance(given, dict) else None
    if kind not in STEP_KINDS:
        return {"ok": False, "message": f"not an undo step: {kind!r}"}
    name, target = str(given.get("name") or ""), str(given.get("target") or "")
    text, other = str(given.get("text") or ""), str(given.get("other") or "")
    if kind == "restore":
        return restore_node(home, name)
    if kind == "archive":
        return delete_node(home, name)
    if kind == "pin":
        return pin_node(home, name)
    if kind == "unpin":
        return unpin_node(home, name)
    if kind == "edit_skill":
        return edit_node(home, name, other)
    if target not in FILE_NAMES:
        return {"ok": False, "message": f"not a memory store: {target!r}"}
    if kind == "swap":
        return api.swap_entry(home, target, text, other)
    if kind == "remove":
        return api.remove_entry(home, target, text)
    position = given.get("position")
    return api.insert_entry(home, target, position if isinstance(position, int) else 0, text)
