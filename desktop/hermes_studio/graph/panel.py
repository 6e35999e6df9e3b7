"""The learning-graph explorer: the canvas, its side panel, the details pane and the actions.

Data flow (the UI thread never reads the disk, builds the graph or lays it out):

    Workspace.sig_changed ─▶ GraphWorker (build + layout, its own thread) ─▶ sig_ready
        ─▶ GraphView.set_graph (keeps camera and selection) ─▶ filters ─▶ "showing N of M"
    details / actions ─▶ Workspace.call (engine-face calls; changes on the single writer)
        ─▶ the engine's result ─▶ Change("skills"|"memory"|"user", "app") ─▶ rebuild

Destructive actions (archive, delete) offer Undo in the message bar under the canvas.
The panel wires its parts together; the parts themselves are in the sibling modules.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np
import shiboken6
from PySide6.QtCore import QEventLoop, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QShortcut
from PySide6.QtWidgets import QColorDialog, QMenu, QSplitter, QVBoxLayout, QWidget

from hermes_memory.home import HermesHome

from ..settings import app_settings
from ..undo import FaceCall
from ..workspace import Change, Workspace
from . import actions
from .actions import Undo
from .bars import MessageBar, TopBar, WarningsBar
from .colours import ColourBook, neutral_colour
from .details import DetailsFeed, DetailsPane, EditorDialog
from .filters import FilterState, growth_histogram, showing_text, visible_mask
from .layout import CLUSTERS, TIMELINE
from .model import GraphData
from .pages import CanvasPages
from .prompts import confirm_archive, confirm_delete
from .sidebar import SidePanel
from .timeline import HistoryReplay, TimelineScrubber, replayed_ids
from .view import NEXT_TURN_MS, GraphView
from .workers import GraphJobs, GraphSnapshot, GraphWorker

REBUILD_KINDS = {"memory", "user", "skills", "config"}


class GraphPanel(QWidget):
    """The "Learning graph" tab over one :class:`Workspace`."""

    sig_ready = Signal()  # a snapshot (or a failure) has been shown
    sig_action_done = Signal(dict)  # an action's engine result

    def __init__(
        self, workspace: Workspace, parent: QWidget | None = None, *, start: bool = True, mode: str = TIMELINE
    ) -> None:
        """``mode``: the one the first graph is laid out in (the window passes the one
        remembered for the home, so the first graph is not laid out twice)."""
        super().__init__(parent)
        self.setObjectName("graphPanel")
        self.workspace = workspace
        self.home: HermesHome = workspace.home
        self.state = FilterState()
        self.mode = mode if mode in (TIMELINE, CLUSTERS) else TIMELINE
        self.snapshot: GraphSnapshot | None = None
        self.data: GraphData | None = None
        self.mask = np.zeros(0, dtype=bool)
        self.error: str | None = None
        self._growth: tuple = ()
        self._incoming: GraphSnapshot | None = None  # shown on the next turn
        self._awaiting_draw = False
        self._worker_busy = False
        self._drawing = False  # a snapshot is being drawn, over several turns
        self._followed_data: GraphData | None = None  # the snapshot data the legend, table and details show
        self.ready = False
        #: lay out the other mode once a graph is drawn (the window holds this back until
        #: its start-up reads are done, then calls :meth:`prepare_other_mode`)
        self.prepare_when_drawn = True
        self._closed = False
        self._select_after: str | None = None
        self._editor: EditorDialog | None = None

        self.worker = GraphWorker(self.home, self, jobs=GraphJobs(self.home, workspace.backend.graph_builder()))
        self.worker.sig_ready.connect(self._apply_snapshot)
        self.worker.sig_failed.connect(self._show_failure)
        self.worker.sig_busy.connect(self._busy)
        self.worker.sig_overview.connect(self._overview_made)
        self._overview_ticket = 0  # the filtered overview asked for last
        workspace.sig_changed.connect(self._on_change)

        self._build()
        if self.mode == CLUSTERS:
            self.clusters_button.setChecked(True)  # (set_mode sees the mode is set already)
        # the home's colours: palette slots given so far, the person's own colours, groups
        self.colour_book = ColourBook.from_json(app_settings().home_value(self.home.label, "colours"))
        self.view.book = self.colour_book
        # a window deleted without being closed (e.g. never shown) must not leave the
        # worker running, nor let late Workspace callbacks touch deleted widgets
        self.destroyed.connect(self.worker.abandon)
        if start:
            self.worker.request(mode=self.mode, include_all=False, reason="open")
            self.refresh_archived()
            self.replay.refresh_growth()

    # --- building the widgets -------------------------------------------------------------
    def _build(self) -> None:
        # each part owns its widgets; the panel keeps its own names for those it (and the tests) use
        self.view = GraphView(self)
        self.view.sig_node_clicked.connect(self._node_clicked)
        self.view.sig_node_activated.connect(self._node_activated)
        self.view.sig_context.connect(self._context_menu)
        self.view.sig_drawn.connect(self._drawn)

        self.top_bar = top = TopBar()
        self.timeline_button, self.clusters_button = top.timeline_button, top.clusters_button
        self.colour_box, self.search, self.count_label, self.busy_label = (
            top.colour_box, top.search, top.count_label, top.busy_label
        )
        self.timeline_button.toggled.connect(lambda on: on and self.set_mode(TIMELINE))
        self.clusters_button.toggled.connect(lambda on: on and self.set_mode(CLUSTERS))
        self.colour_box.toggled.connect(self._colour_toggled)
        top.fit_button.clicked.connect(self.view.fit)
        self.search.textChanged.connect(lambda text: self.set_filters(query=text))

        self.sidebar = side = SidePanel()
        side.sig_filters.connect(lambda changes: self.set_filters(**changes))
        side.sig_clear.connect(self.clear_filters)
        side.sig_restore.connect(self.restore_skill)
        side.sig_recolour.connect(self._choose_category_colour)
        side.sig_reset_colour.connect(lambda name: self.set_category_colour(name, None))
        side.sig_add_group.connect(self._choose_group_colour)
        side.sig_remove_group.connect(self.remove_colour_group)
        side.sig_local.connect(self.set_local_depth)
        self.kind_combo, self.source_combo, self.pinned_box = side.kind_combo, side.source_combo, side.pinned_box
        self.from_box, self.from_date, self.to_box, self.to_date = side.from_box, side.from_date, side.to_box, side.to_date
        self.category_list, self.archived_list, self.restore_button = side.category_list, side.archived_list, side.restore_button

        self.scrubber = TimelineScrubber()
        self.scrubber.sig_reveal.connect(self._scrubbed)
        self.replay = HistoryReplay(self.workspace, self)  # the playhead replays recorded history
        self.replay.sig_growth.connect(self.scrubber.set_history)
        self.replay.sig_state.connect(self._replayed)
        self.warnings_frame = WarningsBar()
        self.warnings_label, self.warnings_detail = self.warnings_frame.label, self.warnings_frame.detail
        self.pages = CanvasPages(self.home.label, self.warnings_frame, self.view, self.scrubber)
        self.pages.sig_retry.connect(lambda: self.worker.request(reason="retry"))
        self.graph_page, self.empty_label = self.pages.graph_page, self.pages.empty_label
        self.error_page, self.error_label = self.pages.error_page, self.pages.error_label
        self.loading_label = self.pages.loading_label

        self.details = DetailsPane()
        self.details.sig_pin.connect(self.set_pinned)
        self.details.sig_edit.connect(self.edit_node)
        self.details.sig_archive.connect(self.archive_skill)
        self.details.sig_delete.connect(self.delete_memory)
        self.details.sig_open_node.connect(self.open_node)
        self.detail_feed = DetailsFeed(self.details, self.workspace, self.home, self._alive)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(self.pages)
        self.splitter.addWidget(self.details)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 0)
        self.splitter.setSizes([230, 640, 330])
        self.splitter.setChildrenCollapsible(False)

        self.message = MessageBar()
        self.message.sig_undo.connect(self.undo)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(top)
        outer.addWidget(self.splitter, 1)
        outer.addWidget(self.message)

        find = QShortcut(QKeySequence.StandardKey.Find, self)
        find.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        find.activated.connect(self.focus_search)
        play = QShortcut(QKeySequence(Qt.Key.Key_Space), self.view)
        play.setContext(Qt.ShortcutContext.WidgetShortcut)
        play.activated.connect(self.scrubber.toggle)
        self.search.installEventFilter(self)
        from .twin import TableTwin  # the table, the shared selection and the bulk actions

        self.twin = TableTwin(self)
        self.selection = self.twin.selection

    # --- lifecycle -------------------------------------------------------------------------
    def _alive(self) -> bool:
        return not self._closed and shiboken6.isValid(self)

    def close_panel(self) -> None:
        """Stop the worker and timers; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.scrubber.stop()
        if self._editor is not None:
            self._editor.reject()
        self.worker.close()

    def wait_ready(self, timeout_ms: int = 3000) -> bool:
        """Run the event loop until the first snapshot is shown (for screenshots)."""
        if self.ready or self._closed:
            return self.ready
        loop = QEventLoop()
        timer = QTimer()
        timer.setSingleShot(True)
        timer.timeout.connect(loop.quit)
        self.sig_ready.connect(loop.quit)
        timer.start(timeout_ms)
        loop.exec()
        timer.stop()
        self.sig_ready.disconnect(loop.quit)
        return self.ready

    # --- snapshots -------------------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        if not self._alive():
            return
        if change.kind == "skills" and change.origin == "disk" and "paths" in change.detail:
            # the folder watcher says which files changed: only those are re-read
            self.worker.request(reason="skills", changed=frozenset(change.detail["paths"]))
        elif change.kind in ("memory", "user", "sessions"):
            # no skill file changed (memory cards are read on every build anyway)
            self.worker.request(reason=change.kind, changed=frozenset())
        elif change.kind in REBUILD_KINDS:
            self.worker.request(reason=change.kind)
        if change.kind == "skills":
            self.refresh_archived()

    def _busy(self, busy: bool) -> None:
        self._worker_busy = busy
        self._show_progress()

    def _show_progress(self) -> None:
        """"updating…" while the worker builds or lays out, and until what it made is drawn."""
        self.busy_label.setText("updating…" if self._worker_busy or self._drawing else "")

    def _show_failure(self, message: str) -> None:
        self.error = message
        if self.data is None:
            self.pages.show_error(message)
        else:  # keep showing the last good graph
            self.message.show_message(message, error=True)
        self._drawing = False
        self._show_progress()
        self.ready = True
        self.sig_ready.emit()

    def _apply_snapshot(self, snapshot: GraphSnapshot) -> None:
        """Show a snapshot over four turns of the event loop, so that none blocks the UI for
        long: the panels around the canvas first; then the canvas's nodes, together with
        ``self.snapshot``/``self.data``, the table and the details; then its edges, labels
        and badges; then the legend and the overview, and ``sig_ready``."""
        if self._closed:
            return
        data = snapshot.data
        same_data = data is self.data  # a new layout of the nodes already shown
        self._incoming = snapshot
        self._drawing = True
        self._show_progress()
        mask = self.mask
        if not same_data:
            self._fill_categories(data)
            if self.replay.state is not None and self.state.replayed is not None:
                self.state = self.state.with_(replayed=replayed_ids(data.nodes, self.replay.state))
            mask = visible_mask(data, self.state)
        self.pages.show_graph(empty=data.size == 0)
        self.count_label.setText(showing_text(int(mask.sum()), data.size))
        if not same_data:
            self.warnings_frame.show_warnings(data.warnings)
            self.sidebar.seed_unused_dates(data)
            self._growth = snapshot.growth or growth_histogram(data)
        self.scrubber.set_data(*self._growth, [ring.start for ring in snapshot.layout.rings])
        QTimer.singleShot(NEXT_TURN_MS, self, functools.partial(self._draw_snapshot, snapshot, self.state))

    def _draw_snapshot(self, snapshot: GraphSnapshot, state: FilterState) -> None:
        if self._closed or snapshot is not self._incoming:
            return  # a newer snapshot arrived meanwhile: it draws instead
        first = self.snapshot is None or self.snapshot.request.mode != snapshot.request.mode
        data = snapshot.data
        same_data = data is self.data
        if not same_data or state is not self.state:  # (filters may have changed)
            self.mask = visible_mask(data, self.state)
        self.snapshot, self.data, self.error = snapshot, data, None
        self.view.set_graph(data, snapshot.layout, self.mask, keep_camera=not first)
        self.twin.graph_changed()  # (the table and the one selection)
        if self._select_after and self._select_after in data.index:
            self.view.select(self._select_after)
            self._select_after = None
        self._update_count()
        self._sync_details()
        self._awaiting_draw = True
        if not self.view.drawing:  # else once its edges and labels are drawn too
            self._drawn()

    def _drawn(self) -> None:
        """The canvas shows the new snapshot: the legend and the overview follow it on a
        turn of the event loop after the canvas painted it (each turn stays short), then
        ``sig_ready``."""
        if self._awaiting_draw and not self._closed:
            self._awaiting_draw = False
            self.view.after_paint(functools.partial(self._follow_snapshot, self.snapshot))

    def _follow_snapshot(self, snapshot: GraphSnapshot | None) -> None:
        if self._closed or snapshot is None or snapshot is not self.snapshot:
            return  # a newer snapshot was drawn meanwhile: it follows instead
        data = snapshot.data
        fresh = data is not self._followed_data  # (else a new layout of the same nodes)
        self._followed_data = data
        if fresh:
            self._show_legend()
            self._show_overview(snapshot.overview)
        self._drawing = False
        self._show_progress()
        self.ready = True
        self.sig_ready.emit()
        if self.prepare_when_drawn:
            self.prepare_other_mode()

    def prepare_other_mode(self) -> None:
        """Lay out the mode not shown, in the background: the first switch of mode will
        find its positions ready."""
        if not self._closed:
            self.worker.prepare_in_advance(CLUSTERS if self.mode == TIMELINE else TIMELINE)

    def _show_overview(self, whole: str = "") -> None:
        """The overview of what is shown: the snapshot's own while nothing is filtered out,
        else one the worker makes for the mask (the pane keeps the last until it comes)."""
        if self.data is None:
            return
        whole = whole or (self.snapshot.overview if self.snapshot is not None else "")
        if self.mask.all() and whole:
            self._overview_ticket = 0  # an answer for an older filter must not replace it
            self.details.set_overview(whole)
        else:
            self._overview_ticket = self.worker.request_overview(self.data, self.mask)

    def _overview_made(self, ticket: int, text: str) -> None:
        if ticket == self._overview_ticket and not self._closed:  # else a stale answer
            self.details.set_overview(text)

    def _update_count(self) -> None:
        total = self.data.size if self.data is not None else 0
        self.count_label.setText(showing_text(int(self.mask.sum()), total))

    def _fill_categories(self, data: GraphData) -> None:
        names = data.category_names()
        given = self.colour_book.assign(names)
        colours = self.colour_book.category_colours(names, self.view.style_)
        if self.sidebar.fill_categories(names, colours):
            self.state = self.state.with_(categories=self.sidebar.checked_categories())
        if given:
            self._save_colours()

    # --- colours ---------------------------------------------------------------------------
    def _save_colours(self) -> None:
        app_settings().set_home_value(self.home.label, "colours", self.colour_book.to_json())

    def _show_legend(self) -> None:
        if self.data is not None:
            style = self.view.style_
            entries = self.colour_book.legend(self.data, self.view.colour_by, style)
            self.sidebar.show_legend(entries, neutral_colour(style))

    def _recoloured(self) -> None:
        self._save_colours()
        self.view.recolour()
        self._show_legend()

    def set_category_colour(self, name: str, colour: QColor | None) -> None:
        """Draw category ``name`` in ``colour`` (None: the colour its name gives), saved for this home."""
        self.colour_book.set_custom(name, colour)
        self._recoloured()

    def add_colour_group(self, query: str, colour: QColor) -> None:
        """Draw every node ``query`` finds in ``colour`` (a colour group), saved for this home."""
        self.colour_book.add_group(query, colour)
        self._recoloured()

    def remove_colour_group(self, query: str) -> None:
        self.colour_book.remove_group(query)
        self._recoloured()

    def _choose_category_colour(self, name: str) -> None:
        start = self.colour_book.category_colour(name, self.view.style_)
        colour = QColorDialog.getColor(start, self, f"Colour of “{name}”")
        if colour.isValid():
            self.set_category_colour(name, colour)

    def _choose_group_colour(self) -> None:
        query = self.search.text().strip()
        if not query:
            self.message.show_message("Type a search first: its results become the colour group.")
            return
        colour = QColorDialog.getColor(QColor("#ffd479"), self, f"Colour of “{query}”")
        if colour.isValid():
            self.add_colour_group(query, colour)

    # --- filters ---------------------------------------------------------------------------
    def set_filters(self, **changes: Any) -> None:
        previous = self.state
        self.state = self.state.with_(**changes)
        if self.state.needs_all_skills != previous.needs_all_skills:
            self.worker.request(include_all=self.state.needs_all_skills, reason="source")
        self._apply_filters()

    def _apply_filters(self) -> None:
        if self.data is None:
            return
        self.mask = visible_mask(self.data, self.state)
        self.view.set_visible(self.mask)
        self.twin.graph_changed()
        self._update_count()
        self._show_overview()
        if self.details.node_id() is not None and self.view.selected_id() is None:
            self.details.clear()

    def _scrubbed(self, when: float | None) -> None:
        if self.scrubber.history:
            self.replay.request(when)  # the graph follows once the engine answers: one redraw
        else:
            self.set_filters(reveal_until=when, replayed=None)

    def _replayed(self, when: float | None, state: dict[str, Any] | None) -> None:
        if when is None or not state or not state.get("ok") or self.data is None:
            self.set_filters(reveal_until=when, replayed=None)
            return
        self.set_filters(reveal_until=when, replayed=replayed_ids(self.data.nodes, state))

    def clear_filters(self) -> None:
        self.search.clear()
        self.sidebar.reset()
        self.scrubber.scrub(1.0)

    def set_date_range(self, start: datetime | None, end: datetime | None) -> None:
        """Set the date filter (inclusive days, UTC); None lifts that side."""
        self.sidebar.set_date_range(start, end)

    def _check_all_categories(self, on: bool) -> None:
        self.sidebar.check_all_categories(on)

    def set_category_checked(self, name: str, on: bool) -> None:
        self.sidebar.set_category_checked(name, on)

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802
        from PySide6.QtCore import QEvent

        if watched is self.search and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Escape:
                self.search.clear()
                self.view.setFocus()
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.data is not None:
                shown = self.view.shown_ids()
                if shown:
                    self.open_node(shown[0])
                    self.view.setFocus()
                return True
        return super().eventFilter(watched, event)

    # --- modes -----------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        if mode == self.mode:
            return
        self.mode = mode
        (self.timeline_button if mode == TIMELINE else self.clusters_button).setChecked(True)
        self.worker.request(mode=mode, reason="layout")

    def _colour_toggled(self, by_kind: bool) -> None:
        self.view.set_colour_by("kind" if by_kind else "category")
        self._show_legend()

    # --- selection and details -------------------------------------------------------------
    def _node_clicked(self, node_id: str | None) -> None:
        if node_id is None:
            self.details.clear()
            return
        self._move_local_graph(node_id)
        self._show_details(node_id)

    # --- the local graph -------------------------------------------------------------------
    def set_local_depth(self, depth: int) -> None:
        """Show only the selected node and its neighbours ``depth`` steps out (0: everything)."""
        root = self.view.selected_id() or self.state.local_root
        if depth and root is None:
            self.message.show_message("Select a node: the local graph shows it and its neighbours.")
        self.set_filters(local_depth=depth, local_root=root)
        if root is not None:
            self.view.select(root)
        self.view.fit(shown_only=bool(depth and root))

    def _move_local_graph(self, node_id: str) -> None:
        """With the local graph on, a newly selected node becomes its centre."""
        if self.state.local_depth and node_id != self.state.local_root:
            self.set_filters(local_root=node_id)
            self.view.select(node_id)
            self.view.fit(shown_only=True)

    def _node_activated(self, node_id: str) -> None:
        self.view.select(node_id)
        self._show_details(node_id)
        self.details.setFocus()

    def open_node(self, node_id: str) -> None:
        """Select ``node_id`` (if shown) and open its details."""
        if self.data is None or node_id not in self.data.index:
            self.message.show_message(f"'{node_id}' is not in the graph (filtered out, or not learned).")
            return
        if self.state.local_depth:
            self._move_local_graph(node_id)
        self.view.select(node_id)
        if self.view.selected_id() == node_id:
            self._show_details(node_id)
        else:
            self.message.show_message(f"'{node_id}' is hidden by the current filters.")

    def _show_details(self, node_id: str) -> None:
        if node_id != self.details.node_id():
            self.message.clear_error()  # it was about the node shown before
        if self.data is not None:
            self.detail_feed.show(self.data, node_id)

    def _sync_details(self) -> None:
        """After a rebuild: follow the selection, or clear the pane if it is gone."""
        selected = self.view.selected_id()
        if selected is None:
            if self.details.node_id() is not None:
                self.details.clear()
            return
        self._show_details(selected)

    # --- actions ---------------------------------------------------------------------------
    def _write(self, kind: str, method: str, params: dict, done: Callable[[dict], None] | None = None) -> None:
        def finished(result: dict) -> None:
            if not self._alive():
                return
            result = actions.with_steps(result)
            if done is not None:
                done(result)
            undo = result.get("undo")
            self.message.show_message(
                str(result.get("message")), error=not result.get("ok"), undo=undo if result.get("ok") else None
            )
            self.sig_action_done.emit(result)

        self.workspace.call(method, params, finished, write=kind)

    def set_pinned(self, node_id: str, pinned: bool) -> None:
        self._select_after = node_id
        self._write("skills", "graph_set_pin", {"node_id": node_id, "pinned": pinned})

    def archive_skill(self, node_id: str, *, confirm: bool = True) -> None:
        if confirm and not confirm_archive(self, node_id):
            return
        self._write("skills", "graph_archive", {"node_id": node_id})

    def delete_memory(self, node_id: str, *, confirm: bool = True) -> None:
        if confirm:
            node = self.data.node(node_id) if self.data else None
            if not confirm_delete(self, node_id, node):
                return
        self._write(actions.write_kind(node_id), "graph_delete_memory", {"node_id": node_id})

    def undo(self, step: Undo) -> None:
        if isinstance(step, FaceCall):  # a bulk action's one step
            self.workspace.call(step.method, step.params, lambda result: self.message.show_message(
                str(result.get("message")), error=not result.get("ok")), write=step.kind)
            return
        kind = step.target or "skills"
        if step.name and step.kind != "archive":
            self._select_after = step.name
        self._write(kind, "graph_undo", {"step": step.step()})

    def restore_skill(self, name: str) -> None:
        self._select_after = name
        self._write("skills", "graph_restore", {"name": name})

    def refresh_archived(self) -> None:
        def done(result: dict[str, Any]) -> None:
            if not self._alive() or not result.get("ok"):
                return
            self.sidebar.show_archived(result["items"])

        self.workspace.call("graph_archived", {}, done)

    def edit_node(self, node_id: str) -> None:
        detail = self.details.detail
        node = self.data.node(node_id) if self.data else None
        if node is None or detail is None or not detail.get("ok"):
            return
        kind = actions.write_kind(node_id)
        dialog = EditorDialog(node, str(detail.get("content") or ""), self, self.workspace.statuses.get(kind))
        self.workspace.sig_store_status.connect(dialog.set_status)  # the meter's live base
        if kind != "skills":
            self.workspace.refresh_store(kind)
        revision = detail.get("revision")
        self._editor = dialog

        def save(text: str) -> None:
            def done(result: dict) -> None:
                if result.get("ok"):
                    new_id = result.get("id") or node_id
                    self._select_after = str(new_id)
                    dialog.saved()
                else:
                    dialog.refused(str(result.get("message")))

            self._write(
                actions.write_kind(node_id),
                "graph_edit",
                {"node_id": node_id, "content": text, "revision": revision},
                done,
            )

        dialog.sig_save.connect(save)
        dialog.finished.connect(lambda _code: setattr(self, "_editor", None))
        dialog.setModal(True)
        dialog.open()

    def _context_menu(self, node_id: str, global_pos: Any) -> None:
        if self.data is None:
            return
        node = self.data.node(node_id)
        if node is None:
            return
        menu = QMenu(self)
        title = menu.addAction(html.unescape(str(node.get("label"))))
        title.setEnabled(False)
        menu.addSeparator()
        menu.addAction("Open details", lambda: self._node_activated(node_id))
        if node.get("kind") == "memory":
            menu.addAction("Edit memory…", lambda: self._edit_when_loaded(node_id))
            menu.addAction("Delete memory…", lambda: self.delete_memory(node_id))
        elif node.get("source") not in ("base", "external"):
            pinned = bool(node.get("pinned"))
            menu.addAction("Unpin" if pinned else "Pin", lambda: self.set_pinned(node_id, not pinned))
            menu.addAction("Edit skill…", lambda: self._edit_when_loaded(node_id))
            archive = menu.addAction("Archive skill…", lambda: self.archive_skill(node_id))
            archive.setEnabled(not pinned)
        menu.popup(global_pos)

    def _edit_when_loaded(self, node_id: str) -> None:
        self._show_details(node_id)
        self.detail_feed.when_loaded(lambda: self.edit_node(node_id))
