"""The editor document: cards, origins and the undo stack (no widgets involved)."""

from __future__ import annotations

import pytest

from hermes_memory.memory.edits import DraftEntry
from hermes_studio.memory import model
from hermes_studio.memory.model import EntryDocument

BASE = ["alpha fact", "beta fact", "gamma fact"]


@pytest.fixture
def doc(qapp):
    document = EntryDocument()
    document.load(BASE)
    yield document
    document.deleteLater()


def test_load_is_clean_and_not_undoable(doc):
    assert doc.texts() == BASE and not doc.dirty
    assert not doc.undo_stack.canUndo()


def test_edits_make_it_dirty_and_undo_restores(doc):
    changes = []
    doc.sig_dirty_changed.connect(changes.append)
    uid = doc.cards[1].uid
    doc.set_text(uid, "beta fact, edited")
    assert doc.dirty and changes == [True]
    doc.undo_stack.undo()
    assert doc.texts() == BASE and not doc.dirty and changes == [True, False]
    doc.undo_stack.redo()
    assert doc.texts()[1] == "beta fact, edited"


def test_typing_in_one_card_is_one_undo_step(doc, monkeypatch):
    uid = doc.cards[0].uid
    for text in ("alpha fact!", "alpha fact!!", "alpha fact!!!"):
        doc.set_text(uid, text)
    assert doc.undo_stack.count() == 1
    clock = iter([1e9, 1e9 + 10])
    monkeypatch.setattr(model.time, "monotonic", lambda: next(clock))
    doc.set_text(uid, "first pause")
    doc.set_text(uid, "after a long pause")  # > TYPING_MERGE_SECONDS later: a new step
    assert doc.undo_stack.count() == 3
    doc.undo_stack.undo()
    assert doc.texts()[0] == "first pause"


def test_add_remove_move_and_reorder(doc):
    uid = doc.add_card(1, "new one")
    assert doc.texts() == ["alpha fact", "new one", "beta fact", "gamma fact"]
    assert doc.card(uid).origins == ()
    assert doc.move(uid, 2) and doc.texts()[-1] == "new one"
    assert not doc.move(uid, 1)  # already last
    doc.remove([uid, doc.cards[0].uid])
    assert doc.texts() == ["beta fact", "gamma fact"]
    doc.reorder([doc.cards[1].uid, doc.cards[0].uid])
    assert doc.texts() == ["gamma fact", "beta fact"]
    for _ in range(4):
        doc.undo_stack.undo()
    assert doc.texts() == BASE


def test_merge_joins_in_document_order_and_records_origins(doc):
    first, _, third = (card.uid for card in doc.cards)
    uid = doc.merge([third, first])
    assert doc.texts() == ["alpha fact\ngamma fact", "beta fact"]
    assert doc.card(uid).origins == ("alpha fact", "gamma fact")
    assert doc.merge([uid]) is None  # one card is not a merge
    doc.undo_stack.undo()
    assert doc.texts() == BASE


def test_revert_is_undoable_and_blank_cards_count_as_edits(doc):
    doc.add_card(None, "")
    assert doc.dirty  # an empty card would be dropped on save: it is an unsaved edit
    doc.set_text(doc.cards[0].uid, "changed")
    doc.revert()
    assert doc.texts() == BASE and not doc.dirty
    doc.undo_stack.undo()
    assert doc.texts()[0] == "changed"


def test_rebase_after_save_keeps_cards_and_drops_blanks_and_duplicates(doc):
    keep = doc.cards[0].uid
    doc.add_card(None, "  ")
    doc.add_card(None, "alpha fact")
    doc.rebase(BASE)
    assert doc.texts() == BASE and not doc.dirty
    assert doc.cards[0].uid == keep


def test_strip_invisible_and_drafts(doc):
    uid = doc.cards[0].uid
    doc.set_text(uid, "al\u200bpha\u202e fact")
    doc.strip_invisible(uid)
    assert doc.texts()[0] == "alpha fact"
    doc.adopt(["x"], [DraftEntry("x, edited", ("x",))])
    assert doc.base == ("x",) and doc.drafts() == [DraftEntry("x, edited", ("x",))]
    assert doc.dirty and not doc.undo_stack.canUndo()
