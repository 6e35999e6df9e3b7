"""``hermes-memory provider`` sub-commands (spec §7.2): status, list, setup NAME, off.

``setup`` and ``off`` only change ``memory.provider`` in config.yaml (comments and key
order survive); they never write a config file that does not parse. The change takes
effect in the agent's next session.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..cli import EXIT_OK, EXIT_REFUSED, CliContext
from ..config import ConfigError, get_config_value, load_memory_config, set_config_value
from ..fileio import MAX_SETTINGS_BYTES, read_regular_bytes
from ..home import HermesHome
from .base import BUILTIN_PROVIDER_NAME, MemoryProvider
from .discovery import ProviderInfo, ProviderLoadError, discover_providers, load_provider

OK_MARK = "✓"
NO_MARK = "✗"
_BUILTIN_ALIASES = {BUILTIN_PROVIDER_NAME, "none", "off", "built-in"}


def register(subparsers: argparse._SubParsersAction) -> None:
    provider = subparsers.add_parser(
        "provider", help="the external memory provider: status, list, setup NAME, off"
    )
    commands = provider.add_subparsers(
        dest="provider_command", metavar="ACTION", parser_class=type(provider)
    )
    commands.required = True
    commands.add_parser(
        "status",
        help="built-in stores, the configured provider, and whether it is found and available",
    ).set_defaults(handler=cmd_status)
    commands.add_parser("list", help="every discoverable provider").set_defaults(handler=cmd_list)
    setup = commands.add_parser("setup", help="make NAME the external provider (memory.provider)")
    setup.add_argument("name", help="a provider name from 'provider list' ('builtin' for none)")
    setup.set_defaults(handler=cmd_setup)
    commands.add_parser(
        "off", help='use the built-in memory only (memory.provider: "")'
    ).set_defaults(handler=cmd_off)


# --- helpers ------------------------------------------------------------------------------
def _mark(flag: bool) -> str:
    return f"enabled {OK_MARK}" if flag else f"disabled {NO_MARK}"


def _yes_no(flag: bool) -> str:
    return f"yes {OK_MARK}" if flag else f"no {NO_MARK}"


def _dotenv_names(home: HermesHome) -> set[str]:
    """Variable names assigned in ``<home>/.env`` (values are never read into output)."""
    try:
        # bounded, regular files only: a FIFO or a device named .env must not hang the command
        raw = read_regular_bytes(home.env_file, MAX_SETTINGS_BYTES)
        lines = raw.decode("utf-8", errors="replace").splitlines()
    except OSError:
        return set()
    names = set()
    for line in lines:
        line = line.strip().removeprefix("export ").strip()
        if line and not line.startswith("#") and "=" in line:
            name, value = line.split("=", 1)
            if value.strip().strip("'\""):
                names.add(name.strip())
    return names


def _env_fields(provider: MemoryProvider, home: HermesHome) -> list[dict[str, Any]]:
    """Each environment variable the provider's config schema declares, and whether it is set."""
    try:
        schema = provider.get_config_schema() or []
    except Exception:  # a broken schema just means nothing to report
        return []
    in_dotenv = _dotenv_names(home)
    fields = []
    for field in schema:
        if not isinstance(field, dict):
            continue
        name = field.get("env_var")
        if not name and field.get("secret"):
            name = f"{provider.name}_{field.get('key', '')}".upper().replace("-", "_")
        if name:
            fields.append(
                {
                    "name": str(name),
                    "set": bool(os.environ.get(str(name))) or str(name) in in_dotenv,
                    "url": str(field.get("url") or ""),
                }
            )
    return fields


def _provider_config(provider: MemoryProvider | None, name: str, home: HermesHome) -> Any:
    key = getattr(provider, "config_key", None) or f"plugins.{name}"
    return {"key": key, "values": get_config_value(home, key, None)}


def _inspect(info: ProviderInfo, home: HermesHome) -> dict[str, Any]:
    """Load the provider to ask whether it is available (no network, by contract)."""
    try:
        provider = load_provider(info, home)
    except ProviderLoadError as exc:
        return {"loaded": False, "available": False, "reason": str(exc), "provider": None}
    try:
        available = bool(provider.is_available())
        reason = "" if available else provider.unavailable_reason()
    except Exception as exc:
        available, reason = False, f"is_available() failed: {exc}"
    return {"loaded": True, "available": available, "reason": reason, "provider": provider}


# --- commands -----------------------------------------------------------------------------
def cmd_status(args: argparse.Namespace, ctx: CliContext) -> int:
    home = ctx.home.require()
    config = load_memory_config(home)
    providers = discover_providers(home)
    name = config.provider if config.provider != BUILTIN_PROVIDER_NAME else ""
    info = next((p for p in providers if p.name == name), None)
    state: dict[str, Any] = {"loaded": False, "available": False, "reason": "", "provider": None}
    if info is not None:
        state = _inspect(info, home)
    provider = state["provider"]
    env = _env_fields(provider, home) if provider is not None else []
    payload = {
        "home": str(home.path),
        "builtin": {
            "memory_enabled": config.memory_enabled,
            "user_profile_enabled": config.user_profile_enabled,
            "memory_tool": config.memory_enabled or config.user_profile_enabled,
        },
        "provider": name,
        "found": info is not None,
        "source": info.source if info else None,
        "available": state["available"] if info else False,
        "unavailable_reason": state["reason"],
        "config": _provider_config(provider, name, home) if name else None,
        "env": env,
        "providers": [{**p.to_dict(), "active": p.name == name} for p in providers],
        "warnings": list(config.warnings),
    }
    if ctx.json:
        ctx.print_json(payload)
        return EXIT_OK
    ctx.print(f"Hermes home: {home.label}")
    ctx.print("Built-in memory:")
    ctx.print(f"  Memory injection (MEMORY.md): {_mark(config.memory_enabled)}")
    ctx.print(f"  User profile (USER.md):       {_mark(config.user_profile_enabled)}")
    ctx.print(f"  Memory tool:                  {_mark(payload['builtin']['memory_tool'])}")
    if not name:
        ctx.print("Provider: (none — built-in only)")
    else:
        ctx.print(f"Provider: {name}")
        ctx.print(
            f"  Installed: {_yes_no(info is not None)}" + (f" ({info.source})" if info else "")
        )
        if info is not None:
            reason = f" — {state['reason']}" if state["reason"] else ""
            ctx.print(f"  Available: {_yes_no(state['available'])}{reason}")
        else:
            ctx.print("  Not found: run 'hermes-memory provider list' to see what is installed.")
        section = payload["config"]
        if section["values"]:
            ctx.print(f"  Config ({section['key']}):")
            for key, value in dict(section["values"]).items():
                ctx.print(f"    {key}: {value}")
        for field in env:
            url = f"  {field['url']}" if field["url"] and not field["set"] else ""
            ctx.print(f"  {field['name']}: {OK_MARK if field['set'] else NO_MARK}{url}")
        if env:
            ctx.print("  Note: systemd and gateway services do not inherit ~/.hermes/.env.")
    if providers:
        ctx.print("Installed providers:")
        for p in providers:
            active = "  ← active" if p.name == name else ""
            ctx.print(f"  {p.name} ({p.source}){active}")
    for warning in config.warnings:
        ctx.print(f"warning: {warning}")
    return EXIT_OK


def cmd_list(args: argparse.Namespace, ctx: CliContext) -> int:
    active = load_memory_config(ctx.home).provider
    providers = discover_providers(ctx.home)
    if ctx.json:
        ctx.print_json([{**p.to_dict(), "active": p.name == active} for p in providers])
        return EXIT_OK
    if not providers:
        ctx.print("No memory providers found.")
    for p in providers:
        marker = "  ← active" if p.name == active else ""
        description = f" — {p.description}" if p.description else ""
        ctx.print(f"{p.name} ({p.source}){marker}{description}")
    return EXIT_OK


def _write_provider(ctx: CliContext, value: str) -> int | None:
    """Set ``memory.provider``; an exit code when refused, ``None`` when written."""
    try:
        set_config_value(ctx.home, "memory.provider", value)
    except ConfigError as exc:
        return ctx.error(str(exc), EXIT_REFUSED)
    except OSError as exc:
        return ctx.error(f"Could not write {ctx.home.config_file}: {exc}", EXIT_REFUSED)
    return None


def cmd_off(args: argparse.Namespace, ctx: CliContext) -> int:
    refused = _write_provider(ctx, "")
    if refused is not None:
        return refused
    if ctx.json:
        ctx.print_json({"provider": ""})
    else:
        ctx.print(f"{OK_MARK} Memory provider: built-in only")
    return EXIT_OK


def cmd_setup(args: argparse.Namespace, ctx: CliContext) -> int:
    name = args.name.strip()
    if name.lower() in _BUILTIN_ALIASES:
        return cmd_off(args, ctx)
    home = ctx.home.require()
    providers = discover_providers(home)
    info = next((p for p in providers if p.name == name), None)
    if info is None:
        known = ", ".join(p.name for p in providers) or "none"
        return ctx.error(
            f"No memory provider named '{name}' was found (available: {known}); nothing was written."
        )
    state = _inspect(info, home)
    if not state["loaded"]:
        return ctx.error(f"{state['reason']}; nothing was written.")
    refused = _write_provider(ctx, name)
    if refused is not None:
        return refused
    if ctx.json:
        ctx.print_json(
            {
                "provider": name,
                "source": info.source,
                "available": state["available"],
                "unavailable_reason": state["reason"],
            }
        )
        return EXIT_OK
    ctx.print(f"{OK_MARK} Memory provider: {name}")
    if not state["available"]:
        reason = f": {state['reason']}" if state["reason"] else ""
        ctx.print(f"  Warning: '{name}' reports it is not available yet{reason}")
    ctx.print("Start a new session to activate.")
    return EXIT_OK
