"""The home at a glance: what the details pane shows while no node is selected.

It counts what is shown, so it follows the filters, the search and the timeline's playhead
(``mask``); without a mask it describes the whole graph (the worker makes that one).
"""

from __future__ import annotations

import html
from collections.abc import Callable

import numpy as np

from .health import ERROR, WARNING, health_arrays
from .model import MEMORY, GraphData, format_date


def overview_html(data: GraphData, mask: np.ndarray | None = None) -> str:
    """What the details pane says while nothing is selected: the shown part of the home at a glance."""
    shown = np.ones(data.size, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    filtered = mask is not None and not shown.all()
    skill_mask = shown & (data.kind != MEMORY) & data.learned & ~data.base
    skills = np.flatnonzero(skill_mask)
    memories = int((shown & (data.kind == MEMORY)).sum())
    times = data.times[shown]
    dated = times[~np.isnan(times)]
    categories = len({data.categories[i] for i in skills})
    lines = ["<h3>Shown now</h3>" if filtered else "<h3>What the agent learned</h3>"]
    when = f" between {format_date(dated.min())} and {format_date(dated.max())}" if len(dated) else ""
    lines.append(
        f"<p><b>{len(skills)}</b> learned skills in <b>{categories}</b> "
        f"categories and <b>{memories}</b> memory cards{when}.</p>"
    )
    counts, worst = health_arrays(data)
    troubled = np.flatnonzero(shown & (counts > 0))
    if len(troubled):
        errors = int((worst[troubled] == ERROR).sum())
        warnings = int((worst[troubled] == WARNING).sum())
        notes = len(troubled) - errors - warnings
        parts = [
            f"<b>{errors}</b> the agent mis-reads" if errors else "",
            f"<b>{warnings}</b> with warnings" if warnings else "",
            f"<b>{notes}</b> only stale or never used" if notes else "",
        ]
        lines.append(
            f"<p><b>{len(troubled)}</b> skill{'s' if len(troubled) != 1 else ''} with health problems"
            f" ({', '.join(p for p in parts if p)}): errors and warnings carry a dot; "
            "tick “Has problems” to list them all.</p>"
        )
    uses = data.use_count[skills]
    busiest = skills[np.lexsort((np.asarray(data.ids, dtype=object)[skills], -uses))][:5] if len(skills) else skills
    if len(busiest):
        lines.append(_linked("Most used", data, busiest.tolist(), lambda i: f" ×{int(data.use_count[i])}"))
    recency = np.nan_to_num(data.times[skills], nan=0.0)
    newest = skills[np.argsort(-recency, kind="stable")][:3]
    if len(newest):
        lines.append(_linked("Newest", data, newest.tolist(), lambda i: f" · {format_date(data.times[i])}"))
    pinned = skills[data.pinned[skills]]
    if len(pinned):
        names = ", ".join(html.escape(data.labels[i]) for i in pinned[:30])
        more = f" and {len(pinned) - 30} more" if len(pinned) > 30 else ""
        lines.append(f"<p>Pinned: {names}{more}</p>")
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
