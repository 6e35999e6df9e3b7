"""The frozen system-prompt blocks, rendered as the agent renders them (spec §2.3).

One difference on purpose: the block is also scanned as a whole, so a phrase split across
entries ("ignore all previous" § "instructions") cannot reach the prompt. Entries are read
as the lines a model reads, so the scan joins them with a line break; the entries that
together make up a finding are shown as ``[BLOCKED: …]`` like a single poisoned entry.
"""

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


def _joined(entries: Sequence[str]) -> str:
    return "\n".join(entries)


def _narrowest_window(entries: Sequence[str], lo: int, hi: int) -> tuple[int, int]:
    """The shortest run ``entries[lo:hi]`` whose joined text still has a finding.

    Adding text around a match keeps it, so the first entry can be found by bisection and
    then the last one: a logarithmic number of scans.
    """

    def flagged(a: int, b: int) -> bool:
        return bool(scan_for_threats(_joined(entries[a:b]), "strict"))

    low, high = lo, hi - 1  # the largest start that still matches
    while low < high:
        middle = (low + high + 1) // 2
        if flagged(middle, hi):
            low = middle
        else:
            high = middle - 1
    lo = low
    low, high = lo + 1, hi  # the smallest end that still matches
    while low < high:
        middle = (low + high) // 2
        if flagged(lo, middle):
            high = middle
        else:
            low = middle + 1
    return lo, low


def cross_entry_findings(entries: Sequence[str]) -> list[tuple[int, int, list[str]]]:
    """``(first, end, ids)`` for each run of entries that is clean entry by entry but makes a
    threat when read together; ``entries`` are as rendered (already-blocked ones are
    placeholders). Each run is the shortest that still matches."""
    work = list(entries)
    found: list[tuple[int, int, list[str]]] = []
    while len(work) > 1:
        ids = scan_for_threats(_joined(work), "strict")
        if not ids:
            break
        lo, hi = _narrowest_window(work, 0, len(work))
        found.append((lo, hi, scan_for_threats(_joined(work[lo:hi]), "strict")))
        for index in range(lo, hi):
            work[index] = ""  # the run is blocked; look for more in the rest
    return found


def _run_placeholder(file_name: str, first: int, end: int, ids: list[str]) -> str:
    tail = "Removed from system prompt; use memory(action=remove) to delete the original.]"
    return (
        f"[BLOCKED: {file_name} entries {first + 1}-{end} together contained threat "
        f"pattern(s): {', '.join(ids)}. {tail}"
    )


def sanitise_block(entries: Sequence[str], file_name: str) -> list[str]:
    """The entries as they may appear in a prompt: each one sanitised, and every run of
    entries that together make a threat replaced by placeholders."""
    shown = [sanitise_entry(entry, file_name) for entry in entries]
    for first, end, ids in cross_entry_findings(shown):
        for index in range(first, end):
            shown[index] = _run_placeholder(file_name, first, end, ids)
    return shown


def cross_entry_problem(before: Sequence[str], after: Sequence[str], file_name: str) -> str | None:
    """Why writing ``after`` (over ``before``) would put a threat into the rendered block
    across entry boundaries, or ``None``. Runs already present before are not the writer's
    doing and are left to the renderer."""
    if not scan_for_threats(_joined(after), "strict"):
        return None  # the usual case: one scan of the whole block
    existing = {
        tuple(shown[first:end])
        for shown in [[sanitise_entry(e, file_name) for e in before]]
        for first, end, _ in cross_entry_findings(shown)
    }
    shown = [sanitise_entry(e, file_name) for e in after]
    for first, end, ids in cross_entry_findings(shown):
        if tuple(shown[first:end]) in existing:
            continue
        return (
            f"Blocked: after this change, entries {first + 1}-{end} of {file_name} would "
            f"together form threat pattern '{ids[0]}' in the system prompt, where a model "
            "reads the entries one after another. In the rendered prompt they would appear "
            "only as [BLOCKED: …]. Reword the new text, or change the neighbouring entries "
            "first."
        )
    return None


def render_cap(limit: int) -> int:
    return max(limit * 2, 4000)


def render_block(target: str, entries: Sequence[str], limit: int) -> str:
    """One prompt block: separator, header with the capacity meter, separator, content.

    Returns ``""`` for no entries (the block is then omitted). Content beyond the render
    cap keeps its head and tail around a truncation marker.
    """
    if not entries:
        return ""
    entries = sanitise_block(entries, fmt.FILE_NAMES[target])
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
