"""``hermes-memory serve --stdio``: the engine as a long-lived process for one home."""

from __future__ import annotations

import argparse

from ..cli import EXIT_USAGE, CliContext, positive_float


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser(
        "serve", help="answer engine calls as JSON lines on stdin/stdout (for remote homes)"
    )
    serve.add_argument("--stdio", action="store_true", help="speak on standard input and output")
    serve.add_argument(
        "--poll", type=positive_float, default=0.25, metavar="SECONDS",
        help="how often to look for changes to the home (default 0.25)",
    )
    serve.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace, ctx: CliContext) -> int:
    if not args.stdio:
        return ctx.error("serve needs --stdio (the only transport)", EXIT_USAGE)
    from .serve import serve_stdio

    return serve_stdio(ctx.home, poll_interval=args.poll)
