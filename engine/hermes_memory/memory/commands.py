"""``hermes-memory`` sub-commands for the built-in stores: status, show, add, replace,
remove, batch and scan."""

from __future__ import annotations

import argparse
import json

from ..cli import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, MAX_INPUT_BYTES, CliContext
from ..config import load_memory_config
from ..fileio import read_regular_bytes
from . import entries as fmt
from .scan import scan_findings
from .status import read_store_status
from .store import MemoryStore, StoreReadError, damage_message, for_people
from .tool import dispatch

_TARGET_HELP = "memory (the agent's notes, MEMORY.md) or user (the user profile, USER.md)"


def register(subparsers: argparse._SubParsersAction) -> None:
    status = subparsers.add_parser("status", help="both stores: entries, used/limit, %%, flags")
    status.set_defaults(handler=cmd_status)

    show = subparsers.add_parser("show", help="the entries, or the frozen prompt block")
    show.add_argument("target", nargs="?", choices=fmt.TARGETS, help="default: both")
    show.add_argument("--prompt", action="store_true", help="print the block the agent sees")
    show.set_defaults(handler=cmd_show)

    add = subparsers.add_parser("add", help="add an entry")
    add.add_argument("target", choices=fmt.TARGETS, help=_TARGET_HELP)
    add.add_argument("content", help='the entry text, or "-" to read standard input')
    add.set_defaults(handler=cmd_add)

    replace = subparsers.add_parser("replace", help="replace the entry containing OLD_TEXT")
    replace.add_argument("target", choices=fmt.TARGETS, help=_TARGET_HELP)
    replace.add_argument("old_text", help="a short unique part of the entry to replace")
    replace.add_argument("new_content", help='the new full entry text, or "-" for stdin')
    replace.set_defaults(handler=cmd_replace)

    remove = subparsers.add_parser("remove", help="remove the entry containing OLD_TEXT")
    remove.add_argument("target", choices=fmt.TARGETS, help=_TARGET_HELP)
    remove.add_argument("old_text", help="a short unique part of the entry to remove")
    remove.set_defaults(handler=cmd_remove)

    batch = subparsers.add_parser("batch", help="apply a JSON list of operations atomically")
    batch.add_argument("target", choices=fmt.TARGETS, help=_TARGET_HELP)
    batch.add_argument("file", help='a JSON file of [{action, content?, old_text?}], or "-"')
    batch.set_defaults(handler=cmd_batch)

    scan = subparsers.add_parser(
        "scan", help="the threat scanner's findings (exit 1 when anything is found)"
    )
    scan.add_argument("text", help='the text to scan, or "-" to read standard input')
    scan.add_argument("--scope", choices=("strict", "context", "all"), default="strict")
    scan.set_defaults(handler=cmd_scan)


# --- read-only commands -------------------------------------------------------------
def cmd_status(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    config = load_memory_config(ctx.home)
    stores = {
        target: read_store_status(ctx.home, target, config).as_dict() for target in fmt.TARGETS
    }
    failed = any("error" in summary for summary in stores.values())
    if ctx.json:
        ctx.print_json(
            {
                "home": str(ctx.home.path),
                "profile": ctx.home.profile,
                "provider": config.provider,
                "stores": stores,
                "warnings": list(config.warnings),
            }
        )
        return EXIT_REFUSED if failed else EXIT_OK
    ctx.print(f"Hermes home: {ctx.home.label}")
    ctx.print(f"Provider:    {config.provider or 'built-in only'}")
    for target, summary in stores.items():
        name = f"{target:<6} {fmt.FILE_NAMES[target]:<9}"
        state = "enabled " if summary["enabled"] else "disabled"
        if "error" in summary:
            ctx.print(f"{name}  {state}  unreadable: {fmt.visible(summary['error'])}")
            continue
        over = "  OVER BUDGET" if summary["over_budget"] else ""
        if summary["drift"]:
            over += f"  drift: {summary['drift']} (replace/remove refuse until it is fixed)"
        ctx.print(
            f"{name}  {state}  {summary['entries']:>3} entries  "
            f"{summary['used']:>6,}/{summary['limit']:,} chars  {summary['percent']:>3}%{over}"
        )
        if summary.get("damage"):
            ctx.print(f"warning: {summary['damage']}")
    for warning in config.warnings:
        ctx.print(f"warning: {warning}")
    return EXIT_REFUSED if failed else EXIT_OK


def cmd_show(args: argparse.Namespace, ctx: CliContext) -> int:
    ctx.home.require()
    store = MemoryStore(ctx.home)
    targets = [args.target] if args.target else list(fmt.TARGETS)
    if args.prompt:
        store.load_from_disk()
        for target, error in store.read_errors.items():
            if target in targets:
                ctx.error(error)
        blocks = [store.format_for_system_prompt(t) for t in targets if store.enabled(t)]
        text = "\n\n".join(block for block in blocks if block)
        if ctx.json:
            ctx.print_json({"prompt": text, "errors": store.read_errors})
        elif text:
            ctx.print(fmt.visible(text))
        return EXIT_REFUSED if any(t in store.read_errors for t in targets) else EXIT_OK
    failed = False
    listing: dict[str, list[dict]] = {}
    for target in targets:
        try:
            store_file = store.read_file(target)
        except StoreReadError as exc:
            failed = True
            ctx.error(str(exc))
            continue
        entries = store_file.entries
        damage = damage_message(store_file)
        if damage and not ctx.json:
            ctx.error(f"warning: {damage}", EXIT_OK)
        listing[target] = [{"fingerprint": fmt.fingerprint(e), "text": e} for e in entries]
    if ctx.json:
        ctx.print_json(listing)
        return EXIT_REFUSED if failed else EXIT_OK
    for target, items in listing.items():
        used = fmt.char_count([item["text"] for item in items])
        ctx.print(
            f"== {fmt.FILE_NAMES[target]} — {len(items)} entries, "
            f"{fmt.usage_summary(used, store.limit(target))}"
        )
        for number, item in enumerate(items, start=1):
            lines = fmt.visible(item["text"]).split("\n")
            ctx.print(f"{number:>3}. [{item['fingerprint']}] {lines[0]}")
            for line in lines[1:]:
                ctx.print(f"     {line}")
        ctx.print()
    return EXIT_REFUSED if failed else EXIT_OK


# --- writes ---------------------------------------------------------------------------
def _report(ctx: CliContext, store: MemoryStore, result: dict) -> int:
    """Print a store result (the exact tool payload with --json) and pick the exit code."""
    ok = bool(result.get("success"))
    if ctx.json:
        ctx.print_json(result)
        return EXIT_OK if ok else EXIT_REFUSED
    if ok and result.get("staged"):  # memory.write_approval is on: queued, not written
        ctx.print(f"Staged as {result['pending_id']}, not written yet (memory.write_approval is on). "
                  f"Approve with: hermes-memory pending approve {result['pending_id']}")  # fmt: skip
        return EXIT_OK
    if ok:
        ctx.print(f"{result['message']} ({result['usage']}, {result['entry_count']} entries)")
        return EXIT_OK
    # fmt.visible: refusals echo the input, which may hold terminal escapes.
    ctx.error(fmt.visible(for_people(result.get("error", "the store refused the change"))))
    for preview in result.get("matches", []):
        print(f"  match: {fmt.visible(preview)}", file=ctx.stderr)
    if result.get("current_entries"):
        print(f"Current entries ({result.get('usage', '')} chars):", file=ctx.stderr)
        for entry in result["current_entries"]:
            print(f"  - {fmt.visible(entry).split(chr(10))[0]}", file=ctx.stderr)
    if result.get("drift_backup"):
        print(f"Backup: {result['drift_backup']}", file=ctx.stderr)
    return EXIT_REFUSED


def _warn_about_config(ctx: CliContext, store: MemoryStore) -> None:
    """What ``status`` says about config.yaml (unreadable, a bad memory section: defaults
    used), on stderr, so a write under a broken config does not go by without a word."""
    for warning in store.config.warnings:
        ctx.error(f"warning: {warning}", EXIT_OK)


def _write(ctx: CliContext, **call) -> int:
    ctx.home.require()
    store = MemoryStore(ctx.home)
    _warn_about_config(ctx, store)
    return _report(ctx, store, dispatch(store=store, **call))


def cmd_add(args: argparse.Namespace, ctx: CliContext) -> int:
    return _write(ctx, action="add", target=args.target, content=ctx.read_argument(args.content))


def cmd_replace(args: argparse.Namespace, ctx: CliContext) -> int:
    return _write(
        ctx,
        action="replace",
        target=args.target,
        old_text=args.old_text,
        content=ctx.read_argument(args.new_content),
    )


def cmd_remove(args: argparse.Namespace, ctx: CliContext) -> int:
    return _write(ctx, action="remove", target=args.target, old_text=args.old_text)


def cmd_batch(args: argparse.Namespace, ctx: CliContext) -> int:
    try:
        if args.file == "-":
            text = ctx.read_argument("-")
        else:  # a regular file only: a FIFO or a device would hang or never end
            text = read_regular_bytes(args.file, MAX_INPUT_BYTES).decode("utf-8")
        operations = json.loads(text)
    except OSError as exc:
        return ctx.error(f"cannot read {args.file}: {exc.strerror or exc}", EXIT_USAGE)
    except RecursionError:
        return ctx.error(f"{args.file} is nested too deeply to be a list of operations", EXIT_USAGE)
    except ValueError as exc:  # JSON and UTF-8 errors, and integers too long to convert
        return ctx.error(f"{args.file} is not a JSON list of operations: {exc}", EXIT_USAGE)
    if not isinstance(operations, list):
        return ctx.error(
            "the batch must be a JSON list of {action, content?, old_text?} objects", EXIT_USAGE
        )
    ctx.home.require()
    store = MemoryStore(ctx.home)
    _warn_about_config(ctx, store)
    return _report(ctx, store, store.apply_batch(args.target, operations))


def cmd_scan(args: argparse.Namespace, ctx: CliContext) -> int:
    findings = scan_findings(ctx.read_argument(args.text), args.scope)
    if ctx.json:
        ctx.print_json([{"id": f.id, "explanation": f.explanation} for f in findings])
    elif findings:
        for finding in findings:
            ctx.print(f"{finding.id}: {finding.explanation}")
    else:
        ctx.print(f"No threats found (scope {args.scope}).")
    return EXIT_REFUSED if findings else EXIT_OK
