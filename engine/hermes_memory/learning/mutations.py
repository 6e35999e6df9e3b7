"""Acting on a learning-graph node: show, edit, delete, pin, unpin, restore.

Every function takes the home and a payload node id (a skill name, or a
``memory:<source>:<index>[:<fingerprint>]`` id) and returns
``{"ok": bool, "message": str, ...}``; none raises.

* Memory nodes go through :class:`~hermes_memory.memory.store.MemoryStore`: its lock,
  a re-read under it, the entry found by fingerprint (a stale id is refused with
  "refresh the graph", never retargeted), the character budget and the threat scan.
  A legacy 3-part id names an entry by position only, which cannot prove the caller
  saw the entry now there (two deletes of ``memory:memory:0`` would remove two
  different entries): it still shows a node, but edit and delete refuse it and give
  the full id of the entry now at that position.
* Skill nodes are found by frontmatter name, the same name the graph uses as the id
  (upstream looked edits up by directory name, so renamed skills could not be found).
  Delete archives the skill (restorable); pinned skills refuse delete but accept a
  person's edit; an edit is validated as a whole SKILL.md and rolled back on failure.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..home import HermesHome
from ..memory.entries import FILE_NAMES, fingerprint
from ..memory.store import MemoryStore, StoreReadError, for_people, read_store_file
from ..skills.editing import SkillTextError, edit_refusal, edit_skill, read_skill_text, revision_of
from ..skills.index import Skill, SkillScan
from ..skills.lifecycle import (
    archive_skill,
    find_skill,
    list_archived,
    restore_skill,
    set_pinned,
)
from ..skills.usage import read_usage
from .memory_cards import SOURCE_FOR_TARGET, MemoryNodeId, card_title, memory_cards, parse_memory_id

STALE = "memory node id is stale — refresh the graph"
EMPTY_MEMORY = "empty memory — use delete to remove it"


class _Refusal(Exception):
    """A refusal with its message for a person."""


def parse_node_kind(node_id: str) -> str:
    return "memory" if isinstance(node_id, str) and node_id.startswith("memory:") else "skill"


def _never_raises(function: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    @functools.wraps(function)
    def wrapper(home: HermesHome, node_id: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if not isinstance(node_id, str) or not node_id.strip():
            return {"ok": False, "message": "a node id is required"}
        try:
            return function(home, node_id, *args, **kwargs)
        except (_Refusal, ValueError, IndexError) as exc:
            return {"ok": False, "message": str(exc)}
        except Exception as exc:  # a person's action must never crash the caller
            return {"ok": False, "message": f"{function.__name__} failed: {exc}"}

    return wrapper


# --- memory ------------------------------------------------------------------------------
def _memory_entry(
    home: HermesHome, node_id: str, *, to_change: bool = False
) -> tuple[MemoryNodeId, str, str]:
    """``(parsed id, fingerprint, entry text)`` read fresh from disk.

    ``to_change``: the caller will edit or delete the entry, so a positional id is
    refused (see the module docstring)."""
    parsed = parse_memory_id(node_id)
    if parsed.fingerprint is None:  # legacy id: resolve by position in fresh cards
        cards, warnings = memory_cards(home)
        if parsed.index >= len(cards):
            if warnings:
                raise _Refusal(warnings[0])
            raise IndexError(f"memory index {parsed.index} out of range")
        card = cards[parsed.index]
        if card.source != parsed.source:
            raise _Refusal(STALE)
        if to_change:
            raise _Refusal(
                f"'{node_id}' names a memory entry by its position only, and positions move "
                "when entries are added or removed, so it is not used to change anything. "
                f"The entry at that position now is '{card_title(card.entry)}'; if that is "
                f"the one, use its full id: {card.id}"
            )
        return parsed, card.fingerprint, card.entry
    try:
        entries = read_store_file(home.store_file(parsed.target)).entries
    except StoreReadError as exc:
        raise _Refusal(str(exc)) from None
    for entry in entries:
        if fingerprint(entry) == parsed.fingerprint:
            return parsed, parsed.fingerprint, entry
    raise _Refusal(STALE)


def _memory_id_for(home: HermesHome, target: str, fp: str) -> str | None:
    cards, _ = memory_cards(home)
    source = SOURCE_FOR_TARGET[target]
    for card in cards:
        if card.source == source and card.fingerprint == fp:
            return card.id
    return None


def _store_result(result: dict[str, Any], message: str) -> dict[str, Any]:
    if not result.get("success"):
        return {"ok": False, "message": for_people(str(result.get("error") or "the store refused it"))}
    return {"ok": True, "message": message}


# --- skills ------------------------------------------------------------------------------
def _skill_or_refusal(home: HermesHome, name: str) -> tuple[SkillScan, Skill]:
    scan, skill, error = find_skill(home, name)
    if skill is None or scan is None:
        if error == f"skill '{name}' not found" and any(
            item.name == name for item in list_archived(home)
        ):
            error = f"skill '{name}' is archived — restore it first (node restore {name})"
        raise _Refusal(error or f"skill '{name}' not found")
    return scan, skill


# --- the API -----------------------------------------------------------------------------
@_never_raises
def node_detail(home: HermesHome, node_id: str) -> dict[str, Any]:
    """``{"ok", "kind", "id", "label", "content", ...}`` for a node, read fresh."""
    if parse_node_kind(node_id) == "memory":
        parsed, fp, entry = _memory_entry(home, node_id)
        return {
            "ok": True,
            "kind": "memory",
            "id": node_id,
            "label": card_title(entry),
            "content": entry,
            "fingerprint": fp,
            "memorySource": parsed.source,
            "file": FILE_NAMES[parsed.target],
            "limit": MemoryStore(home).limit(parsed.target),
        }
    _scan, skill = _skill_or_refusal(home, node_id)
    try:
        content = read_skill_text(skill)
    except SkillTextError as exc:
        raise _Refusal(str(exc)) from None
    record = read_usage(home).record(skill.name)
    return {
        "ok": True,
        "kind": "skill",
        "id": skill.name,
        "label": skill.name,
        "content": content,
        "path": str(skill.skill_md),
        "revision": revision_of(content),
        "readOnly": edit_refusal(skill),
        "pinned": bool(record.get("pinned")),
        "source": skill.source,
        "provenance": skill.provenance,
    }


@_never_raises
def edit_node(
    home: HermesHome, node_id: str, content: str, *, revision: str | None = None
) -> dict[str, Any]:
    """Replace a memory entry or a whole SKILL.md with ``content``.

    For a skill, ``revision`` (from :func:`node_detail`) refuses the edit when the file
    changed on disk since it was shown.
    """
    if not isinstance(content, str):
        raise _Refusal("new content must be text")
    if parse_node_kind(node_id) == "memory":
        parsed, fp, _entry = _memory_entry(home, node_id, to_change=True)
        if not content.strip():
            raise _Refusal(EMPTY_MEMORY)
        store = MemoryStore(home)
        result = store.replace_by_fingerprint(parsed.target, fp, content)
        file_name = FILE_NAMES[parsed.target]
        if result.get("success") and str(result.get("message", "")).startswith("No change"):
            return {"ok": True, "message": f"no changes to the memory in {file_name}", "id": node_id}
        outcome = _store_result(result, f"updated memory in {file_name}")
        if outcome["ok"]:
            outcome["id"] = _memory_id_for(home, parsed.target, fingerprint(content.strip()))
        return outcome
    scan, _skill = _skill_or_refusal(home, node_id)
    return edit_skill(home, node_id, content, revision=revision, scan=scan).as_dict()


@_never_raises
def delete_node(home: HermesHome, node_id: str) -> dict[str, Any]:
    """Remove a memory entry, or archive a skill (restorable with :func:`restore_node`)."""
    if parse_node_kind(node_id) == "memory":
        parsed, fp, _entry = _memory_entry(home, node_id, to_change=True)
        result = MemoryStore(home).remove_by_fingerprint(parsed.target, fp)
        return _store_result(result, f"deleted memory from {FILE_NAMES[parsed.target]}")
    scan, _skill = _skill_or_refusal(home, node_id)
    return archive_skill(home, node_id, scan=scan).as_dict()


def _skill_only(verb: str) -> dict[str, Any]:
    return {"ok": False, "message": f"memory entries cannot be {verb}; only skills can"}


@_never_raises
def pin_node(home: HermesHome, node_id: str) -> dict[str, Any]:
    return _set_pinned(home, node_id, True)


@_never_raises
def unpin_node(home: HermesHome, node_id: str) -> dict[str, Any]:
    return _set_pinned(home, node_id, False)


def _set_pinned(home: HermesHome, node_id: str, pinned: bool) -> dict[str, Any]:
    if parse_node_kind(node_id) == "memory":
        return _skill_only("pinned" if pinned else "unpinned")
    # no _skill_or_refusal: a name with no skill folder (archived, or not made yet) is
    # pinned too, as upstream's curator does
    return set_pinned(home, node_id, pinned).as_dict()


@_never_raises
def restore_node(home: HermesHome, node_id: str) -> dict[str, Any]:
    """Bring an archived skill back (refused if its name is taken again)."""
    if parse_node_kind(node_id) == "memory":
        return _skill_only("restored from the skills archive")
    return restore_skill(home, node_id).as_dict()
