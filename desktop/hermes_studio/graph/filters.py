"""Search, filters and the timeline's playhead: which nodes are shown.

Plain data and numpy. :func:`visible_mask` is the single rule the panel, the view and the
tests share:

* search: the query is split on whitespace and **every** term must occur (case-folded) in
  the node's label, category and text (a memory card's full text; a skill's description
  and tags);
* kind: all / skill / memory;
* source: ``learned`` (the engine's default graph), ``all`` skills, or ``base`` (bundled)
  skills only — memory cards are shown with ``learned`` and ``all``;
* categories: a set to keep (``None`` keeps all);
* pinned only; with health problems only (the engine's ``healthCount``); a date range on the learning time (inclusive; undated nodes are kept only
  without a range);
* the playhead (``reveal_until``): nodes learned after it are not born yet; with recorded
  history (``replayed``: the node ids history knows at the playhead, and those of them
  that existed then) those nodes follow history instead;
* the local graph: with ``local_depth`` > 0, only ``local_root`` and the nodes up to that
  many edges away (a root no longer in the graph lifts it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .local import neighbourhood
from .model import MEMORY, SKILL, GraphData

KINDS = ("all", "skill", "memory")
SOURCES = ("learned", "all", "base")


@dataclass(frozen=True)
class FilterState:
    query: str = ""
    kind: str = "all"
    source: str = "learned"
    categories: frozenset[str] | None = None
    pinned_only: bool = False
    date_from: float | None = None  # epoch seconds, inclusive
    date_to: float | None = None  # epoch seconds, inclusive
    reveal_until: float | None = None  # the timeline playhead; None = everything
    problems_only: bool = False  # skills the engine found health problems with
    local_root: str | None = None  # the local graph's centre (a node id)
    local_depth: int = 0  # 0: the whole graph; n: the centre and its neighbours n steps out
    replayed: tuple[frozenset[str], frozenset[str]] | None = None  # (known, alive) at the playhead

    def with_(self, **changes: object) -> FilterState:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def terms(self) -> list[str]:
        return self.query.lower().split()

    @property
    def needs_all_skills(self) -> bool:
        """The payload must include every skill (base, unused), not only learned ones."""
        return self.source != "learned"


def search_mask(data: GraphData, query: str) -> np.ndarray:
    terms = query.lower().split()
    if not terms:
        return np.ones(data.size, dtype=bool)
    return np.fromiter(
        (all(term in text for term in terms) for text in data.haystack), dtype=bool, count=data.size
    )


def visible_mask(data: GraphData, state: FilterState) -> np.ndarray:
    n = data.size
    mask = np.ones(n, dtype=bool)
    if n == 0:
        return mask
    if state.kind == "skill":
        mask &= data.kind == SKILL
    elif state.kind == "memory":
        mask &= data.kind == MEMORY
    if state.source == "learned":
        mask &= data.learned & ~data.base
    elif state.source == "base":
        mask &= data.base
    if state.categories is not None:
        keep = state.categories
        mask &= np.fromiter((c in keep for c in data.categories), dtype=bool, count=n)
    if state.pinned_only:
        mask &= data.pinned
    if state.problems_only:
        from .health import has_problems  # (health draws with pyqtgraph; filters stay light)

        mask &= has_problems(data)
    if state.date_from is not None or state.date_to is not None:
        times = data.times
        dated = ~np.isnan(times)
        inside = dated.copy()
        if state.date_from is not None:
            inside &= np.where(dated, times, 0) >= state.date_from
        if state.date_to is not None:
            inside &= np.where(dated, times, 0) <= state.date_to
        mask &= inside
    if state.reveal_until is not None:
        times = data.times
        born = np.isnan(times) | (np.nan_to_num(times, nan=0.0) <= state.reveal_until)
        if state.replayed is not None:
            known, alive = state.replayed
            in_history = np.fromiter((i in known for i in data.ids), dtype=bool, count=n)
            existed = np.fromiter((i in alive for i in data.ids), dtype=bool, count=n)
            born = np.where(in_history, existed, born)
        mask &= born
    if state.query.strip():
        mask &= search_mask(data, state.query)
    if state.local_depth > 0 and state.local_root in data.index:
        mask &= neighbourhood(data, data.index[state.local_root], state.local_depth)
    return mask


def showing_text(shown: int, total: int) -> str:
    return f"showing {shown:,} of {total:,}"


def growth_histogram(data: GraphData, bins: int = 72) -> tuple[np.ndarray, np.ndarray, tuple[float, float] | None]:
    """Skill and memory counts per time bin (the scrubber's track), and the time range."""
    span = data.time_range()
    if span is None or span[1] <= span[0]:
        return np.zeros(bins), np.zeros(bins), span
    lo, hi = span
    dated = ~np.isnan(data.times)
    where = np.clip(((data.times[dated] - lo) / (hi - lo) * bins).astype(np.int64), 0, bins - 1)
    kinds = data.kind[dated]
    skills = np.bincount(where[kinds == SKILL], minlength=bins).astype(np.float64)
    memories = np.bincount(where[kinds == MEMORY], minlength=bins).astype(np.float64)
    return skills, memories, span
