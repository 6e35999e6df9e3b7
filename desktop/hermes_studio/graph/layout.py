"""Node positions for the learning graph: a radial time disk and category clusters.

Plain numpy, no Qt: it runs in the graph worker and in ``bench/graph_view.py``.

Both layouts share one small force engine (:func:`relax`):

* **collision** between nearby nodes only, found through a uniform grid whose cells are as
  wide as the largest contact distance, so each node meets the few nodes of its 3×3 cells
  instead of all N (no N² matrix anywhere);
* **springs** along the graph's edges (weak: relations are a hint, not the structure);
* a **restraint** towards a per-node target: the category anchor (clusters) or the target
  radius and angle (timeline).

What keeps it fast is the start, not the solver: nodes begin on a sunflower (Vogel spiral)
packing, already close to equilibrium, so a few dozen sweeps settle them. What keeps it
calm is the cache: :class:`LayoutEngine` remembers every node's position per layout; on
the next run known nodes stay where they were (frozen) and only new nodes move, so a
change to one node never reshuffles the rest. A full re-layout happens only when the
frame itself changes (the timeline's calendar unit, or a category disc that outgrew its
place).

Units: one world unit is about one pixel at the default zoom, and :func:`node_radius`
gives each node's collision radius in those units.
"""

from __future__ import annotations

import base64
import binascii
import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))
TIMELINE = "timeline"
CLUSTERS = "clusters"
MODES = (TIMELINE, CLUSTERS)

#: Gap kept between the edges of two nodes, in world units.
GAP = 3.0
#: Collision-only sweeps allowed after ``settle`` while nodes still overlap.
EXTRA_SETTLE = 30
#: While forces act, the pairs near contact are looked up every this many sweeps.
PAIR_REFRESH = 3
#: Cluster discs are packed with this much room to grow before the packing is redone.
ROOM = 1.3
#: Timeline geometry (spec §7.2 uses a core of 58 and bands of constant width).
CORE_RADIUS = 58.0
MIN_BAND = 46.0
LEAD_IN = 0.06
DAY = 86_400.0
#: Bump when the saved form of :meth:`LayoutEngine.export_state` changes meaning.
STATE_VERSION = 2


# --- input -------------------------------------------------------------------------------
@dataclass
class LayoutGraph:
    """What a layout needs to know about the nodes, in payload order."""

    ids: list[str]
    categories: list[str]
    times: np.ndarray  # epoch seconds, NaN when undated
    radii: np.ndarray  # collision radius of each node
    edges: np.ndarray  # (E, 2) int node indices

    def __post_init__(self) -> None:
        self.times = np.asarray(self.times, dtype=np.float64)
        self.radii = np.asarray(self.radii, dtype=np.float64)
        self.edges = np.asarray(self.edges, dtype=np.int64).reshape(-1, 2)

    @property
    def size(self) -> int:
        return len(self.ids)


def node_radius(use_count: np.ndarray, pinned: np.ndarray, faded: np.ndarray, memory: np.ndarray) -> np.ndarray:
    """Collision radius: grows with √uses, a bump for pins, smaller when archived/stale."""
    base = np.where(faded, 4.0, 5.5) + np.sqrt(np.maximum(use_count, 0)) * 1.1 + pinned * 1.5
    return np.where(memory, 6.0, base)


def stable_unit(ids: Sequence[str], salt: bytes = b"") -> np.ndarray:
    """A deterministic number in [0, 1) per id (CRC-32; Python's hash() is salted per run)."""
    return np.fromiter(
        (zlib.crc32(salt + i.encode("utf-8", "surrogatepass")) for i in ids),
        dtype=np.float64,
        count=len(ids),
    ) / 4294967296.0


# --- output ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ring:
    """One populated calendar bucket of the timeline: a band of the disk."""

    inner: float
    outer: float
    start: float  # epoch seconds where the bucket begins
    label: str


@dataclass(frozen=True)
class Anchor:
    """One category's disc in the cluster layout."""

    category: str
    x: float
    y: float
    radius: float


@dataclass
class LayoutResult:
    mode: str
    positions: np.ndarray  # (N, 2) float64, in payload order
    rings: list[Ring] = field(default_factory=list)
    anchors: list[Anchor] = field(default_factory=list)
    unit: str = ""  # the timeline's calendar unit
    moved: int = 0  # how many nodes got a new position in this run
    full: bool = True  # a full re-layout (else only new nodes were placed)


class LayoutCancelled(Exception):
    """The layout was asked to stop; nothing it computed was kept."""


# --- the force engine --------------------------------------------------------------------
def _ragged_arange(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])``, vectorised."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    offsets = np.repeat(starts - (ends - counts), counts)
    return offsets + np.arange(total, dtype=np.int64)


def neighbour_pairs(pos: np.ndarray, query: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(i, j)``, ``i`` in ``query``, ``j != i``, in the same or adjacent grid cells.

    Every pair closer than ``cell`` is among them. Cost is linear in the number of pairs.
    """
    n = len(pos)
    if n < 2 or len(query) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    cells = np.floor(pos / cell).astype(np.int64)
    cells -= cells.min(axis=0) - 1  # keep neighbour keys non-negative
    span = int(cells[:, 1].max()) + 3
    key = cells[:, 0] * span + cells[:, 1]
    order = np.argsort(key, kind="stable")
    qkey = key[query]
    table = (int(cells[:, 0].max()) + 2) * span
    dense = table <= max(1 << 16, 64 * n)  # a per-cell table is cheaper than a search
    if dense:
        per_cell = np.bincount(key, minlength=table)
        cell_start = np.cumsum(per_cell) - per_cell
    else:
        sorted_key = key[order]
    left_parts, right_parts = [], []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            target = qkey + dx * span + dy
            if dense:
                lo, counts = cell_start[target], per_cell[target]
            else:
                lo = np.searchsorted(sorted_key, target, "left")
                counts = np.searchsorted(sorted_key, target, "right") - lo
            left_parts.append(np.repeat(query, counts))
            right_parts.append(order[_ragged_arange(lo, counts)])
    i = np.concatenate(left_parts)
    j = np.concatenate(right_parts)
    keep = np.flatnonzero(i != j)
    return i[keep], j[keep]


def relax(
    pos: np.ndarray,
    radii: np.ndarray,
    edges: np.ndarray,
    target: np.ndarray,
    target_strength: np.ndarray | float,
    mobile: np.ndarray,
    *,
    iterations: int,
    link_strength: float = 0.04,
    link_length: float = 26.0,
    radial: tuple[np.ndarray, np.ndarray] | None = None,
    edge_weight: np.ndarray | None = None,
    settle: int = 10,
    slack: np.ndarray | float = 0.0,
    should_stop: Callable[[], bool] | None = None,
) -> np.ndarray:
    """Move the ``mobile`` nodes of ``pos`` (in place) towards equilibrium; return ``pos``.

    ``target``/``target_strength`` pull each node towards a point. With ``radial =
    (inner, outer)`` a node is also kept between two distances from the origin (its
    timeline band): pushed back in full whenever it leaves the band. Frozen nodes push and pull but never move. The last
    ``settle`` sweeps only resolve collisions, so springs never leave nodes overlapping.
    The target pull acts only beyond ``slack`` from the target: a pull on every node of a
    packed disc would squeeze its core faster than collisions can push back.
    ``should_stop`` is asked before every sweep; True raises :class:`LayoutCancelled`.
    """
    mobile_idx = np.flatnonzero(mobile)
    if len(mobile_idx) == 0 or iterations <= 0:
        return pos
    n = len(pos)
    weight = mobile.astype(np.float64)
    cell = float(2.0 * radii.max() + GAP)
    strength = np.broadcast_to(np.asarray(target_strength, dtype=np.float64), (n,))
    if edge_weight is None:
        edge_weight = np.ones(len(edges))
    if len(edges):
        edge_mobile = mobile[edges[:, 0]] | mobile[edges[:, 1]]
        edges, edge_weight = edges[edge_mobile], edge_weight[edge_mobile]
    a, b = edges[:, 0], edges[:, 1]
    # x and y as two contiguous rows: gathering pairs from one coordinate array at a time
    # is about four times faster than gathering the rows of an (N, 2) array
    xy = np.ascontiguousarray(pos.T)
    x, y = xy[0], xy[1]
    target_x, target_y = np.ascontiguousarray(target[:, 0]), np.ascontiguousarray(target[:, 1])
    max_pull = 0.08 * cell
    near_i = near_j = np.zeros(0, dtype=np.int64)
    near_contact = np.zeros(0)
    total = iterations + settle
    step = -1
    while True:
        step += 1
        if should_stop is not None and should_stop():
            raise LayoutCancelled
        if step >= total + (EXTRA_SETTLE if n <= 2000 else EXTRA_SETTLE // 5):
            break
        cooling = max(0.2, 1.0 - step / (iterations + 1.0))
        forces = step < iterations
        disp_x, disp_y = np.zeros(n), np.zeros(n)
        # collision: push overlapping pairs apart, each side by half the overlap. While the
        # forces act, the pairs near contact are found every few sweeps and reused between
        # (most pairs in a grid cell are far apart); the final sweeps check every pair.
        if not forces or step % PAIR_REFRESH == 0:
            i, j = neighbour_pairs(xy.T, mobile_idx, cell)
            contact = radii[i] + radii[j] + GAP
            if forces and len(i):
                dx, dy = x[i] - x[j], y[i] - y[j]
                near = np.flatnonzero(dx * dx + dy * dy < (contact + 0.5 * cell) ** 2)
                near_i, near_j, near_contact = i[near], j[near], contact[near]
        else:
            i, j, contact = near_i, near_j, near_contact
        hit = np.zeros(0, dtype=bool)
        if len(i):
            dx, dy = x[i] - x[j], y[i] - y[j]
            dist = np.sqrt(dx * dx + dy * dy)
            hit = dist < contact
            if hit.any():
                # (the indices of a scattered mask take faster than the mask selects)
                where = np.flatnonzero(hit)
                i, j, dx, dy, dist, contact = i[where], j[where], dx[where], dy[where], dist[where], contact[where]
                tiny = dist < 1e-6
                if tiny.any():  # coincident points: separate along a fixed direction per pair
                    angle = (i[tiny] * 2.399963) % (2 * math.pi)
                    dx[tiny], dy[tiny] = np.cos(angle), np.sin(angle)
                    dist[tiny] = 1.0
                share = np.where(mobile[j], 0.5, 1.0)  # a frozen partner does not give way
                amount = (contact - dist) / dist * share
                disp_x += np.bincount(i, dx * amount, n)
                disp_y += np.bincount(i, dy * amount, n)
        # springs along edges
        if not forces:
            x += disp_x * weight
            y += disp_y * weight
            if radial is not None:  # collisions must not push a node out of its band
                _clamp_xy(x, y, mobile_idx, radial[0], radial[1])
            if step >= total - 1 and not hit.any():
                break  # settled: nothing overlaps any more
            continue
        if len(edges) and link_strength > 0:
            dx, dy = x[b] - x[a], y[b] - y[a]
            dist = np.sqrt(dx * dx + dy * dy) + 1e-9
            # a spring's pull is capped: many relations must not crush a packed cluster
            amount = np.clip((dist - link_length) * link_strength, -max_pull, max_pull)
            pull = amount / dist * edge_weight
            pull_x, pull_y = dx * pull, dy * pull
            disp_x += np.bincount(a, pull_x, n) - np.bincount(b, pull_x, n)
            disp_y += np.bincount(a, pull_y, n) - np.bincount(b, pull_y, n)
        # restraint towards the target point
        towards_x, towards_y = target_x - x, target_y - y
        far = np.sqrt(towards_x * towards_x + towards_y * towards_y) + 1e-9
        excess = np.maximum(far - slack, 0.0) / far
        pull = strength * excess
        disp_x += towards_x * pull * 0.25
        disp_y += towards_y * pull * 0.25
        if radial is not None:
            low, high = radial
            r = np.sqrt(x * x + y * y) + 1e-9
            back = (np.clip(r, low, high) - r) / r
            disp_x += x * back
            disp_y += y * back
        # cap a step so that one crowded sweep cannot throw nodes across the map
        step_len = np.sqrt(disp_x * disp_x + disp_y * disp_y) + 1e-12
        cap = np.minimum(1.0, (cell * cooling) / step_len) * weight
        x += disp_x * cap
        y += disp_y * cap
    pos[:] = xy.T
    return pos


def _clamp_xy(x: np.ndarray, y: np.ndarray, which: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
    """:func:`_clamp_radius` on coordinates kept as two arrays."""
    wx, wy = x[which], y[which]
    r = np.sqrt(wx * wx + wy * wy) + 1e-9
    scale = np.clip(r, low[which], high[which]) / r
    x[which] = wx * scale
    y[which] = wy * scale


def _clamp_radius(pos: np.ndarray, which: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
    """Move the nodes ``which`` of ``pos`` (in place) along their ray into ``low..high``."""
    r = np.sqrt((pos[which] ** 2).sum(axis=1)) + 1e-9
    scale = np.clip(r, low[which], high[which]) / r
    pos[which] *= scale[:, None]


def sunflower(radii: np.ndarray, start_area: float = 0.0, start_index: int = 0) -> np.ndarray:
    """Points of a Vogel spiral for nodes of these radii, in order from the centre out.

    The k-th point sits at the radius of a disc holding the areas of the nodes before it,
    so big and small nodes pack without overlapping much. ``start_area``/``start_index``
    continue an existing spiral (new nodes joining a cluster go on its rim).
    """
    area = (2.0 * radii + GAP) ** 2 * 0.95
    before = start_area + np.cumsum(area) - area * 0.5
    r = np.sqrt(before / math.pi)
    theta = (start_index + np.arange(len(radii), dtype=np.float64)) * GOLDEN_ANGLE
    return np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1)


# --- the timeline's calendar ---------------------------------------------------------------
#: Candidate ring units: (name, days) for day units, (name, months) for month units.
DAY_UNITS = (("1 day", 1), ("2 days", 2), ("1 week", 7), ("2 weeks", 14))
MONTH_UNITS = (("1 month", 1), ("2 months", 2), ("3 months", 3), ("6 months", 6), ("1 year", 12))
_MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()


def _month_index(times: np.ndarray) -> np.ndarray:
    dates = times.astype("datetime64[s]").astype("datetime64[M]")
    return dates.astype(np.int64)  # months since 1970-01


def bucket_keys(times: np.ndarray, unit: str) -> np.ndarray:
    for name, days in DAY_UNITS:
        if name == unit:
            return np.floor(times / (DAY * days)).astype(np.int64)
    for name, months in MONTH_UNITS:
        if name == unit:
            return _month_index(times) // months
    raise ValueError(f"unknown ring unit {unit!r}")


def bucket_start(key: int, unit: str) -> float:
    for name, days in DAY_UNITS:
        if name == unit:
            return float(key * days * DAY)
    for name, months in MONTH_UNITS:
        if name == unit:
            month = key * months
            return datetime(1970 + month // 12, month % 12 + 1, 1, tzinfo=UTC).timestamp()
    raise ValueError(f"unknown ring unit {unit!r}")


def bucket_label(key: int, unit: str) -> str:
    moment = datetime.fromtimestamp(bucket_start(key, unit), UTC)
    if unit in dict(DAY_UNITS):
        return f"{moment.day} {_MONTHS[moment.month - 1]} {moment.year}"
    if unit == "1 year":
        return str(moment.year)
    if unit == "1 month":
        return f"{_MONTHS[moment.month - 1]} {moment.year}"
    months = dict(MONTH_UNITS)[unit]
    last = (moment.month - 1 + months - 1) % 12
    return f"{_MONTHS[moment.month - 1]}–{_MONTHS[last]} {moment.year}"


def choose_unit(times: np.ndarray) -> str | None:
    """The calendar unit whose populated buckets come closest to the target ring count."""
    dated = times[~np.isnan(times)]
    if len(dated) < 2:
        return None
    span_days = (dated.max() - dated.min()) / DAY
    if span_days <= 0:
        return None
    wanted = min(12, max(5, round(4 + math.log2(max(1.0, span_days / 60.0)))))
    best, best_score = None, math.inf
    for name in [u for u, _ in DAY_UNITS] + [u for u, _ in MONTH_UNITS]:
        populated = len(np.unique(bucket_keys(dated, name)))
        score = abs(populated - wanted) + (0.5 if populated > wanted else 0.0)
        if score < best_score:
            best, best_score = name, score
    return best


# --- the engine ----------------------------------------------------------------------------
@dataclass
class _Frame:
    """What a cached layout was computed in; a different frame means a full re-layout."""

    key: tuple
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)


class LayoutEngine:
    """Positions per layout mode, kept between runs (warm starts). Not thread-safe: use it
    from one worker thread."""

    def __init__(self, *, cold_iterations: int = 40, warm_iterations: int = 30) -> None:
        self.cold_iterations = cold_iterations
        self.warm_iterations = warm_iterations
        self._frames: dict[str, _Frame] = {}
        self._should_stop: Callable[[], bool] | None = None

    def forget(self) -> None:
        self._frames.clear()

    def has(self, mode: str) -> bool:
        """Whether positions for ``mode`` are known (a layout then places only new nodes)."""
        frame = self._frames.get(mode)
        return frame is not None and bool(frame.positions)

    # --- keeping positions across runs -------------------------------------------------------
    def export_state(self) -> dict:
        """Every mode's positions and frame as plain JSON-able data: per frame the node ids,
        their slots in the same order and the positions as one base64 string of float64
        pairs (20,000 floats as JSON numbers took the C encoder half a second, all of it
        holding the GIL the UI thread needs)."""
        frames = {}
        for mode, frame in self._frames.items():
            ids = list(frame.positions)
            xy = np.array([frame.positions[i] for i in ids], dtype="<f8").reshape(-1, 2)
            slots = frame.extra.get("slots", {})
            frames[mode] = {
                "key": list(frame.key),
                "ids": ids,
                "xy": base64.b64encode(xy.tobytes()).decode("ascii"),
                "slots": [slots.get(i) for i in ids],
                "extra": {k: v for k, v in frame.extra.items() if k != "slots"},
            }
        return {"version": STATE_VERSION, "frames": frames}

    def import_state(self, state: object) -> bool:
        """Take positions saved by :meth:`export_state`; False (and nothing kept) if the data
        is not a state this version wrote."""
        try:
            assert isinstance(state, dict) and state.get("version") == STATE_VERSION
            frames = {}
            for mode, saved in state["frames"].items():
                assert mode in MODES
                ids = [str(i) for i in saved["ids"]]
                xy = np.frombuffer(base64.b64decode(saved["xy"], validate=True), dtype="<f8").reshape(-1, 2)
                slots = list(saved["slots"])
                assert len(xy) == len(ids) == len(slots) and np.isfinite(xy).all()
                extra = dict(saved["extra"])
                if "anchors" in extra:
                    extra["anchors"] = {str(k): tuple(map(float, v)) for k, v in extra["anchors"].items()}
                extra["slots"] = dict(zip(ids, slots, strict=True))
                positions = dict(zip(ids, map(tuple, xy.tolist()), strict=True))
                frames[mode] = _Frame(key=_tuples(saved["key"]), positions=positions, extra=extra)
        except (AssertionError, AttributeError, KeyError, TypeError, ValueError, IndexError, binascii.Error):
            return False
        self._frames = frames
        return True

    def _iterations(self, graph: LayoutGraph, full: bool) -> int:
        base = self.cold_iterations if full else self.warm_iterations
        if graph.size <= 2000:
            return base
        # the sunflower start is already close; past 5,000 nodes half the sweeps leave fewer
        # overlaps (the springs crowd less) with relations about a tenth longer, in half the time
        return (base * 3) // 4 if graph.size <= 5000 else base // 2

    def layout(self, graph: LayoutGraph, mode: str, should_stop: Callable[[], bool] | None = None) -> LayoutResult:
        """Positions for ``graph`` in ``mode``; :class:`LayoutCancelled` (and the cache as it
        was) when ``should_stop`` says so."""
        if mode not in MODES:
            raise ValueError(f"unknown layout {mode!r}; use one of {', '.join(MODES)}")
        kept = dict(self._frames)
        self._should_stop = should_stop
        try:
            return self._timeline(graph) if mode == TIMELINE else self._clusters(graph)
        except LayoutCancelled:
            self._frames = kept
            raise
        finally:
            self._should_stop = None

    # --- shared --------------------------------------------------------------------------
    def _warm(self, frame: _Frame | None, graph: LayoutGraph, slot: Sequence) -> tuple[np.ndarray, np.ndarray]:
        """Cached positions for nodes still in the same slot (ring or category), and a mask
        of the nodes that need placing."""
        n = graph.size
        pos = np.zeros((n, 2))
        fresh = np.ones(n, dtype=bool)
        if frame is None:
            return pos, fresh
        cached = frame.positions
        slots = frame.extra.get("slots", {})
        for index, node_id in enumerate(graph.ids):
            hit = cached.get(node_id)
            if hit is not None and slots.get(node_id) == slot[index]:
                pos[index] = hit
                fresh[index] = False
        return pos, fresh

    @staticmethod
    def _store(frame: _Frame, graph: LayoutGraph, pos: np.ndarray, slot: Sequence) -> None:
        frame.positions = dict(zip(graph.ids, map(tuple, pos.tolist()), strict=True))
        frame.extra["slots"] = dict(zip(graph.ids, slot, strict=True))

    # --- clusters --------------------------------------------------------------------------
    def _clusters(self, graph: LayoutGraph) -> LayoutResult:
        n = graph.size
        names, index = np.unique(np.asarray(graph.categories, dtype=object), return_inverse=True)
        counts = np.bincount(index, minlength=len(names)) if n else np.zeros(0, dtype=np.int64)
        spacing = 2.0 * float(np.median(graph.radii)) + GAP if n else 12.0
        area = np.bincount(index, (2 * graph.radii + GAP) ** 2, minlength=len(names)) if n else counts
        disc = np.sqrt(area / math.pi) * 1.25 + spacing  # room to breathe and for a label
        room = {str(names[k]): float(disc[k]) * ROOM for k in range(len(names))}
        frame = self._frames.get(CLUSTERS)
        anchors = frame.extra.get("anchors", {}) if frame else {}
        discs = {str(names[k]): float(disc[k]) for k in range(len(names))}
        full = frame is None or not _anchors_fit(anchors, discs)
        if full:
            anchors = _pack_discs(room, [str(c) for c in names[np.argsort(-counts, kind="stable")]])
            frame = _Frame(key=(CLUSTERS,), extra={"anchors": anchors})
            self._frames[CLUSTERS] = frame
        else:
            for name in discs:  # a new category: place it without moving the others
                if name not in anchors:
                    anchors[name] = _place_disc(anchors, name, room[name])
        assert frame is not None
        centre = np.array([anchors[str(c)][:2] for c in names]).reshape(-1, 2)
        target = centre[index] if n else np.zeros((0, 2))
        slot = list(graph.categories)
        pos, fresh = self._warm(None if full else frame, graph, slot)
        if fresh.any():
            # new nodes: outer sunflower slots of their category, biggest first
            for k in np.unique(index[fresh]):
                members = np.flatnonzero(fresh & (index == k))
                members = members[np.argsort(-graph.radii[members], kind="stable")]
                settled = np.flatnonzero(~fresh & (index == k))
                start_area = float(((2.0 * graph.radii[settled] + GAP) ** 2 * 0.95).sum())
                pos[members] = centre[k] + sunflower(graph.radii[members], start_area, len(settled))
            jitter = stable_unit([graph.ids[i] for i in np.flatnonzero(fresh)], b"j") - 0.5
            pos[fresh] += jitter[:, None] * 0.5
            same = index[graph.edges[:, 0]] == index[graph.edges[:, 1]] if len(graph.edges) else None
            relax(
                pos, graph.radii, graph.edges, target, 0.02, fresh,
                iterations=self._iterations(graph, full),
                link_strength=0.03, link_length=spacing * 1.5,
                edge_weight=None if same is None else np.where(same, 1.0, 0.1),
                slack=(disc / 1.25)[index],
                should_stop=self._should_stop,
            )
        self._store(frame, graph, pos, slot)
        # the drawn disc is the one that encloses its nodes
        reach = {name: spacing for name in discs}
        if n:
            offset = pos - target
            far = np.sqrt((offset * offset).sum(axis=1)) + graph.radii + GAP
            for k in range(len(names)):
                members = index == k
                if members.any():
                    reach[str(names[k])] = float(far[members].max()) + GAP
        return LayoutResult(
            CLUSTERS,
            pos,
            anchors=[Anchor(name, *anchors[name][:2], reach[name]) for name in discs],
            moved=int(fresh.sum()),
            full=full,
        )

    # --- timeline --------------------------------------------------------------------------
    def _timeline(self, graph: LayoutGraph) -> LayoutResult:
        n = graph.size
        times = graph.times
        unit = choose_unit(times)
        dated = ~np.isnan(times)
        if unit is None:
            # no usable span: ordinal recency on five even rings
            order = np.lexsort((np.asarray(graph.ids, dtype=object), np.nan_to_num(times, nan=np.inf)))
            rank = np.empty(n, dtype=np.int64)
            rank[order] = np.arange(n)
            ring_of = (rank * 5 // max(n, 1)).astype(np.int64)
            keys = list(range(5))
            labels = [f"{k * 20}–{(k + 1) * 20}%" for k in keys]
            starts = [math.nan] * 5
        else:
            raw = np.zeros(n, dtype=np.int64)
            raw[dated] = bucket_keys(times[dated], unit)
            uniq = np.unique(raw[dated])
            newest = uniq.max()
            raw[~dated] = newest  # undated nodes sit on the newest ring
            ring_of = np.searchsorted(uniq, raw)
            keys = [int(k) for k in uniq]
            labels = [bucket_label(k, unit) for k in keys]
            starts = [bucket_start(k, unit) for k in keys]
        rings_n = len(keys)
        per_ring = np.bincount(ring_of, minlength=rings_n) if n else np.zeros(rings_n, np.int64)
        cell_area = np.bincount(ring_of, (2 * graph.radii + GAP) ** 2 * 1.5, minlength=rings_n) if n else per_ring
        # widths: a constant band, widened for a crowded ring
        frame = self._frames.get(TIMELINE)
        inner, widths = CORE_RADIUS, []
        for k in range(rings_n):
            width = MIN_BAND
            # band area π((r+w)² − r²) must hold the ring's nodes
            need = float(cell_area[k]) / math.pi
            width = max(width, -inner + math.sqrt(inner * inner + need))
            widths.append(width)
            inner += width
        frame_key = (TIMELINE, unit, tuple(keys[:1]))
        previous = frame.extra.get("widths") if frame else None
        full = (
            frame is None
            or frame.key != frame_key
            or previous is None
            or len(previous) > rings_n
            or any(w > p * 1.02 for w, p in zip(widths, previous, strict=False))
        )
        if not full:
            assert frame is not None and previous is not None
            # keep the old bands; only new outer rings take the new widths
            widths = list(previous) + widths[len(previous):]
        else:
            frame = _Frame(key=frame_key)
            self._frames[TIMELINE] = frame
        assert frame is not None
        frame.extra["widths"] = widths
        edges_r = CORE_RADIUS + np.concatenate([[0.0], np.cumsum(widths)])
        rings = [
            Ring(float(edges_r[k]), float(edges_r[k + 1]), starts[k], labels[k])
            for k in range(rings_n)
        ]
        band_in, band_out = edges_r[ring_of], edges_r[ring_of + 1]
        target = _timeline_targets(graph, ring_of, rings_n, band_in, band_out)
        slot = [keys[k] for k in ring_of.tolist()]
        pos, fresh = self._warm(None if full else frame, graph, slot)
        if fresh.any():
            pos[fresh] = target[fresh]
            # a relation only pulls inside one ring: across rings distance means time
            same_ring = (
                ring_of[graph.edges[:, 0]] == ring_of[graph.edges[:, 1]]
                if len(graph.edges) else np.zeros(0, dtype=bool)
            )
            # the whole disc of a node stays inside its ring (a ring too narrow for it: the middle)
            middle = 0.5 * (band_in + band_out)
            low = np.minimum(band_in + graph.radii + 1.0, middle)
            high = np.maximum(band_out - graph.radii - 1.0, middle)
            relax(
                pos, graph.radii, graph.edges[same_ring], target, 0.05, fresh,
                iterations=self._iterations(graph, full),
                link_strength=0.01, link_length=26.0,
                radial=(low, high),
                slack=0.25 * (band_out - band_in),
                should_stop=self._should_stop,
            )
            _clamp_radius(pos, np.flatnonzero(fresh), low, high)
        self._store(frame, graph, pos, slot)
        return LayoutResult(
            TIMELINE, pos, rings=rings, unit=unit or "", moved=int(fresh.sum()), full=full
        )


def _timeline_targets(
    graph: LayoutGraph, ring_of: np.ndarray, rings_n: int, band_in: np.ndarray, band_out: np.ndarray
) -> np.ndarray:
    """Where each node wants to be on the disk.

    Each category owns a wedge, as wide as its share of the ring blended with its share of
    the whole graph (so wedges line up from ring to ring yet a busy month gets room).
    Inside a ring's wedge, nodes are laid on a Fibonacci lattice ordered by time (angle
    follows the order, the radius steps by the golden ratio), which spreads them evenly
    from the start instead of leaving collisions to untangle a random scatter.
    """
    n = graph.size
    if n == 0:
        return np.zeros((0, 2))
    names, cat = np.unique(np.asarray(graph.categories, dtype=object), return_inverse=True)
    m = len(names)
    overall = np.bincount(cat, minlength=m).astype(np.float64)
    overall = overall / overall.sum()
    per_ring = np.zeros((rings_n, m))
    np.add.at(per_ring, (ring_of, cat), 1.0)
    ring_share = per_ring / np.maximum(per_ring.sum(axis=1, keepdims=True), 1.0)
    share = 0.5 * ring_share + 0.5 * overall[None, :] + 0.01
    span = share / share.sum(axis=1, keepdims=True) * 2 * math.pi
    start = np.cumsum(span, axis=1) - span - math.pi / 2
    # rank of each node inside its (ring, category) cell, by time then id
    cell = ring_of * m + cat
    tie = stable_unit(graph.ids, b"o")
    order = np.lexsort((tie, np.nan_to_num(graph.times, nan=np.inf), cell))
    sorted_cell = cell[order]
    first = np.searchsorted(sorted_cell, sorted_cell, "left")
    rank = np.empty(n, dtype=np.float64)
    rank[order] = np.arange(n) - first
    size = np.bincount(cell, minlength=rings_n * m)[cell].astype(np.float64)
    along = 0.05 + 0.9 * (rank + 0.5) / size
    phase = stable_unit([f"{int(c)}" for c in range(rings_n * m)], b"p")[cell]
    depth = ((rank + 1.0) * 0.6180339887 + phase) % 1.0
    angle = start[ring_of, cat] + along * span[ring_of, cat]
    radius = band_in + (0.12 + 0.76 * depth) * (band_out - band_in)
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)


def _tuples(value: object) -> object:
    """JSON lists back into the tuples a frame key is made of."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


#: The spots tried around each placed disc: this many angles, evenly spaced.
DISC_STEPS = 48
_STEP_ANGLES = [step * 2 * math.pi / DISC_STEPS for step in range(DISC_STEPS)]
_STEP_COS = np.array([math.cos(a) for a in _STEP_ANGLES])
_STEP_SIN = np.array([math.sin(a) for a in _STEP_ANGLES])


def _place_disc(placed: dict[str, tuple[float, float, float]], name: str, radius: float) -> tuple[float, float, float]:
    """A spot for a disc of ``radius`` touching the packing, nearest the origin, free of overlap.

    The candidates are :data:`DISC_STEPS` spots around each placed disc, in the order the
    discs were placed; of those free of overlap, the first one nearest the origin wins.
    (All candidates are checked against all discs at once: a Python loop over them took
    most of a 3,000-node cluster layout.)
    """
    if not placed:
        return (0.0, 0.0, radius)
    gap = 8.0
    discs = np.array(list(placed.values()), dtype=np.float64).reshape(-1, 3)
    px, py, pr = discs[:, 0], discs[:, 1], discs[:, 2]
    reach = (pr + radius + gap)[:, None]
    xs = (px[:, None] + reach * _STEP_COS[None, :]).reshape(-1)
    ys = (py[:, None] + reach * _STEP_SIN[None, :]).reshape(-1)
    dx, dy = xs[:, None] - px[None, :], ys[:, None] - py[None, :]
    least = pr + radius + gap - 1e-6
    clear = dx * dx + dy * dy >= least * least
    free = np.flatnonzero(clear.all(axis=1))
    assert len(free)
    # math.hypot, as the distance that ranks the spots (the first of equals wins)
    near = np.fromiter(map(math.hypot, xs[free].tolist(), ys[free].tolist()), dtype=np.float64, count=len(free))
    best = int(free[int(np.argmin(near))])
    return (float(xs[best]), float(ys[best]), radius)


def _pack_discs(discs: dict[str, float], order: list[str]) -> dict[str, tuple[float, float, float]]:
    placed: dict[str, tuple[float, float, float]] = {}
    for name in order:
        placed[name] = _place_disc(placed, name, discs[name])
    return placed


def _anchors_fit(anchors: dict[str, tuple[float, float, float]], discs: dict[str, float]) -> bool:
    """Cached anchors still work: every known disc still fits the room it was packed with
    (a growing category re-packs everything once it outgrows its room)."""
    return bool(anchors) and all(
        name not in anchors or radius <= anchors[name][2] for name, radius in discs.items()
    )
