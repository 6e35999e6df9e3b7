"""The engine's one face for the desktop (and, later, for a remote home over ``serve``).

Plain functions over a :class:`~hermes_memory.home.HermesHome`, taking and returning plain,
JSON-serialisable data (dicts, lists, strings, numbers). The desktop calls them in-process
for a local home; a remote home will carry the same calls as JSON lines. Nothing here
imports Qt, and nothing here keeps state between calls: every call re-reads the disk.

Each flow keeps its own section below; the work itself lives in the flow's package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .home import HermesHome

# --- memory stores -------------------------------------------------------------------


def store_status(home: HermesHome) -> dict[str, Any]:
    """What ``status --json`` prints: ``{"home", "profile", "provider", "stores": {target:
    {"file", "enabled", "limit", "exists", "entries", "used", "percent", "over_budget",
    "drift"} or {..., "error"}}, "warnings"}``."""
    from .config import load_memory_config
    from .memory.entries import TARGETS
    from .memory.status import read_store_status

    config = load_memory_config(home)
    return {
        "home": str(home.path),
        "profile": home.profile,
        "provider": config.provider,
        "stores": {target: read_store_status(home, target, config).as_dict() for target in TARGETS},
        "warnings": list(config.warnings),
    }


def store_entries(home: HermesHome, target: str | None = None) -> dict[str, Any]:
    """``{target: {"entries": [{"fingerprint", "text"}], "limit"} or {"error"}}`` for one
    store or both, as ``show --json`` lists them."""
    from .memory import entries as fmt
    from .memory.store import MemoryStore, StoreReadError

    store = MemoryStore(home)
    listing: dict[str, Any] = {}
    for name in [target] if target else list(fmt.TARGETS):
        home.store_file(name)  # an unknown target is refused by name
        try:
            entries = store.read_entries(name)
        except StoreReadError as exc:
            listing[name] = {"error": str(exc)}
            continue
        listing[name] = {
            "entries": [{"fingerprint": fmt.fingerprint(e), "text": e} for e in entries],
            "limit": store.limit(name),
        }
    return listing


def store_write(
    home: HermesHome,
    target: str,
    action: str | None = None,
    content: str | None = None,
    old_text: str | None = None,
    operations: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One ``memory`` tool call (add, replace, remove, or an all-or-nothing ``operations``
    batch) under the store's lock, budget and scanner; the tool's own result payload."""
    from .memory.store import MemoryStore
    from .memory.tool import dispatch

    return dispatch(action=action, target=target, content=content, old_text=old_text,
                    operations=operations, store=MemoryStore(home))

# --- skills and the learning graph ---------------------------------------------------


def graph_build(home: HermesHome, include_all: bool = False) -> dict[str, Any]:
    """The learning graph payload, as ``graph --json`` prints it (``--all``: every skill)."""
    from .learning.graph import build_learning_graph

    return build_learning_graph(home, include_all=include_all)

# --- the staged-write queue (pending/) -----------------------------------------------
# Every item (list, show) carries: id, kind ("memory"/"skill"), summary, origin and
# origin_label ("agent"/"background review"), created_at/created/age_seconds, session_id,
# would_apply, stale + stale_reason, refusal, broken + broken_reason, failed + last_error.
# Actions answer {"ok": bool, "message" or "error", ...}; nothing here raises for a bad id.


def _pending_call(action: Callable[[], Any]) -> dict[str, Any]:
    from .pending import PendingError

    try:
        return action()
    except PendingError as exc:
        return {"ok": False, "error": str(exc)}


def pending_list(home: HermesHome) -> dict[str, Any]:
    """``{"items": [...], "count", "problems", "gate": {"memory": bool, "skills": bool}}``:
    every staged write, oldest first, and whether each write-approval gate is on."""
    from .pending import Context, PendingQueue
    from .pending.items import gate_state, item

    queue = PendingQueue(home)
    listing = queue.list()
    context = Context(home)
    items = [item(record, queue.preview(record, context)) for record in listing.records]
    return {"items": items, "count": len(items), "problems": listing.problems, "gate": gate_state(home)}


def pending_count(home: HermesHome) -> dict[str, int]:
    """``{"count", "memory", "skills"}`` without reading the records (for a badge)."""
    from .pending import PendingQueue

    counts = PendingQueue(home).count()
    return {"count": sum(counts.values()), **counts}


def pending_show(home: HermesHome, pending_id: str) -> dict[str, Any]:
    """The item plus its dry run: ``diff`` (memory: ``entries`` added/replaced/removed;
    skills: ``unified``), ``meter_now``/``meter_after`` (``"1,934 / 2,200 · 87 %"``), ``payload``."""
    from .pending import Context, PendingQueue
    from .pending.items import detailed_item

    def show() -> dict[str, Any]:
        return {"ok": True, **detailed_item(PendingQueue(home).find(pending_id), Context(home))}

    return _pending_call(show)


def pending_approve(home: HermesHome, pending_id: str, ops: list[int] | None = None) -> dict[str, Any]:
    """Write it (or only the batch ops numbered in ``ops``, 1-based; the rest stay queued)."""
    from .pending import PendingQueue

    return _pending_call(lambda: PendingQueue(home).approve(pending_id, ops).as_dict())


def pending_reject(home: HermesHome, pending_id: str) -> dict[str, Any]:
    from .pending import PendingQueue

    return _pending_call(lambda: PendingQueue(home).reject(pending_id).as_dict())


def pending_edit(home: HermesHome, pending_id: str, text: str) -> dict[str, Any]:
    """Replace what it writes: new text for a single add/replace/create/edit/write_file, or a
    JSON payload; validated (and re-pinned) as a new staged write would be."""
    from .pending import PendingQueue

    return _pending_call(lambda: PendingQueue(home).edit(pending_id, text).as_dict())


def pending_decide_all(home: HermesHome, approve: bool) -> dict[str, Any]:
    """``approve all`` (skips broken and failed records) or ``reject all``."""
    from .pending import PendingQueue

    decisions = PendingQueue(home).decide_all(approve)
    return {"ok": all(d.ok for d in decisions), "decisions": [d.as_dict() for d in decisions]}


# --- history and provenance (history/) -----------------------------------------------

# --- session history (sessions/) -----------------------------------------------------
