"""``hermes-memory skills check``: the skill health findings, one per line.

Exit 1 when there is any finding (as ``memory scan`` does), 0 when there are none.
"""

from __future__ import annotations

import argparse

from ..cli import EXIT_OK, EXIT_REFUSED, CliContext
from .health import check_skills


def register_check(actions: argparse._SubParsersAction) -> None:
    check = actions.add_parser(
        "check", help="skill health: broken frontmatter, bad names, oversized, unused (exit 1 when found)"
    )
    check.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    report = check_skills(ctx.home)
    if ctx.json:
        ctx.print_json(report)
        return EXIT_REFUSED if report["count"] else EXIT_OK
    for finding in report["findings"]:
        ctx.print(
            f"{finding['severity']:<7} {finding['code']:<20} {finding['skill']}: "
            f"{finding['message']} Fix: {finding['fix']}"
        )
    for warning in report["warnings"]:
        ctx.print(f"warning: {warning}")
    counts = report["by_severity"]
    if report["count"]:
        ctx.print(
            f"{report['count']} finding(s) in {report['skills_with_problems']} of "
            f"{report['skills_checked']} skills: {counts['error']} error, {counts['warning']} "
            f"warning, {counts['info']} info."
        )
        return EXIT_REFUSED
    ctx.print(f"No problems found in {report['skills_checked']} skills.")
    return EXIT_OK
