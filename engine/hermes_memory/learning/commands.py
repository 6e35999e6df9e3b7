"""``hermes-memory graph`` and ``hermes-memory node show|edit|delete|pin|unpin|restore``.

``graph --json`` prints the payload; without ``--json`` a readable summary with the
density stats, the newest skills and the memory cards (● skill, ◆ memory, as the
agent's ``hermes journey list``).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from ..cli import EXIT_OK, EXIT_REFUSED, CliContext
from .graph import build_learning_graph
from .mutations import delete_node, edit_node, node_detail, pin_node, restore_node, unpin_node

EMPTY_STATE = (
    "No learning yet — use Hermes a while and your learned skills and memories will start "
    "mapping out here."
)
_ID_HELP = "a node id from the graph: a skill name, or memory:<source>:<index>:<fingerprint>"
_ACTIONS = {
    "delete": (delete_node, "remove a memory entry, or archive a skill (restorable)"),
    "pin": (pin_node, "pin a skill: archive and delete are refused until it is unpinned"),
    "unpin": (unpin_node, "lift a skill's pin"),
    "restore": (restore_node, "bring an archived skill back"),
}


def register(subparsers: argparse._SubParsersAction) -> None:
    graph = subparsers.add_parser("graph", help="the learning graph (payload with --json)")
    graph.add_argument(
        "--all", action="store_true", help="every skill (base, external, unused), not only learned"
    )
    graph.set_defaults(handler=cmd_graph)

    node = subparsers.add_parser("node", help="show or change one learning-graph node")
    actions = node.add_subparsers(dest="node_command", metavar="ACTION")
    actions.required = True
    show = actions.add_parser("show", help="the node's full content")
    show.add_argument("id", help=_ID_HELP)
    show.set_defaults(handler=cmd_show)
    edit = actions.add_parser("edit", help="replace a memory entry or a whole SKILL.md")
    edit.add_argument("id", help=_ID_HELP)
    edit.add_argument("file", metavar="FILE", help='the new content, or "-" for standard input')
    edit.set_defaults(handler=cmd_edit)
    for name, (function, help_text) in _ACTIONS.items():
        action = actions.add_parser(name, help=help_text)
        action.add_argument("id", help=_ID_HELP)
        action.set_defaults(handler=cmd_action, action_function=function)


# --- graph ---------------------------------------------------------------------------
def _date(timestamp: Any) -> str:
    if not isinstance(timestamp, int):
        return "-"
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")


def render_summary(payload: dict[str, Any], label: str) -> list[str]:
    stats = payload["stats"]
    nodes = payload["nodes"]
    skills = [node for node in nodes if node["kind"] == "skill"]
    memories = [node for node in nodes if node["kind"] == "memory"]
    if not nodes:
        return [EMPTY_STATE, *(f"warning: {w}" for w in payload.get("warnings", []))]
    lines = [
        f"Learning graph of {label}",
        f"  {stats['learned_skills']} learned skills"
        f" ({len(skills)} shown), {stats['memory_nodes']} memory cards",
        f"  edges: {stats['related_edges']} related, {stats['memory_skill_edges']} memory→skill;"
        f" {stats['edges_per_node']} per skill; {stats['linked_nodes']} linked,"
        f" {stats['isolated_pct']}% isolated",
        f"  {stats['agent_created']} agent-created, {stats['used']} used,"
        f" {stats['categories']} categories",
    ]
    if payload["clusters"]:
        lines.append(
            "  clusters: "
            + ", ".join(f"{c['category']} {c['count']}" for c in payload["clusters"][:10])
        )
    if skills:
        lines += ["", "Skills (newest first):"]
        for node in sorted(skills, key=lambda n: -(n["timestamp"] or 0)):
            flags = " pinned" if node["pinned"] else ""
            if node["state"] != "active":
                flags += f" {node['state']}"
            lines.append(
                f"  ● {node['id']}  [{node['category']}]  uses {node['useCount']}"
                f"  {_date(node['timestamp'])}{flags}"
            )
    if memories:
        lines += ["", "Memory:"]
        for node in memories:
            lines.append(f"  ◆ {node['id']}  {node['label']}  {_date(node['timestamp'])}")
    lines += [f"warning: {w}" for w in payload.get("warnings", [])]
    return lines


def cmd_graph(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    payload = build_learning_graph(ctx.home, include_all=args.all)
    if ctx.json:
        ctx.print_json(payload)
    else:
        for line in render_summary(payload, ctx.home.label):
            ctx.print(line)
    return EXIT_OK


# --- node ----------------------------------------------------------------------------
def _report(ctx: CliContext, result: dict[str, Any]) -> int:
    if ctx.json:
        ctx.print_json(result)
        return EXIT_OK if result.get("ok") else EXIT_REFUSED
    if not result.get("ok"):
        return ctx.error(str(result.get("message")), EXIT_REFUSED)
    ctx.print(str(result.get("message")))
    return EXIT_OK


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    result = node_detail(ctx.home, args.id)
    if ctx.json or not result.get("ok"):
        return _report(ctx, result)
    ctx.print(f"{result['kind']} {result['id']} — {result['label']}")
    if result["kind"] == "skill":
        ctx.print(f"path: {result['path']}")
        if result.get("readOnly"):
            ctx.print(f"read-only: {result['readOnly']}")
    else:
        ctx.print(f"file: {result['file']}  ({len(result['content'])} chars)")
    ctx.print("")
    ctx.print(result["content"])
    return EXIT_OK


def cmd_edit(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    content = ctx.read_file_argument(args.file)
    return _report(ctx, edit_node(ctx.home, args.id, content))


def cmd_action(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    return _report(ctx, args.action_function(ctx.home, args.id))
