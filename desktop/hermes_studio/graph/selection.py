"""The one selection of the graph tab, shared by the canvas and the table.

A set of node ids (in the order they were chosen) and the *current* node, the one the
details pane shows. The canvas and the table both write it and both follow it; neither
keeps a selection of its own that could drift. ``sig_changed`` fires once per change,
never for a call that changes nothing (which is what keeps the two views from echoing
each other).

It holds ids, not positions, and does not know the filters: a node a filter hides stays
selected (the views draw the shown part), so relaxing the filter brings it back selected.
Only nodes gone from the home leave it (:meth:`retain`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, Signal

_KEEP = object()


class Selection(QObject):
    sig_changed = Signal()  # the ids or the current node changed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ids: dict[str, None] = {}
        self.current: str | None = None

    # --- reading ---------------------------------------------------------------------------
    @property
    def ids(self) -> list[str]:
        return list(self._ids)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._ids

    def __len__(self) -> int:
        return len(self._ids)

    # --- changing --------------------------------------------------------------------------
    def set(self, ids: Iterable[str], current: object = _KEEP) -> None:
        """Select exactly ``ids``; ``current`` defaults to the present one when it stays
        selected, else the last id given (None for an empty selection)."""
        chosen = dict.fromkeys(ids)
        if current is _KEEP:
            current = self.current if self.current in chosen else (next(reversed(chosen)) if chosen else None)
        elif current is not None and current not in chosen:
            chosen[str(current)] = None
        if list(chosen) == list(self._ids) and current == self.current:
            return
        self._ids, self.current = chosen, current  # type: ignore[assignment]
        self.sig_changed.emit()

    def select_only(self, node_id: str | None) -> None:
        self.set([] if node_id is None else [node_id], node_id)

    def toggle(self, node_id: str) -> None:
        """Ctrl-click: add ``node_id`` (and make it current) or take it out."""
        if node_id in self._ids:
            rest = [i for i in self._ids if i != node_id]
            self.set(rest, self.current if self.current != node_id else (rest[-1] if rest else None))
        else:
            self.set([*self._ids, node_id], node_id)

    def add(self, ids: Iterable[str]) -> None:
        self.set([*self._ids, *ids])

    def set_current(self, node_id: str | None) -> None:
        if node_id == self.current:
            return
        if node_id is not None and node_id not in self._ids:
            self.select_only(node_id)
            return
        self.current = node_id
        self.sig_changed.emit()

    def clear(self) -> None:
        self.set([], None)

    def retain(self, keep: Callable[[str], bool]) -> None:
        """Keep only the ids ``keep`` accepts (the window drops those gone from the home)."""
        kept = [i for i in self._ids if keep(i)]
        if len(kept) != len(self._ids):
            self.set(kept, self.current if self.current in kept else None)
