"""One background review of one session: the bounded model/tool loop and its outcome.

The run reads the session from ``state.db``, replays a bounded digest of it to the model
configured for reviews, and lets the model call only the review's tools. Every change the
model makes is planned, not written, until the run has finished well:

* ``propose`` (the safe default) queues one proposal per change for a person;
* ``apply`` writes the changes through the engine, in order, as upstream's review does,
  except those a write-approval gate holds back (``memory.write_approval``,
  ``skills.write_approval``): they are queued, like proposals.

A run that fails (the server errors, times out, or sends tool calls we cannot read) or is
cancelled therefore changes nothing in the home. Upstream applies each call as it comes;
we only move the writes to the end, so a half-finished review never leaves half its
changes behind. Bounds: ``max_rounds`` model turns, a per-call timeout, a character budget
for the replayed conversation, an aggregate prompt-token budget, and a cancel event that
is checked between rounds.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import llm
from ..history.recording import BACKGROUND_REVIEW, writing_as
from ..home import HermesHome, HomeError
from ..memory.entries import FILE_NAMES
from ..memory.render import render_block, sanitise_entry
from ..pending import PendingError
from .applying import apply_proposal, queue_proposals
from .conversation import ReviewError, load_session, replayable
from .digest import Digest, fit_digest
from .prompts import SYSTEM_PROMPT, review_request
from .proposals import Proposal, new_review_id
from .recorder import ChangeRecorder
from .settings import ReviewSettings, load_review_settings
from .toolbox import APPLY, PROPOSE, ReviewToolbox

MODES = (PROPOSE, APPLY)
CHARS_PER_TOKEN = 4  # a rough estimate, only used before the server reports real counts

OK = "ok"
FAILED = "failed"
CANCELLED = "cancelled"


@dataclass(frozen=True)
class ToolCallRecord:
    round: int
    name: str
    arguments: dict[str, Any]
    ok: bool
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"round": self.round, "name": self.name, "arguments": self.arguments,
                "ok": self.ok, "message": self.message}  # fmt: skip


@dataclass
class ReviewResult:
    status: str
    mode: str
    session_id: str
    review_id: str
    model: str | None = None
    rounds: int = 0
    stopped: str = ""  # finished | max-rounds | token-budget | cancelled | error
    final_text: str = ""
    error: str | None = None
    error_kind: str | None = None
    proposals: list[Proposal] = field(default_factory=list)
    queued: list[str] = field(default_factory=list)  # propose: ids written to the queue
    applied: list[dict[str, Any]] = field(default_factory=list)  # apply: one outcome per change
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    refused_tools: list[str] = field(default_factory=list)
    denied: list[str] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    digest: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == OK

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "mode": self.mode,
            "session_id": self.session_id,
            "review_id": self.review_id,
            "model": self.model,
            "rounds": self.rounds,
            "stopped": self.stopped,
            "final_text": self.final_text,
            "error": self.error,
            "error_kind": self.error_kind,
            "proposals": [p.to_record() for p in self.proposals],
            "queued": self.queued,
            "applied": self.applied,
            "tool_calls": [call.as_dict() for call in self.tool_calls],
            "refused_tools": self.refused_tools,
            "denied": self.denied,
            "usage": self.usage,
            "digest": self.digest,
        }


def _memory_context(toolbox: ReviewToolbox) -> str:
    blocks = []
    for target, entries in toolbox.memory_snapshot().items():
        clean = [sanitise_entry(entry, FILE_NAMES[target]) for entry in entries]
        block = render_block(target, clean, toolbox.memory.limit(target))
        blocks.append(block or f"{FILE_NAMES[target]}: (no entries yet)")
    if not blocks:
        return ""
    return "\n\nThe agent's persistent memory as it stands:\n\n" + "\n\n".join(blocks)


def build_messages(toolbox: ReviewToolbox, digest: Digest, request: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT + _memory_context(toolbox)},
        *digest.messages,
        {"role": "user", "content": request},
    ]


def _estimate_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    size = len(json.dumps(messages, ensure_ascii=False)) + len(json.dumps(tools))
    return size // CHARS_PER_TOKEN + 1


def _usage(response: Any, key: str) -> int | None:
    usage = getattr(response, "usage", None)
    value = getattr(usage, key, None) if usage is not None else None
    if value is None and isinstance(usage, dict):
        value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _call_message(result: dict[str, Any]) -> str:
    text = result.get("message") or result.get("error") or ("ok" if result.get("success") else "")
    text = " ".join(str(text).split())
    return text if len(text) <= 200 else text[:199] + "…"


def run_review(
    home: HermesHome,
    session_id: str,
    *,
    mode: str = PROPOSE,
    settings: ReviewSettings | None = None,
    review_memory: bool = True,
    review_skills: bool = True,
    focus: str | None = None,
    cancel: threading.Event | None = None,
    progress: Callable[[str], None] | None = None,
) -> ReviewResult:
    """Review one session; never raises for a failure a person can meet (see ``status``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    result = ReviewResult(FAILED, mode, session_id, new_review_id())
    say = progress or (lambda _text: None)

    def fail(message: str, kind: str = "error") -> ReviewResult:
        result.status, result.stopped = FAILED, "error"
        result.error, result.error_kind = message, kind
        result.proposals = []
        return result

    try:
        home.require()
        settings = settings or load_review_settings(home)
        result.model = settings.model
        if not settings.configured:
            return fail(
                "No model is configured for the background review. Set "
                "auxiliary.background_review.model (with provider and base_url as needed) in "
                "config.yaml, or auxiliary.session_search.model.",
                "not-configured",
            )
        session, messages = load_session(home, session_id)
    except (ReviewError, HomeError) as exc:
        return fail(str(exc), "session")
    result.session_id = session["id"]
    digest = fit_digest(
        replayable(messages),
        tail=settings.digest_tail,
        max_chars=settings.max_input_chars,
        max_message_chars=settings.max_message_chars,
    )
    result.digest = digest.as_dict()
    recorder = ChangeRecorder(result.review_id, result.session_id)
    toolbox = ReviewToolbox(home, recorder, mode, settings.needs_approval)
    tools = toolbox.schemas()
    conversation = build_messages(toolbox, digest, review_request(review_memory, review_skills, focus))

    try:
        stopped = _loop(conversation, tools, toolbox, settings, result, cancel, say)
    except llm.LLMError as exc:
        return fail(f"{exc} Nothing was changed.", exc.kind)
    finally:
        result.refused_tools = list(toolbox.refused_tools)
        result.denied = list(toolbox.denied)
    result.stopped = stopped
    if stopped == "cancelled":
        result.status = CANCELLED
        result.error = "The review was cancelled; nothing was changed."
        result.proposals = []
        return result
    result.proposals = list(recorder.proposals)
    result.status = OK
    if not result.proposals:
        return result
    if mode == PROPOSE:
        try:
            result.queued = queue_proposals(home, result.proposals)
        except (OSError, PendingError, HomeError) as exc:
            return fail(f"The proposals could not be queued ({exc}); nothing was changed.", "io")
        say(f"queued {len(result.queued)} proposal(s)")
        return result
    held = held_for_approval(result.proposals, settings.needs_approval)
    if held:
        try:
            result.queued = queue_proposals(home, held)
        except (OSError, PendingError, HomeError) as exc:
            return fail(f"The proposals could not be queued ({exc}); nothing was changed.", "io")
        say(f"queued {len(held)} change(s) for approval (write_approval is on)")
    # everything this run writes is the background review's, for the reviewed session
    with writing_as(BACKGROUND_REVIEW, session=result.session_id):
        for proposal in result.proposals:
            if proposal.id in result.queued:
                continue
            outcome = apply_proposal(home, proposal)
            result.applied.append({
                "id": proposal.id,
                "summary": proposal.summary,
                "success": bool(outcome.get("success")),
                "message": str(outcome.get("message") or outcome.get("error") or ""),
                **({"stale": True} if outcome.get("stale") else {}),
            })  # fmt: skip
    say(f"applied {sum(a['success'] for a in result.applied)} of {len(result.applied)} change(s)")
    return result


def held_for_approval(proposals: list[Proposal], gated_kinds: frozenset[str]) -> list[Proposal]:
    """The proposals an apply-mode review must queue: those of a gated kind, and any
    that builds on one of them (proposals come in order, so dependencies are earlier)."""
    held: list[Proposal] = []
    held_ids: set[str] = set()
    for proposal in proposals:
        if proposal.kind in gated_kinds or held_ids.intersection(proposal.depends_on):
            held.append(proposal)
            held_ids.add(proposal.id)
    return held


def _loop(
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    toolbox: ReviewToolbox,
    settings: ReviewSettings,
    result: ReviewResult,
    cancel: threading.Event | None,
    say: Callable[[str], None],
) -> str:
    """Model turns until the model stops calling tools or a bound is hit; the stop reason."""
    cancelled = (lambda: False) if cancel is None else cancel.is_set
    budget = settings.max_input_tokens
    for round_number in range(1, settings.max_rounds + 1):
        if cancelled():
            return "cancelled"
        if budget:
            spent = result.usage["prompt_tokens"]
            if spent + _estimate_tokens(conversation, tools) > budget:
                say("stopping: the input-token budget is spent")
                return "token-budget"
        say(f"round {round_number}: asking {settings.describe()}")
        response = llm.complete(
            conversation,
            model=settings.model or "",
            api_base=settings.api_base,
            api_key=settings.api_key,
            timeout=settings.timeout,
            tools=tools,
        )
        result.rounds = round_number
        prompt_tokens = _usage(response, "prompt_tokens")
        result.usage["prompt_tokens"] += (
            prompt_tokens if prompt_tokens is not None else _estimate_tokens(conversation, tools)
        )
        result.usage["completion_tokens"] += _usage(response, "completion_tokens") or 0
        calls = llm.response_tool_calls(response)  # raises on malformed calls: nothing applied
        text = llm.response_text(response)
        if cancelled():
            return "cancelled"
        if not calls:
            result.final_text = text.strip()
            return "finished"
        ids = [call.id or f"call_{round_number}_{n}" for n, call in enumerate(calls, start=1)]
        conversation.append({
            "role": "assistant",
            "content": text or None,
            "tool_calls": [
                {"id": call_id, "type": "function",
                 "function": {"name": call.name,
                              "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
                for call_id, call in zip(ids, calls, strict=True)
            ],
        })  # fmt: skip
        for call_id, call in zip(ids, calls, strict=True):
            outcome = toolbox.call(call.name, call.arguments)
            result.tool_calls.append(ToolCallRecord(
                round_number, call.name, call.arguments, bool(outcome.get("success")),
                _call_message(outcome),
            ))  # fmt: skip
            conversation.append({"role": "tool", "tool_call_id": call_id,
                                 "content": json.dumps(outcome, ensure_ascii=False)})  # fmt: skip
    say(f"stopping after {settings.max_rounds} rounds")
    return "max-rounds"
