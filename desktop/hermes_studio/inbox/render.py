"""The engine's dry runs as HTML for the details pane: entry diffs, unified diffs, meters."""

from __future__ import annotations

import html
from typing import Any

ADDED = "background: rgba(46, 160, 67, 0.18);"
REMOVED = "background: rgba(248, 81, 73, 0.18);"
HUNK = "color: #6f42c1;"


def _block(style: str, label: str, text: str) -> str:
    return (
        f'<div style="{style} padding: 4px; margin: 2px 0;"><b>{html.escape(label)}</b> '
        f'<span style="white-space: pre-wrap;">{html.escape(text)}</span></div>'
    )


def memory_diff_html(diff: dict[str, Any], would_apply: bool = True) -> str:
    """Each entry the write adds, replaces or removes, as the store would see it."""
    rows = []
    changes = diff.get("entries") or []
    for change in changes:
        op = f"op {change.get('op')}: " if change.get("op") and len(changes) > 1 else ""
        kind = change.get("change")
        if kind in ("removed", "replaced"):
            rows.append(_block(REMOVED, f"− {op}{'was' if kind == 'replaced' else 'removed'}",
                               str(change.get("before"))))  # fmt: skip
        if kind in ("added", "replaced"):
            rows.append(_block(ADDED, f"+ {op}{'becomes' if kind == 'replaced' else 'added'}",
                               str(change.get("after"))))  # fmt: skip
    if not rows and not would_apply:
        return "<p><i>Nothing to preview: it would not apply as it stands (see above).</i></p>"
    if not rows:
        return "<p><i>No change: the store already holds this.</i></p>"
    return f"<p><b>{html.escape(str(diff.get('file', '')))}</b></p>" + "".join(rows)


def unified_diff_html(diff: dict[str, Any]) -> str:
    """A skill file's unified diff, one coloured line per line."""
    text = diff.get("unified")
    if not text:
        return "<p><i>No diff to show.</i></p>"
    lines = []
    for line in str(text).splitlines():
        style = ""
        if line.startswith("@@"):
            style = HUNK
        elif line.startswith("+") and not line.startswith("+++"):
            style = ADDED
        elif line.startswith("-") and not line.startswith("---"):
            style = REMOVED
        lines.append(f'<span style="{style}">{html.escape(line) or "&nbsp;"}</span>')
    return (
        f"<p><b>{html.escape(str(diff.get('file', '')))}</b></p>"
        f'<pre style="margin: 0;">{"<br>".join(lines)}</pre>'
    )


def diff_html(shown: dict[str, Any]) -> str:
    diff = shown.get("diff")
    if shown.get("broken"):
        return ""
    if not isinstance(diff, dict):
        return "<p><i>The engine has no preview of this write.</i></p>"
    if shown.get("kind") == "memory":
        return memory_diff_html(diff, bool(shown.get("would_apply")))
    return unified_diff_html(diff)


def meter_text(shown: dict[str, Any]) -> str:
    """The store's meter now and after approval (memory writes only)."""
    if shown.get("kind") != "memory":
        return ""
    now = (shown.get("meter_now") or {}).get("text")
    after = (shown.get("meter_after") or {}).get("text")
    if after:
        return f"After approval: {after}" + (f"   (now {now})" if now else "")
    return f"Now: {now} (it would not apply as it stands)" if now else ""
