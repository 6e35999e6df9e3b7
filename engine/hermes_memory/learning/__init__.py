"""The learning graph: what the agent has learned (learned skills and memory entries),
as the upstream ``build_learning_graph`` payload, and the node actions behind it.

Modules: ``graph`` (:func:`build_learning_graph`, :class:`GraphBuilder`), ``edges``
(relations, memory-skill matching, density stats), ``memory_cards`` (cards and node
ids), ``mutations`` (node detail/edit/delete/pin/unpin/restore) and ``commands``.
"""

import importlib
from typing import Any

# Names load their module on first use (PEP 562): building the graph needs neither the
# node mutations nor what they import.
_HOMES = {
    "GraphBuilder": "graph", "build_learning_graph": "graph",
    "delete_node": "mutations", "edit_node": "mutations", "node_detail": "mutations",
    "parse_node_kind": "mutations", "pin_node": "mutations", "restore_node": "mutations",
    "unpin_node": "mutations",
}


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


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
