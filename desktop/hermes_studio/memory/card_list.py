"""The scrolling column of entry cards, kept in the document's order.

Card widgets are reused by uid, so a card keeps its cursor and focus while the document
changes around it. The editor wires each new card's signals and owns which cards are ticked
and which is current; this column only shows them.

Cards are reordered by dragging their grip: the column draws where the card would land,
scrolls near its edges, and reports the drop as ``sig_dropped(uid, index)``; the editor
makes the (undoable) move. A drag only lands in the column it started from.

Card widgets are costly (a text editor, a highlighter, a dozen child widgets each), so a
window that is on screen never builds them all in one go: while the column is hidden (the
Memory tab not shown yet) new cards wait, and once it shows they arrive a few at a time
per turn of the event loop (``sig_built`` says when the column is complete). Outside a
shown window (a widget being set up, or under test) they are built at once.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QByteArray, QEvent, QMimeData, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QDrag, QShowEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from .card import EntryCard
from .model import Card

#: The drag's payload type: "<column id>:<card uid>".
ENTRY_MIME = "application/x-hermes-studio-entry"
#: Within this many pixels of the column's top or bottom, a drag scrolls it.
AUTOSCROLL_MARGIN = 32
_column_ids = itertools.count(1)
#: How long one turn of the event loop may spend making card widgets (keeps the UI fluid).
BUILD_SLICE_MS = 12
EMPTY_HINT = "No entries yet. Press Ctrl+N (or “New entry”) to write the first one."


class CardList(QScrollArea):
    """The editor's cards, one under another, or a hint when there are none."""

    sig_dropped = Signal(int, int)  # (uid, its index among the other cards)
    sig_built = Signal()  # cards that were waiting have all been made

    def __init__(
        self,
        wire: Callable[[EntryCard], None],
        parent: QWidget | None = None,
        *,
        current: Callable[[], tuple[Sequence[Card], set[int]]] | None = None,
    ):
        super().__init__(parent)
        self._wire = wire  # connects a new card to the editor
        # the document's cards and ticks now: waiting cards are made from these, never from
        # an older sync (whose texts would overwrite what was typed since)
        self._current = current
        self._column_id = next(_column_ids)
        self.cards: dict[int, EntryCard] = {}
        self.cards_widget = QWidget(self)
        self.cards_widget.setObjectName("cardsArea")
        self.cards_widget.setAcceptDrops(True)
        self.cards_widget.installEventFilter(self)
        self.drop_marker = QFrame(self.cards_widget)
        self.drop_marker.setObjectName("dropMarker")
        self.drop_marker.setFixedHeight(3)
        self.drop_marker.hide()
        self.cards_layout = QVBoxLayout(self.cards_widget)
        self.cards_layout.setContentsMargins(4, 4, 8, 4)
        self.cards_layout.setSpacing(8)
        self.empty_label = QLabel(EMPTY_HINT, self)
        self.empty_label.setObjectName("emptyState")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cards_layout.addWidget(self.empty_label)
        self.cards_layout.addStretch(1)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(self.cards_widget)
        self._states: Sequence[Card] = ()
        self._selected: set[int] = set()
        self._waiting = False  # some cards of the document have no widget yet
        self._build_timer = QTimer(self)
        self._build_timer.setSingleShot(True)
        self._build_timer.setInterval(0)
        self._build_timer.timeout.connect(self._build_more)

    @property
    def complete(self) -> bool:
        """Whether every card of the document has its widget."""
        return not self._waiting

    def ensure_built(self) -> None:
        """Make every waiting card now (a caller needs them all)."""
        if self._waiting:
            self._sync(*self._latest(), budget=None)

    def _latest(self) -> tuple[Sequence[Card], set[int]]:
        return self._current() if self._current is not None else (self._states, self._selected)

    def _budget(self) -> float | None:
        """Seconds this turn may spend making cards (at least one card is made): None for
        no limit, negative to make none yet."""
        if not self.window().isVisible():
            return None  # nothing is on screen to keep fluid
        if not self.isVisible():
            return -1.0  # made when the column shows
        return BUILD_SLICE_MS / 1000

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self._waiting:  # the first cards before the first paint, the rest turn by turn
            self._build_more()

    def _build_more(self) -> None:
        if self._waiting:
            self._sync(*self._latest(), budget=self._budget())

    def sync(self, states: Sequence[Card], selected: set[int]) -> None:
        """Make the card widgets match the document (reusing widgets by uid); cards without
        a widget yet may be made over the next turns of the event loop (see the module)."""
        self._sync(states, selected, budget=self._budget())

    def _sync(self, states: Sequence[Card], selected: set[int], budget: float | None) -> None:
        self._states, self._selected = tuple(states), set(selected)
        was_waiting = self._waiting
        deadline = None if budget is None else time.perf_counter() + budget
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
        slot = 1  # after the empty label
        made = 0
        self._waiting = False
        for position, card_state in enumerate(states):
            widget = self.cards.get(card_state.uid)
            if widget is None:
                # at least one card per turn, so that the column always makes progress
                out_of_time = budget is not None and (
                    budget < 0 or (made > 0 and time.perf_counter() > deadline)
                )
                if out_of_time:
                    self._waiting = True
                    continue
                widget = EntryCard(card_state.uid, card_state.text, self.cards_widget)
                self._wire(widget)
                self.cards[card_state.uid] = widget
                made += 1
            else:
                widget.set_text(card_state.text)
            widget.set_number(position + 1, len(wanted))
            widget.set_selected(card_state.uid in selected)
            self.cards_layout.insertWidget(slot, widget)
            slot += 1
            widget.show()
        self.empty_label.setVisible(not wanted)
        if self._waiting:
            if self.isVisible():
                self._build_timer.start()
        elif was_waiting:
            self.sig_built.emit()

    def set_empty_text(self, text: str | None) -> None:
        """What the column says when it has no cards (``None``: the usual hint)."""
        self.empty_label.setText(text or EMPTY_HINT)

    def restore_scroll(self, value: int) -> None:
        """Scroll back to ``value`` after the cards were replaced."""
        bar = self.verticalScrollBar()
        self.cards_widget.adjustSize()
        bar.setValue(value)
        QTimer.singleShot(0, self, lambda: bar.setValue(value))  # again, after the layout pass

    # --- dragging cards -------------------------------------------------------------------
    def start_drag(self, uid: int) -> None:
        """Drag the card ``uid`` (from its grip); returns when the drag ends."""
        card = self.cards.get(uid)
        if card is None:
            return
        mime = QMimeData()
        mime.setData(ENTRY_MIME, QByteArray(f"{self._column_id}:{uid}".encode()))
        drag = QDrag(card)
        drag.setMimeData(mime)
        picture = card.grab()
        drag.setPixmap(picture.scaledToWidth(min(picture.width(), 360), Qt.TransformationMode.SmoothTransformation))
        drag.exec(Qt.DropAction.MoveAction)
        self.drop_marker.hide()

    def dragged_uid(self, mime: QMimeData) -> int | None:
        """The uid a drag carries, if it started in this column."""
        if not mime.hasFormat(ENTRY_MIME):
            return None
        column, _, uid = bytes(mime.data(ENTRY_MIME).data()).decode(errors="replace").partition(":")
        if column != str(self._column_id) or not uid.isdigit() or int(uid) not in self.cards:
            return None
        return int(uid)

    def drop_index(self, uid: int, y: float) -> int:
        """Where a card dropped at height ``y`` (in the column's coordinates) goes, as an
        index among the other cards: before the first card whose middle is below ``y``."""
        others = [card for key, card in self._in_order() if key != uid]
        for index, card in enumerate(others):
            if y < card.geometry().center().y():
                return index
        return len(others)

    def _in_order(self) -> list[tuple[int, EntryCard]]:
        layout = self.cards_layout
        widgets = (layout.itemAt(i).widget() for i in range(layout.count()))
        return [(widget.uid, widget) for widget in widgets if isinstance(widget, EntryCard)]

    def _show_marker(self, uid: int, index: int) -> None:
        others = [card for key, card in self._in_order() if key != uid]
        spacing = self.cards_layout.spacing()
        if not others:
            self.drop_marker.hide()
            return
        if index < len(others):
            y = others[index].geometry().top() - spacing // 2 - 1
        else:
            y = others[-1].geometry().bottom() + spacing // 2
        first = others[0].geometry()
        self.drop_marker.setGeometry(first.left(), max(0, y), first.width(), 3)
        self.drop_marker.raise_()
        self.drop_marker.show()

    def _autoscroll(self, y: float) -> None:
        in_view = self.cards_widget.mapTo(self.viewport(), self.cards_widget.rect().topLeft()).y() + y
        bar = self.verticalScrollBar()
        if in_view < AUTOSCROLL_MARGIN:
            bar.setValue(bar.value() - bar.singleStep() * 2)
        elif in_view > self.viewport().height() - AUTOSCROLL_MARGIN:
            bar.setValue(bar.value() + bar.singleStep() * 2)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is not self.cards_widget:
            return super().eventFilter(watched, event)
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            uid = self.dragged_uid(event.mimeData())
            if uid is None:
                event.ignore()
                self.drop_marker.hide()
                return True
            y = event.position().y()
            index = self.drop_index(uid, y)
            event.setDropAction(Qt.DropAction.MoveAction)
            event.accept()
            if kind == QEvent.Type.Drop:
                self.drop_marker.hide()
                self.sig_dropped.emit(uid, index)
            else:
                self._show_marker(uid, index)
                self._autoscroll(y)
            return True
        if kind == QEvent.Type.DragLeave:
            self.drop_marker.hide()
            return True
        return super().eventFilter(watched, event)
