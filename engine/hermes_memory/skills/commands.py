"""``hermes-memory skills list [--learned|--all]``."""

from __future__ import annotations

import argparse
from typing import Any

from ..cli import EXIT_OK, CliContext
from .index import SkillIndex
from .lifecycle import list_archived
from .roots import PROFILE
from .usage import count_value, has_learning_signal, read_usage


def register(subparsers: argparse._SubParsersAction) -> None:
    skills = subparsers.add_parser("skills", help="the skills of this home")
    actions = skills.add_subparsers(dest="skills_command", metavar="ACTION")
    actions.required = True
    listing = actions.add_parser(
        "list", help="skills made in this profile (default), learned ones, or everything"
    )
    which = listing.add_mutually_exclusive_group()
    which.add_argument("--learned", action="store_true", help="only what the graph shows")
    which.add_argument(
        "--all", action="store_true", help="every root (base, external) plus the archive"
    )
    listing.set_defaults(handler=cmd_list)
    from .health_commands import register_check  # health has its own module

    register_check(actions)


def _rows(ctx: CliContext, args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[str]]:
    scan = SkillIndex(ctx.home).scan()
    usage = read_usage(ctx.home)
    warnings = list(scan.warnings) + ([usage.error] if usage.error else []) + list(usage.warnings)
    rows = []
    for skill in scan.skills:
        record = usage.record(skill.name)
        learned = has_learning_signal(skill.source, record)
        state = record.get("state") if isinstance(record.get("state"), str) else None
        if args.learned and not learned:
            continue
        if not args.learned and not args.all and skill.source != PROFILE:
            continue
        rows.append(
            {
                "name": skill.name,
                "category": skill.category,
                "source": skill.source,
                "provenance": skill.provenance,
                "learned": learned,
                "state": state or "active",
                "pinned": bool(record.get("pinned")),
                "useCount": count_value(record.get("use_count")),
                "description": skill.description,
                "directory": skill.directory,
            }
        )
    if args.all:
        for item in list_archived(ctx.home):
            record = usage.record(item.name)
            rows.append(
                {
                    "name": item.name,
                    "category": "",
                    "source": "archive",
                    "provenance": "archive",
                    "learned": False,
                    "state": "archived",
                    "pinned": bool(record.get("pinned")),
                    "useCount": count_value(record.get("use_count")),
                    "description": "",
                    "directory": item.path,
                }
            )
    return rows, warnings


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    rows, warnings = _rows(ctx, args)
    if ctx.json:
        ctx.print_json({"skills": rows, "warnings": warnings})
        return EXIT_OK
    if not rows:
        ctx.print("No skills to list." + ("" if args.all else " (--all shows every root.)"))
    width = max((len(row["name"]) for row in rows), default=0)
    for row in rows:
        flags = " ".join(
            flag
            for flag, present in (
                ("pinned", row["pinned"]),
                (row["state"], row["state"] != "active"),
                ("learned", row["learned"] and not args.learned),
            )
            if present
        )
        ctx.print(
            f"{row['name']:<{width}}  {row['category'] or '-':<16} {row['provenance']:<9} "
            f"uses {row['useCount']:<4} {flags}".rstrip()
        )
    for warning in warnings:
        ctx.print(f"warning: {warning}")
    return EXIT_OK
