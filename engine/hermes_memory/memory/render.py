"""The frozen system-prompt blocks, rendered exactly as the agent renders them (spec §2.3)."""

from __future__ import annotations

from collections.abc import Sequence

from . import entries as fmt
from .scan import MAX_SCAN_CHARS, scan_for_threats

SEPARATOR = "═" * 46
MEMORY_BLOCK_HEADERS = {
    "memory": "MEMORY (your personal notes)",
    "user": "USER PROFILE (who the user is)",
}
OVER_BUDGET_SUFFIX = " ⚠ OVER BUDGET"


def sanitise_entry(entry: str, file_name: str) -> str:
    """The entry, or a ``[BLOCKED: …]`` placeholder if it must not reach a prompt.

    Unlike upstream, an entry that already starts with ``[BLOCKED:`` is scanned like any
    other: the marker is in-band text an attacker can write (PR 79009).
    """
    tail = "Removed from system prompt; use memory(action=remove) to delete the original.]"
    if len(entry) > MAX_SCAN_CHARS:
        return f"[BLOCKED: {file_name} entry too large to scan ({len(entry):,} chars). {tail}"
    findings = scan_for_threats(entry, "strict")
    if findings:
        return f"[BLOCKED: {file_name} entry contained threat pattern(s): {', '.join(findings)}. {tail}"
    return entry


def render_cap(limit: int) -> int:
    return max(limit * 2, 4000)


def render_block(target: str, entries: Sequence[str], limit: int) -> str:
    """One prompt block: separator, header with the capacity meter, separator, content.

    Returns ``""`` for no entries (the block is then omitted). Content beyond the render
    cap keeps its head and tail around a truncation marker.
    """
    if not entries:
        return ""
    content = fmt.serialise_entries(entries)
    current = len(content)
    cap = render_cap(limit)
    if current > cap:
        head, tail = int(cap * 0.7), int(cap * 0.2)
        omitted = current - head - tail
        content = (
            content[:head]
            + f"\n\n[... {omitted:,} chars truncated — memory over budget "
            f"({current:,}/{limit:,}); consolidate via memory(action=remove/replace) ...]\n\n"
            + content[current - tail :]
        )
    over = OVER_BUDGET_SUFFIX if current > limit else ""
    meter = f"[{fmt.usage_percent(current, limit)}% — {current:,}/{limit:,} chars{over}]"
    header = f"{MEMORY_BLOCK_HEADERS[target]} {meter}"
    return f"{SEPARATOR}\n{header}\n{SEPARATOR}\n{content}"
