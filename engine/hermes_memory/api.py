"""The engine's one face for the desktop (and, later, for a remote home over ``serve``).

Plain functions over a :class:`~hermes_memory.home.HermesHome`, taking and returning plain,
JSON-serialisable data (dicts, lists, strings, numbers). The desktop calls them in-process
for a local home; a remote home will carry the same calls as JSON lines. Nothing here
imports Qt, and nothing here keeps state between calls: every call re-reads the disk.

Each flow keeps its own section below; the work itself lives in the flow's package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .history import service as history_service
from .home import HermesHome
from .memory.edits import save_draft
from .memory.entries import FILE_NAMES
from .memory.store import MemoryStore, StoreReadError


# --- memory stores -------------------------------------------------------------------
def set_entries(
    home: HermesHome, target: str, expected: Sequence[str], entries: Sequence[str]
) -> dict[str, Any]:
    """Make the store hold ``entries`` where it held ``expected`` (an undo or redo of a save).

    What anyone changed since ``expected`` is merged in when it does not conflict; a conflict
    refuses with nothing written. ``{"ok", "message", "entries"}``.
    """
    result = save_draft(MemoryStore(home), target, list(expected), list(entries), auto_merge=True)
    if result.get("success"):
        return {"ok": True, "message": str(result.get("message", "Saved.")),
                "entries": list(result.get("entries", ()))}
    return {"ok": False, "message": str(result.get("error") or "the store refused it")}


def _edit_entries(home: HermesHome, target: str, change) -> dict[str, Any]:
    store = MemoryStore(home)
    try:
        current = store.read_entries(target)
    except StoreReadError as exc:
        return {"ok": False, "message": str(exc)}
    draft, message = change(list(current))
    if draft is None:
        return {"ok": False, "message": message}
    if draft == current:
        return {"ok": True, "message": message}
    result = save_draft(store, target, current, draft)
    if result.get("success"):
        return {"ok": True, "message": message}
    return {"ok": False, "message": str(result.get("error") or "the store refused it")}


def insert_entry(home: HermesHome, target: str, position: int, text: str) -> dict[str, Any]:
    """Put ``text`` back at ``position`` (clamped), under the lock, budget and scanner."""
    name = FILE_NAMES[target]

    def change(current: list[str]):
        if text in current:
            return current, f"the entry is already in {name}"
        at = max(0, min(position, len(current)))
        return current[:at] + [text] + current[at:], f"put the entry back in {name}"

    return _edit_entries(home, target, change)


def remove_entry(home: HermesHome, target: str, text: str) -> dict[str, Any]:
    """Remove the entry that reads exactly ``text``."""
    name = FILE_NAMES[target]

    def change(current: list[str]):
        if text not in current:
            return None, f"that entry is no longer in {name}"
        return [entry for entry in current if entry != text], f"deleted memory from {name}"

    return _edit_entries(home, target, change)


def swap_entry(home: HermesHome, target: str, old: str, new: str) -> dict[str, Any]:
    """Replace the entry that reads exactly ``old`` with ``new``, in place."""
    name = FILE_NAMES[target]

    def change(current: list[str]):
        if old not in current:
            return None, f"that entry changed in {name} since; nothing was replaced"
        return [new if entry == old else entry for entry in current], f"edited memory in {name}"

    return _edit_entries(home, target, change)



def consolidate_groups(home: HermesHome) -> dict[str, Any]:
    """Near-duplicate and overlapping entries of MEMORY.md and USER.md: ``{"groups": [{"id",
    "kind" ("duplicate"/"overlap"), "score", "entries": [{"target", "file", "index",
    "fingerprint", "text", "chars"}], "keep", "pairs", "saves", "saves_by_store", "meters":
    {target: "1,783 → 1,402 / 2,200"}}], "count", "saves", "meters": {target: {"used",
    "after", "limit", "text"}}, "stale": [{"reason" ("superseded"/"unreferenced"), "entry",
    "message", ...}], "errors", "thresholds"}``. Rules in :mod:`hermes_memory.memory.consolidate`."""
    from .memory.consolidate import consolidation_report

    return consolidation_report(home)


def consolidate_propose(home: HermesHome, group_id: str, merged_text: str | None = None) -> dict[str, Any]:
    """Stage the merge of one group in the pending queue (never applied here). Without
    ``merged_text`` the review model words it. ``{"ok": True, "pending_ids", "merged_text",
    "source", "meters": {target: {"before", "after", "text"}}, "message"}`` or
    ``{"ok": False, "error"}`` with nothing staged."""
    from .memory.consolidate_merge import propose

    return propose(home, group_id, merged_text)



# --- consolidating in the app (the Memory tab's Consolidate view) ------------------------
def consolidate_apply(home: HermesHome, group_id: str, merged_text: str) -> dict[str, Any]:
    """Merge one group now, worded as given: one entry keeps ``merged_text``, the others go,
    in every store the group touches or in none. ``{"ok": True, "message", "merged_text",
    "changes": [{"target", "before", "after"}]}`` or ``{"ok": False, "message", "stale"?}``
    with nothing written. :func:`consolidate_revert` undoes (and redoes) it."""
    from .memory.consolidate_apply import apply_merge

    return apply_merge(home, group_id, merged_text)


def consolidate_revert(
    home: HermesHome, changes: list[dict[str, Any]], reverse: bool = True
) -> dict[str, Any]:
    """Undo (``reverse``) or redo a :func:`consolidate_apply`: each store back from its
    ``after`` to its ``before`` (or forward), merging in later writes; all or none."""
    from .memory.consolidate_apply import set_stores

    return set_stores(home, changes, reverse=reverse)


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

def store_snapshot(home: HermesHome, target: str) -> dict[str, Any]:
    """Everything a store editor and meter show of one store, read now: ``{"target", "path",
    "limit", "enabled", "exists", "entries", "raw", "error", "drift", "damage", "identity"}``
    (the fields of :class:`~hermes_memory.memory.status.StoreStatus`, as plain data)."""
    from .memory.status import read_store_status

    home.store_file(target)  # an unknown target is refused by name
    status = read_store_status(home, target)
    return {**status.__dict__, "path": str(status.path), "entries": list(status.entries),
            "identity": list(status.identity) if status.identity else None}


def _plain_save_result(result: dict[str, Any]) -> dict[str, Any]:
    """A save's payload without the merge objects (a conflict says ``"conflict": True`` and
    carries ``current_entries``; a merged save says what it merged in its message)."""
    return {key: value for key, value in result.items() if key not in ("merge", "merged")}


def _drafts(drafts: Sequence[dict[str, Any] | str]) -> list[Any]:
    from .memory.edits import DraftEntry

    def one(item: dict[str, Any] | str):
        if isinstance(item, str):
            return item
        origins = item.get("origins")
        return DraftEntry(str(item.get("text", "")), None if origins is None else tuple(origins))

    return [one(item) for item in drafts]


def memory_save_draft(
    home: HermesHome, target: str, base: Sequence[str], drafts: Sequence[dict[str, Any] | str]
) -> dict[str, Any]:
    """Save an editor's draft made from ``base`` (``drafts``: ``{"text", "origins"}`` per
    card, ``origins`` the base entries it was made from or ``None``): merged with what
    changed on disk meanwhile unless it conflicts. The engine's save payload
    (``success``, ``message``/``error``, ``entries``; ``conflict`` + ``current_entries``)."""
    result = save_draft(MemoryStore(home), target, list(base), _drafts(drafts), auto_merge=True)
    return _plain_save_result(result)


def memory_recreate(home: HermesHome, target: str, drafts: Sequence[dict[str, Any] | str]) -> dict[str, Any]:
    """Write the editor's entries to a store file that was deleted."""
    from .memory.edits import recreate_file

    return _plain_save_result(recreate_file(MemoryStore(home), target, _drafts(drafts)))


def memory_normalise(home: HermesHome, target: str) -> dict[str, Any]:
    """Rewrite a drifted store file canonically, after a backup."""
    return _plain_save_result(MemoryStore(home).normalise_file(target))

# --- skills and the learning graph ---------------------------------------------------


def skills_check(home: HermesHome) -> dict[str, Any]:
    """Skill health: ``{"findings": [{"skill", "code", "severity", "message", "fix",
    "directory"}], "count", "skills_checked", "skills_with_problems", "by_severity",
    "warnings", "thresholds"}``; codes and rules in :mod:`hermes_memory.skills.health`."""
    from .skills.health import check_skills

    return check_skills(home)


def graph_build(home: HermesHome, include_all: bool = False) -> dict[str, Any]:
    """The learning graph payload, as ``graph --json`` prints it (``--all``: every skill)."""
    from .learning.graph import build_learning_graph

    return build_learning_graph(home, include_all=include_all)

# Node actions answer their mutation's payload; a change that worked carries plain "undo"
# and "redo" steps for graph_undo (see hermes_memory.learning.node_actions).


def graph_node_detail(home: HermesHome, node_id: str) -> dict[str, Any]:
    """One node's details pane: its full text, revision, facts (``{"ok", ...}``)."""
    from .learning.mutations import node_detail

    return node_detail(home, node_id)


def graph_archived(home: HermesHome) -> dict[str, Any]:
    """``{"ok": True, "items": [...]}``: the archived skills, as the side panel lists them."""
    from .skills import list_archived

    return {"ok": True, "items": [item.as_dict() for item in list_archived(home)]}


def graph_set_pin(home: HermesHome, node_id: str, pinned: bool) -> dict[str, Any]:
    from .learning import node_actions

    return node_actions.set_pin(home, node_id, pinned)


def graph_edit(home: HermesHome, node_id: str, content: str, revision: str | None = None) -> dict[str, Any]:
    """Replace a skill's SKILL.md or a memory entry's text (refused if ``revision`` is stale)."""
    from .learning import node_actions

    return node_actions.edit(home, node_id, content, revision)


def graph_archive(home: HermesHome, node_id: str) -> dict[str, Any]:
    from .learning import node_actions

    return node_actions.archive(home, node_id)


def graph_delete_memory(home: HermesHome, node_id: str) -> dict[str, Any]:
    from .learning import node_actions

    return node_actions.delete_memory(home, node_id)


def graph_restore(home: HermesHome, name: str) -> dict[str, Any]:
    from .learning import node_actions

    return node_actions.restore(home, name)


def graph_undo(home: HermesHome, step: dict[str, Any]) -> dict[str, Any]:
    """Carry out an ``undo`` or ``redo`` step an action answered."""
    from .learning import node_actions

    return node_actions.run_step(home, step)


def skills_bulk(home: HermesHome, action: str, names: list[str]) -> dict[str, Any]:
    """``action`` (pin, unpin, archive, restore) on every skill in ``names``, all or nothing:
    ``{"ok": True, "action", "done", "unchanged", "message"}`` or ``{"ok": False, "message",
    "failed", "rolled_back"}``; see :mod:`hermes_memory.skills.bulk`."""
    from .skills.bulk import skills_bulk as run

    return run(home, action, names)


def memory_nodes_delete(home: HermesHome, ids: list[str]) -> dict[str, Any]:
    """Delete the entries behind these memory card ids (one write per file, all or nothing):
    ``{"ok", "message", "deleted", "stores": {target: {"before", "after"}}}``."""
    from .learning.bulk import delete_memory_nodes

    return delete_memory_nodes(home, ids)


def memory_stores_set(home: HermesHome, stores: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """Make each store hold ``after`` where it held ``before`` (undo/redo of
    :func:`memory_nodes_delete`), merging what was written since; all or nothing."""
    from .learning.bulk import set_stores

    return set_stores(home, stores)

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


def pending_check_edit(home: HermesHome, pending_id: str, text: str) -> dict[str, Any]:
    """Dry run of :func:`pending_edit` for live checks while typing; writes nothing.

    ``{"ok", "error"?, "chars", "findings": [{"id", "explanation"}], "scanned", "problem",
    "would_apply", "reason", "diff", "meter_after"}``: the scanner and budget checks a memory write passes
    (``problem`` is the store's refusal), and the preview the edited record would have."""
    from .memory.edits import check_entry
    from .pending import Context, PendingError, PendingQueue, PendingRecord, preview
    from .pending.queue import edited_payload

    def check() -> dict[str, Any]:
        record = PendingQueue(home).find(pending_id)
        if record.problem:
            raise PendingError(f"'{record.id}' cannot be edited: {record.problem}.")
        payload = edited_payload(record, text)
        data = {**record.data, "payload": payload, "action": payload.get("action", "")}
        data.pop("base_sha256", None)  # an edit is re-pinned to today's text when saved
        result = preview(Context(home), PendingRecord(record.id, record.subsystem, data, record.path))
        texts = [text] if not text.lstrip().startswith("{") else [
            op.get("content") for op in PendingRecord(record.id, record.subsystem, data).operations()
            if isinstance(op.get("content"), str)]  # fmt: skip
        findings, problem = [], None
        if record.subsystem == "memory":
            for entry in texts:
                checked = check_entry(entry)
                findings += [{"id": f.id, "explanation": f.explanation} for f in checked.findings]
                problem = problem or checked.problem
        return {"ok": True, "chars": sum(len(t.strip()) for t in texts), "findings": findings,
                "scanned": record.subsystem == "memory",
                "problem": problem, "would_apply": bool(result.get("would_apply")) and not problem,
                "reason": problem or result.get("reason"), "diff": result.get("diff"),
                "meter_after": result.get("meter_after")}  # fmt: skip

    return _pending_call(check)


def pending_decide_all(home: HermesHome, approve: bool) -> dict[str, Any]:
    """``approve all`` (skips broken and failed records) or ``reject all``."""
    from .pending import PendingQueue

    decisions = PendingQueue(home).decide_all(approve)
    return {"ok": all(d.ok for d in decisions), "decisions": [d.as_dict() for d in decisions]}


def pending_edit_and_approve(home: HermesHome, pending_id: str, text: str) -> dict[str, Any]:
    """Save the edit, then approve it; a refused approval leaves the edited record queued."""
    edited = pending_edit(home, pending_id, text)
    if not edited.get("ok"):
        return {**edited, "decision": "edited"}
    approved = pending_approve(home, pending_id)
    if not approved.get("ok"):
        reason = approved.get("error") or approved.get("message") or "refused"
        return {**approved, "ok": False, "error": f"The edit was saved and stays queued, but "
                f"approving it was refused: {reason}"}  # fmt: skip
    return approved


def pending_decide_many(home: HermesHome, pending_ids: Sequence[str], approve: bool) -> dict[str, Any]:
    """Approve or reject each of ``pending_ids`` in turn; one refusal does not stop the rest."""
    decide = pending_approve if approve else pending_reject
    decisions = [{"id": ident, **decide(home, ident)} for ident in pending_ids]
    return {"ok": all(d.get("ok") for d in decisions), "decisions": decisions}

# --- history and provenance (history/) -----------------------------------------------
# Every version of MEMORY.md, USER.md and each skill, with when, who (origin) and which
# session; all return {"ok": ..., ...} and never raise for a refusal. Times are epoch
# seconds. See hermes_memory.history.service for each one's fields.


def history_log(
    home: HermesHome,
    kind: str | None = None,
    skill: str | None = None,
    since: float | None = None,
    limit: int | None = None,
) -> dict:
    """Versions newest first (``kind``: memory, user or skill; ``skill``: one skill)."""
    return history_service.log(home, kind=kind, skill=skill, since=since, limit=limit)


def history_show(home: HermesHome, version_id: str) -> dict:
    """One version: its entries (with fingerprints) or SKILL.md text, and its change."""
    return history_service.show(home, version_id)


def history_diff(home: HermesHome, version_id: str, other_id: str | None = None) -> dict:
    """Entry-level diff a version made, or between two versions, or to ``"now"``."""
    return history_service.diff(home, version_id, other_id)


def history_restore(home: HermesHome, version_id: str, entry: str | None = None) -> dict:
    """Restore a version (or one entry of it by fingerprint) through the normal write path."""
    return history_service.restore(home, version_id, entry)


def history_capture(home: HermesHome, scanned_after_ns: int | None = None) -> dict:
    """Record changes made outside the engine (call at open and on each file event).
    ``scanned_after_ns``: the caller watches the home for every change since then, so a
    scan of the skills this process started after it is trusted (the app at open)."""
    return history_service.capture(home, scanned_after_ns)


def history_import_sessions(home: HermesHome) -> dict:
    """Backfill past memory writes from state.db, with their sessions."""
    return history_service.import_sessions(home)


def history_size(home: HermesHome) -> dict:
    """Where the history folder is and how many bytes it takes (for a "forget" dialog)."""
    return history_service.size(home)


def history_forget(home: HermesHome, before: float | None = None) -> dict:
    """Erase history (all of it, or what was recorded before ``before``)."""
    return history_service.forget(home, before)


def history_entry_lineage(home: HermesHome, fingerprint: str) -> dict:
    """One entry's story through its replaces: each step's version, time, origin, session."""
    return history_service.lineage(home, fingerprint)


def history_state_at(home: HermesHome, when: float | None = None, texts: bool = False) -> dict:
    """Both stores' sizes (and entries with ``texts``) and every skill's state at ``when``."""
    return history_service.state_at(home, when, texts)


def history_growth(home: HermesHome) -> dict:
    """One point per version (time, both stores' entries and chars, active skills)."""
    return history_service.growth(home)


def history_replay(home: HermesHome, when: float | None = None) -> dict:
    """The stores' entries ({fingerprint, text}) and skills' states at ``when``, for a
    scrubber: the history is re-read only when its files changed, so steps are cheap.
    Also ``first``/``last`` (the span recorded) and ``versions`` (how many)."""
    from .history.replay import replay

    return history_service._guard(replay)(home, when)


def history_restore_undoable(home: HermesHome, version_id: str, entry: str | None = None) -> dict:
    """``history_restore``, plus ``undo`` ({"from_id", "to_id"} for ``history_step``, or
    None when nothing was written) and ``write`` (the kind of change: memory/user/skills)."""
    from .history.replay import restore_undoable

    return history_service._guard(restore_undoable)(home, version_id, entry)


def history_step(home: HermesHome, from_id: str, to_id: str) -> dict:
    """Undo or redo a restore: take what is at version ``from_id`` to ``to_id``, keeping
    whatever anyone wrote to the store since (a skill changed since is refused)."""
    from .history.replay import step

    return history_service._guard(step)(home, from_id, to_id)


def history_provenance(home: HermesHome) -> dict:
    """Per memory entry and per skill: first seen, last changed, by whom, sessions."""
    return history_service.provenance(home)


def session_taught(home: HermesHome, session_id: str) -> dict:
    """What one session wrote to memory and skills."""
    return history_service.taught(home, session_id)


def session_revert(home: HermesHome, session_id: str, dry_run: bool = True) -> dict:
    """Undo what one session taught where unchanged since (``dry_run`` by default)."""
    return history_service.revert(home, session_id, dry_run=dry_run)


def history_versions(home: HermesHome) -> dict:
    """When each version was recorded and of what, oldest first: ``{"ok", "points": [{"ts",
    "kind"}], "problems"}`` (the graph's date scrubber). From the log's summary index, so
    nothing is replayed: a fraction of :func:`history_growth` at 10,000 versions."""
    from .history.log_index import summary_rows
    from .history.storage import HistoryError

    try:
        rows, problems = summary_rows(home)
        points = sorted(({"ts": row[1], "kind": row[2]} for row in rows), key=lambda point: point["ts"])
    except (HistoryError, OSError, IndexError, TypeError) as exc:
        return {"ok": False, "error": f"History cannot be read: {exc}"}
    return {"ok": True, "points": points, "problems": problems}


# --- history: changes (the Changes tab's feed) ----------------------------------------
# Items are history versions with "diff", "verb", "previous", "nodes", "pinned", "flagged"
# and "undoable"; see hermes_memory.history.changes.


def changes_since(
    home: HermesHome,
    since: float | None = None,
    limit: int | None = None,
    exclude_origins: list[str] | None = None,
    capture: bool = False,
) -> dict:
    """Changes recorded after ``since`` (newest first) and the skills used since;
    ``capture`` first records what someone else changed on disk."""
    from .history import changes

    def run() -> dict:
        problems = []
        if capture:
            problems = history_service.capture(home).get("problems") or []
        result = changes.since(home, since, limit, exclude_origins)
        result["problems"] = list(problems) + list(result.get("problems") or [])
        return result

    return changes.guarded(run)()


def changes_undo(home: HermesHome, version_id: str) -> dict:
    """Undo one change (restore the version before it) while nothing changed it since."""
    from .history import changes

    return changes.guarded(changes.undo_change)(home, version_id)


def changes_redo(home: HermesHome, version_id: str) -> dict:
    """Bring a change back after :func:`changes_undo`."""
    from .history import changes

    return changes.guarded(changes.redo_change)(home, version_id)


def changes_pin(home: HermesHome, skill: str, pinned: bool = True) -> dict:
    """Pin (or unpin) a skill from the feed."""
    from .history import changes

    return changes.pin_skill(home, skill, pinned)


# --- session history (sessions/) -----------------------------------------------------
# Reads answer {"ok": True, ...} or, for a missing, locked or damaged state.db and a vanished
# session, {"ok": False, "state": "missing"|"locked"|"invalid"|"corrupt"|"vanished"|"error",
# "error"}. The work lives in hermes_memory.sessions.browse.


def sessions_search(home: HermesHome, query: str, limit: int = 30, order: str = "newest") -> dict:
    """Messages matching any typed text (FTS5): ``order`` ``"newest"`` (fast while typing)
    or ``"best"`` (relevance, cron after conversations). ``results`` of ``{"id",
    "session_id", "role", "snippet" (">>>hit<<<"), "timestamp", "source", "title",
    "session_started"}``, with ``count``, ``sessions``, ``order``, ``path``, ``note``."""
    from .sessions import browse

    return browse.search(home, query, limit, order)


def sessions_recent(home: HermesHome, limit: int = 50) -> dict:
    """The most recently active sessions, each with ``last_active`` and a ``preview``."""
    from .sessions import browse

    return browse.recent(home, limit)


def sessions_transcript(home: HermesHome, session_id: str) -> dict:
    """One session's messages for reading: tool calls parsed, memory and skill writes marked."""
    from .sessions import browse

    return browse.transcript(home, session_id)


def sessions_origins(
    home: HermesHome,
    target: str | None = None,
    fingerprint: str | None = None,
    skill: str | None = None,
) -> dict:
    """Where a memory entry (``target`` + ``fingerprint``) or a ``skill`` came from: the
    sessions that wrote it, each with the ``message_id`` of the write."""
    from .sessions import browse

    return browse.origins(home, target, fingerprint, skill)


def sessions_lesson(home: HermesHome, session_id: str) -> dict:
    """What one session taught, as links: entries (with their graph ``node_id`` while they
    are still in the store) and skills."""
    from .sessions import browse

    return browse.lesson(home, session_id)


def sessions_revert(home: HermesHome, session_id: str) -> dict:
    """Revert what one session taught (see :func:`session_revert` for its dry run); the
    result carries a ``change`` that :func:`sessions_apply_change` undoes and redoes."""
    from .sessions import browse

    return browse.revert_as_change(home, session_id)


def sessions_apply_change(home: HermesHome, change: dict, direction: str = "undo") -> dict:
    """Undo (``"undo"``) or redo (``"redo"``) a :func:`sessions_revert`, merging what the
    agent wrote since."""
    from .sessions import browse

    return browse.apply_change(home, change, direction)



# --- homes at a glance (the fleet view; remote/) -------------------------------------


def home_summary(home: HermesHome) -> dict[str, Any]:
    """One home at a glance, for a list of many: ``{"home", "profile", "profiles",
    "stores": {target: {"used", "limit", "percent", "enabled", "error"}}, "pending",
    "last_change"}``; ``last_change`` is the newest modification time (epoch seconds) of
    the files a front-end shows (stores, pending queue, skills, config), or ``None``."""
    import os

    from .remote.watch import WATCHED

    status = store_status(home)
    stores = {
        target: {key: store.get(key) for key in ("used", "limit", "percent", "enabled", "error")}
        for target, store in status["stores"].items()
    }
    times = []
    for relative, _what in WATCHED:
        try:
            times.append(os.stat(home.path / relative).st_mtime)
        except OSError:
            continue
    return {"home": str(home.path), "profile": home.profile, "profiles": home.list_profiles(),
            "stores": stores, "pending": pending_count(home)["count"],
            "last_change": max(times) if times else None}
