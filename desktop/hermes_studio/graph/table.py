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
from PySide6.QtCore import QAbstractTableModel, QItemSelection, QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from .model import GraphData, format_date, source_label

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
        self._keys: dict[int, np.ndarray] = {}
        self._order: np.ndarray | None = None  # every node, in the sort order

    # --- what is shown ---------------------------------------------------------------------
    def set_graph(self, data: GraphData, mask: np.ndarray) -> None:
        """A new snapshot (its sort keys are computed again, lazily)."""
        self.beginResetModel()
        self.data_ = data
        self._keys, self._order = {}, None
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
            _name, _header, kind, value, _text = COLUMNS[column]
            assert self.data_ is not None
            nodes = self.data_.nodes
            if kind == _NUMBER:
                key = np.fromiter((value(node) for node in nodes), dtype=np.float64, count=len(nodes))
            else:
                texts = np.array([value(node).casefold() for node in nodes], dtype=str)
                key = np.unique(texts, return_inverse=True)[1].reshape(-1).astype(np.float64)
            self._keys[column] = key
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

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.data_ is None or index.row() >= len(self.rows):
            return None
        node = self.data_.nodes[int(self.rows[index.row()])]
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return column[4](node)
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

    def ordered_ids(self) -> list[str]:
        """The shown ids in table order (the order of search results too)."""
        if self.data_ is None:
            return []
        ids = self.data_.ids
        return [ids[i] for i in self.rows.tolist()]


class NodeTable(QTableView):
    """The table widget: rows selected with click, Ctrl/Shift-click and Ctrl+A."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphTable")
        self.setAccessibleName("Skills and memory cards")
        self.table_model = NodeTableModel(self)
        self.setModel(self.table_model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
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
        """The selected rows' node ids, read range by range (no per-row index objects)."""
        model = self.table_model
        if model.data_ is None:
            return []
        ids = model.data_.ids
        found: list[str] = []
        for selection_range in self.selectionModel().selection():
            rows = model.rows[selection_range.top() : selection_range.bottom() + 1]
            found.extend(ids[i] for i in rows.tolist())
        return found

    def show_selection(self, node_ids: list[str], current: str | None) -> None:
        """Select exactly these nodes' rows (contiguous rows as one range) and make
        ``current``'s row the current one, scrolled into view."""
        model = self.table_model
        selection = QItemSelection()
        if model.data_ is not None and node_ids:
            index = model.data_.index
            nodes = np.fromiter((index.get(i, -1) for i in node_ids), dtype=np.int64, count=len(node_ids))
            rows = model.row_of[nodes[nodes >= 0]]
            rows = np.unique(rows[rows >= 0])
            if len(rows):
                breaks = np.flatnonzero(np.diff(rows) != 1)
                starts = rows[np.r_[0, breaks + 1]].tolist()
                ends = rows[np.r_[breaks, len(rows) - 1]].tolist()
                last = model.columnCount() - 1
                for start, end in zip(starts, ends, strict=True):
                    selection.select(model.index(start, 0), model.index(end, last))
        selection_model = self.selectionModel()
        flags = QItemSelectionModel.SelectionFlag
        selection_model.select(selection, flags.ClearAndSelect)
        row = model.row_for(current)
        if row >= 0:
            current_index = model.index(row, 0)
            selection_model.setCurrentIndex(current_index, flags.NoUpdate)
            self.scrollTo(current_index)
        elif selection_model.currentIndex().isValid():
            selection_model.setCurrentIndex(QModelIndex(), flags.NoUpdate)
