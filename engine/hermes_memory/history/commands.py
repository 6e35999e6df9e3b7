"""``hermes-memory history ...`` and ``sessions taught|revert``: the CLI over history/."""

from __future__ import annotations

import argparse
import time
from datetime import datetime
from typing import Any

from ..cli import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, CliContext, add_json_flag, positive_int
from . import service as api
from .recording import ORIGIN_LABELS

PREVIEW = 90


def parse_when(text: str) -> float:
    """argparse type: ``YYYY-MM-DD`` (local midnight), an ISO date-time, or epoch seconds."""
    value = text.strip()
    try:
        return float(value)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date (use YYYY-MM-DD, YYYY-MM-DDTHH:MM or epoch seconds)"
        ) from None
    return parsed.timestamp()


def _arg(*flags: str, **options: Any) -> tuple[tuple[str, ...], dict[str, Any]]:
    return flags, options


_ID = _arg("id", metavar="ID")


def _date_option(flag: str) -> tuple[tuple[str, ...], dict[str, Any]]:
    return _arg(flag, type=parse_when, metavar="DATE")


def _command(commands: argparse._SubParsersAction, name: str, handler, help_text: str,
             *arguments: tuple[tuple[str, ...], dict[str, Any]]) -> None:  # fmt: skip
    """One sub-command: its arguments (from :func:`_arg`), its handler, then ``--json``."""
    parser = commands.add_parser(name, help=help_text)
    for flags, options in arguments:
        parser.add_argument(*flags, **options)
    add_json_flag(parser)
    parser.set_defaults(handler=handler)


def register(subparsers: argparse._SubParsersAction) -> None:
    history = subparsers.add_parser("history", help="every version of memory and skills; restore")
    commands = history.add_subparsers(dest="history_command", metavar="ACTION")
    commands.required = True
    _command(commands, "log", cmd_log, "recorded versions, newest first",
             _arg("what", nargs="?", choices=("memory", "user", "skill"), help="only this store"),
             _arg("name", nargs="?", help="with 'skill': only this skill"),
             _date_option("--since"), _arg("--limit", type=positive_int, metavar="N"))
    _command(commands, "show", cmd_show, "one version: its entries or SKILL.md, and its change", _ID)
    _command(commands, "diff", cmd_diff, "entries added/removed/changed by ID, or from ID to ID2", _ID,
             _arg("other", nargs="?", metavar="ID2", help="a later version, or 'now' (the files)"))
    _command(commands, "restore", cmd_restore, "bring back a version (or one entry of it)", _ID,
             _arg("--entry", metavar="FINGERPRINT", help="only this entry of the version"))
    _command(commands, "lineage", cmd_lineage, "one entry's story through its replaces",
             _arg("fingerprint", metavar="FINGERPRINT"))
    _command(commands, "state", cmd_state, "the stores and skills as they were at a date", _date_option("--at"))
    _command(commands, "provenance", cmd_provenance, "where each entry and skill came from")
    _command(commands, "capture", cmd_capture, "record changes others made since the last version")
    _command(commands, "import-sessions", cmd_import, "backfill past memory writes from state.db")
    _command(commands, "forget", cmd_forget, "erase history (all, or before a date)", _date_option("--before"),
             _arg("--yes", action="store_true", help="really erase (it cannot be undone)"))


def register_session_commands(commands: argparse._SubParsersAction) -> None:
    """``sessions taught`` and ``sessions revert`` (the sessions group calls this)."""
    session = _arg("session_id", metavar="SESSION_ID")
    _command(commands, "taught", cmd_taught, "what one session wrote to memory and skills", session)
    _command(commands, "revert", cmd_revert, "undo what one session taught (where unchanged since)", session,
             _arg("--dry-run", action="store_true", help="only say what would be undone"))


# --- helpers -----------------------------------------------------------------------------
_HOURS: dict[int, int | None] = {}  # UTC hour -> its local offset (None: it changes within it)
_DAYS: dict[int, str] = {}  # local day number -> "YYYY-MM-DD"
_CLOCK = [f" {hour:02d}:{minute:02d}" for hour in range(24) for minute in range(60)]  # " HH:MM" by minute


def _date(ts: float | None) -> str:
    """``YYYY-MM-DD HH:MM`` in local time. A long log lists thousands of times, so the
    local offset is looked up once per hour (and used only for an hour whose offset does
    not change within it), the date text once per day, and the clock text is a list's."""
    if ts is None:
        return "-"
    hour = int(ts // 3600)
    known = _HOURS.get(hour, False)
    if known is False:
        if len(_HOURS) > 100_000:
            _HOURS.clear()
            _DAYS.clear()
        start, end = time.localtime(hour * 3600), time.localtime(hour * 3600 + 3599)
        known = _HOURS[hour] = start.tm_gmtoff if start.tm_gmtoff == end.tm_gmtoff else None
    if known is None:  # the clocks change within this hour
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))
    day, minute = divmod(int((ts + known) // 60), 1440)
    text = _DAYS.get(day)
    if text is None:
        text = _DAYS[day] = time.strftime("%Y-%m-%d", time.gmtime(day * 86_400))
    return text + _CLOCK[minute]


def _line(text: str | None, width: int = PREVIEW) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _done(ctx: CliContext, result: dict[str, Any], text: str | None = None) -> int:
    if ctx.json:
        ctx.print_json(result)
        return EXIT_OK if result.get("ok", True) else EXIT_REFUSED
    if not result.get("ok", True):
        return ctx.error(result.get("error", "refused"))
    if text:
        ctx.print(text)
    return EXIT_OK


def _problems(ctx: CliContext, result: dict[str, Any]) -> None:
    for problem in result.get("problems") or ():
        print(f"hermes-memory: warning: {problem}", file=ctx.stderr)


_MIDDLES: dict[tuple, str] = {}  # the fields a line's middle is made of -> that middle


def _middle(key: tuple) -> str:
    """What, action, who and the change, padded, from ``("skill", name, state, text_changed,
    pinned, action, origin)`` or ``(store, added, removed, entries, action, origin)``;
    a long log repeats a few thousand of these."""
    middle = _MIDDLES.get(key)
    if middle is None:
        if len(_MIDDLES) > 50_000:
            _MIDDLES.clear()
        if key[0] == "skill":
            state = key[2]
            change = ", ".join(filter(None, [
                "text changed" if key[3] else "",
                state if state != "active" else "",
                "pinned" if key[4] else "",
            ]))  # fmt: skip
            what = f"skill {key[1]}"
        else:
            change = f"+{key[1]} -{key[2]} ({key[3]} entries)"
            what = key[0]
        who = ORIGIN_LABELS.get(key[-1], key[-1])
        middle = _MIDDLES[key] = f"{what:<16} {key[-2]:<8} {who:<17} {change}"
    return middle


def _tail(session: str | None, sessions: list[str] | None, notes: dict[str, Any] | None) -> str:
    """Its session(s), then what it restores or reverts and how a staged write was decided."""
    if sessions and len(sessions) > 1:
        tail = f"  sessions {', '.join(sessions)}"
    else:
        tail = f"  session {session}" if session else ""
    if notes and ("restores" in notes or "reverts" in notes or "approved_by" in notes or "proposed_by" in notes):
        for key, words in (("restores", "restores"), ("reverts", "reverts")):
            tail += f"  {words} {notes[key]}" if notes.get(key) else ""
        for key, words in (("approved_by", "approved in"), ("proposed_by", "proposed by")):
            if notes.get(key):
                tail += f"  {words} {ORIGIN_LABELS.get(notes[key], notes[key])}"
    if notes and notes.get("files"):
        tail += f"  files {', '.join(notes['files'])}"
    return tail


def _describe(item: dict[str, Any]) -> str:
    """One version's summary as ``history log`` lists it."""
    get = item.get
    if item["kind"] == "skill":
        key: tuple = ("skill", item["skill"], get("state"), get("text_changed"), get("pinned"),
                      item["action"], item["origin"])  # fmt: skip
    else:
        key = (item["kind"], item["added"], item["removed"], item["entry_count"], item["action"], item["origin"])
    return f"{_date(item['ts'])}  {item['id']:<14} {_middle(key)}{_tail(get('session'), get('sessions'), item)}"


def _row_lines(rows: list[list[Any]]) -> list[str]:
    """The log's index rows (see :func:`log_index._to_summaries` for their fields) as the
    lines :func:`_describe` makes of their summaries, without making the summaries."""
    lines = []
    for row in rows:
        if row[2] == "skill":  # ..., skill, md, pinned, state, text_changed
            key: tuple = ("skill", row[8], row[11], row[12], row[10], row[3], row[4])
        else:  # ..., added, removed, entry_count
            key = (row[2], row[8], row[9], row[10], row[3], row[4])
        lines.append(f"{_date(row[1])}  {row[0]:<14} {_middle(key)}{_tail(row[5], row[6], row[7])}")
    return lines


def _print_diff(ctx: CliContext, diff: dict[str, Any]) -> None:
    if diff["kind"] == "skill":
        for key, change in diff["changes"].items():
            ctx.print(f"  {key}: {change['before']} -> {change['after']}")
        for path in diff.get("files") or ():
            ctx.print(f"  support file: {path}")
        if diff["unified_diff"]:
            ctx.print(diff["unified_diff"].rstrip("\n"))
    else:
        for text in diff["added"]:
            ctx.print(f"+ {_line(text)}")
        for text in diff["removed"]:
            ctx.print(f"- {_line(text)}")
        for pair in diff["changed"]:
            ctx.print(f"~ {_line(pair['before'])}")
            ctx.print(f"  -> {_line(pair['after'])}")
    if diff["empty"]:
        ctx.print("(no differences)")


# --- history commands --------------------------------------------------------------------
def cmd_log(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.name and args.what != "skill":
        return ctx.error("a NAME only follows 'skill' (history log skill NAME)", EXIT_USAGE)
    shape = None if ctx.json else _row_lines  # text: lines straight from the log's index
    result = api.log(ctx.home, kind=args.what, skill=args.name, since=args.since, limit=args.limit, shape=shape)
    if ctx.json or not result["ok"]:
        return _done(ctx, result)
    _problems(ctx, result)
    if not result["events"]:
        ctx.print("No history recorded yet (run 'history capture' or 'history import-sessions').")
    else:
        ctx.print("\n".join(result["events"]))
    return EXIT_OK


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.show(ctx.home, args.id)
    if ctx.json or not result["ok"]:
        return _done(ctx, result)
    ctx.print(_describe(result["summary"]))
    if result["summary"]["kind"] == "skill":
        ctx.print(result.get("text") or "(no SKILL.md in this version)")
    else:
        for entry in result["entries"]:
            ctx.print(f"  [{entry['fingerprint']}] {_line(entry['text'])}")
    ctx.print("Change:")
    _print_diff(ctx, result["diff"])
    return EXIT_OK


def cmd_diff(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.diff(ctx.home, args.id, args.other)
    if ctx.json or not result["ok"]:
        return _done(ctx, result)
    _print_diff(ctx, result)
    return EXIT_OK


def cmd_restore(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.restore(ctx.home, args.id, entry=args.entry)
    version = f" (new version {result['version']}, undo with: history restore " \
              f"{result.get('previous')})" if result.get("version") and result.get("previous") else ""
    return _done(ctx, result, f"{result.get('message', '')}{version}")


def cmd_lineage(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.lineage(ctx.home, args.fingerprint)
    if ctx.json or not result["ok"]:
        return _done(ctx, result)
    for step in result["steps"]:
        who = ORIGIN_LABELS.get(step["origin"], step["origin"])
        session = f" session {step['session']}" if step.get("session") else ""
        ctx.print(f"{_date(step['ts'])}  {step['version']:<14} {step['kind']:<8} {who}{session}")
        if step.get("before") is not None:
            ctx.print(f"    from: {_line(step['before'])}")
        ctx.print(f"    {'text' if step['kind'] != 'removed' else 'gone'}: {_line(step['text'])}")
    ctx.print("still in the store" if result["current"] else "no longer in the store")
    return EXIT_OK


def cmd_state(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.state_at(ctx.home, args.at)
    if ctx.json or not result["ok"]:
        return _done(ctx, result)
    for target in ("memory", "user"):
        part = result[target]
        ctx.print(f"{target:<7} {part['entry_count']} entries, {part['chars']:,} chars "
                  f"(version {part['version'] or '-'})")  # fmt: skip
    ctx.print(f"skills  {result['active_skills']} active of {len(result['skills'])} known")
    return EXIT_OK


def cmd_provenance(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.provenance(ctx.home)
    if ctx.json:
        return _done(ctx, result)
    _problems(ctx, result)
    for row in result["entries"]:
        by = ", ".join(ORIGIN_LABELS.get(b, b) for b in row["by"])
        ctx.print(f"{row['target']:<6} [{row['fingerprint']}] {_line(row['entry'], 60)}")
        ctx.print(f"       first {_date(row['first_seen'])}, last changed {_date(row['last_changed'])}"
                  f" by {by}; sessions: {', '.join(row['sessions']) or '-'}")  # fmt: skip
    for row in result["skills"]:
        by = ", ".join(ORIGIN_LABELS.get(b, b) for b in row["by"])
        ctx.print(f"skill  {row['skill']}: first {_date(row['first_seen'])}, last changed "
                  f"{_date(row['last_changed'])} by {by}; sessions: {', '.join(row['sessions']) or '-'}")  # fmt: skip
    return EXIT_OK


def cmd_capture(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.capture(ctx.home)
    if ctx.json:
        return _done(ctx, result)
    _problems(ctx, result)
    ctx.print(f"Recorded {result['recorded']} new version(s).")
    return EXIT_OK if result["ok"] else EXIT_REFUSED


def cmd_import(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.import_sessions(ctx.home)
    return _done(ctx, result, f"Imported {result.get('imported', 0)} version(s) from "
                              f"{result.get('sessions', 0)} session(s).")  # fmt: skip


def cmd_forget(args: argparse.Namespace, ctx: CliContext) -> int:
    if not args.yes:
        scope = f"before {_date(args.before)}" if args.before else "all of it"
        return ctx.error(f"this erases the history of memory and skills ({scope}) for good; "
                         "add --yes to do it", EXIT_USAGE)  # fmt: skip
    result = api.forget(ctx.home, before=args.before)
    return _done(ctx, result, f"Erased {result.get('removed_events', 0)} version(s); "
                              f"{result.get('kept_events', 0)} kept.")  # fmt: skip


# --- sessions taught / revert ------------------------------------------------------------
def cmd_taught(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.taught(ctx.home, args.session_id)
    if ctx.json:
        return _done(ctx, result)
    if result.get("note"):
        ctx.print(f"({result['note']})")
    for target, net in result["memory"].items():
        for text in net["added"]:
            ctx.print(f"{target:<6} added    {_line(text)}")
        for pair in net["changed"]:
            ctx.print(f"{target:<6} changed  {_line(pair['before'], 40)} -> {_line(pair['after'], 40)}")
        for text in net["removed"]:
            ctx.print(f"{target:<6} removed  {_line(text)}")
    for skill in result["skills"]:
        ctx.print(f"skill  {skill['skill']}: {', '.join(skill['actions'])}")
    if not result["versions"] and not result["skills"] and not result["calls"]:
        ctx.print(f"Session {args.session_id} wrote nothing to memory or skills that history knows.")
    return EXIT_OK


def cmd_revert(args: argparse.Namespace, ctx: CliContext) -> int:
    result = api.revert(ctx.home, args.session_id, dry_run=args.dry_run)
    if ctx.json:
        return _done(ctx, result)
    verb = "would undo" if args.dry_run else "undid"
    for target, outcome in result["memory"].items():
        for item in outcome.get("undone", ()):
            if item["action"] == "replace":
                ctx.print(f"{target:<6} {verb} the edit: {_line(item['entry'], 40)} -> back to "
                          f"{_line(item['with'], 40)}")  # fmt: skip
            else:
                what = "remove" if item["action"] == "remove" else "add back"
                ctx.print(f"{target:<6} {verb} — {what}: {_line(item['entry'], 70)}")
        for item in outcome.get("left_alone", ()):
            ctx.print(f"{target:<6} left alone ({item['why']}): {_line(item['entry'], 60)}")
        if outcome.get("error"):
            print(f"hermes-memory: {target}: {outcome['error']}", file=ctx.stderr)
    for item in result["skills"]:
        ctx.print(f"skill  {item['skill']}: " + (item.get("undo") and f"{verb} — {item['undo']}"
                                                  or f"left alone ({item.get('left_alone')})"))  # fmt: skip
    if not result["memory"] and not result["skills"]:
        ctx.print(result.get("note") or f"Nothing of session {args.session_id} to undo.")
    return EXIT_OK if result["ok"] else EXIT_REFUSED
