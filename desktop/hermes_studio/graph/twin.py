"""The table beside the canvas, one selection for both, search results and bulk actions.

:class:`TableTwin` is installed on a :class:`~.panel.GraphPanel` and wires, in one place:

* the :class:`~.selection.Selection` both views write and follow: a click, Ctrl-click or
  Shift-drag lasso on the canvas, a click, Ctrl/Shift-click or Ctrl+A in the table; the
  details pane shows the current node. What the filters hide stays selected, unseen: both
  views show the shown part, it comes back when the filter is relaxed, and bulk actions act
  on the shown part and say how many they leave out;
* a right-click on a node, as in a file manager: on a selected node it keeps the selection
  (the context menu acts on it), on another node it selects just that one;
* the layout (Graph, Table or Both, remembered by the window);
* the search's results in table order, stepped through with F3 / Shift+F3 (each one
  selected and brought into view in both) and "Select all results";
* the bulk actions (:mod:`.bulk`): one question, one engine call, one Undo.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QObject, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QButtonGroup, QLabel, QSplitter, QToolButton

from . import bulk as bulk_actions
from .lasso import Lasso, SelectionMarks
from .selection import Selection
from .table import NodeTable

if TYPE_CHECKING:
    from .panel import GraphPanel

LAYOUTS = ("graph", "table", "both")
LAYOUT_LABELS = {"graph": "Graph", "table": "Table", "both": "Both"}
#: A result revealed on the canvas is centred when it lies outside this share of the view.
REVEAL_MARGIN = 0.1


class TableTwin(QObject):
    def __init__(self, panel: GraphPanel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.view = view = panel.view
        self.selection = Selection(self)
        self.table = NodeTable(self.selection)
        self.model = self.table.table_model
        self.lasso = Lasso(view)
        self.marks = SelectionMarks(view)
        self.layout = "graph"
        self.busy = False  # a bulk action is on the writer thread
        self._applying = False
        self._following = False
        self._details_due = False
        self._build_widgets()
        self._connect()
        self.set_layout("graph")

    # --- widgets ---------------------------------------------------------------------------
    def _build_widgets(self) -> None:
        panel = self.panel
        self.canvas_split = QSplitter(Qt.Orientation.Vertical)
        self.canvas_split.setObjectName("graphCanvasSplit")
        panel.splitter.replaceWidget(panel.splitter.indexOf(panel.pages), self.canvas_split)
        self.canvas_split.addWidget(panel.pages)
        self.canvas_split.addWidget(self.table)
        self.canvas_split.setChildrenCollapsible(False)
        self.canvas_split.setSizes([420, 280])

        self.layout_buttons: dict[str, QToolButton] = {}
        group = QButtonGroup(self)
        bar = panel.top_bar.layout()
        bar.insertSpacing(2, 8)
        for position, name in enumerate(LAYOUTS, start=3):
            button = QToolButton()
            button.setText(LAYOUT_LABELS[name])
            button.setCheckable(True)
            button.setToolTip({"graph": "The canvas only", "table": "The table only",
                               "both": "The canvas above the table"}[name])
            button.toggled.connect(lambda on, n=name: on and self.set_layout(n))
            group.addButton(button)
            bar.insertWidget(position, button)
            self.layout_buttons[name] = button
        self.results_label = QLabel("")
        self.results_label.setObjectName("searchResults")
        self.previous_button, self.next_button = QToolButton(), QToolButton()
        self.previous_button.setText("◀")
        self.previous_button.setToolTip("Previous result (Shift+F3)")
        self.next_button.setText("▶")
        self.next_button.setToolTip("Next result (F3)")
        self.select_results_button = QToolButton()
        self.select_results_button.setText("Select all")
        self.select_results_button.setToolTip("Select every result of the search")
        at = bar.indexOf(panel.search) + 1
        for offset, widget in enumerate((self.results_label, self.previous_button, self.next_button,
                                         self.select_results_button)):
            bar.insertWidget(at + offset, widget)
        self.previous_button.clicked.connect(lambda: self.step_result(-1))
        self.next_button.clicked.connect(lambda: self.step_result(1))
        self.select_results_button.clicked.connect(self.select_all_results)
        panel.archived_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)

    def _connect(self) -> None:
        view, table = self.view, self.table
        view.sig_node_clicked.disconnect(self.panel._node_clicked)  # the selection decides now
        view.sig_node_clicked.connect(self.selection.select_only)
        view.sig_node_toggled.connect(self.selection.toggle)
        view.sig_current.connect(self._graph_current)
        view.sig_context.connect(lambda node_id, _pos: self.context_clicked(node_id))  # before the menu
        self.lasso.sig_lasso.connect(self._lassoed)
        self.model.modelAboutToBeReset.connect(self._reset_starts)
        self.model.modelReset.connect(self._reset_done)
        table.doubleClicked.connect(self._table_activated)
        self.selection.sig_changed.connect(self._apply)
        self.panel.search.textChanged.connect(lambda _text: self._update_results())

    # --- the layout ------------------------------------------------------------------------
    def set_layout(self, name: str) -> None:
        if name not in LAYOUTS:
            name = "graph"
        self.layout = name
        self.panel.pages.setVisible(name != "table")
        self.table.setVisible(name != "graph")
        button = self.layout_buttons[name]
        if not button.isChecked():
            button.setChecked(True)
        if name != "graph":
            self.table.show_selection(self.selection.ids, self.selection.current)

    # --- following the graph ---------------------------------------------------------------
    def graph_changed(self) -> None:
        """The panel showed a new snapshot or applied filters: follow both."""
        data, mask = self.panel.data, self.panel.mask
        if data is None:
            return
        self._following = True  # the selection is put back once, below
        try:
            if data is not self.model.data_:
                self.model.set_graph(data, mask)
            else:
                self.model.set_mask(mask)
        finally:
            self._following = False
        index = data.index
        self.selection.retain(index.__contains__)  # what left the home; hidden ones stay
        self._apply()

    # --- one selection, both ways ------------------------------------------------------------
    def _shown(self, node_id: str | None) -> bool:
        data, mask = self.panel.data, self.panel.mask
        position = data.index.get(node_id) if data is not None and node_id is not None else None
        return position is not None and position < len(mask) and bool(mask[position])

    def shown_selection(self) -> list[str]:
        """The selected nodes the filters show (the part both views draw)."""
        return [node_id for node_id in self.selection.ids if self._shown(node_id)]

    def hidden_count(self) -> int:
        """How many selected nodes the filters hide now."""
        return len(self.selection) - len(self.shown_selection())

    def shown_current(self) -> str | None:
        current = self.selection.current
        return current if self._shown(current) else None

    def context_clicked(self, node_id: str) -> None:
        """A right-click on ``node_id``: a selected node keeps the selection (and becomes
        current), any other node becomes the selection, as in a file manager."""
        if node_id in self.selection:
            self.selection.set_current(node_id)
        else:
            self.selection.select_only(node_id)

    def _apply(self) -> None:
        ids, current = self.selection.ids, self.selection.current
        self._applying = True
        try:
            self.view.select(current)
            self.marks.show(ids)
            self.table.show_selection(ids, current)
        finally:
            self._applying = False
        self._update_results()
        if len(self.selection) <= 1:  # a click: at once, as the canvas always did
            self._follow_details()
        elif not self._details_due:  # a lasso or a range: once the burst of changes is over
            self._details_due = True
            QTimer.singleShot(0, self, self._follow_details)

    def _follow_details(self) -> None:
        self._details_due = False  # (also when called at once: a pending one is then moot)
        panel, current = self.panel, self.shown_current()
        if not panel._alive():
            return
        if current is None:  # nothing selected, or the current node is filtered out
            if panel.details.node_id() is not None:
                panel.details.clear()
        else:
            if len(self.selection) == 1:  # one node picked: with the local graph on, its new centre
                panel._move_local_graph(current)
            if current != panel.details.node_id():
                panel._show_details(current)

    def _graph_current(self, node_id: str | None) -> None:
        if not self._applying and node_id is not None:
            self.selection.set_current(node_id)

    def _lassoed(self, ids: list[str], add: bool) -> None:
        if add:
            self.selection.add(ids)
        else:
            self.selection.set(ids)

    def _table_activated(self, index: QModelIndex) -> None:
        node_id = self.model.node_id(index.row())
        if node_id is not None:
            self.panel._node_activated(node_id)

    def _reset_starts(self) -> None:
        self._applying = True

    def _reset_done(self) -> None:  # after a sort: the rows moved, the selection did not
        try:
            if not self._following:
                self.table.show_selection(self.selection.ids, self.selection.current)
        finally:
            self._applying = False

    # --- search results ---------------------------------------------------------------------
    def results(self) -> list[str]:
        """The search's matches that are shown, in table order; none without a search."""
        if not self.panel.state.query.strip():
            return []
        return self.model.ordered_ids()

    def step_result(self, delta: int) -> str | None:
        """Select the next (``delta`` 1) or previous (-1) result and bring it into view."""
        results = self.results()
        if not results:
            self.panel.message.show_message("Type a search first: F3 steps through its results.")
            return None
        current = self.selection.current
        at = results.index(current) if current in results else (-1 if delta > 0 else 0)
        node_id = results[(at + delta) % len(results)]
        self.selection.select_only(node_id)
        self.reveal(node_id)
        return node_id

    def select_all_results(self) -> None:
        ids = self.results() or self.model.ordered_ids()
        self.selection.set(ids, ids[0] if ids else None)

    def reveal(self, node_id: str) -> None:
        """Centre the canvas on the node when it lies near or past the edge of the view."""
        view = self.view
        if view.data is None or node_id not in view.data.index:
            return
        x, y = view.pos[view.data.index[node_id]]
        rect = view.vb.viewRect()
        inner = rect.adjusted(rect.width() * REVEAL_MARGIN, rect.height() * REVEAL_MARGIN,
                              -rect.width() * REVEAL_MARGIN, -rect.height() * REVEAL_MARGIN)
        if not inner.contains(float(x), float(y)):
            centre = rect.center()
            view.vb.translateBy(x=float(x) - centre.x(), y=float(y) - centre.y())

    def _update_results(self) -> None:
        results = self.results()
        shown = bool(self.panel.state.query.strip())
        for widget in (self.results_label, self.previous_button, self.next_button, self.select_results_button):
            widget.setVisible(shown)
        if not shown:
            return
        current = self.selection.current
        if current is not None and self.model.row_for(current) >= 0 and len(self.shown_selection()) == 1:
            self.results_label.setText(f"{results.index(current) + 1:,} of {len(results):,}")
        else:
            self.results_label.setText(f"{len(results):,} result{'' if len(results) == 1 else 's'}")

    # --- bulk actions --------------------------------------------------------------------------
    def selected_nodes(self) -> list[dict[str, Any]]:
        """The payload nodes of the shown part of the selection (what bulk actions act on)."""
        data = self.panel.data
        if data is None:
            return []
        return [node for node in map(data.node, self.shown_selection()) if node is not None]

    def archived_selected(self) -> list[str]:
        return [str(item.data(Qt.ItemDataRole.UserRole)) for item in self.panel.archived_list.selectedItems()]

    def plan(self, action: str) -> bulk_actions.BulkPlan:
        if action == "restore":
            return bulk_actions.plan(action, [{"id": n, "label": n} for n in self.archived_selected()])
        return bulk_actions.plan(action, self.selected_nodes(), hidden=self.hidden_count())

    def can_bulk(self, action: str) -> bool:
        """Whether ``action`` would change anything (asked on every menu refresh: stops at
        the first node it applies to)."""
        if self.busy:
            return False
        if action == "restore":
            return bool(self.panel.archived_list.selectedItems())
        return any(bulk_actions.applies(action, node) for node in self.selected_nodes())

    def bulk(self, action: str, *, confirm: bool = True) -> bool:
        """Ask once, then run ``action`` on the selection as one engine batch; False if
        nothing was started."""
        panel = self.panel
        plan = self.plan(action)
        if not plan.targets:
            reasons = sorted({why for _label, why in plan.skipped})
            if plan.hidden:
                reasons.append(bulk_actions.hidden_text(plan.hidden))
            detail = f" ({'; '.join(reasons)})" if reasons else ""
            what = "Nothing shown and selected" if plan.hidden else "Nothing selected"
            panel.message.show_message(f"{what} can be {bulk_actions.PAST[action]}{detail}.", error=True)
            return False
        if self.busy or (confirm and not bulk_actions.confirm_bulk(panel, plan)):
            return False
        method, params = bulk_actions.engine_call(plan)
        self.busy = True
        panel.busy_label.setText(f"{bulk_actions.VERBS[action]}: {plan.noun}…")

        def done(result: dict) -> None:
            self.busy = False
            if not panel._alive():
                return
            panel.busy_label.setText("")
            result = dict(result)
            steps = bulk_actions.undo_steps(plan, result) if result.get("ok") else None
            if steps is not None:
                result["undo"], result["redo"] = steps
            note = f" — {bulk_actions.hidden_text(plan.hidden)}" if plan.hidden and result.get("ok") else ""
            panel.message.show_message(f"{result.get('message')}{note}", error=not result.get("ok"),
                                       undo=steps[0] if steps else None)
            panel.sig_action_done.emit(result)

        if panel.workspace.call(method, params, done, write=bulk_actions.write_kind(plan)) is None:
            self.busy = False
            return False
        return True


# --- the actions, declared once in the window's registry ---------------------------------------
SELECTION_MENU = [
    "selection.next_result", "selection.previous_result", "selection.all_results", None,
    "selection.pin", "selection.unpin", "selection.archive", "selection.restore", "selection.delete",
    None, "view.layout.graph", "view.layout.table", "view.layout.both",
]


def install_commands(registry: Any, twin: TableTwin, graph_shown: Any) -> None:
    """Add the selection's commands (menus, palette, shortcuts) to ``registry``."""
    from ..commands import Command

    add = registry.add
    searching = lambda: graph_shown() and bool(twin.panel.state.query.strip())  # noqa: E731
    add(Command("selection.next_result", "&Next result", lambda: twin.step_result(1), ["F3"],
                enabled=searching, tip="Select the next match of the search and bring it into view"))
    add(Command("selection.previous_result", "&Previous result", lambda: twin.step_result(-1),
                ["Shift+F3"], enabled=searching, tip="Select the previous match of the search"))
    add(Command("selection.all_results", "Select all &results", twin.select_all_results,
                ["Ctrl+Shift+A"], enabled=lambda: graph_shown() and twin.model.rowCount() > 0,
                tip="Select every node the search and filters show"))
    names = {"pin": "&Pin selected skills…", "unpin": "&Unpin selected skills…",
             "archive": "&Archive selected skills…", "restore": "Re&store ticked archived skills…",
             "delete": "&Delete selected memories…"}
    tips = {"pin": "Pin every selected skill of your own, after one question (one Undo)",
            "unpin": "Unpin every selected pinned skill (one Undo)",
            "archive": "Archive every selected unpinned skill to skills/.archive (one Undo)",
            "restore": "Restore the skills selected under Archived skills (one Undo)",
            "delete": "Delete every selected memory entry from its file (one Undo)"}
    for action, name in names.items():
        add(Command(f"selection.{action}", name, lambda a=action: twin.bulk(a),
                    enabled=lambda a=action: graph_shown() and twin.can_bulk(a), tip=tips[action],
                    keywords=("bulk", "many", "selection")))
    for layout in LAYOUTS:
        add(Command(f"view.layout.{layout}", f"Show: {LAYOUT_LABELS[layout]}",
                    lambda n=layout: twin.set_layout(n), checked=lambda n=layout: twin.layout == n,
                    tip={"graph": "Show the canvas only", "table": "Show the table only",
                         "both": "Show the canvas above the table"}[layout]))
    # F3 and the others are enabled by the search: a disabled action's shortcut never fires
    twin.panel.search.textChanged.connect(lambda _text: registry.refresh())
