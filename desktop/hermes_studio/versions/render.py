"""Words and HTML for the History tab: a version's line in the list, and diffs.

Plain functions over the engine's payloads (``history_log`` summaries, ``history_diff``
answers, ``history_entry_lineage`` steps); nothing here reads a file.
"""

from __future__ import annotations

import difflib
import html
from datetime import datetime
from typing import Any

ADDED, REMOVED = "#1f7a3a", "#b3261e"


def when_text(ts: float | None) -> str:
    if ts is None:
        return "—"
    return datetime.fromtimestamp(float(ts)).strftime("%-d %b %Y %H:%M")


def origin_text(item: dict[str, Any]) -> str:
    return str(item.get("origin_label") or item.get("origin") or "unknown")


def session_text(item: dict[str, Any]) -> str:
    sessions = item.get("sessions") or ([item["session"]] if item.get("session") else [])
    return ", ".join(str(s) for s in sessions) or "—"


def change_text(item: dict[str, Any]) -> str:
    """What one version did, in a few words."""
    action = str(item.get("action") or "write")
    if item.get("restores"):
        action = f"restore of {item['restores']}"
    if item.get("kind") == "skill":
        parts = [action, str(item.get("state") or "active")]
        if item.get("pinned"):
            parts.append("pinned")
        if item.get("text_changed"):
            parts.append("text changed")
        return " · ".join(parts)
    if "step" in item:  # an entry's lineage step
        return f"{item['step']}: {preview(item.get('text') or '')}"
    count = item.get("entry_count")
    delta = f"+{item.get('added', 0)} −{item.get('removed', 0)}"
    return f"{action} · {delta} · {count} entr{'y' if count == 1 else 'ies'}"


def preview(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _block(text: str, colour: str | None = None, prefix: str = "") -> str:
    style = f" style='color:{colour}'" if colour else ""
    body = html.escape(text).replace("\n", "<br>")
    return f"<p{style}>{html.escape(prefix)}{body}</p>"


def words_diff(before: str, after: str) -> str:
    """``before`` → ``after`` with removed words struck out and added ones underlined."""
    old, new = before.split(" "), after.split(" ")
    out = []
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(html.escape(" ".join(old[a0:a1])))
            continue
        if a1 > a0:
            out.append(f"<s style='color:{REMOVED}'>{html.escape(' '.join(old[a0:a1]))}</s>")
        if b1 > b0:
            out.append(f"<u style='color:{ADDED}'>{html.escape(' '.join(new[b0:b1]))}</u>")
    return "<p>" + " ".join(out).replace("\n", "<br>") + "</p>"


def diff_html(diff: dict[str, Any], title: str) -> str:
    """An engine diff (entry-level for a store, unified for a skill) as HTML."""
    if not diff.get("ok", True):
        return _block(f"The diff could not be made: {diff.get('error')}", REMOVED)
    parts = [f"<h3>{html.escape(title)}</h3>"]
    if diff.get("empty"):
        parts.append("<p><i>No difference.</i></p>")
        return "".join(parts)
    if diff.get("kind") == "skill":
        for key, change in (diff.get("changes") or {}).items():
            parts.append(_block(f"{key}: {change.get('before')} → {change.get('after')}"))
        lines = []
        for line in str(diff.get("unified_diff") or "").splitlines():
            colour = ADDED if line.startswith("+") and not line.startswith("+++") else \
                REMOVED if line.startswith("-") and not line.startswith("---") else None  # fmt: skip
            text = html.escape(line) or "&nbsp;"
            lines.append(f"<span style='color:{colour}'>{text}</span>" if colour else text)
        if lines:
            parts.append("<pre>" + "\n".join(lines) + "</pre>")
        return "".join(parts)
    for text in diff.get("added") or []:
        parts.append(_block(text, ADDED, "+ added: "))
    for text in diff.get("removed") or []:
        parts.append(_block(text, REMOVED, "− removed: "))
    for pair in diff.get("changed") or []:
        parts.append("<p><b>~ changed:</b></p>" + words_diff(str(pair["before"]), str(pair["after"])))
    notes = [f"{diff.get('unchanged', 0)} entries unchanged"]
    if diff.get("reordered"):
        notes.append("order changed")
    parts.append(f"<p><i>{html.escape(', '.join(notes))}.</i></p>")
    return "".join(parts)


def text_diff_html(before: str | None, after: str | None, title: str) -> str:
    """One entry's two texts (``None``: not there) as a word diff."""
    parts = [f"<h3>{html.escape(title)}</h3>"]
    if before == after:
        parts.append("<p><i>No difference.</i></p>")
    elif before is None:
        parts.append(_block(after or "", ADDED, "+ added: "))
    elif after is None:
        parts.append(_block(before, REMOVED, "− removed: "))
    else:
        parts.append(words_diff(before, after))
    return "".join(parts)
