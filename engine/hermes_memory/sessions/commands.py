"""``hermes-memory sessions ...``: search, list and show session history, and date memory.

All four commands only read ``state.db`` (opened read-only). A missing or unreadable
database is reported with exit code 1 and nothing is written.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from ..cli import EXIT_OK, EXIT_REFUSED, CliContext, add_json_flag, positive_int
from ..memory.store import StoreReadError, read_store_file
from .errors import SessionStoreError
from .provenance import memory_provenance
from .search import DEMOTED_SOURCES, search_outcome
from .store import SessionStore

PREVIEW_CHARS = 100






def register(subparsers: argparse._SubParsersAction) -> None:
    sessions = subparsers.add_parser("sessions", help="search and read the session history")
    commands = sessions.add_subparsers(dest="sessions_command", metavar="ACTION")
    commands.required = True

    search = commands.add_parser("search", help="full-text search over past messages")
    search.add_argument("query", help="words to find (quotes for phrases, OR for either)")
    search.add_argument("--role", action="append", metavar="R",
                        help="only these roles (user, assistant, tool); repeat or comma-separate")
    search.add_argument("--source", action="append", metavar="S",
                        help="only sessions from these sources (cli, telegram, cron...)")
    search.add_argument("--limit", type=positive_int, default=20, metavar="N")  # fmt: skip
    add_json_flag(search)
    search.set_defaults(handler=cmd_search)

    listing = commands.add_parser(
        "list", aliases=["browse"], help="recent sessions, most recently active first"
    )
    listing.add_argument("--limit", type=positive_int, default=20, metavar="N")
    add_json_flag(listing)
    listing.set_defaults(handler=cmd_list)

    show = commands.add_parser("show", help="one session's messages")
    show.add_argument("session_id", metavar="ID")
    add_json_flag(show)
    show.set_defaults(handler=cmd_show)

    provenance = commands.add_parser(
        "provenance", help="when the agent first wrote and last changed each memory entry"
    )
    add_json_flag(provenance)
    provenance.set_defaults(handler=cmd_provenance)

    from ..history.commands import register_session_commands  # taught, revert

    register_session_commands(commands)


# --- helpers -----------------------------------------------------------------------------
def _date(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.fromtimestamp(float(timestamp)).strftime("%Y-%m-%d %H:%M")


def _one_line(text: str | None, width: int = PREVIEW_CHARS) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _open(ctx: CliContext) -> SessionStore:
    return SessionStore.open(ctx.home)


# --- commands ----------------------------------------------------------------------------
def cmd_search(args: argparse.Namespace, ctx: CliContext) -> int:
    try:
        with _open(ctx) as store:
            outcome = search_outcome(
                store,
                args.query,
                source_filter=_split(args.source),
                role_filter=_split(args.role),
                limit=args.limit,
                demote_sources=DEMOTED_SOURCES,  # cron after interactive, as session_search
            )
    except SessionStoreError as exc:
        return ctx.error(str(exc), EXIT_REFUSED)
    if ctx.json:
        ctx.print_json({"query": args.query, "path": outcome.path, "note": outcome.note,
                        "count": len(outcome.hits), "results": outcome.hits})  # fmt: skip
        return EXIT_OK
    if outcome.note:
        ctx.print(f"({outcome.note})")
    if not outcome.hits:
        ctx.print("No matching messages.")
        return EXIT_OK
    for hit in outcome.hits:
        ctx.print(
            f"{_date(hit['timestamp'])}  {hit['source']:<9} {hit['session_id']}  "
            f"#{hit['id']} {hit['role']}"
        )
        ctx.print(f"    {_one_line(hit['snippet'], 200)}")
    ctx.print(f"{len(outcome.hits)} message(s).")
    return EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    try:
        with _open(ctx) as store:
            sessions = store.list_sessions(limit=args.limit)
    except SessionStoreError as exc:
        return ctx.error(str(exc), EXIT_REFUSED)
    if ctx.json:
        ctx.print_json({"count": len(sessions), "sessions": sessions})
        return EXIT_OK
    if not sessions:
        ctx.print("No sessions recorded yet.")
        return EXIT_OK
    for session in sessions:
        label = session.get("title") or session.get("preview") or ""
        ctx.print(
            f"{session['id']}  {_date(session['last_active'])}  {session['source']:<9} "
            f"{session.get('message_count') or 0:>5} msgs  {_one_line(label, 70)}"
        )
    return EXIT_OK


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    try:
        with _open(ctx) as store:
            session = store.get_session(args.session_id)
            if session is None:
                return ctx.error(f"No session {args.session_id!r} in {store.path}.", EXIT_REFUSED)
            messages = store.get_messages(args.session_id)
    except SessionStoreError as exc:
        return ctx.error(str(exc), EXIT_REFUSED)
    if ctx.json:
        ctx.print_json({"session": session, "messages": messages})
        return EXIT_OK
    title = f" — {session['title']}" if session.get("title") else ""
    ctx.print(f"Session {session['id']}{title}")
    ctx.print(
        f"  source {session['source']}, model {session.get('model') or '-'}, "
        f"started {_date(session['started_at'])}, ended {_date(session.get('ended_at'))}"
        + (f" ({session['end_reason']})" if session.get("end_reason") else "")
    )
    if session.get("parent_session_id"):
        ctx.print(f"  continues {session['parent_session_id']}")
    for message in messages:
        ctx.print()
        label = message["role"].upper()
        if message.get("tool_name"):
            label += f" ({message['tool_name']})"
        ctx.print(f"[{_date(message['timestamp'])}] #{message['id']} {label}")
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            names = [((c.get("function") or {}).get("name") or c.get("name") or "?")
                     for c in calls if isinstance(c, dict)]  # fmt: skip
            ctx.print(f"  called: {', '.join(names)}")
        if message.get("content"):
            for line in str(message["content"]).splitlines() or [""]:
                ctx.print(f"  {line}")
    return EXIT_OK


def _read_entries(ctx: CliContext) -> dict[str, list[str]]:
    """The current entries of MEMORY.md and USER.md (missing files: no entries)."""
    entries: dict[str, list[str]] = {}
    for target, path in (("memory", ctx.home.memory_file), ("user", ctx.home.user_file)):
        try:  # the store's own reader: regular files only, bounded, never a hang
            entries[target] = read_store_file(path).entries
        except StoreReadError as exc:
            raise SessionStoreError(f"Could not read {path}: {exc}") from exc
    return entries


def cmd_provenance(args: argparse.Namespace, ctx: CliContext) -> int:
    try:
        entries = _read_entries(ctx)
        found = memory_provenance(ctx.home, [e for items in entries.values() for e in items])
    except SessionStoreError as exc:
        return ctx.error(str(exc), EXIT_REFUSED)
    rows: list[dict[str, Any]] = [
        {"target": target, **found[entry].to_dict()}
        for target, items in entries.items()
        for entry in items
    ]
    if ctx.json:
        ctx.print_json({"count": len(rows), "entries": rows})
        return EXIT_OK
    if not rows:
        ctx.print("No memory entries.")
        return EXIT_OK
    for row in rows:
        if row["first_seen"] is None:
            dates = "not written by the agent in this history"
        else:
            dates = (f"first {_date(row['first_seen'])}, last changed "
                     f"{_date(row['last_changed'])}, {len(row['sessions'])} session(s)")  # fmt: skip
        ctx.print(f"{row['target']:<6} {_one_line(row['entry'], 60)}")
        ctx.print(f"       {dates}")
    return EXIT_OK
