"""The engine's session data as HTML: search snippets, transcripts and what a session taught.

Everything from ``state.db`` is escaped before it is shown: a transcript holds whatever the
agent and the person typed, markup included.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any

HIT_OPEN, HIT_CLOSE = ">>>", "<<<"
#: Backgrounds that read on light and dark themes alike (translucent).
WRITE_BG = "rgba(214, 158, 46, 0.22)"
ANCHOR_BG = "rgba(66, 133, 244, 0.20)"
FAILED = "color: #c2372f;"
ROLE_LABELS = {"user": "Person", "assistant": "Agent", "tool": "Tool", "system": "System"}


def when(epoch: float | int | None, *, time_of_day: bool = True) -> str:
    if not isinstance(epoch, int | float):
        return "undated"
    moment = datetime.fromtimestamp(float(epoch), UTC)
    return moment.strftime("%-d %b %Y %H:%M" if time_of_day else "%-d %b %Y")


def session_name(session: dict[str, Any]) -> str:
    return str(session.get("title") or session.get("preview") or session.get("id") or "session")


def snippet_html(snippet: str) -> str:
    """A ``>>>hit<<<`` snippet with the hits in bold, everything else escaped."""
    parts, rest = [], str(snippet or "")
    while HIT_OPEN in rest:
        before, _, after = rest.partition(HIT_OPEN)
        hit, closed, rest = after.partition(HIT_CLOSE)
        parts.append(html.escape(before))
        parts.append(f"<b>{html.escape(hit)}</b>" if closed else html.escape(HIT_OPEN + hit))
    parts.append(html.escape(rest))
    return "".join(parts).replace("\n", " ")


def result_html(hit: dict[str, Any]) -> str:
    title = hit.get("title") or hit.get("session_id")
    head = (f"<b>{html.escape(str(title))}</b> &nbsp;<span style='color: gray;'>"
            f"{html.escape(when(hit.get('timestamp')))} · {html.escape(str(hit.get('source') or ''))} · "
            f"{html.escape(ROLE_LABELS.get(str(hit.get('role')), str(hit.get('role'))))}</span>")  # fmt: skip
    return f"{head}<br>{snippet_html(str(hit.get('snippet') or ''))}"


def recent_html(session: dict[str, Any]) -> str:
    head = (f"<b>{html.escape(session_name(session))}</b> &nbsp;<span style='color: gray;'>"
            f"{html.escape(when(session.get('last_active') or session.get('started_at')))} · "
            f"{html.escape(str(session.get('source') or ''))} · "
            f"{int(session.get('message_count') or 0)} messages</span>")  # fmt: skip
    preview = session.get("preview") if session.get("title") else ""
    return head + (f"<br>{html.escape(str(preview))}" if preview else "")


def _text(content: str) -> str:
    return f"<div style='white-space: pre-wrap;'>{html.escape(content)}</div>"


def _call(call: dict[str, Any], expanded: bool) -> str:
    write = call.get("write")
    arrow = "▾" if expanded else "▸"
    link = f"<a href='toggle:{html.escape(str(call.get('id') or ''))}'>{arrow} {html.escape(call['name'])}</a>"
    if write:
        kind = "memory" if write["kind"] == "memory" else "skill"
        body = (f"<div style='background: {WRITE_BG}; padding: 4px;'><b>✎ writes {kind}:</b> "
                f"<span style='white-space: pre-wrap;'>{html.escape(write['label'])}</span><br>{link}</div>")  # fmt: skip
    else:
        body = f"<div style='color: gray;'>{link} <i>(tool call)</i></div>"
    if expanded:
        body += f"<pre style='margin-left: 12px;'>{html.escape(call.get('arguments') or '')}</pre>"
    return body


def transcript_html(data: dict[str, Any], expanded: set[str], anchor: int | None) -> str:
    """A readable transcript: people and agent turns in full; tool calls one line each
    (``toggle:<call id>`` links expand them); memory and skill writes highlighted; the
    ``anchor`` message (the one that wrote what was asked about) marked, with ``m<id>`` names."""
    rows = []
    for message in data.get("messages", ()):
        role = str(message.get("role"))
        mid = int(message["id"])
        marked = anchor == mid
        style = f"background: {ANCHOR_BG}; padding: 4px;" if marked else "padding: 2px;"
        label = ROLE_LABELS.get(role, role)
        if message.get("tool_name"):
            label += f" ({message['tool_name']})"
        head = (f"<a name='m{mid}'></a><div style='{style}'><span style='color: gray;'>"
                f"<b>{html.escape(label)}</b> · {html.escape(when(message.get('timestamp')))} · #{mid}"
                f"{' · ◀ where it came from' if marked else ''}</span>")  # fmt: skip
        parts = [head]
        if role == "tool" and message.get("result_of"):
            call_id = str(message["result_of"])
            shown = call_id in expanded
            verdict = "refused" if message.get("failed") else "done"
            colour = FAILED if message.get("failed") else "color: gray;"
            parts.append(f"<div style='{colour}'>↳ <a href='toggle:{html.escape(call_id)}'>result: "
                         f"{verdict}</a></div>")  # fmt: skip
            if shown and message.get("content"):
                parts.append(f"<pre style='margin-left: 12px;'>{html.escape(message['content'])}</pre>")
        elif message.get("content"):
            parts.append(_text(str(message["content"])))
        for call in message.get("calls", ()):
            parts.append(_call(call, str(call.get("id")) in expanded))
        parts.append("</div>")
        rows.append("".join(parts))
    more = ""
    if data.get("total", 0) > data.get("shown", 0):
        more = (f"<p><i>Showing the first {data['shown']:,} of {data['total']:,} messages; "
                "`hermes-memory sessions show` prints them all.</i></p>")  # fmt: skip
    return "".join(rows) + more


def lesson_html(lesson: dict[str, Any]) -> str:
    """What a session taught, each entry a link to its editor (and to the graph), each skill
    a link to the graph: ``entry:<n>``, ``node:<id>``."""
    if not lesson.get("ok"):
        return f"<i>What it taught is unknown: {html.escape(str(lesson.get('error')))}</i>"
    items = []
    for number, entry in enumerate(lesson.get("entries", ())):
        sign = {"added": "+", "changed": "~", "removed": "−"}[entry["change"]]
        text = html.escape(entry["text"] if len(entry["text"]) <= 90 else entry["text"][:89] + "…")
        if entry.get("node_id"):
            items.append(f"{sign} {html.escape(entry['file'])}: <a href='entry:{number}'>{text}</a> "
                         f"(<a href='node:{html.escape(entry['node_id'])}'>graph</a>)")  # fmt: skip
        else:
            gone = " (removed by this session)" if entry["change"] == "removed" else " (no longer there)"
            items.append(f"{sign} {html.escape(entry['file'])}: {text}<i>{gone}</i>")
    for skill in lesson.get("skills", ()):
        verb = "created" if skill.get("created") else "/".join(skill.get("actions") or ["changed"])
        items.append(f"◆ skill <a href='node:{html.escape(skill['node_id'])}'>{html.escape(skill['skill'])}</a> "
                     f"({html.escape(verb)})")  # fmt: skip
    if not items:
        note = lesson.get("note") or "It wrote no memory entries and no skills."
        return f"<i>{html.escape(note)}</i>"
    note = f"<br><i>{html.escape(lesson['note'])}</i>" if lesson.get("note") else ""
    return "<b>What it taught</b><br>" + "<br>".join(items) + note


def revert_plan_html(plan: dict[str, Any]) -> str:
    """The engine's dry run of a revert, in words."""
    rows = []
    for target, outcome in (plan.get("memory") or {}).items():
        name = "MEMORY.md" if target == "memory" else "USER.md"
        for item in outcome.get("undone", ()):
            verb = {"remove": "remove", "replace": "put back the earlier text of", "add": "add back"}[item["action"]]
            rows.append(f"<li>{name}: {verb} <i>{html.escape(item['entry'])}</i></li>")
        for item in outcome.get("left_alone", ()):
            rows.append(f"<li>{name}: leave <i>{html.escape(item['entry'])}</i> — {html.escape(item['why'])}</li>")
        if outcome.get("error"):
            rows.append(f"<li style='{FAILED}'>{name}: {html.escape(outcome['error'])}</li>")
    for skill in plan.get("skills") or ():
        what = skill.get("undo") or f"leave it — {skill.get('left_alone')}"
        rows.append(f"<li>skill <b>{html.escape(skill['skill'])}</b>: {html.escape(what)}</li>")
    if not rows:
        return "<p>Nothing to revert: this session left nothing that is still as it wrote it.</p>"
    note = f"<p><i>{html.escape(plan['note'])}</i></p>" if plan.get("note") else ""
    return "<ul>" + "".join(rows) + "</ul>" + note
