"""The learning-graph explorer: the canvas, its side panel, the details pane and the actions.

Data flow (the UI thread never reads the disk, builds the graph or lays it out):

    Workspace.sig_changed ─▶ GraphWorker (build + layout, its own thread) ─▶ sig_ready
        ─▶ GraphView.set_graph (keeps camera and selection) ─▶ filters ─▶ "showing N of M"
    details / actions ─▶ Workspace.read / Workspace.write (the single writer)
        ─▶ the engine's result ─▶ Change("skills"|"memory"|"user", "app") ─▶ rebuild

Destructive actions (archive, delete) offer Undo in the message bar under the canvas.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np
import shiboken6
from PySide6.QtCore import QDate, QDateTime, QEventLoop, Qt, QTime, QTimer, QTimeZone, Signal
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPainter, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.home import HermesHome

from ..workspace import Change, Workspace
from . import actions
from .actions import Undo
from .details import DetailsPane, EditorDialog
from .filters import FilterState, growth_histogram, showing_text, visible_mask
from .layout import CLUSTERS, TIMELINE
from .model import MEMORY, GraphData, format_date
from .timeline import TimelineScrubber
from .view import GraphView
from .workers import GraphSnapshot, GraphWorker

EMPTY_TEXT = (
    "<h3>Nothing learned yet</h3>"
    "<p>Skills appear here once the agent creates or uses them (a <code>SKILL.md</code> under "
    "<code>skills/</code> with a record in <code>skills/.usage.json</code>), and memory cards "
    "once it writes <code>memories/MEMORY.md</code> or <code>USER.md</code>.</p>"
    "<p>Use Hermes a while and this map fills in by itself — or open the demo home "
    "(<code>hermes-studio --demo</code>) to see what one looks like.</p>"
)
REBUILD_KINDS = {"memory", "user", "skills", "config"}


def _swatch(colour: QColor, diamond: bool = False) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(colour)
    painter.setPen(Qt.PenStyle.NoPen)
    if diamond:
        painter.translate(7, 7)
        painter.rotate(45)
        painter.drawRect(-4, -4, 8, 8)
    else:
        painter.drawEllipse(2, 2, 10, 10)
    painter.end()
    return QIcon(pixmap)


class MessageBar(QFrame):
    """A one-line status message under the canvas, with Undo when an action offers it."""

    sig_undo = Signal(object)  # Undo

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphMessageBar")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.undo_button = QPushButton("Undo")
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 4, 3)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.undo_button)
        layout.addWidget(self.close_button)
        self.undo: Undo | None = None
        self.undo_button.clicked.connect(self._undo_clicked)
        self.close_button.clicked.connect(self.clear)
        # the bar keeps its height when empty, so a message never resizes the canvas
        self.setFixedHeight(max(self.sizeHint().height(), 34))
        self.clear()

    def clear(self) -> None:
        self.undo = None
        self.label.setText("")
        self.undo_button.hide()
        self.close_button.hide()

    def has_message(self) -> bool:
        return bool(self.label.text())

    def show_message(self, text: str, *, error: bool = False, undo: Undo | None = None) -> None:
        self.undo = undo
        self.label.setText(text)
        self.label.setStyleSheet("color: #c2372f;" if error else "")
        self.undo_button.setVisible(undo is not None)
        self.close_button.show()
        if undo is not None:
            self.undo_button.setToolTip(f"Undo: {undo.label}")

    def _undo_clicked(self) -> None:
        undo, self.undo = self.undo, None
        self.undo_button.hide()
        if undo is not None:
            self.sig_undo.emit(undo)


class GraphPanel(QWidget):
    """The "Learning graph" tab over one :class:`Workspace`."""

    sig_ready = Signal()  # a snapshot (or a failure) has been shown
    sig_action_done = Signal(dict)  # an action's engine result

    def __init__(self, workspace: Workspace, parent: QWidget | None = None, *, start: bool = True) -> None:
        super().__init__(parent)
        self.setObjectName("graphPanel")
        self.workspace = workspace
        self.home: HermesHome = workspace.home
        self.state = FilterState()
        self.mode = TIMELINE
        self.snapshot: GraphSnapshot | None = None
        self.data: GraphData | None = None
        self.mask = np.zeros(0, dtype=bool)
        self.error: str | None = None
        self.ready = False
        self._closed = False
        self._select_after: str | None = None
        self._editor: EditorDialog | None = None
        self._detail_serial = 0

        self.worker = GraphWorker(self.home, self)
        self.worker.sig_ready.connect(self._apply_snapshot)
        self.worker.sig_failed.connect(self._show_failure)
        self.worker.sig_busy.connect(self._busy)
        workspace.sig_changed.connect(self._on_change)

        self._build()
        # a window deleted without being closed (e.g. never shown) must not leave the
        # worker running, nor let late Workspace callbacks touch deleted widgets
        self.destroyed.connect(self.worker.abandon)
        if start:
            self.worker.request(mode=self.mode, include_all=False, reason="open")
            self.refresh_archived()

    # --- building the widgets -------------------------------------------------------------
    def _build(self) -> None:
        self.view = GraphView(self)
        self.view.sig_node_clicked.connect(self._node_clicked)
        self.view.sig_node_activated.connect(self._node_activated)
        self.view.sig_context.connect(self._context_menu)

        # top bar
        self.timeline_button = QToolButton()
        self.timeline_button.setText("Timeline")
        self.timeline_button.setToolTip("Radial time disk: the core is the oldest, rings are calendar periods")
        self.clusters_button = QToolButton()
        self.clusters_button.setText("Clusters")
        self.clusters_button.setToolTip("Grouped by category")
        self.layout_group = QButtonGroup(self)
        for button in (self.timeline_button, self.clusters_button):
            button.setCheckable(True)
            self.layout_group.addButton(button)
        self.timeline_button.setChecked(True)
        self.timeline_button.toggled.connect(lambda on: on and self.set_mode(TIMELINE))
        self.clusters_button.toggled.connect(lambda on: on and self.set_mode(CLUSTERS))
        self.colour_box = QCheckBox("Colour by kind")
        self.colour_box.setToolTip("Colour skills and memory cards apart instead of by category")
        self.colour_box.toggled.connect(self._colour_toggled)
        self.fit_button = QToolButton()
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Show the whole map (double-click empty space)")
        self.fit_button.clicked.connect(self.view.fit)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search labels, categories and memory text (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda text: self.set_filters(query=text))
        self.count_label = QLabel("")
        self.count_label.setObjectName("graphCount")
        self.count_label.setMinimumWidth(130)
        self.busy_label = QLabel("")
        self.busy_label.setObjectName("graphBusy")
        top = QHBoxLayout()
        top.setContentsMargins(6, 4, 6, 2)
        top.addWidget(self.timeline_button)
        top.addWidget(self.clusters_button)
        top.addSpacing(8)
        top.addWidget(self.colour_box)
        top.addWidget(self.fit_button)
        top.addSpacing(8)
        top.addWidget(self.search, 1)
        top.addWidget(self.count_label)
        top.addWidget(self.busy_label)

        # the side panel
        self.sidebar = self._build_sidebar()

        # the canvas and its states
        self.scrubber = TimelineScrubber()
        self.scrubber.sig_reveal.connect(lambda when: self.set_filters(reveal_until=when))
        self.warnings_frame = QFrame()
        self.warnings_frame.setObjectName("graphWarnings")
        self.warnings_frame.setStyleSheet(
            "#graphWarnings { background: #fdf1dc; border: 1px solid #e8c98a; border-radius: 4px; }"
            " #graphWarnings QLabel { color: #5c4300; }"
        )
        self.warnings_label = QLabel()
        self.warnings_label.setWordWrap(True)
        self.warnings_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warnings_toggle = QToolButton()
        self.warnings_toggle.setText("Details")
        self.warnings_toggle.setCheckable(True)
        self.warnings_detail = QLabel()
        self.warnings_detail.setWordWrap(True)
        self.warnings_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warnings_detail.hide()
        self.warnings_toggle.toggled.connect(self.warnings_detail.setVisible)
        warnings_close = QToolButton()
        warnings_close.setText("✕")
        warnings_close.setAutoRaise(True)
        warnings_close.clicked.connect(self.warnings_frame.hide)
        grid = QGridLayout(self.warnings_frame)
        grid.setContentsMargins(8, 4, 4, 4)
        grid.addWidget(self.warnings_label, 0, 0)
        grid.addWidget(self.warnings_toggle, 0, 1)
        grid.addWidget(warnings_close, 0, 2)
        grid.addWidget(self.warnings_detail, 1, 0, 1, 3)
        self.warnings_frame.hide()

        graph_page = QWidget()
        graph_layout = QVBoxLayout(graph_page)
        graph_layout.setContentsMargins(0, 0, 0, 0)
        graph_layout.setSpacing(2)
        graph_layout.addWidget(self.warnings_frame)
        graph_layout.addWidget(self.view, 1)
        graph_layout.addWidget(self.scrubber)

        self.loading_label = QLabel(f"Reading {self.home.label}…")
        self.loading_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label = QLabel(EMPTY_TEXT)
        self.empty_label.setObjectName("graphEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setMargin(40)
        self.error_page = QWidget()
        self.error_label = QLabel()
        self.error_label.setObjectName("graphError")
        self.error_label.setWordWrap(True)
        self.error_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        retry = QPushButton("Try again")
        retry.clicked.connect(lambda: self.worker.request(reason="retry"))
        error_layout = QVBoxLayout(self.error_page)
        error_layout.addStretch(1)
        error_layout.addWidget(self.error_label)
        error_layout.addWidget(retry, 0, Qt.AlignmentFlag.AlignHCenter)
        error_layout.addStretch(1)
        self.pages = QStackedWidget()
        for page in (self.loading_label, graph_page, self.empty_label, self.error_page):
            self.pages.addWidget(page)
        self.graph_page = graph_page

        self.details = DetailsPane()
        self.details.sig_pin.connect(self.set_pinned)
        self.details.sig_edit.connect(self.edit_node)
        self.details.sig_archive.connect(self.archive_skill)
        self.details.sig_delete.connect(self.delete_memory)
        self.details.sig_open_node.connect(self.open_node)

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
        outer.addLayout(top)
        outer.addWidget(self.splitter, 1)
        outer.addWidget(self.message)

        find = QShortcut(QKeySequence.StandardKey.Find, self)
        find.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        find.activated.connect(self.focus_search)
        play = QShortcut(QKeySequence(Qt.Key.Key_Space), self.view)
        play.setContext(Qt.ShortcutContext.WidgetShortcut)
        play.activated.connect(self.scrubber.toggle)
        self.search.installEventFilter(self)

    def _build_sidebar(self) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 6, 8, 6)

        filters = QGroupBox("Filters")
        form = QGridLayout(filters)
        self.kind_combo = QComboBox()
        self.kind_combo.addItems(["All kinds", "Skills", "Memory cards"])
        self.kind_combo.currentIndexChanged.connect(
            lambda i: self.set_filters(kind=("all", "skill", "memory")[i])
        )
        self.source_combo = QComboBox()
        self.source_combo.addItems(["Learned", "All skills", "Base (bundled)"])
        self.source_combo.setToolTip(
            "Learned: what the agent learned (the engine's graph). All: every skill of the home. "
            "Base: the skills bundled with the agent."
        )
        self.source_combo.currentIndexChanged.connect(
            lambda i: self.set_filters(source=("learned", "all", "base")[i])
        )
        self.pinned_box = QCheckBox("Pinned only")
        self.pinned_box.toggled.connect(lambda on: self.set_filters(pinned_only=on))
        self.from_box = QCheckBox("From")
        self.to_box = QCheckBox("To")
        self.from_date = QDateEdit()
        self.to_date = QDateEdit()
        for date_edit in (self.from_date, self.to_date):
            date_edit.setCalendarPopup(True)
            date_edit.setDisplayFormat("d MMM yyyy")
            date_edit.setEnabled(False)
            date_edit.dateChanged.connect(self._dates_changed)
        self.from_box.toggled.connect(self.from_date.setEnabled)
        self.to_box.toggled.connect(self.to_date.setEnabled)
        self.from_box.toggled.connect(self._dates_changed)
        self.to_box.toggled.connect(self._dates_changed)
        form.addWidget(QLabel("Kind"), 0, 0)
        form.addWidget(self.kind_combo, 0, 1)
        form.addWidget(QLabel("Source"), 1, 0)
        form.addWidget(self.source_combo, 1, 1)
        form.addWidget(self.pinned_box, 2, 0, 1, 2)
        form.addWidget(self.from_box, 3, 0)
        form.addWidget(self.from_date, 3, 1)
        form.addWidget(self.to_box, 4, 0)
        form.addWidget(self.to_date, 4, 1)
        clear = QPushButton("Clear filters")
        clear.clicked.connect(self.clear_filters)
        form.addWidget(clear, 5, 0, 1, 2)
        layout.addWidget(filters)

        categories = QGroupBox("Categories")
        cat_layout = QVBoxLayout(categories)
        self.category_list = QListWidget()
        self.category_list.setObjectName("categoryLegend")
        self.category_list.setMinimumHeight(120)
        self.category_list.itemChanged.connect(self._categories_changed)
        cat_layout.addWidget(self.category_list)
        buttons = QHBoxLayout()
        all_button = QPushButton("All")
        none_button = QPushButton("None")
        all_button.clicked.connect(lambda: self._check_all_categories(True))
        none_button.clicked.connect(lambda: self._check_all_categories(False))
        buttons.addWidget(all_button)
        buttons.addWidget(none_button)
        cat_layout.addLayout(buttons)
        layout.addWidget(categories, 1)

        self.legend = QLabel(
            "● skill  ◆ memory card<br>size: √uses · gold pin: pinned<br>"
            "faint: older, archived or stale<br><i>timeline: core = oldest · outer = newer</i>"
        )
        self.legend.setObjectName("glyphLegend")
        self.legend.setWordWrap(True)
        layout.addWidget(self.legend)

        archive = QGroupBox("Archived skills")
        archive_layout = QVBoxLayout(archive)
        self.archived_list = QListWidget()
        self.archived_list.setMaximumHeight(80)
        self.restore_button = QPushButton("Restore")
        self.restore_button.setEnabled(False)
        self.archived_list.currentItemChanged.connect(
            lambda item, _old: self.restore_button.setEnabled(item is not None)
        )
        self.restore_button.clicked.connect(self._restore_clicked)
        archive_layout.addWidget(self.archived_list)
        archive_layout.addWidget(self.restore_button)
        layout.addWidget(archive)
        self.archive_box = archive

        scroll = QScrollArea()
        scroll.setWidget(box)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(220)
        scroll.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        return scroll

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
        if change.kind in REBUILD_KINDS:
            self.worker.request(reason=change.kind)
        elif change.kind == "sessions":
            self.worker.request(reason="sessions")
        if change.kind == "skills":
            self.refresh_archived()

    def _busy(self, busy: bool) -> None:
        self.busy_label.setText("updating…" if busy else "")

    def _show_failure(self, message: str) -> None:
        self.error = message
        if self.data is None:
            self.error_label.setText(message)
            self.pages.setCurrentWidget(self.error_page)
        else:  # keep showing the last good graph
            self.message.show_message(message, error=True)
        self.ready = True
        self.sig_ready.emit()

    def _apply_snapshot(self, snapshot: GraphSnapshot) -> None:
        if self._closed:
            return
        first = self.snapshot is None or self.snapshot.request.mode != snapshot.request.mode
        self.snapshot = snapshot
        self.data = data = snapshot.data
        self.error = None
        self._fill_categories(data)
        self.mask = visible_mask(data, self.state)
        if data.size == 0:
            self.pages.setCurrentWidget(self.empty_label)
        else:
            self.pages.setCurrentWidget(self.graph_page)
        self.view.set_graph(data, snapshot.layout, self.mask, keep_camera=not first)
        if self._select_after and self._select_after in data.index:
            self.view.select(self._select_after)
            self._select_after = None
        self._update_count()
        self._update_warnings(data.warnings)
        self._seed_unused_dates(data)
        skills, memories, span = growth_histogram(data)
        self.scrubber.set_data(skills, memories, span, [ring.start for ring in snapshot.layout.rings])
        self._sync_details()
        self.details.set_overview(overview_html(data))
        self.ready = True
        self.sig_ready.emit()

    def _update_count(self) -> None:
        total = self.data.size if self.data is not None else 0
        self.count_label.setText(showing_text(int(self.mask.sum()), total))

    def _update_warnings(self, warnings: list[str]) -> None:
        if not warnings:
            self.warnings_frame.hide()
            return
        count = len(warnings)
        self.warnings_label.setText(
            f"{count} file{'s were' if count != 1 else ' was'} skipped; the rest of the home is shown."
        )
        self.warnings_detail.setText("\n".join(f"• {w}" for w in warnings))
        self.warnings_frame.show()

    def _fill_categories(self, data: GraphData) -> None:
        names = data.category_names()
        known = {self.category_list.item(i).text(): self.category_list.item(i) for i in range(self.category_list.count())}
        if list(known) == names:
            self._paint_category_icons(names)
            return
        unchecked = {name for name, item in known.items() if item.checkState() != Qt.CheckState.Checked}
        self.category_list.blockSignals(True)
        self.category_list.clear()
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if name in unchecked else Qt.CheckState.Checked)
            self.category_list.addItem(item)
        self.category_list.blockSignals(False)
        self._paint_category_icons(names)
        self.state = self.state.with_(categories=self._checked_categories())

    def _paint_category_icons(self, names: list[str]) -> None:
        colours = self.view.colours or {}
        from .style import category_colours

        if not colours or set(colours) != set(names):
            colours = category_colours(names, self.view.style_)
        self.category_list.blockSignals(True)  # an icon change is an itemChanged too
        for i in range(self.category_list.count()):
            item = self.category_list.item(i)
            colour = colours.get(item.text(), QColor("#888"))
            item.setIcon(_swatch(colour, diamond=item.text() == "memory"))
        self.category_list.blockSignals(False)

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
        self._update_count()
        if self.details.node_id() is not None and self.view.selected_id() is None:
            self.details.clear()

    def clear_filters(self) -> None:
        self.search.clear()
        self.kind_combo.setCurrentIndex(0)
        self.source_combo.setCurrentIndex(0)
        self.pinned_box.setChecked(False)
        self.from_box.setChecked(False)
        self.to_box.setChecked(False)
        self._check_all_categories(True)
        self.scrubber.scrub(1.0)

    def _dates_changed(self, *_: object) -> None:
        def epoch(date: QDate, end: bool) -> float:
            moment = QDateTime(date, QTime(23, 59, 59) if end else QTime(0, 0), QTimeZone.utc())
            return float(moment.toSecsSinceEpoch())

        self.set_filters(
            date_from=epoch(self.from_date.date(), False) if self.from_box.isChecked() else None,
            date_to=epoch(self.to_date.date(), True) if self.to_box.isChecked() else None,
        )

    def _seed_unused_dates(self, data: GraphData) -> None:
        """Show the home's first and last dates in the date fields that are switched off,
        so ticking "From" or "To" starts from the real range (not Qt's 1 Jan 2000)."""
        dated = data.times[~np.isnan(data.times)]
        if not dated.size:
            return
        for box, edit, moment in (
            (self.from_box, self.from_date, float(dated.min())),
            (self.to_box, self.to_date, float(dated.max())),
        ):
            if box.isChecked():
                continue  # the person's own choice stays
            day = datetime.fromtimestamp(moment, tz=UTC)
            edit.blockSignals(True)
            edit.setDate(QDate(day.year, day.month, day.day))
            edit.blockSignals(False)

    def set_date_range(self, start: datetime | None, end: datetime | None) -> None:
        """Set the date filter (inclusive days, UTC); None lifts that side."""
        for box, edit, value in ((self.from_box, self.from_date, start), (self.to_box, self.to_date, end)):
            edit.blockSignals(True)
            if value is not None:
                edit.setDate(QDate(value.year, value.month, value.day))
            edit.blockSignals(False)
            box.blockSignals(True)
            box.setChecked(value is not None)
            edit.setEnabled(value is not None)
            box.blockSignals(False)
        self._dates_changed()

    def _checked_categories(self) -> frozenset[str] | None:
        total = self.category_list.count()
        checked = {
            self.category_list.item(i).text()
            for i in range(total)
            if self.category_list.item(i).checkState() == Qt.CheckState.Checked
        }
        return None if len(checked) == total else frozenset(checked)

    def _categories_changed(self, *_: object) -> None:
        self.set_filters(categories=self._checked_categories())

    def _check_all_categories(self, on: bool) -> None:
        self.category_list.blockSignals(True)
        for i in range(self.category_list.count()):
            self.category_list.item(i).setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.category_list.blockSignals(False)
        self._categories_changed()

    def set_category_checked(self, name: str, on: bool) -> None:
        for i in range(self.category_list.count()):
            item = self.category_list.item(i)
            if item.text() == name:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

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

    # --- selection and details -------------------------------------------------------------
    def _node_clicked(self, node_id: str | None) -> None:
        if node_id is None:
            self.details.clear()
            return
        self._show_details(node_id)

    def _node_activated(self, node_id: str) -> None:
        self.view.select(node_id)
        self._show_details(node_id)
        self.details.setFocus()

    def open_node(self, node_id: str) -> None:
        """Select ``node_id`` (if shown) and open its details."""
        if self.data is None or node_id not in self.data.index:
            self.message.show_message(f"'{node_id}' is not in the graph (filtered out, or not learned).")
            return
        self.view.select(node_id)
        if self.view.selected_id() == node_id:
            self._show_details(node_id)
        else:
            self.message.show_message(f"'{node_id}' is hidden by the current filters.")

    def _show_details(self, node_id: str) -> None:
        data = self.data
        if data is None:
            return
        node = data.node(node_id)
        if node is None:
            self.details.clear()
            return
        index = data.index[node_id]
        neighbours = [
            (data.ids[i], data.labels[i])
            for i in data.neighbours[index]
            if data.kind[i] != MEMORY or data.kind[index] != MEMORY
        ]
        time = data.times[index]
        self.details.show_node(node, neighbours, None if np.isnan(time) else float(time))
        self._read_detail(node_id)

    def _read_detail(self, node_id: str) -> None:
        home = self.home
        self._detail_serial += 1
        serial = self._detail_serial

        def done(result: dict[str, Any]) -> None:
            if not self._alive() or serial != self._detail_serial:
                return
            result = dict(result)
            result["request_id"] = node_id
            self.details.show_detail(result)

        self.workspace.read(functools.partial(actions.detail, home, node_id), done)

    def _sync_details(self) -> None:
        """After a rebuild: follow the selection, or clear the pane if it is gone."""
        selected = self.view.selected_id()
        if selected is None:
            if self.details.node_id() is not None:
                self.details.clear()
            return
        self._show_details(selected)

    # --- actions ---------------------------------------------------------------------------
    def _write(self, kind: str, work: Callable[[], dict], done: Callable[[dict], None] | None = None) -> None:
        def finished(result: dict) -> None:
            if not self._alive():
                return
            result = dict(result)
            if done is not None:
                done(result)
            undo = result.get("undo")
            self.message.show_message(
                str(result.get("message")), error=not result.get("ok"), undo=undo if result.get("ok") else None
            )
            self.sig_action_done.emit(result)

        self.workspace.write(kind, work, finished)

    def set_pinned(self, node_id: str, pinned: bool) -> None:
        self._select_after = node_id
        self._write("skills", functools.partial(actions.set_pin, self.home, node_id, pinned))

    def archive_skill(self, node_id: str, *, confirm: bool = True) -> None:
        if confirm:
            answer = QMessageBox.question(
                self,
                f"Archive {node_id}?",
                f"The skill is moved to skills/.archive and can be restored: use Undo right after, "
                f"“Archived skills” in the side panel, or `hermes curator restore {node_id}`.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self._write("skills", functools.partial(actions.archive, self.home, node_id))

    def delete_memory(self, node_id: str, *, confirm: bool = True) -> None:
        if confirm:
            node = self.data.node(node_id) if self.data else None
            answer = QMessageBox.question(
                self,
                "Delete this memory?",
                f"“{node.get('label') if node else node_id}” is removed from "
                f"{node.get('file') if node else 'its file'}. You can undo it right after.",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self._write(actions.write_kind(node_id), functools.partial(actions.delete_memory, self.home, node_id))

    def undo(self, step: Undo) -> None:
        kind = "skills" if step.kind == "restore" else step.target
        if step.kind == "restore":
            self._select_after = step.name
        self._write(kind, functools.partial(actions.undo, self.home, step))

    def restore_skill(self, name: str) -> None:
        self._select_after = name
        self._write("skills", functools.partial(actions.restore, self.home, name))

    def _restore_clicked(self) -> None:
        item = self.archived_list.currentItem()
        if item is not None:
            self.restore_skill(item.data(Qt.ItemDataRole.UserRole))

    def refresh_archived(self) -> None:
        def done(items: list[dict[str, Any]]) -> None:
            if not self._alive():
                return
            self.archived_list.clear()
            for entry in items:
                when = entry.get("archivedAt") or ""
                item = QListWidgetItem(entry["name"])
                item.setData(Qt.ItemDataRole.UserRole, entry["name"])
                item.setToolTip(
                    (f"archived {when[:10]}\n" if when else "") + str(entry.get("path") or "")
                )
                self.archived_list.addItem(item)
            self.archive_box.setTitle(f"Archived skills ({len(items)})")

        self.workspace.read(functools.partial(actions.archived, self.home), done)

    def edit_node(self, node_id: str) -> None:
        detail = self.details.detail
        node = self.data.node(node_id) if self.data else None
        if node is None or detail is None or not detail.get("ok"):
            return
        dialog = EditorDialog(node, str(detail.get("content") or ""), self)
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
                functools.partial(actions.edit, self.home, node_id, text, revision),
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
        serial = self._detail_serial

        def ready() -> None:
            if serial == self._detail_serial and self.details.detail is not None:
                self.edit_node(node_id)

        self.workspace.read(lambda: None, lambda _r: ready())


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
        items = "".join(
            f"<li><a href='node:{html.escape(data.ids[i])}'>{html.escape(data.labels[i])}</a>"
            f" ×{int(data.use_count[i])}</li>"
            for i in busiest
        )
        lines.append(f"<p>Most used:</p><ul>{items}</ul>")
    newest = sorted(skills, key=lambda i: -(0 if np.isnan(data.times[i]) else data.times[i]))[:3]
    if newest:
        items = "".join(
            f"<li><a href='node:{html.escape(data.ids[i])}'>{html.escape(data.labels[i])}</a>"
            f" · {format_date(data.times[i])}</li>"
            for i in newest
        )
        lines.append(f"<p>Newest:</p><ul>{items}</ul>")
    pinned = [i for i in skills if data.pinned[i]]
    if pinned:
        names = ", ".join(html.escape(data.labels[i]) for i in pinned)
        lines.append(f"<p>Pinned: {names}</p>")
    lines.append(
        "<p style='color:#8a94a6'>Click a node or use the arrow keys; Enter opens it, Esc clears. "
        "Ctrl+F searches.</p>"
    )
    return "".join(lines)
