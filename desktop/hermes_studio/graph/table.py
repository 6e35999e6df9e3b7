"""The graph's twin: every shown skill and memory card as a sortable table row.

:class:`NodeTableModel` is a :class:`QAbstractTableModel` over the same
:class:`~.model.GraphData` and visibility mask the canvas draws, so the filters and the
search are the graph's own. It sorts and filters itself with numpy (a key array per
column, computed once per snapshot, then one ``argsort``): a
:class:`QSortFilterProxyModel` compares rows through a Python ``data()`` call per
comparison, which at 10,000 rows takes about a second per click on a header
(``bench/table.py`` prints both). ``rows`` maps a table row to a node index and ``row_of``
back, which is all the selection sync needs.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QMouseEvent, QPalette
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QTableView, QWidget

from .model import GraphData, format_date, source_label
from .selection import Selection

_NUMBER = "number"
_TEXT = "text"


def _health(node: dict[str, Any]) -> str:
    count = int(node.get("healthCount") or 0)
    if not count:
        return "" if node.get("kind") == "memory" else "ok"
    codes = ", ".join(str(code) for code in node.get("healthCodes") or [])
    return f"{count}: {codes}" if codes else str(count)


def _origin(node: dict[str, Any]) -> str:
    if node.get("kind") == "memory":
        return str(node.get("file") or ("USER.md" if node.get("memorySource") == "profile" else "MEMORY.md"))
    return str(node.get("createdBy") or node.get("provenance") or "")


def _epoch(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan


def _date(value: Any) -> str:
    epoch = _epoch(value)
    return "" if math.isnan(epoch) else format_date(epoch)


def _skill_count(node: dict[str, Any], key: str) -> float:
    return math.nan if node.get("kind") == "memory" else float(node.get(key) or 0)


#: (key, header, kind, sort value, shown text) per column.
Column = tuple[str, str, str, Callable[[dict[str, Any]], Any], Callable[[dict[str, Any]], str]]
COLUMNS: list[Column] = [
    ("name", "Name", _TEXT, lambda n: str(n.get("label") or n.get("id")), lambda n: html.unescape(str(n.get("label") or n.get("id")))),
    ("kind", "Kind", _TEXT, lambda n: str(n.get("kind")), lambda n: str(n.get("kind") or "")),
    ("category", "Category", _TEXT, lambda n: str(n.get("category") or ""), lambda n: str(n.get("category") or "")),
    ("source", "Source", _TEXT, source_label, source_label),
    ("uses", "Uses", _NUMBER, lambda n: float(n.get("useCount") or 0), lambda n: str(int(n.get("useCount") or 0))),
    ("views", "Views", _NUMBER, lambda n: _skill_count(n, "viewCount"),
     lambda n: "" if n.get("kind") == "memory" else str(int(n.get("viewCount") or 0))),
    ("patches", "Patches", _NUMBER, lambda n: _skill_count(n, "patchCount"),
     lambda n: "" if n.get("kind") == "memory" else str(int(n.get("patchCount") or 0))),
    ("last_used", "Last used", _NUMBER, lambda n: _epoch(n.get("lastUsedAt")), lambda n: _date(n.get("lastUsedAt"))),
    ("created", "Created", _NUMBER, lambda n: _epoch(n.get("createdAt") if n.get("kind") != "memory" else n.get("timestamp")),
     lambda n: _date(n.get("createdAt") if n.get("kind") != "memory" else n.get("timestamp"))),
    ("pinned", "Pinned", _NUMBER, lambda n: float(bool(n.get("pinned"))), lambda n: "pinned" if n.get("pinned") else ""),
    ("state", "State", _TEXT, lambda n: str(n.get("state") or ""), lambda n: str(n.get("state") or "")),
    ("health", "Health", _NUMBER, lambda n: float(n.get("healthCount") or 0), _health),
    ("origin", "Origin", _TEXT, _origin, _origin),
]
COLUMN_KEYS = [column[0] for column in COLUMNS]
NUMERIC_ALIGN = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _ranks(texts: list[str]) -> np.ndarray:
    """Each text's place in sorted order, equal texts sharing one (ties go to the name)."""
    order = sorted(range(len(texts)), key=texts.__getitem__)
    ranks = np.empty(len(texts), dtype=np.float64)
    rank, previous = -1, None
    for position in order:
        text = texts[position]
        if text != previous:
            rank, previous = rank + 1, text
        ranks[position] = rank
    return ranks


def sort_key(data: GraphData, column: int) -> np.ndarray:
    """Column ``column``'s sort key of every node of ``data``: a number (NaN when there is
    none) or a text's rank. Made once per snapshot, by whichever thread asks first (the
    graph worker makes them all once the graph is drawn)."""

    def make() -> np.ndarray:
        _name, _header, kind, value, _text = COLUMNS[column]
        nodes = data.nodes
        if kind == _NUMBER:
            return np.fromiter((value(node) for node in nodes), dtype=np.float64, count=len(nodes))
        return _ranks([value(node).casefold() for node in nodes])

    return data.cached(f"sort key {column}", make)


#: The roles the table answers; Qt asks for about ten per cell on every paint.
_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole,
                    Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.ToolTipRole})


class NodeTableModel(QAbstractTableModel):
    """The shown nodes of a :class:`GraphData`, sorted by one column."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.data_: GraphData | None = None
        self.mask = np.zeros(0, dtype=bool)
        self.rows = np.zeros(0, dtype=np.int64)  # table row -> node index
        self.row_of = np.zeros(0, dtype=np.int64)  # node index -> table row (-1: not shown)
        self.sort_column = 0
        self.sort_order = Qt.SortOrder.AscendingOrder
        self.marked = np.zeros(0, dtype=bool)  # node index -> drawn selected
        self._keys: dict[int, np.ndarray] = {}
        self._order: np.ndarray | None = None  # every node, in the sort order

    # --- what is shown ---------------------------------------------------------------------
    def set_graph(self, data: GraphData, mask: np.ndarray) -> None:
        """A new snapshot. Its sort keys come with it (the graph worker makes them once the
        graph is drawn, so that the first click on a header only sorts), else are made
        when first needed."""
        self.beginResetModel()
        self.data_ = data
        self._keys, self._order = {}, None
        self.marked = np.zeros(data.size, dtype=bool)
        self._place(np.asarray(mask, dtype=bool))
        self.endResetModel()

    def set_mask(self, mask: np.ndarray) -> None:
        mask = np.asarray(mask, dtype=bool)
        if np.array_equal(mask, self.mask):
            return
        self.beginResetModel()
        self._place(mask)
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:  # noqa: D102
        if not 0 <= column < len(COLUMNS):
            return
        if (column, order) == (self.sort_column, self.sort_order) and self._order is not None:
            return  # the header and sortByColumn both ask: sort once
        self.beginResetModel()  # the views put the shared selection back afterwards
        self.sort_column, self.sort_order, self._order = column, order, None
        self._place(self.mask)
        self.endResetModel()

    def _place(self, mask: np.ndarray) -> None:
        self.mask = mask
        n = self.data_.size if self.data_ is not None else 0
        if n == 0:
            self.rows = np.zeros(0, dtype=np.int64)
            self.row_of = np.zeros(0, dtype=np.int64)
            return
        if self._order is None:
            self._order = self._sorted(self.sort_column, self.sort_order)
        order = self._order
        self.rows = order[mask[order]]
        self.row_of = np.full(n, -1, dtype=np.int64)
        self.row_of[self.rows] = np.arange(len(self.rows))

    def _key(self, column: int) -> np.ndarray:
        """One sortable value per node: a number (NaN when there is none) or a text's rank."""
        key = self._keys.get(column)
        if key is None:
            assert self.data_ is not None
            key = self._keys[column] = sort_key(self.data_, column)
        return key

    def _sorted(self, column: int, order: Qt.SortOrder) -> np.ndarray:
        key = self._key(column)
        names = self._key(0)
        missing = np.isnan(key)  # empty cells last, in both orders
        value = np.where(missing, 0.0, key)
        if order == Qt.SortOrder.DescendingOrder:
            value = -value
        # the last key is the primary one; ties are broken by name
        return np.lexsort((names, value, missing)).astype(np.int64)

    # --- Qt's model interface ----------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section][1]
        return None

    def mark(self, node_ids: list[str]) -> None:
        """Draw these nodes selected (the shared selection), every other one not."""
        if self.data_ is None:
            return
        index = self.data_.index
        chosen = np.fromiter((index.get(i, -1) for i in node_ids), dtype=np.int64, count=len(node_ids))
        self.marked = np.zeros(self.data_.size, dtype=bool)
        self.marked[chosen[chosen >= 0]] = True

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ROLES or self.data_ is None or not index.isValid() or index.row() >= len(self.rows):
            return None
        position = int(self.rows[index.row()])
        node = self.data_.nodes[position]
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column[4](node)
        if role in (Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole) and self.marked[position]:
            palette = QApplication.palette()
            return palette.color(QPalette.ColorRole.Highlight if role == Qt.ItemDataRole.BackgroundRole
                                 else QPalette.ColorRole.HighlightedText)
        if role == Qt.ItemDataRole.TextAlignmentRole and column[2] == _NUMBER and column[0] != "health":
            return NUMERIC_ALIGN
        if role == Qt.ItemDataRole.ToolTipRole and column[0] in ("name", "health"):
            return str(node.get("description") or "") if column[0] == "name" else _health(node)
        return None

    # --- for the views ------------------------------------------------------------------------
    def node_id(self, row: int) -> str | None:
        if self.data_ is None or not 0 <= row < len(self.rows):
            return None
        return self.data_.ids[int(self.rows[row])]

    def row_for(self, node_id: str | None) -> int:
        if self.data_ is None or node_id is None:
            return -1
        index = self.data_.index.get(node_id)
        return -1 if index is None else int(self.row_of[index])

    def cell(self, row: int, column: int) -> QModelIndex:
        """``index()`` without its bounds check (which asks Python for the row count)."""
        return self.createIndex(row, column)

    def ordered_ids(self) -> list[str]:
        """The shown ids in table order (the order of search results too)."""
        if self.data_ is None:
            return []
        ids = self.data_.ids
        return [ids[i] for i in self.rows.tolist()]


class NodeTable(QTableView):
    """The table widget. It keeps no selection of its own: rows are drawn selected from
    the shared :class:`~.selection.Selection` (a mask in the model, so following a
    selection of thousands is one repaint), and clicks and keys are turned into changes
    of it — click, Ctrl-click (toggle), Shift-click (range from the anchor), Ctrl+Shift
    (add the range), arrows and Page keys (Shift extends), Ctrl+A (every row)."""

    def __init__(self, selection: Selection, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphTable")
        self.setAccessibleName("Skills and memory cards")
        self.selection = selection
        self.table_model = NodeTableModel(self)
        self.setModel(self.table_model)
        self.anchor: str | None = None  # where a Shift range starts
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setSortingEnabled(True)
        self.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        rows = self.verticalHeader()
        rows.setVisible(False)
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # never measures 10,000 rows
        rows.setDefaultSectionSize(22)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for column, width in enumerate((230, 64, 110, 110, 52, 52, 60, 90, 90, 56, 70, 110)):
            self.setColumnWidth(column, width)

    def selected_ids(self) -> list[str]:
        """The ids of the rows drawn selected, in table order."""
        model = self.table_model
        if model.data_ is None:
            return []
        ids = model.data_.ids
        return [ids[i] for i in model.rows[model.marked[model.rows]].tolist()]

    def show_selection(self, node_ids: list[str], current: str | None) -> None:
        """Draw exactly these nodes' rows selected; ``current``'s row gets the focus and is
        scrolled into view."""
        model = self.table_model
        model.mark(node_ids)
        row = model.row_for(current)
        if row >= 0:
            index = model.cell(row, max(0, self.currentIndex().column()))
            self.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.NoUpdate)
            self.scrollTo(index)
        self.viewport().update()

    # --- the person's clicks and keys ------------------------------------------------------
    def _rows_between(self, row: int) -> list[str]:
        model = self.table_model
        start = model.row_for(self.anchor)
        start = row if start < 0 else start
        low, high = min(start, row), max(start, row)
        ids = model.data_.ids if model.data_ is not None else []
        return [ids[i] for i in model.rows[low : high + 1].tolist()]

    def choose(self, row: int, modifiers: Qt.KeyboardModifier) -> None:
        """What a click (or a cursor move) on ``row`` does to the shared selection."""
        node_id = self.table_model.node_id(row)
        if node_id is None:
            return
        ctrl = bool(modifiers & Qt.KeyboardModifier.ControlModifier)
        if modifiers & Qt.KeyboardModifier.ShiftModifier:
            span = self._rows_between(row)
            self.selection.set([*self.selection.ids, *span] if ctrl else span, node_id)
            return
        self.anchor = node_id
        if ctrl:
            self.selection.toggle(node_id)
        else:
            self.selection.select_only(node_id)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        index = self.indexAt(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and index.isValid():
            self.setFocus()
            self.choose(index.row(), event.modifiers())
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        event.accept()  # no drag-selection: a drag would fight the shared selection

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.matches(QKeySequence.StandardKey.SelectAll):
            ids = self.table_model.ordered_ids()
            self.selection.set(ids, self.selection.current if self.selection.current in ids else None)
            event.accept()
            return
        moves = {
            Qt.Key.Key_Up: QAbstractItemView.CursorAction.MoveUp,
            Qt.Key.Key_Down: QAbstractItemView.CursorAction.MoveDown,
            Qt.Key.Key_PageUp: QAbstractItemView.CursorAction.MovePageUp,
            Qt.Key.Key_PageDown: QAbstractItemView.CursorAction.MovePageDown,
            Qt.Key.Key_Home: QAbstractItemView.CursorAction.MoveHome,
            Qt.Key.Key_End: QAbstractItemView.CursorAction.MoveEnd,
        }
        move = moves.get(Qt.Key(event.key())) if event.key() in moves else None
        if move is not None and self.table_model.rowCount() > 0:
            target = self.moveCursor(move, event.modifiers())
            if target.isValid():
                self.choose(target.row(), event.modifiers() & ~Qt.KeyboardModifier.ControlModifier)
            event.accept()
            return
        super().keyPressEvent(event)
