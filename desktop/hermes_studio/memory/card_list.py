"""The scrolling column of entry cards, kept in the document's order.

Card widgets are reused by uid, so a card keeps its cursor and focus while the document
changes around it. The editor wires each new card's signals and owns which cards are ticked
and which is current; this column only shows them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from .card import EntryCard
from .model import Card


class CardList(QScrollArea):
    """The editor's cards, one under another, or a hint when there are none."""

    def __init__(self, wire: Callable[[EntryCard], None], parent: QWidget | None = None):
        super().__init__(parent)
        self._wire = wire  # connects a new card to the editor
        self.cards: dict[int, EntryCard] = {}
        self.cards_widget = QWidget(self)
        self.cards_widget.setObjectName("cardsArea")
        self.cards_layout = QVBoxLayout(self.cards_widget)
        self.cards_layout.setContentsMargins(4, 4, 8, 4)
        self.cards_layout.setSpacing(8)
        self.empty_label = QLabel(
            "No entries yet. Press Ctrl+N (or “New entry”) to write the first one.", self
        )
        self.empty_label.setObjectName("emptyState")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cards_layout.addWidget(self.empty_label)
        self.cards_layout.addStretch(1)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(self.cards_widget)

    def sync(self, states: Sequence[Card], selected: set[int]) -> None:
        """Make the card widgets match the document (reusing widgets by uid)."""
        wanted = [card.uid for card in states]
        for uid in list(self.cards):
            if uid not in wanted:
                widget = self.cards.pop(uid)
                widget.hide()
                self.cards_layout.removeWidget(widget)
                widget.deleteLater()
        # Take every card out and put them back in document order.
        for uid in wanted:
            if uid in self.cards:
                self.cards_layout.removeWidget(self.cards[uid])
        for position, card_state in enumerate(states):
            widget = self.cards.get(card_state.uid)
            if widget is None:
                widget = EntryCard(card_state.uid, card_state.text, self.cards_widget)
                self._wire(widget)
                self.cards[card_state.uid] = widget
            else:
                widget.set_text(card_state.text)
            widget.set_number(position + 1, len(wanted))
            widget.set_selected(card_state.uid in selected)
            self.cards_layout.insertWidget(position + 1, widget)  # after the empty label
            widget.show()
        self.empty_label.setVisible(not wanted)

    def restore_scroll(self, value: int) -> None:
        """Scroll back to ``value`` after the cards were replaced."""
        bar = self.verticalScrollBar()
        self.cards_widget.adjustSize()
        bar.setValue(value)
        QTimer.singleShot(0, self, lambda: bar.setValue(value))  # again, after the layout pass
