"""``hermes-memory review SESSION_ID [--propose|--apply]``.

A review proposes by default: its changes are staged in the queue
(``hermes-memory pending``), and nothing else in the home changes until a person approves. Exit
codes follow the CLI: 0 done, 1 the engine refused or the review failed, 2 usage.
"""

from __future__ import annotations

import argparse
import dataclasses
from datetime import datetime
from typing import Any

from ..cli import EXIT_OK, EXIT_REFUSED, CliContext, add_json_flag, positive_float, positive_int
from .proposals import MEMORY, Proposal
from .runner import ReviewResult, run_review
from .settings import load_review_settings
from .toolbox import APPLY, PROPOSE


def register(subparsers: argparse._SubParsersAction) -> None:
    review = subparsers.add_parser(
        "review", help="let the review model read a session and propose what to learn from it"
    )
    review.add_argument("session_id", metavar="SESSION_ID", help="a session id (or exact title)")
    mode = review.add_mutually_exclusive_group()
    mode.add_argument("--propose", dest="mode", action="store_const", const=PROPOSE,
                      help="queue the changes for approval (the default)")  # fmt: skip
    mode.add_argument("--apply", dest="mode", action="store_const", const=APPLY,
                      help="write the changes directly, as the agent's own review does")  # fmt: skip
    review.set_defaults(mode=PROPOSE)
    review.add_argument("--scope", choices=("both", "memory", "skills"), default="both",
                        help="what to review (default: both)")  # fmt: skip
    review.add_argument("--focus", metavar="TEXT", help="what this review should look at first")
    review.add_argument("--max-rounds", type=positive_int, metavar="N",
                        help="model turns at most (default from config.yaml, else 16)")  # fmt: skip
    review.add_argument("--timeout", type=positive_float, metavar="SECONDS",
                        help="per model call (default from config.yaml, else 120)")  # fmt: skip
    add_json_flag(review)
    review.set_defaults(handler=cmd_review)


# --- helpers -----------------------------------------------------------------------------
def _one_line(text: Any, width: int = 100) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _when(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def _where(proposal: Proposal) -> str:
    return {"memory": "MEMORY.md", "user": "USER.md"}.get(proposal.target, proposal.target) \
        if proposal.kind == MEMORY else proposal.label  # fmt: skip


# --- review ------------------------------------------------------------------------------
def cmd_review(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    settings = load_review_settings(ctx.home)
    overrides = {}
    if args.max_rounds:
        overrides["max_rounds"] = args.max_rounds
    if args.timeout:
        overrides["timeout"] = args.timeout
    if overrides:
        settings = dataclasses.replace(settings, **overrides)
    result = run_review(
        ctx.home,
        args.session_id,
        mode=args.mode,
        settings=settings,
        review_memory=args.scope in ("both", "memory"),
        review_skills=args.scope in ("both", "skills"),
        focus=args.focus,
    )
    refused_writes = any(not outcome["success"] for outcome in result.applied)
    code = EXIT_OK if result.ok and not refused_writes else EXIT_REFUSED
    if ctx.json:
        ctx.print_json(result.as_dict())
        return code
    if not result.ok:
        return ctx.error(f"review of session {result.session_id} failed: {result.error}")
    _print_review(ctx, result)
    return code


def _print_review(ctx: CliContext, result: ReviewResult) -> None:
    stop = {"finished": "finished", "max-rounds": "stopped at the round limit",
            "token-budget": "stopped at the token budget"}.get(result.stopped, result.stopped)  # fmt: skip
    digest = result.digest
    ctx.print(
        f"Reviewed session {result.session_id} with {result.model}: {result.rounds} "
        f"round{'s' if result.rounds != 1 else ''}, {stop}."
    )
    if digest.get("summarised"):
        ctx.print(f"Replayed {digest['verbatim']} recent messages in full and "
                  f"{digest['summarised']} older ones as a digest.")  # fmt: skip
    if result.applied:
        done = sum(1 for outcome in result.applied if outcome["success"])
        ctx.print(f"Applied {done} of {len(result.applied)} change(s):")
        for outcome in result.applied:
            state = "ok   " if outcome["success"] else ("STALE" if outcome.get("stale") else "REFUSED")
            ctx.print(f"  {state}  {outcome['summary']}: {_one_line(outcome['message'], 120)}")
    if result.queued:
        if result.mode == PROPOSE:
            ctx.print(f"Proposed {len(result.queued)} change(s), waiting for your approval:")
        else:
            ctx.print(f"Queued {len(result.queued)} change(s) for your approval "
                      "(write_approval is on in config.yaml):")  # fmt: skip
        for proposal in result.proposals:
            if proposal.id in result.queued:
                ctx.print(f"  {proposal.id}  {proposal.summary}")
        ctx.print("Review them with: hermes-memory pending show ID; then "
                  "hermes-memory pending approve ID|all (or reject).")  # fmt: skip
    if not result.applied and not result.queued:
        ctx.print("Nothing to change.")
    for name in dict.fromkeys(result.refused_tools):
        ctx.print(f"Refused a call to '{name}': not a review tool.")
    for action in result.denied:
        ctx.print(f"Auto-denied: skill_manage {action}.")
    if result.final_text:
        ctx.print(f"Model: {_one_line(result.final_text, 300)}")
