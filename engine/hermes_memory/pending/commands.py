"""``hermes-memory pending list | show ID | approve ID|all [--ops 1,3] | reject ID|all |
edit ID FILE|-``: the agent's staged writes and our review's proposals, one queue.

Exit codes follow the CLI: 0 done, 1 refused (stale, over budget, unknown id, unreadable
queue), 2 usage.
"""

from __future__ import annotations

import argparse

from ..cli import EXIT_OK, EXIT_REFUSED, CliContext, add_json_flag
from .applying import Context
from .items import detailed_item, gate_state, item
from .queue import ALL, Decision, PendingError, PendingQueue
from .records import one_line


def _ops(text: str) -> list[int]:
    try:
        numbers = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list like 1,3") from None
    if not numbers or any(n < 1 for n in numbers):
        raise argparse.ArgumentTypeError("give operation numbers from 1, like 1,3")
    return numbers


def register(subparsers: argparse._SubParsersAction) -> None:
    pending = subparsers.add_parser(
        "pending", help="staged writes (the agent's and the review's) waiting for you"
    )
    actions = pending.add_subparsers(dest="pending_command", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser("list", help="every staged write, oldest first, with its state")
    listing.set_defaults(handler=cmd_list)
    show = actions.add_parser("show", help="dry run: would it apply now, the diff, the meter after")
    show.add_argument("pending_id", metavar="ID")
    show.set_defaults(handler=cmd_show)
    approve = actions.add_parser("approve", aliases=["apply"], help="write it ('all' for every one)")
    approve.add_argument("pending_id", metavar="ID|all")
    approve.add_argument("--ops", type=_ops, metavar="N,M",
                         help="approve only these operations of a batch; the rest stay queued")  # fmt: skip
    approve.set_defaults(handler=cmd_approve)
    reject = actions.add_parser("reject", aliases=["deny", "drop"],
                                help="drop it without writing ('all' for every one)")  # fmt: skip
    reject.add_argument("pending_id", metavar="ID|all")
    reject.set_defaults(handler=cmd_reject)
    edit = actions.add_parser("edit", help="change what it writes (new text, or a JSON payload)")
    edit.add_argument("pending_id", metavar="ID")
    edit.add_argument("source", metavar="FILE|-")
    edit.set_defaults(handler=cmd_edit)
    for command in (listing, show, approve, reject, edit):
        add_json_flag(command)


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    queue = PendingQueue(ctx.home)
    listing = queue.list()
    context = Context(ctx.home)
    items = [item(record, queue.preview(record, context)) for record in listing.records]
    code = EXIT_REFUSED if listing.problems else EXIT_OK
    if ctx.json:
        ctx.print_json({"items": items, "count": len(items), "problems": listing.problems,
                        "gate": gate_state(ctx.home)})  # fmt: skip
        return code
    for problem in listing.problems:
        ctx.error(problem)
    if not items:
        ctx.print("No pending writes.")
        return code
    ctx.print(f"{len(items)} pending write(s), oldest first:")
    for entry in items:
        tag = " [auto]" if entry["auto"] else ""
        ctx.print(f"  {entry['id']}{tag}  {entry['kind']:<6}  {one_line(entry['summary'], 90)}")
        if entry["broken"]:
            ctx.print(f"      BROKEN: {entry['broken_reason']} (reject it to set it aside)")
        elif entry["stale"]:
            ctx.print(f"      STALE: {one_line(entry['stale_reason'], 200)}")
        elif entry["refusal"]:
            ctx.print(f"      would be refused now: {one_line(entry['refusal'], 200)}")
        if entry["failed"]:
            ctx.print(f"      last approval failed ({entry['attempts']}x): {one_line(entry['last_error'], 160)}")
    ctx.print("Show one: hermes-memory pending show ID   Apply: pending approve ID|all   "
              "Reject: pending reject ID|all")  # fmt: skip
    return code


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    queue = PendingQueue(ctx.home)
    try:
        record = queue.find(args.pending_id)
    except PendingError as exc:
        return ctx.error(str(exc))
    shown = detailed_item(record, Context(ctx.home))
    if ctx.json:
        ctx.print_json(shown)
        return EXIT_OK
    ctx.print(f"# Pending {shown['kind']} write {shown['id']}: {one_line(shown['summary'], 160)}")
    origin = shown["origin_label"] + (f", session {shown['session_id']}" if shown["session_id"] else "")
    ctx.print(f"From {origin}; staged {shown['created'] or 'at an unknown time'}.")
    if shown["depends_on"]:
        ctx.print(f"Builds on: {', '.join(shown['depends_on'])} (approve those first)")
    if shown["broken"]:
        ctx.print(f"BROKEN: {shown['broken_reason']}. Reject it to set it aside.")
        return EXIT_OK
    if shown["would_apply"]:
        ctx.print("Would apply now: yes.")
    else:
        label = "STALE" if shown["stale"] else "Would be refused"
        ctx.print(f"{label}: {shown['stale_reason'] or shown['refusal']}")
    if shown["failed"]:
        ctx.print(f"Last approval failed: {shown['last_error']}")
    ctx.print()
    diff = shown["diff"] or {}
    if "entries" in diff:
        for n, op in enumerate(shown["ops"], start=1):
            ctx.print(f"  op {n}: {one_line(op['text'], 160)}")
        for change in diff["entries"]:
            if change["before"] is not None:
                ctx.print("- " + change["before"].replace("\n", "\n  "))
            if change["after"] is not None:
                ctx.print("+ " + change["after"].replace("\n", "\n  "))
        if shown["meter_after"]:
            ctx.print(f"\n{diff['file']} after approval: {shown['meter_after']['text']} "
                      f"(now {shown['meter_now']['text']})")  # fmt: skip
    elif diff.get("unified"):
        ctx.print(diff["unified"].rstrip("\n"))
    return EXIT_OK


def _print_decision(ctx: CliContext, decision: Decision) -> None:
    what = one_line(decision.summary or decision.id, 80)
    if decision.ok:
        ctx.print(f"{decision.decision} {decision.id} ({what}): {decision.message}")
        for key, label in (("replaced_entry", "Overwrote entire entry"), ("removed_entry", "Removed entry")):
            if key in decision.details:
                ctx.print(f"  {label} (re-add anything you still need): {decision.details[key]}")
        for key, label in (("replaced_entries", "Overwrote entire entry"), ("removed_entries", "Removed entry")):
            for n, text in (decision.details.get(key) or {}).items():
                ctx.print(f"  op {n}: {label} (re-add anything you still need): {text}")
    else:
        label = "stale" if decision.stale else "refused"
        print(f"hermes-memory: {label}, not approved: {decision.id} ({what}): {decision.message} "
              "It stays queued, marked failed.", file=ctx.stderr)  # fmt: skip


def _decide(args: argparse.Namespace, ctx: CliContext, approve: bool) -> int:
    ctx.home.require()
    queue = PendingQueue(ctx.home)
    ops = getattr(args, "ops", None)
    try:
        if args.pending_id == ALL:
            if ops:
                return ctx.error("--ops needs one id, not 'all'.", 2)
            decisions = queue.decide_all(approve)
        elif approve:
            decisions = [queue.approve(args.pending_id, ops)]
        else:
            decisions = [queue.reject(args.pending_id)]
    except PendingError as exc:
        if ctx.json:
            ctx.print_json({"decisions": [], "error": str(exc)})
            return EXIT_REFUSED
        return ctx.error(str(exc))
    failed = any(not d.ok for d in decisions)
    if ctx.json:
        ctx.print_json({"decisions": [d.as_dict() for d in decisions]})
        return EXIT_REFUSED if failed else EXIT_OK
    if not decisions:
        ctx.print("No pending writes" + (" to approve (failed and unreadable ones need a decision "
                                          "one by one)." if approve else "."))  # fmt: skip
    for decision in decisions:
        _print_decision(ctx, decision)
    return EXIT_REFUSED if failed else EXIT_OK


def cmd_approve(args: argparse.Namespace, ctx: CliContext) -> int:
    return _decide(args, ctx, approve=True)


def cmd_reject(args: argparse.Namespace, ctx: CliContext) -> int:
    return _decide(args, ctx, approve=False)


def cmd_edit(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    text = ctx.read_file_argument(args.source)
    try:
        decision = PendingQueue(ctx.home).edit(args.pending_id, text)
    except PendingError as exc:
        if ctx.json:
            ctx.print_json({"ok": False, "error": str(exc)})
            return EXIT_REFUSED
        return ctx.error(str(exc))
    if ctx.json:
        ctx.print_json(decision.as_dict())
    else:
        ctx.print(f"{decision.message} Now: {one_line(decision.summary, 120)}")
    return EXIT_OK
