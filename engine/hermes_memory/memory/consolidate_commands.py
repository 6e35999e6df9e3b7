"""``hermes-memory consolidate [--propose GROUP [--text TEXT]]``: alike entries, and merges.

Listing exits 0 (groups are suggestions, not errors); ``--propose`` exits 1 when the merge
could not be staged.
"""

from __future__ import annotations

import argparse

from ..cli import EXIT_OK, EXIT_REFUSED, CliContext
from .entries import FILE_NAMES, preview


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "consolidate",
        help="near-duplicate and overlapping memory entries, stale ones, and staged merges",
    )
    parser.add_argument(
        "--propose", metavar="GROUP",
        help="stage a merge of this group in the pending queue (the review model words it)",
    )
    parser.add_argument(
        "--text", metavar="TEXT", help="with --propose: the merged wording to use ('-' reads stdin)"
    )
    parser.set_defaults(handler=cmd_consolidate)


def cmd_consolidate(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    if args.text is not None and not args.propose:
        return ctx.error("--text needs --propose GROUP", 2)
    if args.propose:
        from .consolidate_merge import propose

        text = ctx.read_argument(args.text) if args.text is not None else None
        result = propose(ctx.home, args.propose, text)
        if ctx.json:
            ctx.print_json(result)
            return EXIT_OK if result["ok"] else EXIT_REFUSED
        if not result["ok"]:
            return ctx.error(result["error"])
        ctx.print(f"Merged text: {result['merged_text']}")
        for target, meter in result["meters"].items():
            ctx.print(f"{FILE_NAMES[target]}: {meter['text']}")
        ctx.print(result["message"])
        return EXIT_OK

    from .consolidate import consolidation_report

    report = consolidation_report(ctx.home)
    if ctx.json:
        ctx.print_json(report)
        return EXIT_OK
    for target, message in report["errors"].items():
        ctx.print(f"warning: {FILE_NAMES[target]}: {message}")
    if not report["groups"]:
        ctx.print("No near-duplicate or overlapping entries.")
    for group in report["groups"]:
        meters = "; ".join(f"{FILE_NAMES[t]} {m}" for t, m in group["meters"].items())
        ctx.print(f"{group['id']}  {group['kind']}  score {group['score']:.2f}  saves ~{group['saves']:,} chars  ({meters})")
        for entry in group["entries"]:
            keep = "keep" if entry["fingerprint"] == group["keep"] else "    "
            ctx.print(f"  {keep} {FILE_NAMES[entry['target']]:<9} {preview(entry['text'], 90)}")
    if report["groups"]:
        meters = report["meters"]
        ctx.print(
            "All merged: " + "; ".join(f"{FILE_NAMES[t]} {meters[t]['text']}" for t in meters)
        )
        ctx.print("Stage a merge with: hermes-memory consolidate --propose GROUP [--text TEXT]")
    for stale in report["stale"]:
        ctx.print(f"stale ({stale['reason']}): {FILE_NAMES[stale['entry']['target']]} "
                  f"'{preview(stale['entry']['text'], 70)}': {stale['message']}")  # fmt: skip
    return EXIT_OK
