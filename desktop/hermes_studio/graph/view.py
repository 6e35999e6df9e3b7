"""The graph canvas: pyqtgraph items for rings, edges, nodes, pins, focus marks and labels.

The view draws what it is given (a :class:`GraphData`, a :class:`LayoutResult` and a
visibility mask) and reports what the person does with it; it never reads the disk or
lays anything out. Nodes are one pixel-mode :class:`ScatterPlotItem` (pre-rendered glyphs
from pyqtgraph's atlas: fast at 10,000 points), edges one ``connect="pairs"`` curve.

Interaction: hover shows a tooltip and lights the node's edges; click selects (click on
empty space clears); double-click a node opens it, double-click empty space fits the
map; wheel zooms and drag pans (pyqtgraph's ViewBox); arrows move the selection to the
neighbour in that direction, Enter opens it, Esc clears.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from typing import Any

import numpy as np
import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QKeyEvent, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsView, QToolTip, QWidget

from ..pyqtgraph_loader import pyqtgraph as pg
from .colours import ColourBook
from .glyphs import distinct_styles, render_some, set_glyphs
from .health import draw_badges, problems_text
from .labels import (
    BOLD,
    CARD_TITLE,
    NORMAL,
    SKILL_TITLE,
    SMALL,
    TRIES_PER_LABEL,
    Label,
    LabelLayer,
    Placer,
    label_budget,
    short_title,
)
from .layout import TIMELINE, LayoutResult
from .model import MEMORY, GraphData, format_date, source_label
from .overlays import GraphOverlays
from .style import (
    MIN_NODE_PX,
    PIN_BOX,
    PIN_GOLD,
    CanvasStyle,
    age_alpha,
    canvas_style,
    pin_symbol,
)

#: Above this many shown nodes, selection does not dim the rest (a full brush update).
DIM_LIMIT = 4000
#: Labels are placed again this long after the camera stops (a pan brings others on screen).
LABEL_SETTLE_MS = 70
#: The faint edge layer hides while the camera moves and is back :data:`EDGE_SETTLE_MS`
#: after it stops (edges cost more to draw than all the nodes); above this many shown
#: edges it is also drawn without antialiasing.
EDGE_BUDGET = 2500
EDGE_SETTLE_MS = 180
#: Work cut into turns of the event loop goes on after a timer of this many ms: a zero
#: timer is a posted event, which Qt may run right after the turn before it, so that the
#: timers and input waiting in between would wait for both.
NEXT_TURN_MS = 1
#: Work waiting for the canvas to paint goes on after this long if no paint comes (a
#: window not exposed, say minimised).
PAINT_WAIT_MS = 100
#: A new graph's glyph styles missing from pyqtgraph's atlas are rendered this many a turn
#: (about 0.2 ms each; a 10,000-node home's first draw has a few hundred).
ATLAS_PER_TURN = 30
#: Above this many shown edges, edges that change with the nodes come after them, on turns
#: of their own: their path is built on the turn after the nodes are painted, and painted
#: on the next (at 10,000 nodes one paint of everything that changed took 35-45 ms: the
#: edges' path 6-9 ms, their stroke 13 ms, the nodes 5-7 ms, and the turn's own work).
EDGES_APART = EDGE_BUDGET

_ARROWS = {
    Qt.Key.Key_Right: (1.0, 0.0),
    Qt.Key.Key_Left: (-1.0, 0.0),
    Qt.Key.Key_Up: (0.0, 1.0),
    Qt.Key.Key_Down: (0.0, -1.0),
}


class _ViewBox(pg.ViewBox):
    """pyqtgraph's ViewBox that says when a person starts moving the camera."""

    def __init__(self, on_move: Callable[[], None]) -> None:
        super().__init__(lockAspect=True, enableMenu=False)
        self._on_move = on_move

    def wheelEvent(self, ev: Any, axis: Any = None) -> None:  # noqa: N802
        self._on_move()
        super().wheelEvent(ev, axis)

    def mouseDragEvent(self, ev: Any, axis: Any = None) -> None:  # noqa: N802
        self._on_move()
        super().mouseDragEvent(ev, axis)


class GraphView(pg.GraphicsView):
    sig_node_clicked = Signal(object)  # node id, or None for empty space
    sig_node_activated = Signal(str)  # double-click or Enter
    sig_context = Signal(str, object)  # node id, global QPoint
    sig_hovered = Signal(object)  # node id or None
    sig_drawn = Signal()  # the current graph is drawn: nodes, edges, labels and overlays
    sig_node_toggled = Signal(str)  # Ctrl-click: add the node to the selection or take it out
    sig_current = Signal(object)  # select() moved the highlight (node id or None)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        # one rectangle around what changed: the nodes, edges and labels of a new graph
        # change all over the canvas, and a clip of many small rectangles made the first
        # paint of 10,000 edges take 150 ms instead of 10
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.style_ = canvas_style()
        self.setBackground(self.style_.background)
        self.vb = _ViewBox(self.begin_camera_move)
        self.vb.disableAutoRange()
        self.setCentralItem(self.vb)
        self.data: GraphData | None = None
        self.layout_: LayoutResult | None = None
        self.pos = np.zeros((0, 2))
        self.visible = np.zeros(0, dtype=bool)
        self.shown = np.zeros(0, dtype=np.int64)
        self.selected: int | None = None
        self.hovered: int | None = None
        self.colour_by = "category"
        self.book = ColourBook()  # the panel hands over the home's own
        self.colours: dict[str, QColor] = {}
        self._brushes: dict[tuple[int, int, int, int], QBrush] = {}
        self._size_scale = 1.0
        self._fitted = False
        self._frame_items: list[Any] = []
        self._label_focus: int | None = None
        self._text_sizes: dict[tuple[str, bool], tuple[float, float]] = {}
        self._rest_due = False  # a new graph's edges, labels and badges come next turn
        self._nodes_due = False  # ... and its nodes too, once their glyphs are rendered
        self._due_glyphs: dict[str, Any] | None = None  # (the glyphs those nodes wait with)
        self._edges_drawn_for: tuple | None = None  # (data, positions, mask) the edges show
        self._edges_due = 0  # edges waiting to be drawn on a turn of their own (its number), else 0
        self._edge_turns = 0
        self._fit_zoom = 0.0  # pixels per map unit at the last fit (semantic zoom's 1×)
        self._labels_timer = QTimer(self)
        self._labels_timer.setSingleShot(True)
        self._labels_timer.setInterval(LABEL_SETTLE_MS)
        self._labels_timer.timeout.connect(self._labels_settled)
        self._labelled_at: tuple | None = None  # the camera the labels were placed for
        self._after_paint: list[Callable[[], None]] = []
        self._paint_wait = QTimer(self)
        self._paint_wait.setSingleShot(True)
        self._paint_wait.setInterval(PAINT_WAIT_MS)
        self._paint_wait.timeout.connect(self._painted)
        self._fit_shown = False  # fit() frames the shown nodes only (a local graph)
        self._fit_hidden = False  # the last fit was made off screen (another tab): redo it on show

        self.frame_item = QGraphicsPathItem()  # rings or category discs, one path
        self.frame_item.setZValue(-10)
        # (positions are always finite: the check would add a third to building the path)
        self.edge_item = pg.PlotCurveItem(connect="pairs", antialias=True, skipFiniteCheck=True)
        self.edge_item.setZValue(-5)
        self.lit_item = pg.PlotCurveItem(connect="pairs", antialias=True)
        self.lit_item.setZValue(-4)
        # nodes, then the pins of pinned nodes, in one pre-rendered scatter
        self.node_item = pg.ScatterPlotItem(pxMode=True, antialias=True, hoverable=False)
        self.node_item.setZValue(0)
        self.mark_item = pg.ScatterPlotItem(pxMode=True, antialias=True)
        self.mark_item.setZValue(1)
        self.badge_item = pg.ScatterPlotItem(pxMode=True, antialias=True)  # skill health
        self.badge_item.setZValue(0.5)
        self.frame_labels = LabelLayer()
        self.frame_labels.setZValue(-9)
        self.node_labels = LabelLayer()
        self.node_labels.setZValue(3)
        for item in (
            self.frame_item, self.frame_labels, self.edge_item, self.lit_item, self.node_item,
            self.mark_item, self.badge_item, self.node_labels,
        ):
            self.vb.addItem(item)
        # with many edges the faint layer hides while the camera moves (level of detail)
        self._edges_settle = QTimer(self)
        self._edges_settle.setSingleShot(True)
        self._edges_settle.setInterval(EDGE_SETTLE_MS)
        self._edges_settle.timeout.connect(self._show_edges)
        self._apply_pens()
        self.vb.sigRangeChanged.connect(self._range_changed)
        self.scene().sigMouseMoved.connect(self._mouse_moved)
        self.scene().sigMouseClicked.connect(self._mouse_clicked)
        self.overlays = GraphOverlays(self)  # unseen changes, pulses, staged (ghost) nodes

    # --- public API ------------------------------------------------------------------------
    def set_canvas_style(self, style: CanvasStyle) -> None:
        """Repaint with another theme's canvas colours."""
        self.style_ = style
        self.setBackground(style.background)
        self._brushes.clear()
        self._apply_pens()
        if self.data is not None:
            self.colours = self.book.category_colours(self.data.category_names(), style)
            self._draw_frame()
            self._refresh()

    def set_graph(self, data: GraphData, layout: LayoutResult, visible: np.ndarray, *, keep_camera: bool) -> None:
        """Show a new snapshot. The selection is kept by id when the node still exists."""
        selected_id = self.selected_id()
        visible = np.asarray(visible, dtype=bool)
        # the same nodes in another layout (a mode switch): only the positions change
        moved_only = data is self.data and np.array_equal(visible, self.visible) and self.hovered is None
        self.data, self.layout_ = data, layout
        self.pos = np.asarray(layout.positions, dtype=np.float64).reshape(-1, 2)
        self.visible = visible
        if not moved_only:
            self.colours = self.book.category_colours(data.category_names(), self.style_)
        self.selected = data.index.get(selected_id) if selected_id is not None else None
        if self.selected is not None and not self.visible[self.selected]:
            self.selected = None
        self.hovered = None
        self._draw_frame()
        rescaled = False
        if not keep_camera or not self._fitted:
            # before drawing: the glyph size depends on the zoom (a mode switch keeps the
            # size unless it is far off, so that the glyphs only move)
            rescaled = self._fit_camera(tolerance=0.35 if moved_only else 0.02)
        if moved_only and not rescaled:
            self._move_nodes()
            self._refresh(nodes=False, badges=True)  # (the health badges sit on the nodes)
        else:
            self._refresh(rest_later=True)  # the nodes now, what is over and under them next turn

    def set_visible(self, visible: np.ndarray) -> None:
        self.visible = np.asarray(visible, dtype=bool)
        if self.selected is not None and not self.visible[self.selected]:
            self.selected = None
        if self.hovered is not None and not self.visible[self.hovered]:
            self.hovered = None
        self._refresh()

    def set_colour_by(self, mode: str) -> None:
        self.colour_by = mode
        self._refresh()

    def recolour(self) -> None:
        """Redraw after the colour book changed (a category recoloured, a group)."""
        if self.data is not None:
            self.colours = self.book.category_colours(self.data.category_names(), self.style_)
            self._draw_frame()
            self._refresh()

    def select(self, node_id: str | None) -> None:
        index = None
        if node_id is not None and self.data is not None:
            index = self.data.index.get(node_id)
            if index is not None and not self.visible[index]:
                index = None
        if index == self.selected:
            return
        self.selected = index
        self._refresh(nodes=self._dimming())
        self.sig_current.emit(self.selected_id())

    def selected_id(self) -> str | None:
        if self.data is None or self.selected is None:
            return None
        return self.data.ids[self.selected]

    def shown_ids(self) -> list[str]:
        if self.data is None:
            return []
        return [self.data.ids[i] for i in self.shown]

    def fit(self, *, shown_only: bool = False) -> None:
        """Frame the whole map, or (``shown_only``) the nodes shown now, e.g. a local graph."""
        self._fit_shown = shown_only
        if self._fit_camera():
            self._refresh()
        elif self.data is not None:
            self._draw_labels()

    def _fit_camera(self, tolerance: float = 0.02) -> bool:
        """Frame the whole map; True when the glyph size changed (the nodes need redrawing).
        The size changes when the zoom calls for one more than ``tolerance`` (relative) away."""
        rect = self.content_rect()
        if rect is None:
            return False
        self.vb.setRange(rect, padding=0.04)
        self._fitted = True
        self._fit_hidden = not self.isVisible()
        # glyphs keep their pixel size while zooming (fast); it is chosen here, once per fit,
        # so that a big map's overview is not a solid blob
        per_unit = self._pixels_per_unit()
        if per_unit <= 0:
            return False
        # in steps of 0.1: the two layouts of a home then usually share one glyph size, and
        # a mode switch moves the glyphs instead of redrawing them
        scale = float(np.clip(round(per_unit, 1), 0.4, 1.6))
        self._fit_zoom = per_unit
        if abs(scale - self._size_scale) > tolerance * self._size_scale and self.data is not None:
            self._size_scale = scale
            return True
        return False

    def showEvent(self, event: Any) -> None:  # noqa: N802
        super().showEvent(event)
        self._refit_if_hidden()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._refit_if_hidden()

    def _refit_if_hidden(self) -> None:
        """A fit made while the tab was hidden used a canvas of the wrong size (tiny glyphs,
        a small map): fit again once the canvas is on screen and laid out."""
        if getattr(self, "_fit_hidden", False) and self.data is not None and self.isVisible():
            QTimer.singleShot(0, self, self._refit)

    def _refit(self) -> None:
        if self._fit_hidden and self.isVisible() and shiboken6.isValid(self):
            self.fit(shown_only=self._fit_shown)

    def content_rect(self) -> QRectF | None:
        if len(self.pos) == 0:
            return None
        if self._fit_shown and len(self.shown):
            low = self.pos[self.shown].min(axis=0) - 40  # room for the labels
            high = self.pos[self.shown].max(axis=0) + 40
            return QRectF(QPointF(*low), QPointF(*high))
        low = self.pos.min(axis=0) - 12
        high = self.pos.max(axis=0) + 12
        if self.layout_ is not None and self.layout_.rings:
            outer = self.layout_.rings[-1].outer + 10
            low = np.minimum(low, [-outer, -outer])
            high = np.maximum(high, [outer, outer])
        if self.layout_ is not None and self.layout_.anchors:
            discs = np.array([(a.x, a.y, a.radius) for a in self.layout_.anchors])
            low = np.minimum(low, (discs[:, :2] - discs[:, 2:3]).min(axis=0) - 4)
            high = np.maximum(high, (discs[:, :2] + discs[:, 2:3]).max(axis=0) + 18)
        return QRectF(QPointF(*low), QPointF(*high))

    def node_scene_pos(self, node_id: str) -> QPointF:
        """Where a node is drawn, in the view's own widget coordinates (for tests)."""
        assert self.data is not None
        x, y = self.pos[self.data.index[node_id]]
        scene = self.vb.mapViewToScene(QPointF(float(x), float(y)))
        return self.mapFromScene(scene).toPointF()

    def node_brush(self, node_id: str) -> QColor:
        """The colour the node is drawn in now (for tests)."""
        assert self.data is not None
        index = self.data.index[node_id]
        where = np.flatnonzero(self.shown == index)
        brush = self.node_item.data["brush"][int(where[0])]
        return brush.color()

    def is_pinned_drawn(self, node_id: str) -> bool:
        assert self.data is not None
        index = self.data.index[node_id]
        return bool((self.node_item.data["data"] == -(index + 1)).any())

    # --- drawing ---------------------------------------------------------------------------
    def _apply_pens(self) -> None:
        # the glyphs' pens and the pins' brush live as long as the theme: the glyph atlas
        # knows a style by its objects, so new ones each draw rendered every glyph again
        outline = QColor(self.style_.outline)
        outline.setAlphaF(0.85)
        self._glyph_pens = (
            pg.mkPen(outline, width=1.0), pg.mkPen(QColor("#6b4a00"), width=0.8), pg.mkBrush(QColor(PIN_GOLD))
        )
        edge = QColor(self.style_.edge)
        edge.setAlphaF(0.20 if self.style_.dark else 0.13)
        self.edge_item.setPen(pg.mkPen(edge, width=1))
        lit = QColor(self.style_.edge_lit)
        lit.setAlphaF(0.9)
        self.lit_item.setPen(pg.mkPen(lit, width=1.6))

    def _draw_frame(self) -> None:
        """Rings and their dates (timeline) or category discs and names (clusters)."""
        layout = self.layout_
        path = QPainterPath()
        labels: list[Label] = []
        if layout is None:
            self.frame_item.setPath(path)
            self.frame_labels.set_labels([])
            return
        pen = QPen(QColor(self.style_.ring))
        pen.setCosmetic(True)
        pen.setWidthF(1.0)
        muted = QColor(self.style_.ring_label)
        if layout.mode == TIMELINE:
            for ring in layout.rings:
                path.addEllipse(QPointF(0, 0), ring.outer, ring.outer)
                # inside its own band, under the outer circle (above it sat in the next ring)
                labels.append(Label(0.0, ring.outer, ring.label, muted, SMALL, 2.0))
            if layout.rings:
                inner = layout.rings[0].inner
                path.addEllipse(QPointF(0, 0), inner, inner)
                labels.append(Label(0.0, 0.0, "oldest", muted, SMALL, 0.0))
            core = QColor(self.style_.ring)
            core.setAlphaF(0.18)
            self.frame_item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            self.frame_item.setPen(pen)
        else:
            for anchor in layout.anchors:
                path.addEllipse(QPointF(anchor.x, anchor.y), anchor.radius, anchor.radius)
                colour = self.colours.get(anchor.category, QColor(self.style_.ring))
                colour = colour.lighter(115) if self.style_.dark else colour.darker(130)
                labels.append(Label(anchor.x, anchor.y + anchor.radius, anchor.category, colour, BOLD, -1.0))
            fill = QColor(self.style_.ring)
            fill.setAlphaF(0.25)
            self.frame_item.setBrush(QBrush(fill))
            self.frame_item.setPen(pen)
        self.frame_item.setPath(path)
        self.frame_labels.set_labels(labels)

    def _dimming(self) -> bool:
        return len(self.shown) <= DIM_LIMIT

    def _base_colours(self) -> np.ndarray:
        """RGB per node (0–255) for the current colour mode (the legend reads the same book)."""
        assert self.data is not None
        return self.book.node_rgb(self.data, self.colour_by, self.style_)

    def _brush(self, r: int, g: int, b: int, a: int) -> QBrush:
        key = (r, g, b, a)
        brush = self._brushes.get(key)
        if brush is None:
            brush = self._brushes[key] = QBrush(QColor(r, g, b, a))
        return brush

    def _refresh(self, nodes: bool = True, *, rest_later: bool = False, badges: bool = False) -> None:
        """Draw the current graph: its nodes (unless only the selection or hover changed),
        then the badges, edges, focus marks, labels and overlays — with ``rest_later`` on
        the next turn of the event loop, so that a new graph's first frame is two short
        turns, not one long one. ``sig_drawn`` follows once everything is drawn."""
        data = self.data
        if data is None:
            return
        self.shown = np.flatnonzero(self.visible)
        if rest_later:
            self._rest_due = True
            self._due_glyphs = None  # (styles worked out for an older graph or mask)
            # what sits on or between the nodes comes with the rest: until then the old
            # graph's would mark the old places
            if self._edges_stale():
                self.edge_item.setVisible(False)
            for item in (self.badge_item, self.mark_item, self.lit_item):
                item.setVisible(False)
            self.node_labels.set_labels([])
            self._draw_nodes_in_turns()
            return
        if nodes or self._nodes_due:
            self._draw_nodes()
        self._draw_rest(badges=badges or nodes or self._rest_due)

    def _draw_nodes_in_turns(self) -> None:
        """The nodes now if their glyphs are all rendered, else the next ones of those; the
        rest on a turn after the canvas painted the nodes (queued before that paint, it
        would run right after it, ahead of the timers and input that waited meanwhile)."""
        self._nodes_due = not self._draw_nodes(in_turns=True)
        if self._nodes_due:
            QTimer.singleShot(NEXT_TURN_MS, self, self._draw_rest_due)
        else:
            self.after_paint(self._draw_rest_due)

    def _draw_rest_due(self) -> None:
        if not self._rest_due or not shiboken6.isValid(self):
            return  # drawn meanwhile by a full refresh
        if self._nodes_due:  # the glyph atlas still lacks some of the nodes' styles
            self._draw_nodes_in_turns()
            return
        self._draw_rest(badges=True)

    def after_paint(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on a turn of its own once the canvas has painted (at once if
        it is not on screen; after :data:`PAINT_WAIT_MS` if no paint comes)."""
        self._after_paint.append(callback)
        if not self.isVisible():
            self._painted()
        elif not self._paint_wait.isActive():
            self._paint_wait.start()

    def paintEvent(self, event: Any) -> None:  # noqa: N802
        super().paintEvent(event)
        if self._after_paint:
            self._painted()

    def _painted(self) -> None:
        self._paint_wait.stop()
        waiting, self._after_paint = self._after_paint, []
        for callback in waiting:
            QTimer.singleShot(NEXT_TURN_MS, self, callback)

    def _draw_rest(self, badges: bool) -> None:
        """Everything but the nodes; ``sig_drawn`` once the edges are drawn too (many edges
        that changed: on turns of their own, see :data:`EDGES_APART`)."""
        self._rest_due = self._nodes_due = False
        if self.data is None:
            return
        if badges:
            draw_badges(self.badge_item, self.data, self.shown, self.pos, self._size_scale)
        self._draw_focus()
        self._draw_labels()
        self.overlays.redraw()
        if self._edges_stale():
            pairs = self._edge_pairs()
            if len(pairs) // 2 > EDGES_APART:
                # this turn paints the nodes without edges (the old ones would sit at the
                # old places); the edges follow on two short turns
                self.edge_item.setVisible(False)
                self._edge_turns += 1
                self._edges_due = self._edge_turns
                self.after_paint(functools.partial(self._build_edges_due, self._edges_due))
                return
            self._edges_due = 0
            self._set_edges(pairs)
            if not self.edge_item.isVisible() and not self._edges_settle.isActive():
                self.edge_item.setVisible(True)  # (hidden for edges that were due)
        self.sig_drawn.emit()

    def _build_edges_due(self, turn: int) -> None:
        """The turn after the nodes painted: the edges' data and path, still hidden."""
        if turn != self._edges_due or not shiboken6.isValid(self) or self.data is None:
            return  # a later refresh drew them, or waits with its own
        self._set_edges(self._edge_pairs())
        self.edge_item.getPath()  # (pyqtgraph would build it inside the next paint)
        QTimer.singleShot(NEXT_TURN_MS, self, functools.partial(self._show_edges_due, turn))

    def _show_edges_due(self, turn: int) -> None:
        if turn != self._edges_due or not shiboken6.isValid(self):
            return
        self._edges_due = 0
        if not self._edges_settle.isActive():  # (else the camera moves: shown once it rests)
            self.edge_item.setVisible(True)
        self.sig_drawn.emit()

    def _draw_nodes(self, in_turns: bool = False) -> bool:
        """Hand the shown nodes to the canvas; with ``in_turns``, first render at most
        :data:`ATLAS_PER_TURN` glyph styles the atlas lacks, and say False (not drawn) when
        more are left for later turns (which go on with the glyphs worked out here)."""
        glyphs = self._due_glyphs if in_turns and self._due_glyphs is not None else self._node_glyphs()
        self._due_glyphs = None
        styles = glyphs["distinct"][0]
        if in_turns and styles and not render_some(self.node_item, styles, ATLAS_PER_TURN):
            self._due_glyphs = glyphs
            return False  # the glyphs not rendered yet: more of them on the next turn
        set_glyphs(self.node_item, **glyphs)
        return True

    def _node_glyphs(self) -> dict[str, Any]:
        """Every shown node's glyph (and the pins of pinned nodes): positions, styles and
        the distinct styles among them (``set_glyphs``'s arguments)."""
        data = self.data
        assert data is not None
        shown = self.shown
        times = data.times[shown]
        dated = times[~np.isnan(times)]
        alpha = age_alpha(
            times,
            float(dated.max()) if len(dated) else None,
            float(dated.min()) if len(dated) else None,
            old=0.55 if self.style_.dark else 0.42,
        )
        alpha = np.where(data.faded[shown], alpha * 0.6, alpha)
        if self.selected is not None and self._dimming():
            near = np.zeros(data.size, dtype=bool)
            near[data.neighbours[self.selected]] = True
            near[self.selected] = True
            alpha = np.where(near[shown], np.maximum(alpha, 0.95), alpha * 0.28)
        rgb = self._base_colours()[shown]
        a = np.clip(np.round(alpha * 255 / 8) * 8, 0, 255).astype(np.int64)
        # one QBrush per distinct colour (a few hundred), shared by the nodes that use it
        keys = ((rgb[:, 0] << 24) | (rgb[:, 1] << 16) | (rgb[:, 2] << 8) | a) if len(a) else a
        distinct, which = np.unique(keys, return_inverse=True)
        palette = np.empty(len(distinct), dtype=object)
        for position, key in enumerate(distinct.tolist()):
            palette[position] = self._brush(key >> 24, (key >> 16) & 255, (key >> 8) & 255, key & 255)
        brushes = palette[which.reshape(-1)]
        sizes = 2.0 * data.radii()[shown] * self._size_scale
        memory = data.kind[shown] == MEMORY
        symbols = np.full(len(shown), "o", dtype=object)  # one str object: styles dedupe by identity
        symbols[memory] = "d"
        sizes = np.where(memory, sizes * 1.15, sizes)
        # half-pixel steps: each distinct glyph is rendered once into pyqtgraph's atlas, and
        # continuous sizes made thousands of them at 10,000 nodes
        sizes = np.round(sizes * 2.0) / 2.0
        outline_pen, pin_pen, gold = self._glyph_pens
        pinned = shown[data.pinned[shown]]
        diameters = np.maximum(2.0 * data.radii()[pinned] * self._size_scale, MIN_NODE_PX)
        pins = np.empty(len(pinned), dtype=object)
        pins[:] = [pin_symbol(d) for d in diameters.tolist()]
        styles = {
            "size": np.concatenate([np.maximum(sizes, MIN_NODE_PX), np.full(len(pinned), PIN_BOX)]),
            "symbol": np.concatenate([symbols, pins]),
            "pen": np.concatenate([np.full(len(shown), outline_pen, dtype=object), np.full(len(pinned), pin_pen, dtype=object)]),
            "brush": np.concatenate([brushes, np.full(len(pinned), gold, dtype=object)]),
        }
        return {
            "x": np.concatenate([self.pos[shown, 0], self.pos[pinned, 0]]),
            "y": np.concatenate([self.pos[shown, 1], self.pos[pinned, 1]]),
            "data": np.concatenate([shown, -(pinned + 1)]),
            "distinct": distinct_styles(**styles),
            **styles,
        }

    @property
    def drawing(self) -> bool:
        """Whether the current graph's badges, edges and labels are still to be drawn (on
        the turns after its nodes)."""
        return self._rest_due or bool(self._edges_due)

    def _move_nodes(self) -> None:
        """New positions for the glyphs already drawn, without restyling them (pyqtgraph
        recomputes every glyph's style in ``setData``, which is most of its cost)."""
        item = self.node_item
        shown = self.shown
        pinned = shown[self.data.pinned[shown]] if self.data is not None else shown[:0]
        order = np.concatenate([shown, pinned])
        if len(item.data) != len(order):
            self._draw_nodes()
            return
        item.data["x"] = self.pos[order, 0]
        item.data["y"] = self.pos[order, 1]
        item.prepareGeometryChange()
        item.informViewBoundsChanged()
        item.bounds = [None, None]
        item.invalidate()

    def _edges_stale(self) -> bool:
        """Whether the edges drawn are not those of the nodes shown now."""
        drawn = self._edges_drawn_for
        return (
            drawn is None or drawn[0] is not self.data or drawn[1] is not self.pos
            or not np.array_equal(drawn[2], self.visible)
        )

    def _edge_pairs(self) -> np.ndarray:
        """The shown edges' end nodes, two indices per edge."""
        assert self.data is not None
        edges = self.data.edges
        if len(edges) == 0:
            return np.zeros(0, dtype=np.int64)
        keep = self.visible[edges[:, 0]] & self.visible[edges[:, 1]]
        return edges[keep].reshape(-1)

    def _set_edges(self, pairs: np.ndarray) -> None:
        self._edges_drawn_for = (self.data, self.pos, self.visible.copy())
        if len(pairs) == 0:
            self.edge_item.setData([], [])
            return
        self.edge_item.opts["antialias"] = len(pairs) // 2 <= EDGE_BUDGET
        self.edge_item.setData(self.pos[pairs, 0], self.pos[pairs, 1])

    def begin_camera_move(self) -> None:
        """A person drags or wheels the map: hide the faint edges until the camera has been
        still for :data:`EDGE_SETTLE_MS` (the nodes alone repaint at full speed)."""
        if self.edge_item.isVisible() or self._edges_settle.isActive() or self._edges_due:
            self.edge_item.setVisible(False)
            self._edges_settle.start()

    def _show_edges(self) -> None:
        if shiboken6.isValid(self.edge_item) and not self._edges_due:  # (else they show once drawn)
            self.edge_item.setVisible(True)

    def _focus(self) -> int | None:
        return self.hovered if self.hovered is not None else self.selected

    def _draw_focus(self) -> None:
        data = self.data
        assert data is not None
        marks_x, marks_y, marks_size, marks_pen = [], [], [], []
        radii = data.radii()
        for index, colour, width in (
            (self.selected, self.style_.selection, 2.2),
            (self.hovered if self.hovered != self.selected else None, self.style_.edge_lit, 1.6),
        ):
            if index is None:
                continue
            marks_x.append(self.pos[index, 0])
            marks_y.append(self.pos[index, 1])
            marks_size.append(max(2.0 * radii[index] * self._size_scale, MIN_NODE_PX) + 9.0)
            marks_pen.append(pg.mkPen(QColor(colour), width=width))
        self.mark_item.setData(
            x=marks_x, y=marks_y, size=marks_size, symbol="o", pen=marks_pen,
            brush=pg.mkBrush(0, 0, 0, 0),
        )
        self.mark_item.setVisible(bool(marks_x))  # an empty scatter still costs a paint
        focus = self._focus()
        if focus is None or len(data.edges) == 0:
            self.lit_item.setData([], [])
            self.lit_item.setVisible(False)
            return
        edges = data.edges
        touching = (edges[:, 0] == focus) | (edges[:, 1] == focus)
        touching &= self.visible[edges[:, 0]] & self.visible[edges[:, 1]]
        pairs = edges[touching].reshape(-1)
        self.lit_item.setData(self.pos[pairs, 0], self.pos[pairs, 1])
        self.lit_item.setVisible(len(pairs) > 0)

    def _draw_labels(self) -> None:
        """Semantic zoom: the selected and hovered nodes' labels always; then, in order of
        importance, every label that fits without overlapping one already placed, up to a
        budget that grows as the camera closes in (:func:`labels.label_budget`)."""
        data = self.data
        if not shiboken6.isValid(self.vb):
            return  # (the settle timer of a canvas being deleted)
        if data is None or len(self.shown) == 0:
            self.node_labels.set_labels([])
            return
        focus = self._focus()
        self._label_focus = focus
        forced = [i for i in dict.fromkeys((self.selected, self.hovered)) if i is not None]
        near = [int(i) for i in data.neighbours[focus] if self.visible[i]] if focus is not None else []
        # where each shown node is, in the view's pixels (y down), and which are on screen
        view = self.vb.viewRect()
        width, height = self.vb.width(), self.vb.height()
        if view.width() <= 0 or view.height() <= 0 or width <= 0:
            return
        self._labelled_at = self._camera()
        px = (self.pos[:, 0] - view.left()) / view.width() * width
        py = (view.bottom() - self.pos[:, 1]) / view.height() * height
        on_screen = self.visible & (px > -40) & (px < width + 40) & (py > -20) & (py < height + 20)
        order = self._importance_order()
        ranked = order[on_screen[order]]
        budget = label_budget(self._pixels_per_unit() / self._fit_zoom if self._fit_zoom > 0 else 1.0)
        placer = Placer()
        screen = QRectF(0, 0, width, height)
        labels: list[Label] = []
        radii = np.maximum(2.0 * data.radii() * self._size_scale, MIN_NODE_PX) / 2
        free_placed = 0
        seen: set[int] = set()
        tries = max(600, budget * TRIES_PER_LABEL)
        for index in [*forced, *near, *ranked[:tries].tolist()]:
            if index in seen:
                continue
            seen.add(index)
            important = index in forced
            if not important and free_placed >= budget:
                break
            font = BOLD if index == focus else NORMAL
            text = self._label_text(index, important)
            w, h = self._text_size(text, font)
            x, y, r = float(px[index]), float(py[index]), float(radii[index])
            below = QRectF(x - w / 2, y + r + 2.0, w, h)
            above = QRectF(x - w / 2, y - r - 2.0 - h, w, h)
            box, offset = (below, r + 2.0) if important or placer.free(below) else (above, -(r + 2.0))
            if not important and not (placer.free(box) and screen.contains(box)):
                continue  # (a label cut by the canvas edge waits for the camera to reach it)
            placer.add(box)
            if not important:
                free_placed += 1
            colour = QColor(self.style_.label)
            if not important and focus is not None and index not in near:
                colour.setAlphaF(0.55)
            x0, y0 = self.pos[index]
            labels.append(Label(float(x0), float(y0), text, colour, font, offset, plate=True))
        self.node_labels.set_labels(labels, QColor(self.style_.background))

    def _importance_order(self) -> np.ndarray:
        """Every node, most important first: pinned, then uses and relations (a memory card
        counts its links), ties by id order."""
        assert self.data is not None
        return self.data.importance_order()

    def _label_text(self, index: int, important: bool) -> str:
        assert self.data is not None
        if self.data.kind[index] == MEMORY:
            return short_title(self.data.labels[index], CARD_TITLE * 2 if important else CARD_TITLE)
        return short_title(self.data.labels[index], SKILL_TITLE)

    def _text_size(self, text: str, font: QFont) -> tuple[float, float]:
        """A label's size in pixels, as :class:`LabelLayer` draws it."""
        key = (text, font is BOLD)
        size = self._text_sizes.get(key)
        if size is None:
            metrics = QFontMetricsF(font)
            size = self._text_sizes[key] = (metrics.horizontalAdvance(text) + 6, metrics.height())
        return size

    # --- camera --------------------------------------------------------------------------
    def _range_changed(self, *_: object) -> None:
        """The camera moved: place the labels again once it rests (which fit, and which are
        on screen, change with it)."""
        # pyqtgraph moves its items at the start of the next paint, which then has them
        # repaint once more (a whole second paint after every fit, mode switch and zoom
        # step): move them now
        self.vb.updateMatrix()
        if self.data is not None:
            self._labels_timer.start()

    def _camera(self) -> tuple:
        view = self.vb.viewRect()
        return view.x(), view.y(), view.width(), view.height(), self.vb.width(), self.vb.height()

    def _labels_settled(self) -> None:
        """Once the camera rests: the labels again, unless they were placed for this very
        camera meanwhile (a new graph or a fit places them itself; each placement repaints
        the whole canvas, 30 ms at 10,000 nodes and their edges)."""
        if shiboken6.isValid(self.vb) and self._camera() != self._labelled_at:
            self._draw_labels()

    def _pixels_per_unit(self) -> float:
        view = self.vb.viewRect()
        width = self.vb.width()
        return width / view.width() if view.width() > 0 and width > 0 else 0.0

    # --- pointer ---------------------------------------------------------------------------
    def node_at(self, scene_pos: QPointF, slack_px: float = 4.0) -> int | None:
        data = self.data
        if data is None or len(self.shown) == 0:
            return None
        point = self.vb.mapSceneToView(scene_pos)
        px, py = self.vb.viewPixelSize()
        if px <= 0 or py <= 0:
            return None
        shown = self.shown
        dx = (self.pos[shown, 0] - point.x()) / px
        dy = (self.pos[shown, 1] - point.y()) / py
        dist = np.sqrt(dx * dx + dy * dy)
        reach = np.maximum(data.radii()[shown] * self._size_scale, MIN_NODE_PX / 2) + slack_px
        inside = dist <= reach
        if not inside.any():
            return None
        candidates = np.flatnonzero(inside)
        return int(shown[candidates[np.argmin(dist[candidates])]])

    def _mouse_moved(self, scene_pos: QPointF) -> None:
        index = self.node_at(scene_pos)
        if index == self.hovered:
            return
        self.hovered = index
        self._draw_focus()
        self._draw_labels()
        if index is None:
            QToolTip.hideText()
            self.sig_hovered.emit(None)
            return
        assert self.data is not None
        view_pos = self.mapFromScene(scene_pos)
        QToolTip.showText(self.mapToGlobal(view_pos), self.tooltip_html(index), self)
        self.sig_hovered.emit(self.data.ids[index])

    def _mouse_clicked(self, event: Any) -> None:
        index = self.node_at(event.scenePos())
        button = event.button()
        if button == Qt.MouseButton.RightButton:
            if index is not None and self.data is not None:  # what it selects: the selection decides
                self.sig_context.emit(self.data.ids[index], event.screenPos().toPoint())
            event.accept()
            return
        if button != Qt.MouseButton.LeftButton:
            return
        if event.double():
            if index is None:
                self.fit()
            elif self.data is not None:
                self.sig_node_activated.emit(self.data.ids[index])
            event.accept()
            return
        if index is not None and self.data is not None and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.sig_node_toggled.emit(self.data.ids[index])
        else:
            self.click_node(index)
        event.accept()

    def click_node(self, index: int | None) -> None:
        """What a left click on node ``index`` (None: empty space) does."""
        self.setFocus()
        self.selected = index
        self._refresh(nodes=self._dimming())
        self.sig_node_clicked.emit(self.data.ids[index] if index is not None and self.data else None)

    def tooltip_html(self, index: int) -> str:
        data = self.data
        assert data is not None
        node = data.nodes[index]
        badges = [format_date(data.times[index])]
        if node.get("kind") == "memory":
            badges.append("profile memory" if node.get("memorySource") == "profile" else "memory")
            body = data.memory_text.get(data.ids[index], "")
            first = body.strip().splitlines()[0] if body.strip() else data.labels[index]
        else:
            badges.append(str(node.get("category")))
            badges.append(source_label(node))
            if node.get("pinned"):
                badges.append("pinned")
            if node.get("state") in ("stale", "archived"):
                badges.append(str(node.get("state")))
            uses = int(node.get("useCount") or 0)
            if uses:
                badges.append(f"×{uses}")
            if problems := problems_text(node):
                badges.append(problems)
            first = str(node.get("description") or "")
        title = html.escape(data.labels[index])
        extra = f"<br>{html.escape(first[:300])}" if first and first != data.labels[index] else ""
        return (
            f"<div style='max-width:380px'><b>{title}</b><br>"
            f"<span style='color:#8a94a6'>{html.escape(' · '.join(badges))}</span>{extra}</div>"
        )

    # --- keyboard --------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt naming)
        key = event.key()
        if key in _ARROWS and self.data is not None:
            self.step(*_ARROWS[Qt.Key(key)])
            event.accept()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.selected is not None and self.data:
            self.sig_node_activated.emit(self.data.ids[self.selected])
            event.accept()
            return
        if key == Qt.Key.Key_Escape:
            if self.selected is not None:
                self.click_node(None)
            event.accept()
            return
        super().keyPressEvent(event)

    def step(self, dx: float, dy: float) -> None:
        """Move the selection to the neighbour lying most nearly in direction (dx, dy);
        without a selection, or without neighbours that way, to the nearest shown node."""
        data = self.data
        if data is None or len(self.shown) == 0:
            return
        if self.selected is None:
            centre = self.vb.viewRect().center()
            d = self.pos[self.shown] - [centre.x(), centre.y()]
            self.click_node(int(self.shown[np.argmin((d * d).sum(axis=1))]))
            return
        origin = self.pos[self.selected]
        direction = np.array([dx, dy])
        for pool in (data.neighbours[self.selected], self.shown):
            pool = np.asarray([i for i in pool if self.visible[i] and i != self.selected], dtype=np.int64)
            if len(pool) == 0:
                continue
            offset = self.pos[pool] - origin
            dist = np.sqrt((offset * offset).sum(axis=1)) + 1e-9
            cos = (offset @ direction) / dist
            ahead = cos > 0.35
            if not ahead.any():
                continue
            score = dist[ahead] * (2.0 - cos[ahead])
            self.click_node(int(pool[ahead][np.argmin(score)]))
            return
