"""The questions the graph tab asks before a destructive action.

Each names its action on the button ("Archive", "Delete"), has Cancel as the default (so
Enter or Escape never destroys anything), and says how to get the thing back.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget


def confirm(parent: QWidget | None, title: str, text: str, action: str) -> bool:
    """Ask ``text``; True only if the person pressed the ``action`` button."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(title)
    box.setInformativeText(text)
    go = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    go.setAccessibleName(action)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    box.exec()
    return box.clickedButton() is go


def confirm_archive(parent: QWidget, node_id: str) -> bool:
    return confirm(
        parent,
        f"Archive {node_id}?",
        f"The skill is moved to skills/.archive and can be restored: use Undo right after, "
        f"“Archived skills” in the side panel, or `hermes curator restore {node_id}`.",
        "Archive",
    )


def confirm_delete(parent: QWidget, node_id: str, node: dict[str, Any] | None) -> bool:
    """Ask before deleting a memory entry; ``node`` (the payload's, when known) names it and its file."""
    return confirm(
        parent,
        "Delete this memory?",
        f"“{node.get('label') if node else node_id}” is removed from "
        f"{node.get('file') if node else 'its file'}. You can undo it right after.",
        "Delete",
    )
