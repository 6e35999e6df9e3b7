"""Ties the Changes tab to the graph and the Inbox inside one window.

- the nodes not seen yet are marked on the canvas, and a live change makes its node pulse;
- opening a node in the graph marks it seen;
- staged skill creations and memory additions (the Inbox's listing, from ``pending_list``)
  are ghost nodes on the canvas, and clicking one opens its Inbox item.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel

if TYPE_CHECKING:
    from ..main_window import MainWindow


def ghost_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The staged writes that would add a node: a new skill, or a memory addition."""
    ghosts = []
    for item in items:
        if item.get("broken"):
            continue
        if item.get("kind") == "skill" and item.get("action") == "create":
            ghosts.append(item)
        elif item.get("kind") == "memory" and (
            item.get("action") == "add" or any(op.get("action") == "add" for op in item.get("ops") or [])
        ):
            ghosts.append(item)
    return ghosts


def open_inbox_item(window: MainWindow, pending_id: str) -> bool:
    """Show the Inbox with that staged write selected; False if it left the queue."""
    inbox = window.inbox
    row = inbox.model.row_of(pending_id)
    window.set_view("inbox")
    if row < 0:
        window.statusBar().showMessage(f"That staged write ({pending_id}) is no longer waiting.", 8000)
        return False
    index = inbox.model.index(row)
    inbox.list.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
    inbox.list.scrollTo(index)
    return True


def show_in_graph(window: MainWindow, ref: str) -> None:
    view = window.graph.view
    index = view.overlays.node_index(ref)
    window.set_view("graph")
    if index is None or view.data is None:
        window.graph.message.show_message("That node is not in the graph now (archived, removed or filtered out).")
        return
    window.graph.open_node(view.data.ids[index])


def connect(window: MainWindow) -> None:
    changes, graph, inbox = window.changes, window.graph, window.inbox
    overlays = graph.view.overlays
    changes.sig_marks.connect(overlays.set_marks)
    changes.sig_pulse.connect(overlays.pulse)
    changes.sig_show.connect(lambda ref: show_in_graph(window, ref))
    graph.view.sig_node_clicked.connect(changes.mark_seen)
    graph.view.sig_node_activated.connect(changes.mark_seen)
    inbox.sig_loaded.connect(lambda: overlays.set_ghosts(ghost_items(inbox.model.items)))
    overlays.sig_ghost_clicked.connect(lambda pending_id: open_inbox_item(window, pending_id))
    overlays.set_marks(changes.unseen)
    overlays.set_ghosts(ghost_items(inbox.model.items))
