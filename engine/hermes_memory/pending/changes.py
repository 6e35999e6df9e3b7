"""A planned change in upstream's payload shapes, for writers that know before and after.

The background review (and the old ``review/pending/`` records) describe a change as the
entries it removes and adds, or a skill file's full text before and after. Upstream's
queue replays tool arguments, so these helpers turn one into the other: removed entries
become pinned replace/remove ops (``matched_entry`` = the entry itself), and a skill file
change becomes ``create``/``edit``/``write_file`` with ``base_sha256`` pinning the text
it was planned against.
"""

from __future__ import annotations

from typing import Any

from .skill_ops import text_hash
from .summaries import memory_summary, skill_gist

SKILL_MD = "SKILL.md"


def memory_change_payload(target: str, removed: list[str], added: list[str]) -> dict[str, Any]:
    ops: list[dict[str, Any]] = []
    for old, new in zip(removed, added, strict=False):
        ops.append({"action": "replace", "content": new, "old_text": old, "matched_entry": old})
    for old in removed[len(added):]:
        ops.append({"action": "remove", "content": None, "old_text": old, "matched_entry": old})
    for new in added[len(removed):]:
        ops.append({"action": "add", "content": new, "old_text": None})
    if len(ops) == 1:
        return {"action": ops[0]["action"], "target": target, **{k: v for k, v in ops[0].items()
                                                                  if k != "action"}}  # fmt: skip
    return {"action": "batch", "target": target, "operations": ops}


def skill_change_payload(operation: str, name: str, file: str, before: str | None, after: str,
                         category: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:  # fmt: skip
    """``(payload, extra record keys)`` for one skill file change."""
    if operation == "create":
        payload: dict[str, Any] = {"action": "create", "name": name, "content": after}
        if category:
            payload["category"] = category
        return payload, {}
    if file == SKILL_MD:
        payload = {"action": "edit", "name": name, "content": after}
    else:
        payload = {"action": "write_file", "name": name, "file_path": file, "file_content": after}
    return payload, {"base_sha256": text_hash(before)}


def summary_for(subsystem: str, payload: dict[str, Any]) -> str:
    if subsystem == "memory":
        return memory_summary(payload)
    return skill_gist(payload, exists=payload.get("action") != "create")
