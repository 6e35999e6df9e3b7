"""The learning graph: what the agent has learned (learned skills and memory entries),
as the upstream ``build_learning_graph`` payload, and the node actions behind it.

Modules: ``graph`` (:func:`build_learning_graph`, :class:`GraphBuilder`), ``edges``
(relations, memory-skill matching, density stats), ``memory_cards`` (cards and node
ids), ``mutations`` (node detail/edit/delete/pin/unpin/restore) and ``commands``.
"""

from .graph import GraphBuilder, build_learning_graph
from .mutations import (
    delete_node,
    edit_node,
    node_detail,
    parse_node_kind,
    pin_node,
    restore_node,
    unpin_node,
)

__all__ = [
    "GraphBuilder",
    "build_learning_graph",
    "delete_node",
    "edit_node",
    "node_detail",
    "parse_node_kind",
    "pin_node",
    "restore_node",
    "unpin_node",
]
