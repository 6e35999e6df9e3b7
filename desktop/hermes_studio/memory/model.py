"""The editor's document: the entries it loaded (the base) and the person's cards.

Plain data behind a small QObject: a card is an immutable ``(uid, text, origins)``; every
change replaces the tuple of cards through a :class:`QUndoStack` command holding the state
before and after, so undo/redo cover add, edit, remove, reorder, merge and revert alike.
``origins`` records which base entries a card was made from (itself when loaded, several
after a merge, none when new); the engine uses it to tell an edit from an add + remove
when it merges the draft with changes made on disk. ``None`` lets the engine infer it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from hermes_memory.memory.edits import DraftEntry, prepare_draft
from hermes_memory.memory.scan import strip_invisible

if TYPE_CHECKING:
    from .folding import Fold

#: Typing in one card within this many seconds of the last keystroke is one undo step.
TYPING_MERGE_SECONDS = 1.5

_uids = itertools.count(1)


@dataclass(frozen=True)
class Card:
    uid: int
    text: str
    origins: tuple[str, ...] | None = None


def new_card(text: str = "", origins: tuple[str, ...] | None = None) -> Card:
    return Card(next(_uids), text, origins)


class _Snapshot(QUndoCommand):
    """One undoable step: the cards before and after."""

    def __init__(
        self,
        document: EntryDocument,
        before: tuple[Card, ...],
        after: tuple[Card, ...],
        label: str,
        typing_uid: int | None = None,
    ):
        super().__init__(label)
        self.document = document
        self.before = before
        self.after = after
        self.typing_uid = typing_uid
        self.stamp = time.monotonic()

    def redo(self) -> None:
        self.document._apply(self.after)

    def undo(self) -> None:
        self.document._apply(self.before)

    def id(self) -> int:
        return 1 if self.typing_uid is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 (Qt override)
        if not isinstance(other, _Snapshot) or other.typing_uid != self.typing_uid:
            return False
        if other.stamp - self.stamp > TYPING_MERGE_SECONDS:
            return False
        self.after = other.after
        self.stamp = other.stamp
        return True


class EntryDocument(QObject):
    """The cards of one editor and the base entries they were loaded from."""

    sig_structure_changed = Signal()  # cards added, removed or reordered (or all replaced)
    sig_text_changed = Signal(int)  # the uid of a card whose text changed
    sig_dirty_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.base: tuple[str, ...] = ()
        self.cards: tuple[Card, ...] = ()
        self.undo_stack = QUndoStack(self)
        self._dirty = False

    # --- reading ----------------------------------------------------------------------
    def texts(self) -> list[str]:
        return [card.text for card in self.cards]

    def drafts(self) -> list[DraftEntry]:
        return [DraftEntry(card.text, card.origins) for card in self.cards]

    def saved_form(self) -> list[str]:
        """The entries a save would write: stripped, no empties, no duplicates."""
        return prepare_draft(self.texts())

    @property
    def dirty(self) -> bool:
        return self._dirty

    def index_of(self, uid: int) -> int:
        for index, card in enumerate(self.cards):
            if card.uid == uid:
                return index
        raise KeyError(uid)

    def card(self, uid: int) -> Card:
        return self.cards[self.index_of(uid)]

    # --- loading (not undoable: the base itself changes) ------------------------------
    def load(self, entries: Sequence[str]) -> None:
        """Show ``entries`` as the clean state; history is cleared (it refers to old text)."""
        self.base = tuple(entries)
        self.undo_stack.clear()
        self._apply(tuple(new_card(text) for text in entries), force_structure=True)

    def adopt(self, base: Sequence[str], drafts: Iterable[DraftEntry]) -> None:
        """Take a new base and cards made against it (a merge the person keeps editing)."""
        self.base = tuple(base)
        self.undo_stack.clear()
        self._apply(
            tuple(new_card(d.text, d.origins) for d in drafts), force_structure=True
        )

    def rebase(self, saved: Sequence[str]) -> None:
        """After a save: ``saved`` is the new base; the cards keep their identity."""
        self.base = tuple(saved)
        by_text: dict[str, Card] = {}
        for card in self.cards:
            by_text.setdefault(card.text.strip(), card)
        cards = tuple(
            replace(by_text[text], text=text, origins=None) if text in by_text else new_card(text)
            for text in saved
        )
        self._apply(cards)

    def fold(self, fold: Fold) -> None:
        """Take the agent's changes (see :mod:`.folding`) into the cards and into every
        state of the undo history; the history's length and position stay as they were."""
        for index in range(self.undo_stack.count()):
            command = self.undo_stack.command(index)
            if isinstance(command, _Snapshot):
                command.before = fold.apply(command.before)
                command.after = fold.apply(command.after)
        self.base = tuple(fold.base)
        self._apply(fold.current)

    # --- edits (undoable) ---------------------------------------------------------------
    def _push(self, after: Sequence[Card], label: str, typing_uid: int | None = None) -> None:
        after = tuple(after)
        if after == self.cards:
            return
        self.undo_stack.push(_Snapshot(self, self.cards, after, label, typing_uid))

    def add_card(self, index: int | None = None, text: str = "") -> int:
        card = new_card(text, ())
        cards = list(self.cards)
        cards.insert(len(cards) if index is None else index, card)
        self._push(cards, "Add entry")
        return card.uid

    def set_text(self, uid: int, text: str) -> None:
        index = self.index_of(uid)
        if self.cards[index].text == text:
            return
        cards = list(self.cards)
        cards[index] = replace(cards[index], text=text)
        self._push(cards, "Edit entry", typing_uid=uid)

    def remove(self, uids: Iterable[int]) -> None:
        doomed = set(uids)
        count = sum(1 for card in self.cards if card.uid in doomed)
        if count:
            label = "Remove entry" if count == 1 else f"Remove {count} entries"
            self._push([c for c in self.cards if c.uid not in doomed], label)

    def move(self, uid: int, delta: int) -> bool:
        target = self.index_of(uid) + delta
        if delta == 0 or not 0 <= target < len(self.cards):
            return False
        return self.move_to(uid, target)

    def move_to(self, uid: int, index: int) -> bool:
        """Put one card at ``index`` among the others (clamped); False if nothing moved."""
        cards = list(self.cards)
        card = cards.pop(self.index_of(uid))
        cards.insert(max(0, min(index, len(cards))), card)
        if cards == list(self.cards):
            return False
        self._push(cards, "Move entry")
        return True

    def reorder(self, uids: Sequence[int]) -> None:
        """Put the cards in the order of ``uids`` (which must name every card once)."""
        by_uid = {card.uid: card for card in self.cards}
        if sorted(uids) != sorted(by_uid):
            raise ValueError("reorder needs every card exactly once")
        self._push([by_uid[uid] for uid in uids], "Reorder entries")

    def _origins(self, card: Card) -> tuple[str, ...]:
        if card.origins is not None:
            return card.origins
        return (card.text.strip(),) if card.text.strip() in self.base else ()

    def merge(self, uids: Iterable[int]) -> int | None:
        """Join the chosen cards (in document order) into one, at the first one's place."""
        chosen = set(uids)
        picked = [card for card in self.cards if card.uid in chosen]
        if len(picked) < 2:
            return None
        origins = tuple(dict.fromkeys(o for card in picked for o in self._origins(card)))
        text = "\n".join(card.text.strip() for card in picked if card.text.strip())
        merged = new_card(text, origins)
        cards: list[Card] = []
        for card in self.cards:
            if card.uid == picked[0].uid:
                cards.append(merged)
            elif card.uid not in chosen:
                cards.append(card)
        self._push(cards, f"Merge {len(picked)} entries")
        return merged.uid

    def strip_invisible(self, uid: int) -> None:
        index = self.index_of(uid)
        cards = list(self.cards)
        cards[index] = replace(cards[index], text=strip_invisible(cards[index].text))
        self._push(cards, "Remove invisible characters")

    def replace_cards(self, cards: Sequence[Card], label: str) -> None:
        """Any change to the cards as one undoable step (a conflict's resolution)."""
        self._push(cards, label)

    def revert(self) -> None:
        """Back to the base (undoable, so a slip can be taken back)."""
        by_text = {card.text: card for card in self.cards}
        cards = [
            by_text[text] if text in by_text else new_card(text) for text in self.base
        ]
        self._push([replace(card, origins=None) for card in cards], "Revert to disk")

    # --- applying states --------------------------------------------------------------
    def _apply(self, cards: tuple[Card, ...], force_structure: bool = False) -> None:
        before = self.cards
        self.cards = cards
        if before == cards and not force_structure:
            self._update_dirty()
            return
        if force_structure or [c.uid for c in before] != [c.uid for c in cards]:
            self.sig_structure_changed.emit()
        else:
            for old, new in zip(before, cards, strict=True):
                if old.text != new.text:
                    self.sig_text_changed.emit(new.uid)
        self._update_dirty()

    def _update_dirty(self) -> None:
        dirty = self.saved_form() != list(self.base) or any(
            not card.text.strip() for card in self.cards
        )
        if dirty != self._dirty:
            self._dirty = dirty
            self.sig_dirty_changed.emit(dirty)
