"""The listed staged writes: a plain list of the engine's item dicts behind a Qt list model."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

ItemRole = Qt.ItemDataRole.UserRole + 1
Index = QModelIndex | QPersistentModelIndex


def age_text(seconds: float | None) -> str:
    """``"just now"``, ``"5 min ago"``, ``"3 h ago"``, ``"2 days ago"``; ``"age unknown"``."""
    if seconds is None:
        return "age unknown"
    minutes = int(seconds // 60)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} min ago"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h ago"
    return f"{hours // 24} days ago"


def state_text(item: dict[str, Any]) -> str:
    """What stands in the way of approving it, in a few words ('' when nothing does)."""
    if item.get("broken"):
        return "broken"
    if item.get("stale"):
        return "stale"
    if item.get("failed"):
        return "refused before"
    if item.get("refusal"):
        return "would be refused"
    return ""


def current_age(item: dict[str, Any]) -> float | None:
    """Seconds since it was staged, now (the listing's ``age_seconds`` grows stale)."""
    created = item.get("created_at")
    if not isinstance(created, (int, float)) or created <= 0:
        return None
    return max(0.0, time.time() - created)


def caption(item: dict[str, Any]) -> str:
    """The list's line: what it does, then memory/skill, origin and age."""
    kind = "Memory" if item.get("kind") == "memory" else "Skill"
    state = state_text(item)
    flag = f"  ⚠ {state}" if state else ""
    return (
        f"{item.get('summary') or item.get('id')}{flag}\n"
        f"{kind} · {item.get('origin_label')} · {age_text(current_age(item))}"
    )


class InboxModel(QAbstractListModel):
    """Rows are the engine's items, oldest first, exactly as ``pending_list`` gave them."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.items: list[dict[str, Any]] = []

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self.items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.items):
            return None
        item = self.items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return caption(item)
        if role == Qt.ItemDataRole.ToolTipRole:
            reason = item.get("broken_reason") or item.get("stale_reason") or item.get("refusal")
            return f"{item.get('id')}: {reason}" if reason else str(item.get("id"))
        if role == ItemRole:
            return item
        return None

    def set_items(self, items: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.items = list(items)
        self.endResetModel()

    def refresh_ages(self) -> None:
        if self.items:
            self.dataChanged.emit(self.index(0), self.index(len(self.items) - 1))

    def ids(self) -> list[str]:
        return [str(item["id"]) for item in self.items]

    def row_of(self, pending_id: str) -> int:
        return next((row for row, item in enumerate(self.items) if item["id"] == pending_id), -1)
