"""The questions the graph tab asks before a destructive action; each says how to get the thing back."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget


def _yes(parent: QWidget, title: str, text: str) -> bool:
    answer = QMessageBox.question(
        parent,
        title,
        text,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Yes


def confirm_archive(parent: QWidget, node_id: str) -> bool:
    return _yes(
        parent,
        f"Archive {node_id}?",
        f"The skill is moved to skills/.archive and can be restored: use Undo right after, "
        f"“Archived skills” in the side panel, or `hermes curator restore {node_id}`.",
    )


def confirm_delete(parent: QWidget, node_id: str, node: dict[str, Any] | None) -> bool:
    """Ask before deleting a memory entry; ``node`` (the payload's, when known) names it and its file."""
    return _yes(
        parent,
        "Delete this memory?",
        f"“{node.get('label') if node else node_id}” is removed from "
        f"{node.get('file') if node else 'its file'}. You can undo it right after.",
    )
