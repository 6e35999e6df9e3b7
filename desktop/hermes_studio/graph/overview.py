"""The home at a glance: what the details pane shows while no node is selected."""

from __future__ import annotations

import html
from collections.abc import Callable

import numpy as np

from .model import MEMORY, GraphData, format_date


def overview_html(data: GraphData) -> str:
    """What the details pane says while nothing is selected: the home at a glance."""
    stats = data.payload.get("stats") or {}
    skills = [i for i in range(data.size) if data.kind[i] != MEMORY and data.learned[i] and not data.base[i]]
    memories = [i for i in range(data.size) if data.kind[i] == MEMORY]
    span = data.time_range()
    lines = ["<h3>What the agent learned</h3>"]
    when = f" between {format_date(span[0])} and {format_date(span[1])}" if span else ""
    lines.append(
        f"<p><b>{len(skills)}</b> learned skills in <b>{int(stats.get('categories') or 0)}</b> "
        f"categories and <b>{len(memories)}</b> memory cards{when}.</p>"
    )
    busiest = sorted(skills, key=lambda i: (-data.use_count[i], data.ids[i]))[:5]
    if busiest:
        lines.append(_linked("Most used", data, busiest, lambda i: f" ×{int(data.use_count[i])}"))
    newest = sorted(skills, key=lambda i: -(0 if np.isnan(data.times[i]) else data.times[i]))[:3]
    if newest:
        lines.append(_linked("Newest", data, newest, lambda i: f" · {format_date(data.times[i])}"))
    pinned = [i for i in skills if data.pinned[i]]
    if pinned:
        names = ", ".join(html.escape(data.labels[i]) for i in pinned)
        lines.append(f"<p>Pinned: {names}</p>")
    lines.append(
        "<p style='color:#8a94a6'>Click a node or use the arrow keys; Enter opens it, Esc clears. "
        "Ctrl+F searches.</p>"
    )
    return "".join(lines)


def _linked(title: str, data: GraphData, indices: list[int], after: Callable[[int], str]) -> str:
    """A titled list of nodes, each a link that selects it, followed by ``after(i)``."""
    items = "".join(
        f"<li><a href='node:{html.escape(data.ids[i])}'>{html.escape(data.labels[i])}</a>"
        f"{after(i)}</li>"
        for i in indices
    )
    return f"<p>{title}:</p><ul>{items}</ul>"
