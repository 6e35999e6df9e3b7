"""The learning-graph payload as arrays the view, the filters and the layout can use.

Plain Python and numpy, no Qt, no disk: :func:`graph_from_payload` takes the engine's
``build_learning_graph`` payload (spec §2.9 plus our extra keys) and nothing else.
A node's **time** on the timeline is when it was learned: a skill's ``createdAt`` when its
usage record has one, else the payload ``timestamp`` (its last activity); a memory card's
``timestamp`` (the session that wrote it, else the file's mtime).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from .layout import LayoutGraph, node_radius

SKILL, MEMORY = 0, 1


@dataclass
class GraphData:
    payload: dict[str, Any]
    ids: list[str]
    labels: list[str]
    categories: list[str]
    kind: np.ndarray  # SKILL or MEMORY
    use_count: np.ndarray
    pinned: np.ndarray
    faded: np.ndarray  # archived or stale
    learned: np.ndarray
    base: np.ndarray  # a bundled/base skill
    times: np.ndarray  # when learned, epoch seconds (NaN if unknown)
    edges: np.ndarray  # (E, 2) node indices
    haystack: list[str]  # lower-case text the search looks in
    nodes: list[dict[str, Any]]
    memory_text: dict[str, str] = field(default_factory=dict)
    index: dict[str, int] = field(default_factory=dict)
    neighbours: list[np.ndarray] = field(default_factory=list)
    #: values derived from this snapshot, made once: the worker makes them (:func:`warm`)
    #: before the snapshot reaches the UI thread, which then only looks them up
    derived: dict[str, Any] = field(default_factory=dict, repr=False)

    def cached(self, name: str, make: Callable[[], Any]) -> Any:
        """The derived value ``name``, made by ``make()`` the first time it is asked for."""
        value = self.derived.get(name)
        if value is None:
            value = self.derived[name] = make()
        return value

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def warnings(self) -> list[str]:
        return list(self.payload.get("warnings") or [])

    def node(self, node_id: str) -> dict[str, Any] | None:
        position = self.index.get(node_id)
        return None if position is None else self.nodes[position]

    def category_names(self) -> list[str]:
        """Categories by size, largest first (ties by name); ``memory`` last."""
        counts = self.category_counts()
        return list(self.cached("category_names", lambda: sorted(counts, key=lambda c: (c == "memory", -counts[c], c))))

    def category_counts(self) -> dict[str, int]:
        """How many nodes each category has."""
        return self.cached("category_counts", lambda: dict(Counter(self.categories)))

    def category_codes(self) -> tuple[list[str], np.ndarray]:
        """The distinct categories (sorted) and, per node, the position of its own among them."""

        def make() -> tuple[list[str], np.ndarray]:
            names, which = np.unique(np.asarray(self.categories, dtype=object), return_inverse=True)
            return [str(name) for name in names], which.reshape(-1)

        return self.cached("category_codes", make)

    def radii(self) -> np.ndarray:
        """Each node's radius in map units (read-only: shared by every caller)."""

        def make() -> np.ndarray:
            radii = node_radius(self.use_count, self.pinned, self.faded, self.kind == MEMORY)
            radii.setflags(write=False)
            return radii

        return self.cached("radii", make)

    def importance_order(self) -> np.ndarray:
        """Every node, most important first: pinned, then uses and relations (a memory card
        counts its links), ties by id order (which labels the canvas shows first)."""

        def make() -> np.ndarray:
            degree = np.fromiter(map(len, self.neighbours), dtype=np.float64, count=len(self.neighbours))
            score = self.use_count + 2.0 * degree + 1000.0 * self.pinned
            return np.argsort(-score, kind="stable")

        return self.cached("importance_order", make)

    def layout_graph(self) -> LayoutGraph:
        return LayoutGraph(self.ids, self.categories, self.times, self.radii(), self.edges)

    def time_range(self) -> tuple[float, float] | None:
        dated = self.times[~np.isnan(self.times)]
        if len(dated) == 0:
            return None
        return float(dated.min()), float(dated.max())


def _number(value: Any) -> float:
    if isinstance(value, bool) or value is None:
        return math.nan
    if isinstance(value, int | float):
        return float(value)
    return math.nan


def graph_from_payload(payload: dict[str, Any]) -> GraphData:
    nodes: list[dict[str, Any]] = list(payload.get("nodes") or [])
    memory_text = {
        str(card.get("id")): str(card.get("body") or "")
        for card in payload.get("memory") or []
        if card.get("id") is not None
    }
    n = len(nodes)
    ids = [str(node.get("id")) for node in nodes]
    labels = [str(node.get("label") or node.get("id")) for node in nodes]
    categories = [str(node.get("category") or "general") for node in nodes]
    kind = np.array([MEMORY if node.get("kind") == "memory" else SKILL for node in nodes], dtype=np.int8)
    use_count = np.array([max(0, int(node.get("useCount") or 0)) for node in nodes], dtype=np.float64)
    pinned = np.array([bool(node.get("pinned")) for node in nodes], dtype=bool)
    faded = np.array([node.get("state") in ("archived", "stale") for node in nodes], dtype=bool)
    learned = np.array(
        [node.get("kind") == "memory" or bool(node.get("learned", True)) for node in nodes],
        dtype=bool,
    )
    base = np.array([node.get("kind") != "memory" and node.get("source") == "base" for node in nodes], dtype=bool)
    times = np.array(
        [
            _number(node.get("createdAt")) if not math.isnan(_number(node.get("createdAt")))
            else _number(node.get("timestamp"))
            for node in nodes
        ],
        dtype=np.float64,
    ) if n else np.zeros(0)
    index = {node_id: position for position, node_id in enumerate(ids)}
    pairs = []
    for edge in payload.get("edges") or []:
        a, b = index.get(str(edge.get("source"))), index.get(str(edge.get("target")))
        if a is not None and b is not None and a != b:
            pairs.append((a, b))
    edges = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    haystack = []
    for node, label, category, node_id in zip(nodes, labels, categories, ids, strict=True):
        parts = [label, category]
        if node.get("kind") == "memory":
            parts.append(memory_text.get(node_id, ""))
            parts.append("profile memory" if node.get("memorySource") == "profile" else "memory")
        else:
            parts.append(str(node.get("description") or ""))
            parts.extend(str(tag) for tag in node.get("tags") or [])
        haystack.append("\n".join(parts).lower())
    data = GraphData(
        payload=payload,
        ids=ids,
        labels=labels,
        categories=categories,
        kind=kind,
        use_count=use_count,
        pinned=pinned,
        faded=faded,
        learned=learned,
        base=base,
        times=times,
        edges=edges,
        haystack=haystack,
        nodes=nodes,
        memory_text=memory_text,
        index=index,
    )
    data.neighbours = neighbour_lists(n, edges)
    return data


def neighbour_lists(n: int, edges: np.ndarray) -> list[np.ndarray]:
    if n == 0:
        return []
    if len(edges) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return [empty] * n
    both = np.concatenate([edges, edges[:, ::-1]]).astype(np.int64)
    keys = np.unique(both[:, 0] * n + both[:, 1])  # sorted by node, then neighbour; no repeats
    sources, targets = keys // n, keys % n
    starts = np.searchsorted(sources, np.arange(1, n))
    return np.split(targets, starts)


# --- words for people ----------------------------------------------------------------------
def format_date(epoch: float | int | None) -> str:
    if epoch is None or (isinstance(epoch, float) and math.isnan(epoch)):
        return "undated"
    return datetime.fromtimestamp(float(epoch), UTC).strftime("%-d %b %Y")


def source_label(node: dict[str, Any]) -> str:
    if node.get("kind") == "memory":
        return "profile memory" if node.get("memorySource") == "profile" else "memory"
    if node.get("source") == "base":
        return "base (bundled)"
    if node.get("source") == "external":
        return "external"
    return "learned" if node.get("learned", True) else "not learned yet"
