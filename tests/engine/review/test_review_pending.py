"""The pending queue: approving, rejecting, stale and refused proposals, bad records."""

from __future__ import annotations

import json

import pytest
from review_helpers import SESSION_ID, USER_ENTRIES

from hermes_memory.memory.store import MemoryStore
from hermes_memory.review import PendingError, PendingQueue, ReviewToolbox
from hermes_memory.review.recorder import ChangeRecorder
from hermes_memory.skills import pin_skill


def queue_calls(home, *calls, review_id="20260412-093500-abcd"):
    """Plan tool calls as a review would and queue the proposals they yield."""
    tools = ReviewToolbox(home, ChangeRecorder(review_id, SESSION_ID))
    for name, args in calls:
        assert tools.call(name, args).get("success"), (name, args)
    PendingQueue(home).add(tools.recorder.proposals)
    return tools.recorder.proposals


def add_user(content):
    return ("memory", {"action": "add", "target": "user", "content": content})


def test_approve_all_goes_in_order_so_dependent_changes_apply(review_home):
    add, replace = queue_calls(
        review_home,
        add_user("Uses fish."),
        ("memory", {"action": "replace", "target": "user", "old_text": "fish",
                    "content": "Uses fish and neovim."}),
    )  # fmt: skip
    assert replace.depends_on == [add.id]
    decisions = PendingQueue(review_home).decide_all(approve=True)
    assert [(d.id, d.ok) for d in decisions] == [(add.id, True), (replace.id, True)]
    assert MemoryStore(review_home).read_entries("user") == [*USER_ENTRIES, "Uses fish and neovim."]


def test_approving_a_dependent_change_first_is_stale(review_home):
    add, replace = queue_calls(
        review_home,
        add_user("Uses fish."),
        ("memory", {"action": "replace", "target": "user", "old_text": "fish",
                    "content": "Uses fish and neovim."}),
    )  # fmt: skip
    queue = PendingQueue(review_home)
    assert queue.approve(replace.id).stale
    assert queue.approve(add.id).ok and queue.approve(replace.id).ok


def test_reject_all_empties_the_queue_and_changes_nothing(review_home, snap):
    queue_calls(review_home, add_user("Uses fish."), add_user("Sails on weekends."))
    memories = {k: v for k, v in snap(review_home.path).items() if k.startswith("memories/")}
    decisions = PendingQueue(review_home).decide_all(approve=False)
    assert [d.decision for d in decisions] == ["rejected", "rejected"]
    assert PendingQueue(review_home).list().proposals == []
    assert {k: v for k, v in snap(review_home.path).items() if k.startswith("memories/")} == memories
    history = (review_home.path / "review" / "history.jsonl").read_text().splitlines()
    assert [json.loads(line)["decision"] for line in history] == ["rejected", "rejected"]


def test_an_approval_over_budget_is_refused_not_stale(review_home):
    (proposal,) = queue_calls(review_home, add_user("Uses fish."))
    assert MemoryStore(review_home).add("user", "y" * 1320)["success"]  # the person filled the profile since
    decision = PendingQueue(review_home).approve(proposal.id)
    assert (decision.ok, decision.stale) == (False, False)
    assert "over its budget" in decision.message


def test_a_skill_pinned_since_the_proposal_is_refused(review_home):
    (proposal,) = queue_calls(
        review_home,
        ("skill_view", {"name": "docker-logs"}),
        ("skill_manage", {"action": "patch", "name": "docker-logs", "old_string": "10m",
                          "new_string": "1h"}),
    )[-1:]  # fmt: skip
    assert pin_skill(review_home, "docker-logs").ok
    decision = PendingQueue(review_home).approve(proposal.id)
    assert not decision.ok and "is pinned" in decision.message


def test_a_skill_created_meanwhile_makes_a_create_stale(review_home):
    from review_helpers import skill_text, write_skill

    (proposal,) = queue_calls(review_home, ("skill_manage", {
        "action": "create", "name": "fish-shell", "content": skill_text("fish-shell")}))  # fmt: skip
    write_skill(review_home.skills_dir, "shells/fish-shell", "fish-shell")
    queue = PendingQueue(review_home)
    assert "exists now" in queue.staleness(proposal)
    assert queue.approve(proposal.id).stale


def test_ids_resolve_by_unique_prefix(review_home):
    queue_calls(review_home, add_user("Uses fish."), review_id="20260412-093500-aaaa")
    queue_calls(review_home, add_user("Sails."), review_id="20260412-093500-bbbb")
    queue = PendingQueue(review_home)
    assert queue.get("20260412-093500-b").target == "user"
    with pytest.raises(PendingError, match="matches 2 proposals"):
        queue.get("20260412")
    with pytest.raises(PendingError, match="No pending proposal 'nope'"):
        queue.approve("nope")
    with pytest.raises(PendingError, match="is not a proposal id"):
        queue.reject("../../etc")


def test_unreadable_records_are_reported_not_fatal(review_home):
    (proposal,) = queue_calls(review_home, add_user("Uses fish."))
    directory = review_home.path / "review" / "pending"
    (directory / "broken.json").write_text("{not json", encoding="utf-8")
    (directory / "old.json").write_text(json.dumps({"format": 99}), encoding="utf-8")
    listing = PendingQueue(review_home).list()
    assert [p.id for p in listing.proposals] == [proposal.id]
    assert len(listing.problems) == 2


def test_queueing_is_all_or_nothing(review_home):
    first, second = queue_calls(review_home, add_user("Uses fish."), add_user("Sails."))
    queue = PendingQueue(review_home)
    queue.reject(first.id)
    with pytest.raises(PendingError, match="already queued"):
        queue.add([first, second])  # second is still queued: refuse, and write neither
    assert [p.id for p in queue.list().proposals] == [second.id]
