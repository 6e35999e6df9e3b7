"""Dry runs and writes of staged records, through the memory store and the skills package.

:func:`preview` answers "would it apply now, what would change, how full would the store
be"; :func:`apply_record` writes it: a memory write inside the store's lock-reload-atomic
write cycle (:meth:`MemoryStore.mutate`), a skill write through the skills package. Both
use the same planning functions, so a preview and the approval that follows agree.
:func:`pin_memory_write` is the check a memory write passes before it is staged (the same
resolution a direct write would do, under the store's lock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..config import MemoryConfig, load_memory_config
from ..fileio import LockTimeout, file_lock
from ..history.recording import APP, BACKGROUND_REVIEW, FOREGROUND, UNKNOWN, writing_as
from ..home import HermesHome
from ..memory import entries as fmt
from ..memory.store import MemoryStore, StoreReadError, StoreRefusal, read_store_file
from ..skills.index import SkillIndex, SkillScan
from .memory_ops import LEGACY, MemoryPlan, meter, plan_memory, stale_reason_unpinned
from .records import DESTRUCTIVE, MEMORY, PendingRecord
from .skill_ops import apply_skill_plan, plan_skill

#: Who approves in this app or its CLI: a person (history's origin ``app``).
APPROVED_ORIGIN = APP
#: The record origins that name a proposer history knows (spec §5; others read as unknown).
_PROPOSERS = (FOREGROUND, BACKGROUND_REVIEW)


@dataclass
class Context:
    """What previews of many records share: one read of each store, one skill scan."""

    home: HermesHome
    _config: MemoryConfig | None = None
    _entries: dict[str, list[str] | StoreReadError] = field(default_factory=dict)
    _scan: SkillScan | None = None

    @property
    def config(self) -> MemoryConfig:
        if self._config is None:
            self._config = load_memory_config(self.home)
        return self._config

    def entries(self, target: str) -> list[str]:
        if target not in self._entries:
            try:
                self._entries[target] = read_store_file(self.home.store_file(target)).entries
            except StoreReadError as exc:
                self._entries[target] = exc
        value = self._entries[target]
        if isinstance(value, StoreReadError):
            raise value
        return value

    @property
    def scan(self) -> SkillScan:
        if self._scan is None:
            self._scan = SkillIndex(self.home).scan()
        return self._scan


def _destructive(payload: dict[str, Any]) -> bool:
    ops = payload.get("operations") if payload.get("action") == "batch" else [payload]
    return any(isinstance(op, dict) and op.get("action") in DESTRUCTIVE for op in ops or [])


def _disabled(config: MemoryConfig, target: str) -> str | None:
    if config.enabled_for(target):
        return None
    return f"Built-in {fmt.FILE_NAMES[target]} writes are disabled in memory config."


def preview(context: Context, record: PendingRecord) -> dict[str, Any]:
    """``{"would_apply", "stale", "reason", "diff", "meter_now"?, "meter_after"?}``."""
    if record.problem:
        return {"would_apply": False, "stale": False, "reason": record.problem, "diff": None}
    if record.subsystem == MEMORY:
        return _memory_preview(context, record)
    plan = plan_skill(context.home, record, context.scan)
    return {
        "would_apply": plan.ok,
        "stale": plan.stale,
        "reason": plan.error,
        "diff": {"file": f"{plan.name}/{plan.file}", "unified": plan.unified_diff() if plan.ok else None},
    }


def _memory_preview(context: Context, record: PendingRecord) -> dict[str, Any]:
    target = record.target
    result: dict[str, Any] = {"would_apply": False, "stale": False, "reason": None, "diff": None}
    disabled = _disabled(context.config, target)
    if disabled:
        result["reason"] = disabled
        return result
    try:
        entries = context.entries(target)
    except StoreReadError as exc:
        result["reason"] = str(exc)
        return result
    limit = context.config.limit_for(target)
    plan = plan_memory(record.payload, entries, limit)
    result.update(
        would_apply=plan.ok,
        stale=plan.stale,
        reason=plan.error,
        diff={"entries": plan.changes, "file": fmt.FILE_NAMES[target]},
        meter_now=meter(fmt.char_count(entries), limit),
    )
    if plan.error and plan.error.endswith(LEGACY):
        result["reason"] = stale_reason_unpinned(record.payload, entries) or plan.error
    if plan.ok:
        result["meter_after"] = meter(fmt.char_count(plan.after or []), limit)
    return result


# --- writing ---------------------------------------------------------------------------
def _memory_result_extras(plan: MemoryPlan, batch: bool) -> dict[str, Any]:
    """Upstream's replay keys: the full text of each entry a write overwrote or removed."""
    replaced = {c["op"]: c["before"] for c in plan.changes if c["change"] == "replaced"}
    removed = {c["op"]: c["before"] for c in plan.changes if c["change"] == "removed"}
    if batch:
        return {key: value for key, value in (("replaced_entries", replaced),
                                               ("removed_entries", removed)) if value}  # fmt: skip
    extras = {}
    if replaced:
        extras["replaced_entry"] = next(iter(replaced.values()))
    if removed:
        extras["removed_entry"] = next(iter(removed.values()))
    return extras


def apply_memory_payload(home: HermesHome, payload: dict[str, Any]) -> dict[str, Any]:
    """Replay a staged memory write without the gate (``apply_memory_pending``)."""
    target = payload.get("target")
    if target not in fmt.TARGETS:
        return {"success": False, "error": f"Invalid target '{target}'. Use 'memory' or 'user'."}
    store = MemoryStore(home)
    disabled = _disabled(store.config, target)
    if disabled:
        return {"success": False, "error": disabled}
    limit = store.limit(target)
    planned: list[MemoryPlan] = []

    def change(entries: list[str]) -> tuple[list[str], str]:
        plan = plan_memory(payload, entries, limit)
        planned.append(plan)
        if not plan.ok:
            raise StoreRefusal({"success": False, "error": plan.error,
                                **({"stale": True} if plan.stale else {})})  # fmt: skip
        if plan.after == entries:
            return entries, "No change: memory already has this."
        count = len(plan.changes)
        return plan.after or [], f"Applied {count} change(s)." if count != 1 else "Applied 1 change."

    result = store.mutate(target, change, drift_guard=_destructive(payload))
    if result.get("success") and planned:
        result.update(_memory_result_extras(planned[-1], payload.get("action") == "batch"))
    return result


def apply_record(home: HermesHome, record: PendingRecord, payload: dict[str, Any] | None = None,
                 origin: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Write a staged record (or, for a partial approval, some of its ops).

    Without ``origin`` this is a person's approval in this app: history records the
    proposer (the record's ``origin`` and ``session_id``) as who wrote it, approved in the
    app, or the app as the writer when the person edited the record before approving it.
    With ``origin`` (a review writing its own change at once) that origin writes it."""
    if record.problem:
        return {"success": False, "error": record.problem}
    with writing_as(**history_writer(record, origin)):
        if record.subsystem == MEMORY:
            return apply_memory_payload(home, payload or record.payload)
        return apply_skill_plan(home, plan_skill(home, record))


def history_writer(record: PendingRecord, origin: str | None = None) -> dict[str, Any]:
    """The history fields of writing ``record``: origin, session, the pending id, and who
    approved it (``approved_by``) or, for an edited record, who proposed it (``proposed_by``)."""
    proposer = record.origin if record.origin in _PROPOSERS else UNKNOWN
    fields: dict[str, Any] = {"session": record.session_id, "pending": record.id}
    if origin is not None:
        return {"origin": origin, **fields}
    if record.data.get("edited_at") is not None:  # the text written is the person's
        return {"origin": APPROVED_ORIGIN, **fields, "proposed_by": proposer}
    return {"origin": proposer, **fields, "approved_by": APPROVED_ORIGIN}


def pin_memory_write(store: MemoryStore, payload: dict[str, Any]) -> MemoryPlan | dict[str, Any]:
    """Validate a memory write for staging under the store's lock, and pin its anchors.

    Returns the plan (``plan.payload`` is the pinned payload) or a refusal payload: the
    write would fail if made directly now, so it is refused instead of queued (spec §6.5).
    """
    target = payload.get("target")
    disabled = store.disabled_refusal(target) if target in fmt.TARGETS else None
    if target not in fmt.TARGETS or disabled:
        return disabled or {"success": False, "error": f"Invalid target '{target}'."}
    path = store.path(target)
    try:
        with file_lock(path, store.lock_timeout):
            current = read_store_file(path)
    except (StoreReadError, LockTimeout) as exc:
        return {"success": False, "error": str(exc)}
    except OSError as exc:
        return {"success": False, "error": f"Could not read {path}: {exc}"}
    plan = plan_memory(payload, current.entries, store.limit(target), pin=True)
    if not plan.ok:
        return {"success": False, "error": plan.error, **store.inventory(target, current.entries)}
    return plan
