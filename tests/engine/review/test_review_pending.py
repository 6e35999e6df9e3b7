"""A review's proposals in the staged-write queue: approving, rejecting, stale and refused
proposals, in order."""

from __future__ import annotations

import json

import pytest
from review_helpers import SESSION_ID, USER_ENTRIES

from hermes_memory.memory.store import MemoryStore
from hermes_memory.pending import PendingError, PendingQueue
from hermes_memory.review import ReviewToolbox, queue_proposals, staleness
from hermes_memory.review.recorder import ChangeRecorder
from hermes_memory.skills import pin_skill


def queue_calls(home, *calls, review_id="20260412-093500-abcd"):
    """Plan tool calls as a review would and queue the proposals they yield."""
    tools = ReviewToolbox(home, ChangeRecorder(review_id, SESSION_ID))
    for name, args in calls:
        assert tools.call(name, args).get("success"), (name, args)
    assert queue_proposals(home, tools.recorder.proposals) == [p.id for p in tools.recorder.proposals]
    return tools.recorder.proposals


def add_user(content):
    return ("memory", {"action": "add", "target": "user", "content": content})


def test_proposals_are_upstream_records_from_the_background_review(review_home):
    (proposal,) = queue_calls(review_home, add_user("Uses fish."))
    path = review_home.path / "pending" / "memory" / f"{proposal.id}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["origin"] == "background_review" and record["session_id"] == SESSION_ID
    assert record["payload"] == {"action": "add", "target": "user", "content": "Uses fish.",
                                 "old_text": None}  # fmt: skip
    assert record["summary"] == "add to user profile: Uses fish."
    assert not path.read_text(encoding="utf-8").endswith("\n")  # upstream's layout


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


def test_approving_a_dependent_change_first_is_stale_and_kept_failed(review_home):
    add, replace = queue_calls(
        review_home,
        add_user("Uses fish."),
        ("memory", {"action": "replace", "target": "user", "old_text": "fish",
                    "content": "Uses fish and neovim."}),
    )  # fmt: skip
    queue = PendingQueue(review_home)
    assert "no longer in memory" in staleness(review_home, replace)
    first = queue.approve(replace.id)
    assert first.stale and not first.ok
    assert queue.find(replace.id).failed
    assert queue.approve(add.id).ok and queue.approve(replace.id).ok
    assert queue.list().records == []


def test_reject_all_empties_the_queue_and_changes_nothing(review_home, snap):
    queue_calls(review_home, add_user("Uses fish."), add_user("Sails on weekends."))
    memories = {k: v for k, v in snap(review_home.path).items() if k.startswith("memories/")}
    decisions = PendingQueue(review_home).decide_all(approve=False)
    assert [d.decision for d in decisions] == ["rejected", "rejected"]
    assert PendingQueue(review_home).list().records == []
    assert {k: v for k, v in snap(review_home.path).items() if k.startswith("memories/")} == memories
    log = (review_home.path / "pending" / "memory" / ".decisions.jsonl").read_text().splitlines()
    lines = [json.loads(line) for line in log]
    assert [line["decision"] for line in lines] == ["rejected", "rejected"]
    assert lines[0]["record"]["payload"]["content"] == "Uses fish."  # can be recreated


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
    assert "exists now" in staleness(review_home, proposal)
    assert PendingQueue(review_home).approve(proposal.id).stale


def test_ids_resolve_by_unique_prefix_and_never_by_path(review_home):
    first, second = queue_calls(review_home, add_user("Uses fish."), add_user("Sails."))
    queue = PendingQueue(review_home)
    prefix = next(n for n in range(1, 9) if first.id[:n] != second.id[:n])
    assert queue.find(first.id[:prefix]).id == first.id
    with pytest.raises(PendingError, match="No pending write with id 'nope'"):
        queue.approve("nope")
    for hostile in ("../../etc/passwd", "..", ".decisions", "a/b", ""):
        with pytest.raises(PendingError, match="is not a pending id"):
            queue.reject(hostile)


def test_queueing_is_all_or_nothing(review_home):
    first, second = queue_calls(review_home, add_user("Uses fish."), add_user("Sails."))
    queue = PendingQueue(review_home)
    queue.reject(first.id)
    with pytest.raises(PendingError, match="not a free pending id"):
        queue_proposals(review_home, [first, second])  # second is still queued: write neither
    assert [r.id for r in queue.list().records] == [second.id]
