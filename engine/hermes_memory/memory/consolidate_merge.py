"""Proposing a merge of one consolidation group, staged for a person's approval.

The merged wording comes from the person (``merged_text``) or from the review model
(``auxiliary.background_review`` in config.yaml, through litellm, as the background
review reaches it). Either way it is checked like any memory write, under the store's
lock (threat scan, the ``§`` delimiter, the budget after the change), and staged in the
pending queue in upstream's format: per store, one ``batch`` record of ``remove`` ops
for the merged-away entries and a ``replace`` of the kept entry with the merged text.
Nothing is written to MEMORY.md or USER.md here; approving the record does that.

When a group spans both stores the record for the kept entry's store comes first and
the other store's record lists it in ``depends_on``.
"""

from __future__ import annotations

from typing import Any

from ..home import HermesHome
from .consolidate import consolidation_report
from .entries import FILE_NAMES, TARGETS

#: The origin recorded on the staged records (shown as-is by the pending list).
CONSOLIDATION_ORIGIN = "consolidation"

PROMPT = (
    "You merge entries of an AI agent's persistent memory. Write ONE entry that keeps every "
    "fact, name, command, path and number of the entries below that is still true, drops "
    "repetition, and is as short as the facts allow. Where entries contradict each other, "
    "the later entry wins. Plain text only, no preamble, no quotes, no list markers, and "
    "never a line holding only '§'.\n\n"
)


class ConsolidateError(RuntimeError):
    """The proposal cannot be made; the message says why and what to do."""


def _find_group(home: HermesHome, group_id: str) -> dict[str, Any]:
    report = consolidation_report(home)
    for group in report["groups"]:
        if group["id"] == group_id:
            return group
    raise ConsolidateError(
        f"No consolidation group '{group_id}' now: the stores may have changed. Run "
        "'hermes-memory consolidate' again for the current groups."
    )


def ask_model(home: HermesHome, group: dict[str, Any]) -> str:
    """The review model's merged wording for a group (raises :class:`ConsolidateError`)."""
    from ..llm import LLMError, complete, response_text
    from ..review.settings import load_review_settings

    settings = load_review_settings(home)
    if not settings.configured:
        raise ConsolidateError(
            "No review model is configured (auxiliary.background_review in config.yaml); "
            "pass the merged text yourself instead (--text)."
        )
    listing = "\n".join(
        f"{n}. [{FILE_NAMES[e['target']]}] {e['text']}" for n, e in enumerate(group["entries"], start=1)
    )
    try:
        response = complete(
            [{"role": "user", "content": PROMPT + listing}],
            model=settings.model, api_base=settings.api_base, api_key=settings.api_key,
            timeout=settings.timeout, temperature=0,
        )
        text = response_text(response).strip()
    except LLMError as exc:
        raise ConsolidateError(f"The review model gave no merged text: {exc}") from exc
    if not text:
        raise ConsolidateError("The review model answered with empty text; nothing was staged.")
    return text


def _payloads(group: dict[str, Any], merged: str) -> list[dict[str, Any]]:
    entries = group["entries"]
    # keep the entry that already says exactly the merged text, else the suggested one
    keeper = next((e for e in entries if e["text"] == merged), None) or next(
        e for e in entries if e["fingerprint"] == group["keep"]
    )
    payloads = []
    for target in sorted(TARGETS, key=lambda t: t != keeper["target"]):
        ops = [
            {"action": "remove", "old_text": e["text"]}
            for e in entries
            if e["target"] == target and e is not keeper
        ]
        if target == keeper["target"] and keeper["text"] != merged:
            ops.append({"action": "replace", "old_text": keeper["text"], "content": merged})
        if ops:
            payloads.append({"action": "batch", "target": target, "operations": ops})
    return payloads


def propose(home: HermesHome, group_id: str, merged_text: str | None = None) -> dict[str, Any]:
    """Stage the merge of one group; ``{"ok", "pending_ids", "merged_text", "meters", ...}``
    or ``{"ok": False, "error"}`` with nothing staged."""
    from ..pending.applying import pin_memory_write
    from ..pending.memory_ops import MemoryPlan, meter
    from ..pending.queue import PendingQueue
    from ..pending.records import MEMORY
    from ..pending.summaries import memory_summary
    from .entries import char_count
    from .store import MemoryStore

    try:
        group = _find_group(home, group_id)
        source = "person" if merged_text is not None else "review model"
        merged = (merged_text if merged_text is not None else ask_model(home, group)).strip()
        if not merged:
            raise ConsolidateError("The merged text is empty; nothing was staged.")
    except ConsolidateError as exc:
        return {"ok": False, "error": str(exc)}
    queue = PendingQueue(home)
    already = [r.id for r in queue.list().records if r.data.get("consolidation_group") == group_id]
    if already:
        return {"ok": False, "error": (
            f"This merge is already staged as {', '.join(already)}; approve, edit or reject that first."
        )}  # fmt: skip
    store = MemoryStore(home)
    plans = []
    for payload in _payloads(group, merged):
        plan = pin_memory_write(store, payload)
        if not isinstance(plan, MemoryPlan):
            return {"ok": False, "error": plan.get("error", "the write was refused"), "merged_text": merged}
        plans.append(plan)
    staged = []
    for plan in plans:
        extra: dict[str, Any] = {"consolidation_group": group_id}
        if staged:
            extra["depends_on"] = [staged[0].id]
        staged.append(queue.stage(MEMORY, plan.payload, memory_summary(plan.payload), CONSOLIDATION_ORIGIN,
                                  **extra))  # fmt: skip
    meters = {}
    for plan in plans:
        target = plan.target
        before = char_count(store.read_entries(target))
        limit = store.limit(target)
        meters[target] = {
            "before": meter(before, limit), "after": meter(char_count(plan.after), limit),
            "text": f"{before:,} → {char_count(plan.after):,} / {limit:,}",
        }
    return {
        "ok": True,
        "pending_ids": [record.id for record in staged],
        "merged_text": merged,
        "source": source,
        "meters": meters,
        "message": (
            f"Staged {len(staged)} pending write(s); nothing is changed until approved "
            f"('hermes-memory pending approve {staged[0].id}')."
        ),
    }
