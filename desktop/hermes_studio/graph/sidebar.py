"""The side panel left of the canvas: filters, the category legend, the glyph legend and archived skills.

It owns its controls and only reports what the person changed (``sig_filters`` with
:class:`~.filters.FilterState` fields, ``sig_clear``, ``sig_restore``); the panel keeps the
filter state and applies it. :func:`remembered_filters` and :func:`restore_filters` are what
the window keeps of them per home ("Has problems", the local graph's switch, depth and centre).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QDate, QDateTime, Qt, QTime, QTimeZone, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDateEdit,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from .colours import LegendEntry
from .local import MAX_DEPTH
from .model import GraphData

if TYPE_CHECKING:
    from .panel import GraphPanel


def _swatch(colour: QColor, diamond: bool = False, hollow: bool = False) -> QIcon:
    """A legend mark: the node's glyph in its colour (hollow: the colour means nothing now)."""
    pixmap = QPixmap(14, 14)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    if hollow:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(colour)
    else:
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


class SidePanel(QScrollArea):
    """Filters, categories (a legend with a checkbox each), the glyph legend and archived skills."""

    sig_filters = Signal(object)  # dict of FilterState fields to change
    sig_clear = Signal()  # "Clear filters": the panel also clears the search and the playhead
    sig_restore = Signal(str)  # archived skill name
    sig_recolour = Signal(str)  # category: the person wants to choose its colour
    sig_reset_colour = Signal(str)  # category: back to the colour its name gives
    sig_add_group = Signal()  # colour what the search finds
    sig_remove_group = Signal(str)  # a colour group's query
    sig_local = Signal(int)  # the local graph's depth; 0 = off

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(8, 6, 8, 6)

        filters = QGroupBox("Filters")
        form = QGridLayout(filters)
        self.kind_combo = QComboBox()
        self.kind_combo.addItems(["All kinds", "Skills", "Memory cards"])
        self.kind_combo.currentIndexChanged.connect(
            lambda i: self._filter(kind=("all", "skill", "memory")[i])
        )
        self.source_combo = QComboBox()
        self.source_combo.addItems(["Learned", "All skills", "Base (bundled)"])
        self.source_combo.setToolTip(
            "Learned: what the agent learned (the engine's graph). All: every skill of the home. "
            "Base: the skills bundled with the agent."
        )
        self.source_combo.currentIndexChanged.connect(
            lambda i: self._filter(source=("learned", "all", "base")[i])
        )
        self.pinned_box = QCheckBox("Pinned only")
        self.pinned_box.toggled.connect(lambda on: self._filter(pinned_only=on))
        self.problems_box = QCheckBox("Has problems")
        self.problems_box.setToolTip("Only skills with health problems (the dot on a node; hover it for what)")
        self.problems_box.toggled.connect(lambda on: self._filter(problems_only=on))
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
        form.addWidget(self.problems_box, 3, 0, 1, 2)
        form.addWidget(self.from_box, 4, 0)
        form.addWidget(self.from_date, 4, 1)
        form.addWidget(self.to_box, 5, 0)
        form.addWidget(self.to_date, 5, 1)
        clear = QPushButton("Clear filters")
        clear.clicked.connect(lambda: self.sig_clear.emit())
        form.addWidget(clear, 6, 0, 1, 2)
        layout.addWidget(filters)

        local = QGroupBox("Local graph")
        local_layout = QGridLayout(local)
        self.local_box = QCheckBox("Selection and neighbours")
        self.local_box.setToolTip("Show the selected node and its neighbours; select another node to move")
        self.depth_slider = QSlider(Qt.Orientation.Horizontal)
        self.depth_slider.setObjectName("localDepth")
        self.depth_slider.setRange(1, MAX_DEPTH)
        self.depth_slider.setValue(1)
        self.depth_slider.setPageStep(1)
        self.depth_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.depth_label = QLabel("depth 1")
        self.local_box.toggled.connect(self._local_changed)
        self.depth_slider.valueChanged.connect(self._local_changed)
        local_layout.addWidget(self.local_box, 0, 0, 1, 2)
        local_layout.addWidget(self.depth_slider, 1, 0)
        local_layout.addWidget(self.depth_label, 1, 1)
        layout.addWidget(local)

        categories = QGroupBox("Categories")
        cat_layout = QVBoxLayout(categories)
        self.category_list = QListWidget()
        self.category_list.setObjectName("categoryLegend")
        self.category_list.setMinimumHeight(120)
        self.category_list.itemChanged.connect(self._categories_changed)
        self.category_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.category_list.customContextMenuRequested.connect(self._category_menu)
        cat_layout.addWidget(self.category_list)
        buttons = QHBoxLayout()
        all_button = QPushButton("All")
        none_button = QPushButton("None")
        all_button.clicked.connect(lambda: self.check_all_categories(True))
        none_button.clicked.connect(lambda: self.check_all_categories(False))
        buttons.addWidget(all_button)
        buttons.addWidget(none_button)
        cat_layout.addLayout(buttons)
        layout.addWidget(categories, 1)

        # what the colours mean when the category swatches do not say it all: colour
        # groups (they win), the kinds in "Colour by kind", the categories sharing neutral
        key = QGroupBox("Colours")
        key_layout = QVBoxLayout(key)
        self.colour_key = QListWidget()
        self.colour_key.setObjectName("colourKey")
        self.colour_key.setMaximumHeight(80)
        self.colour_key.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.colour_key.customContextMenuRequested.connect(self._key_menu)
        self.group_button = QPushButton("Colour search results…")
        self.group_button.setToolTip("Give the nodes the search finds a colour of their own (a colour group)")
        self.group_button.clicked.connect(lambda: self.sig_add_group.emit())
        key_layout.addWidget(self.colour_key)
        key_layout.addWidget(self.group_button)
        layout.addWidget(key)

        self.legend = QLabel(
            "● skill  ◆ memory card<br>size: √uses · gold pin: pinned<br>"
            "faint: older, archived or stale<br>"
            "<span style='color:#e5484d'>●</span><span style='color:#f5a524'>●</span>"
            "<span style='color:#8fa3c8'>●</span> health: error, warning, note<br><i>timeline: core = oldest · outer = newer</i>"
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

        self.setWidget(box)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumWidth(220)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    def set_local(self, on: bool, depth: int) -> None:
        """Set the local graph's switch and depth, reported as one change."""
        for widget in (self.local_box, self.depth_slider):
            widget.blockSignals(True)
        self.local_box.setChecked(on)
        self.depth_slider.setValue(max(1, min(MAX_DEPTH, depth)))
        for widget in (self.local_box, self.depth_slider):
            widget.blockSignals(False)
        self._local_changed()

    def _local_changed(self, *_: object) -> None:
        depth = self.depth_slider.value()
        self.depth_label.setText(f"depth {depth}")
        self.sig_local.emit(depth if self.local_box.isChecked() else 0)

    def _filter(self, **changes: Any) -> None:
        self.sig_filters.emit(changes)

    def reset(self) -> None:
        """Every filter here back to its default; each control reports its own change."""
        self.kind_combo.setCurrentIndex(0)
        self.source_combo.setCurrentIndex(0)
        self.pinned_box.setChecked(False)
        self.problems_box.setChecked(False)
        self.local_box.setChecked(False)
        self.from_box.setChecked(False)
        self.to_box.setChecked(False)
        self.check_all_categories(True)

    # --- categories ------------------------------------------------------------------------
    def fill_categories(self, names: list[str], colours: dict[str, QColor]) -> bool:
        """List ``names`` (keeping what was unticked) with their colours; True if the list changed."""
        known = {self.category_list.item(i).text(): self.category_list.item(i) for i in range(self.category_list.count())}
        if list(known) == names:
            self._paint_category_icons(colours)
            return False
        unchecked = {name for name, item in known.items() if item.checkState() != Qt.CheckState.Checked}
        self.category_list.blockSignals(True)
        self.category_list.clear()
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked if name in unchecked else Qt.CheckState.Checked)
            self.category_list.addItem(item)
        self.category_list.blockSignals(False)
        self._paint_category_icons(colours)
        return True

    def _paint_category_icons(self, colours: dict[str, QColor], hollow: bool = False) -> None:
        self.category_list.blockSignals(True)  # an icon change is an itemChanged too
        for i in range(self.category_list.count()):
            item = self.category_list.item(i)
            colour = colours.get(item.text(), QColor("#888"))
            item.setIcon(_swatch(colour, diamond=item.text() == "memory", hollow=hollow))
        self.category_list.blockSignals(False)

    def show_legend(self, entries: list[LegendEntry], neutral: QColor) -> None:
        """Show what the canvas's colours mean (``ColourBook.legend``): category swatches
        (hollow while the nodes are coloured by kind) and the key of groups, kinds and the
        categories sharing the ``neutral`` colour."""
        categories = {e.name: e for e in entries if e.role == "category"}
        by_kind = not categories
        if by_kind:
            self._paint_category_icons({}, hollow=True)
        else:
            self._paint_category_icons({name: e.colour for name, e in categories.items()})
        self.category_list.blockSignals(True)  # a tooltip is an itemChanged too: no re-filter each
        for i in range(self.category_list.count()):
            item = self.category_list.item(i)
            entry = categories.get(item.text())
            shared = entry is not None and entry.colour == neutral and item.text() != "memory"
            item.setToolTip(
                "" if entry is None else f"{entry.count:,} nodes"
                + (" · shares the neutral colour (more categories than colours)" if shared else "")
                + " · right-click to recolour"
            )
        self.category_list.blockSignals(False)
        self.colour_key.clear()
        key = [e for e in entries if e.role != "category"]
        sharing = [name for name, e in categories.items() if e.colour == neutral and name != "memory"]
        for entry in key:
            text = f"“{entry.name}”" if entry.role == "group" else entry.name
            item = QListWidgetItem(_swatch(entry.colour, entry.diamond), f"{text} ({entry.count:,})")
            item.setData(Qt.ItemDataRole.UserRole, (entry.role, entry.name))
            if entry.role == "group":
                item.setToolTip("A colour group: nodes the search finds. Right-click to remove.")
            self.colour_key.addItem(item)
        if sharing:
            item = QListWidgetItem(_swatch(neutral), f"{len(sharing)} smaller categories")
            item.setToolTip("Share the neutral colour: " + ", ".join(sharing))
            item.setData(Qt.ItemDataRole.UserRole, ("neutral", ""))
            self.colour_key.addItem(item)
        if self.colour_key.count() == 0:
            item = QListWidgetItem("by category (above)")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.colour_key.addItem(item)

    def key_entries(self) -> list[tuple[str, str, QColor]]:
        """``(role, name, colour)`` per entry of the colour key (for tests and screenshots)."""
        found = []
        for i in range(self.colour_key.count()):
            item = self.colour_key.item(i)
            role_name = item.data(Qt.ItemDataRole.UserRole)
            if role_name:
                colour = QColor(item.icon().pixmap(14, 14).toImage().pixelColor(7, 7))
                found.append((role_name[0], role_name[1], colour))
        return found

    def category_swatch(self, name: str) -> QColor | None:
        """The colour of ``name``'s legend swatch at its centre (None: hollow or absent)."""
        for i in range(self.category_list.count()):
            item = self.category_list.item(i)
            if item.text() == name:
                colour = item.icon().pixmap(14, 14).toImage().pixelColor(7, 7)
                return QColor(colour) if colour.alpha() == 255 else None
        return None

    def _category_menu(self, point: Any) -> None:
        item = self.category_list.itemAt(point)
        if item is None:
            return
        name = item.text()
        menu = QMenu(self)
        menu.addAction(f"Colour of “{name}”…", lambda: self.sig_recolour.emit(name))
        menu.addAction("Colour from its name", lambda: self.sig_reset_colour.emit(name))
        menu.popup(self.category_list.mapToGlobal(point))

    def _key_menu(self, point: Any) -> None:
        item = self.colour_key.itemAt(point)
        role_name = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not role_name or role_name[0] != "group":
            return
        menu = QMenu(self)
        menu.addAction("Remove this colour group", lambda: self.sig_remove_group.emit(role_name[1]))
        menu.popup(self.colour_key.mapToGlobal(point))

    def checked_categories(self) -> frozenset[str] | None:
        """The ticked categories, or None when all are (no category filter)."""
        total = self.category_list.count()
        checked = {
            self.category_list.item(i).text()
            for i in range(total)
            if self.category_list.item(i).checkState() == Qt.CheckState.Checked
        }
        return None if len(checked) == total else frozenset(checked)

    def _categories_changed(self, *_: object) -> None:
        self._filter(categories=self.checked_categories())

    def check_all_categories(self, on: bool) -> None:
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

    # --- dates -----------------------------------------------------------------------------
    def _dates_changed(self, *_: object) -> None:
        def epoch(date: QDate, end: bool) -> float:
            moment = QDateTime(date, QTime(23, 59, 59) if end else QTime(0, 0), QTimeZone.utc())
            return float(moment.toSecsSinceEpoch())

        self._filter(
            date_from=epoch(self.from_date.date(), False) if self.from_box.isChecked() else None,
            date_to=epoch(self.to_date.date(), True) if self.to_box.isChecked() else None,
        )

    def seed_unused_dates(self, data: GraphData) -> None:
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

    # --- archived skills -------------------------------------------------------------------
    def show_archived(self, items: list[dict[str, Any]]) -> None:
        """List the archived skills (``actions.archived``'s entries) and count them in the title."""
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

    def _restore_clicked(self) -> None:
        item = self.archived_list.currentItem()
        if item is not None:
            self.sig_restore.emit(item.data(Qt.ItemDataRole.UserRole))


# --- remembered per home (the window saves them with the graph's other settings) ---------------
def remembered_filters(panel: GraphPanel) -> dict[str, Any]:
    side, state = panel.sidebar, panel.state
    on = side.local_box.isChecked()
    return {
        "problems_only": side.problems_box.isChecked(),
        "local": {"on": on, "depth": side.depth_slider.value(), "root": state.local_root if on else None},
    }


def restore_filters(panel: GraphPanel, values: dict[str, Any]) -> None:
    """Put back what :func:`remembered_filters` gave (before or after the graph arrives):
    the local graph's centre is selected again, so its details show once it is drawn."""
    side = panel.sidebar
    side.problems_box.setChecked(bool(values.get("problems_only")))
    local = values.get("local")
    if not isinstance(local, dict):
        return
    depth = local.get("depth")
    depth = depth if isinstance(depth, int) and not isinstance(depth, bool) else 1
    root = local.get("root")
    on = bool(local.get("on")) and isinstance(root, str) and bool(root)
    if on:
        panel.set_filters(local_root=root)
        panel.selection.select_only(root)
    side.set_local(on, depth)
