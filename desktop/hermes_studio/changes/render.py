"""Feed items as text: a title, a line of who/when/which session, and the diff as HTML."""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

from hermes_memory.memory.entries import preview

ADDED = "background: rgba(46, 160, 67, 0.20);"
REMOVED = "background: rgba(248, 81, 73, 0.20);"
HUNK = "color: #8a63d2;"
#: A diff longer than this many lines is cut (the History tab shows it whole).
DIFF_LINES = 12
#: A new skill shows only its first lines (its whole text is one long addition).
NEW_SKILL_LINES = 5
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}


def when_text(stamp: float | None) -> str:
    if not stamp:
        return ""
    try:
        return datetime.fromtimestamp(float(stamp)).strftime("%d %b %Y %H:%M")
    except (OverflowError, OSError, ValueError):
        return ""


def title(change: dict[str, Any]) -> str:
    """"Skill 'deploy' patched", "MEMORY.md: 1 entry added"."""
    verb = str(change.get("verb") or change.get("action") or "changed")
    if change.get("kind") == "skill":
        return f"Skill '{change.get('skill')}' {verb}"
    diff = change.get("diff") or {}
    parts = []
    for key, word in (("added", "added"), ("changed", "changed"), ("removed", "removed")):
        count = len(diff.get(key) or [])
        if count:
            parts.append(f"{count} entr{'y' if count == 1 else 'ies'} {word}")
    if not parts and diff.get("reordered"):
        parts.append("entries reordered")
    name = FILE_NAMES.get(str(change.get("kind")), str(change.get("kind")))
    return f"{name}: {', '.join(parts) or 'rewritten'}"


def meta(change: dict[str, Any]) -> str:
    """Who, when, and which session(s)."""
    bits = [f"by {change.get('origin_label') or change.get('origin') or 'unknown'}"]
    stamp = when_text(change.get("ts"))
    if stamp:
        bits.append(stamp)
    sessions = change.get("sessions") or []
    if sessions:
        bits.append("session " + ", ".join(str(s) for s in sessions[:3]) + ("…" if len(sessions) > 3 else ""))
    if change.get("restores"):
        bits.append(f"restores {change['restores']}")
    return " · ".join(bits)


def _block(style: str, sign: str, text: str) -> str:
    return (f'<div style="{style} padding: 2px 4px; margin: 1px 0; white-space: pre-wrap;">'
            f"{sign} {html.escape(preview(text, 400))}</div>")  # fmt: skip


def diff_html(change: dict[str, Any]) -> str:
    diff = change.get("diff") or {}
    if change.get("kind") == "skill":
        rows = []
        created = change.get("verb") == "created"
        for key, pair in (diff.get("changes") or {}).items():
            if created and key == "state":
                continue
            rows.append(f"<div><i>{html.escape(key)}: {html.escape(str(pair.get('before')))} → "
                        f"{html.escape(str(pair.get('after')))}</i></div>")  # fmt: skip
        lines = [line for line in str(diff.get("unified_diff") or "").splitlines()
                 if not line.startswith(("---", "+++"))]  # fmt: skip
        shown, limit = [], NEW_SKILL_LINES if created else DIFF_LINES
        for line in lines[:limit]:
            style = HUNK if line.startswith("@@") else ADDED if line.startswith("+") else \
                REMOVED if line.startswith("-") else ""
            shown.append(f'<span style="{style}">{html.escape(line) or "&nbsp;"}</span>')
        if len(lines) > limit:
            shown.append(f"<i>… {len(lines) - limit} more lines</i>")
        body = f'<pre style="margin: 0;">{"<br>".join(shown)}</pre>' if shown else ""
        return "".join(rows) + body or "<i>No change to the text.</i>"
    rows = [_block(ADDED, "+", text) for text in diff.get("added") or []]
    for pair in diff.get("changed") or []:
        rows.append(_block(REMOVED, "−", pair.get("before", "")))
        rows.append(_block(ADDED, "+", pair.get("after", "")))
    rows += [_block(REMOVED, "−", text) for text in diff.get("removed") or []]
    if len(rows) > DIFF_LINES:
        rows = rows[:DIFF_LINES] + [f"<i>… {len(rows) - DIFF_LINES} more</i>"]
    return "".join(rows) or "<i>No entry changed.</i>"
