"""What a staged memory write does to a store's entries, as one pure function.

:func:`plan_memory` runs the payload's ops on a list of entries. Staging (``pin=True``)
resolves each replace/remove's ``old_text`` exactly as a direct write would (an entry
equal to it wins, else one unique substring) and records the whole entry as
``matched_entry`` (spec §1.7). Approval (``pin=False``), and staging a payload that is
pinned already, touch only the entry whose text equals ``matched_entry``; if it is gone,
the write is stale and nothing applies. A destructive op without ``matched_entry`` (staged
before pinning) is never replayed by its ``old_text`` (spec §6.6): ``pending edit`` pins it
again after a person has looked.

The same function gives ``pending show`` its dry run, ``pending list`` its stale flags and
the approval its change inside the store's lock, so the three always agree.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass, field
from typing import Any

from ..memory import entries as fmt
from ..memory.store import content_problem
from .records import DESTRUCTIVE

LEGACY = (
    "This destructive pending write predates entry pinning and cannot be verified; nothing "
    "was applied. Reject it and recreate the change (or pin it with: hermes-memory pending "
    "edit ID FILE after checking which entry it hits)."
)


@dataclass
class MemoryPlan:
    target: str
    before: list[str]
    after: list[str] | None = None  # None when refused
    error: str | None = None
    stale: bool = False  # refused because what it targets changed (or cannot be verified)
    changes: list[dict[str, Any]] = field(default_factory=list)
    payload: dict[str, Any] = field(default_factory=dict)  # pinned when planned with pin=True

    @property
    def ok(self) -> bool:
        return self.error is None


def _content(op: dict[str, Any]) -> str:
    value = op.get("content")
    if not isinstance(value, str):
        value = op.get("new_text")
    return value.strip() if isinstance(value, str) else ""


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _encoding_problem(content: str) -> str | None:
    try:
        content.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"content holds a character UTF-8 cannot store (at {exc.start}); fix the text."
    return None


def _what_changed(entry: str, entries: list[str]) -> str:
    close = difflib.get_close_matches(entry, entries, n=1, cutoff=0.6)
    if close:
        return f" It now reads: '{fmt.preview(close[0], 100)}'."
    return " It was removed or rewritten beyond recognition."


def _resolve(working: list[str], old_text: str) -> tuple[int | None, str | None]:
    """The direct write's matching: exact entry first, else one unique substring."""
    if old_text in working:
        return working.index(old_text), None
    hits = [i for i, entry in enumerate(working) if old_text in entry]
    if not hits:
        return None, f"no entry matched '{old_text}'."
    if len({working[i] for i in hits}) > 1:
        return None, f"'{old_text}' matched multiple distinct entries -- be more specific."
    return hits[0], None


def plan_memory(payload: dict[str, Any], entries: list[str], limit: int, *,
                pin: bool = False) -> MemoryPlan:  # fmt: skip
    """Run ``payload`` on a copy of ``entries``; see the module docstring."""
    target = payload.get("target") if isinstance(payload.get("target"), str) else ""
    plan = MemoryPlan(target, list(entries), payload=copy.deepcopy(payload))
    batch = payload.get("action") == "batch"
    ops = plan.payload.get("operations") if batch else [plan.payload]
    if not isinstance(ops, list) or not ops:
        plan.error = "operations list is empty."
        return plan
    working = list(entries)

    def refuse(position: int, action: Any, message: str, stale: bool = False) -> MemoryPlan:
        prefix = f"Operation {position} ({action or 'unknown'}): " if batch else ""
        plan.error, plan.stale = prefix + message, stale
        return plan

    for position, op in enumerate(ops, start=1):
        if not isinstance(op, dict):
            return refuse(position, None, "not an operation object.")
        action = op.get("action")
        content = _content(op)
        if action not in ("add", *DESTRUCTIVE):
            return refuse(position, action, f"Unknown staged action '{action}'.")
        if action in ("add", "replace"):
            if not content:
                return refuse(position, action, "content is required.")
            problem = content_problem(content) or _encoding_problem(content)
            if problem:
                return refuse(position, action, problem)
        if action == "add":
            if content not in working:
                working.append(content)
                plan.changes.append({"op": position, "change": "added", "before": None,
                                     "after": content})  # fmt: skip
            continue
        matched = op.get("matched_entry")
        if pin and not (isinstance(matched, str) and matched):
            index, error = _resolve(working, _text(op.get("old_text")))
            if error:
                return refuse(position, action, error[0].upper() + error[1:])
            op["matched_entry"] = working[index]
        elif not isinstance(matched, str) or not matched:
            return refuse(position, action, LEGACY, stale=True)
        elif matched not in working:
            return refuse(position, action, (
                f"Entry changed since it was staged, so this write was not applied: "
                f"'{fmt.preview(matched, 100)}' is no longer in memory as reviewed."
                f"{_what_changed(matched, working)} Recreate the change against the current "
                "entry or reject it; the pending record has been preserved."
            ), stale=True)  # fmt: skip
        else:
            index = working.index(matched)
        old = working[index]
        if action == "replace":
            working[index] = content
            plan.changes.append({"op": position, "change": "replaced", "before": old,
                                 "after": content})  # fmt: skip
        else:
            del working[index]
            plan.changes.append({"op": position, "change": "removed", "before": old,
                                 "after": None})  # fmt: skip
    final = fmt.dedupe(working)
    used = fmt.char_count(final)
    if used > limit:
        plan.error = (
            f"{fmt.FILE_NAMES.get(target, target)} would be at {used:,}/{limit:,} chars after "
            "this write, over its budget; nothing was applied. Free some room first (remove "
            "or shorten entries), or edit the staged write, then approve again."
        )
        return plan
    plan.after = final
    return plan


def stale_reason_unpinned(payload: dict[str, Any], entries: list[str]) -> str | None:
    """For a record staged before pinning: does its ``old_text`` still match at all?"""
    ops = payload.get("operations") if payload.get("action") == "batch" else [payload]
    for op in ops if isinstance(ops, list) else []:
        if isinstance(op, dict) and op.get("action") in DESTRUCTIVE and not op.get("matched_entry"):
            index, error = _resolve(entries, _text(op.get("old_text")))
            if error:
                return f"staged before entry pinning, and {error}"
    return None


def meter(used: int, limit: int) -> dict[str, Any]:
    """``{"used", "limit", "percent", "text": "1,934 / 2,200 · 87 %"}``."""
    percent = fmt.usage_percent(used, limit)
    return {"used": used, "limit": limit, "percent": percent,
            "text": f"{used:,} / {limit:,} · {percent} %"}  # fmt: skip
