"""The strip that shows one entry both the person and the agent changed, with the choices.

It appears above the cards once the person pauses (or presses Save), never taking focus from
the card being typed in; the card itself is marked "Conflict". Choosing is one undoable step.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from .banner import Banner
from .folding import Conflict


def _quote(texts: tuple[str, ...], width: int = 140) -> str:
    if not texts:
        return "<i>(removed)</i>"
    flat = " / ".join(" ".join(text.split()) for text in texts)
    flat = flat if len(flat) <= width else flat[: width - 1] + "…"
    return f"“{html.escape(flat)}”"


class ConflictBar(Banner):
    """The first pending conflict: what each side holds, and Keep mine / theirs / both."""

    sig_choice = Signal(object, str)  # (Conflict, "mine" | "theirs" | "both")

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAccessibleName("Conflict with the agent")
        self.conflict: Conflict | None = None

    def show_conflict(
        self, conflict: Conflict, count: int, numbers: dict[int, int], mine: tuple[str, ...]
    ) -> None:
        """Show ``conflict``; ``mine`` is what the person's cards hold now."""
        self.conflict = conflict
        item = conflict.item
        where = ", ".join(f"#{numbers[uid]}" for uid in conflict.uids if uid in numbers)
        mine_action, theirs_action = item.action.split("|")
        head = (
            f"<b>Conflict{f' in entry {where}' if where else ''}:</b> you {mine_action} "
            f"an entry the agent {theirs_action} on disk meanwhile."
        )
        if count > 1:
            head += f" (1 of {count} conflicts)"
        body = f"<br>Yours: {_quote(mine)}<br>On disk now: {_quote(item.theirs)}"
        if not item.mine:
            actions = [("Keep it removed", "mine"), ("Restore the agent's version", "theirs")]
        elif not item.theirs:
            actions = [("Keep yours", "mine"), ("Remove it, as the agent did", "theirs")]
        else:
            actions = [
                ("Keep yours", "mine"),
                ("Use the agent's version", "theirs"),
                ("Keep both", "both"),
            ]
        tips = {
            "mine": "Your text replaces the agent's version when you save",
            "theirs": "Take what is on disk now in place of your text (undo with Ctrl+Z)",
            "both": "Keep your text as a new entry beside the agent's version",
        }
        self.show_message(
            "warning",
            head + body,
            [
                (label, tips[choice], lambda _=False, c=choice: self._choose(c))
                for label, choice in actions
            ],
            closable=False,
        )

    def _choose(self, choice: str) -> None:
        if self.conflict is not None:
            self.sig_choice.emit(self.conflict, choice)
