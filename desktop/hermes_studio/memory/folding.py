"""Folding changes made on disk into an editor's cards without disturbing the person.

The engine's three-way merge (:func:`merge_entries`) compares what the editor loaded (the
base), its cards (the draft) and what is on disk now. Everything only the agent changed is
turned into a :class:`Fold`: a card-level transform (remove these texts, replace those,
insert new cards next to their disk neighbours, follow the disk's order) applied to the
current cards *and* to every state in the undo history, so that undo takes back the person's
own steps and never an agent's entry. Cards keep their uid, so their widgets, caret,
selection and scroll stay as they were.

Where both sides changed the same entry the merge reports a conflict; a fold leaves those
cards as the person wrote them and hands the conflicts back for the person to decide.

A clean editor (the person changed nothing) ends up showing exactly the disk, order included:
the merge pairs an agent's new text with the vanished entry it resembles most, which is not
always the one whose place it took on disk, and a fold must never make a clean editor dirty.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from hermes_memory.memory.edits import DraftEntry, MergeItem, merge_entries, prepare_draft

from .model import Card, new_card


@dataclass(frozen=True)
class Conflict:
    """An entry both the person and the agent changed: the engine's item and the cards."""

    item: MergeItem
    uids: tuple[int, ...]  # the person's cards holding ``item.mine``

    @property
    def key(self) -> tuple[str, ...]:
        return self.item.theirs or self.item.base


@dataclass
class Fold:
    """The agent's changes as a transform of card tuples (see :meth:`apply`)."""

    base: tuple[str, ...]  # what is on disk now: the editor's new base
    removed: frozenset[str] = frozenset()
    replaced: dict[str, str] = field(default_factory=dict)  # old text -> the agent's new text
    added: tuple[Card, ...] = ()  # new cards, in disk order (one uid across the history)
    follow_disk_order: bool = False
    conflicts: tuple[Conflict, ...] = ()
    current: tuple[Card, ...] = ()  # the folded current cards, origins against ``base``
    arrived: tuple[int, ...] = ()  # uids of cards the agent added or changed
    counts: dict[str, int] = field(default_factory=dict)  # added / edited / removed

    def __post_init__(self) -> None:
        self._disk_index = {text: index for index, text in enumerate(self.base)}

    @property
    def changes_anything(self) -> bool:
        return bool(self.removed or self.replaced or self.added or self.follow_disk_order)

    def apply(self, cards: Sequence[Card]) -> tuple[Card, ...]:
        """``cards`` with the agent's changes: used on every state of the undo history."""
        out: list[Card] = []
        for card in cards:
            key = card.text.strip()
            if key and key in self.removed:
                continue
            if key in self.replaced:
                card = replace(card, text=self.replaced[key], origins=None)
            elif card.origins:
                card = replace(card, origins=self._map_origins(card.origins))
            out.append(card)
        present = {card.text.strip() for card in out}
        for card in self.added:
            if card.uid in {c.uid for c in out} or card.text in present:
                continue
            out.insert(self._slot(out, card.text), card)
            present.add(card.text)
        if self.follow_disk_order:
            out = self._in_disk_order(out)
        return tuple(out)

    def _map_origins(self, origins: tuple[str, ...]) -> tuple[str, ...]:
        mapped = []
        for origin in origins:
            if origin in self.replaced:
                mapped.append(self.replaced[origin])
            elif origin not in self.removed:
                mapped.append(origin)
        return tuple(dict.fromkeys(mapped))

    def _slot(self, cards: list[Card], text: str) -> int:
        """Before the card holding the nearest later disk entry, else at the end (where an
        agent appends): the order the engine's merge gives."""
        wanted = self._disk_index.get(text, len(self.base))
        after = None
        for position, card in enumerate(cards):
            index = self._disk_index.get(card.text.strip())
            if index is not None and index > wanted and (after is None or index < after[0]):
                after = (index, position)
        return after[1] if after is not None else len(cards)

    def _in_disk_order(self, cards: list[Card]) -> list[Card]:
        """Cards holding disk entries take the disk's order; the others keep their slots."""
        slots = [i for i, card in enumerate(cards) if card.text.strip() in self._disk_index]
        ordered = sorted(
            (cards[i] for i in slots), key=lambda card: self._disk_index[card.text.strip()]
        )
        result = list(cards)
        for slot, card in zip(slots, ordered, strict=True):
            result[slot] = card
        return result


def plan_fold(
    target: str,
    base: Sequence[str],
    cards: Sequence[Card],
    on_disk: Sequence[str],
    origins: Mapping[int, tuple[str, ...] | None] | None = None,
) -> Fold:
    """How to bring ``on_disk`` into ``cards`` (made from ``base``); ``origins`` overrides
    a card's own origins by uid (after a save, the texts the save was given)."""
    origins = origins if origins is not None else {card.uid: card.origins for card in cards}
    drafts = [DraftEntry(card.text, origins.get(card.uid)) for card in cards]
    proposal = merge_entries(target, base, drafts, on_disk)
    disk = proposal.theirs
    removed: set[str] = set()
    replaced: dict[str, str] = {}
    added_texts: list[str] = []
    counts = {"added": 0, "edited": 0, "removed": 0}
    conflict_items: list[MergeItem] = []
    for item in proposal.changes:
        if item.kind == "conflict":
            conflict_items.append(item)
        elif item.kind == "added_by_agent":
            added_texts.extend(item.theirs)
            counts["added"] += len(item.theirs)
        elif item.kind == "removed_by_agent":
            removed.update(item.base)
            counts["removed"] += len(item.base)
        elif item.kind == "edited_by_agent":
            counts["edited"] += 1
            for old, new in zip(item.base, item.theirs, strict=False):
                replaced[old] = new
            removed.update(item.base[len(item.theirs):])
            added_texts.extend(item.theirs[len(item.base):])
    added = tuple(
        new_card(text, None)
        for text in sorted(dict.fromkeys(added_texts), key=disk.index)
    )
    fold = Fold(
        base=tuple(disk),
        removed=frozenset(removed),
        replaced=replaced,
        added=added,
        follow_disk_order=proposal.primary == "theirs",
        counts=counts,
    )
    # The current cards, with origins frozen against the new base: each of the person's
    # texts replaces the disk entries of its merge item (for a conflict, the agent's version).
    stamped = [replace(card, origins=origins.get(card.uid, card.origins)) for card in cards]
    current = fold.apply(stamped)
    if _clean(base, cards):  # nothing of the person's to keep in place: the disk's order
        current = tuple(fold._in_disk_order(list(current)))
    replaces = {text: item.theirs for item in proposal.items for text in item.mine}
    disk_set = set(disk)
    frozen = []
    for card in current:
        key = card.text.strip()
        if not key:
            frozen.append(replace(card, origins=()))
        elif key in disk_set:
            frozen.append(replace(card, origins=None))
        else:
            frozen.append(replace(card, origins=replaces.get(key, card.origins or ())))
    fold.current = tuple(frozen)
    new_uids = {card.uid for card in added}
    fold.arrived = tuple(
        card.uid
        for card, before in _pairs(cards, fold.current)
        if card.uid in new_uids or (before is not None and before.text != card.text)
    )
    fold.conflicts = tuple(
        Conflict(item, tuple(c.uid for c in fold.current if c.text.strip() in item.mine))
        for item in conflict_items
    )
    return fold


def _clean(base: Sequence[str], cards: Sequence[Card]) -> bool:
    """The cards hold just ``base`` (what :attr:`EntryDocument.dirty` calls clean)."""
    texts = [card.text for card in cards]
    return all(text.strip() for text in texts) and prepare_draft(texts) == list(base)


def _pairs(old: Sequence[Card], new: Sequence[Card]) -> list[tuple[Card, Card | None]]:
    by_uid = {card.uid: card for card in old}
    return [(card, by_uid.get(card.uid)) for card in new]


def describe_fold(fold: Fold) -> str:
    """"2 entries added, 1 edited" for the note shown after a fold."""
    parts = [
        f"{count} {verb}" for verb, count in fold.counts.items() if count
    ]
    if not parts:
        return "entries reordered" if fold.follow_disk_order else "nothing changed"
    head, *rest = parts
    number, verb = head.split(" ", 1)
    noun = "entry" if number == "1" else "entries"
    return ", ".join([f"{number} {noun} {verb}", *rest])


def resolve_conflict(
    cards: Sequence[Card], conflict: Conflict, choice: str, on_disk: Sequence[str]
) -> tuple[Card, ...]:
    """The cards after the person's choice for ``conflict``: ``mine`` keeps their text (it
    replaces the agent's version when saved), ``theirs`` takes the agent's version in place
    of theirs, ``both`` keeps the person's text as a new entry beside the agent's."""
    item = conflict.item
    mine_uids = [card.uid for card in cards if card.uid in conflict.uids]
    result = list(cards)
    if choice == "mine":
        return tuple(
            replace(card, origins=item.theirs) if card.uid in mine_uids else card
            for card in result
        )
    present = {card.text.strip() for card in result}
    incoming = [text for text in item.theirs if text not in present]
    if choice == "theirs":
        positions = [i for i, card in enumerate(result) if card.uid in mine_uids]
        at = positions[0] if positions else None
        reused = result[at].uid if at is not None else None
        result = [card for card in result if card.uid not in mine_uids]
        if at is None:
            slot = Fold(base=tuple(on_disk))._slot
            for text in incoming:
                result.insert(slot(result, text), new_card(text, None))
            return tuple(result)
        new = [Card(reused, incoming[0], None)] if incoming else []
        new.extend(new_card(text, None) for text in incoming[1:])
        result[at:at] = new
        return tuple(result)
    if choice == "both":
        positions = [i for i, card in enumerate(result) if card.uid in mine_uids]
        result = [replace(c, origins=()) if c.uid in mine_uids else c for c in result]
        at = positions[-1] + 1 if positions else len(result)
        result[at:at] = [new_card(text, None) for text in incoming]
        return tuple(result)
    raise ValueError(f"{choice!r} is not a choice for a conflict; use mine, theirs or both.")
