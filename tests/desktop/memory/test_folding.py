"""Folding the agent's changes into the cards: identity, order, history, conflicts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_studio.memory.folding import plan_fold, resolve_conflict
from hermes_studio.memory.model import new_card

BASE = [f"Fact {n}: something distinct about topic {n * 7}" for n in range(8)]


def cards_for(texts):
    return tuple(new_card(text) for text in texts)


@settings(max_examples=60, deadline=None)
@given(
    person=st.sets(st.integers(0, 7), max_size=3),
    agent_edit=st.sets(st.integers(0, 7), max_size=3),
    agent_remove=st.sets(st.integers(0, 7), max_size=2),
    agent_adds=st.integers(0, 3),
    reverse=st.booleans(),
)
def test_disjoint_changes_fold_without_conflict_and_keep_every_side(
    person, agent_edit, agent_remove, agent_adds, reverse
):
    agent_edit -= person
    agent_remove -= person | agent_edit
    cards = list(cards_for(BASE))
    for index in person:
        cards[index] = type(cards[index])(cards[index].uid, BASE[index] + " (person)", None)
    disk = [
        BASE[i] + " (agent)" if i in agent_edit else BASE[i]
        for i in range(8)
        if i not in agent_remove
    ]
    if reverse and not person:
        disk.reverse()
    disk += [f"Agent addition {n}" for n in range(agent_adds)]

    fold = plan_fold("memory", BASE, cards, disk)

    assert not fold.conflicts
    texts = [card.text for card in fold.current]
    expected = {d for d in disk if not any(d == BASE[i] for i in person)}
    expected |= {BASE[i] + " (person)" for i in person}
    assert set(texts) == expected and len(texts) == len(expected)
    # The person's cards keep their uid; so do the cards the agent edited.
    by_uid = {card.uid: card.text for card in fold.current}
    for index in person | agent_edit:
        assert cards[index].uid in by_uid
    if reverse and not person:
        assert texts == disk  # only the agent reordered: its order is followed
    # A state from the history (the untouched base) gets the same agent changes.
    history = [card.text for card in fold.apply(cards_for(BASE))]
    assert set(history) == set(disk)


def test_the_same_entry_changed_on_both_sides_is_a_conflict_kept_as_the_person_wrote_it():
    cards = cards_for(BASE[:3])
    mine = type(cards[1])(cards[1].uid, BASE[1] + " (person)", None)
    cards = (cards[0], mine, cards[2])
    disk = [BASE[0], BASE[1] + " (agent)", BASE[2], "Agent addition"]
    fold = plan_fold("memory", BASE[:3], cards, disk)
    (conflict,) = fold.conflicts
    assert conflict.uids == (mine.uid,)
    assert [card.text for card in fold.current] == [
        BASE[0], BASE[1] + " (person)", BASE[2], "Agent addition",
    ]
    both = resolve_conflict(fold.current, conflict, "both", fold.base)
    assert [card.text for card in both] == [
        BASE[0], BASE[1] + " (person)", BASE[1] + " (agent)", BASE[2], "Agent addition",
    ]
    theirs = resolve_conflict(fold.current, conflict, "theirs", fold.base)
    assert [card.text for card in theirs] == disk
    assert theirs[1].uid == mine.uid  # the card stays; its text becomes the agent's


def test_an_entry_the_person_removed_and_the_agent_edited_can_be_restored():
    cards = cards_for(BASE[:3])
    cards = (cards[0], cards[2])  # the person removed BASE[1]
    disk = [BASE[0], BASE[1] + " (agent)", BASE[2]]
    fold = plan_fold("memory", BASE[:3], cards, disk)
    (conflict,) = fold.conflicts
    assert conflict.uids == () and conflict.item.theirs == (BASE[1] + " (agent)",)
    restored = resolve_conflict(fold.current, conflict, "theirs", fold.base)
    assert [card.text for card in restored] == disk
