"""Approving a staged write records its proposer (the record's ``origin`` and
``session_id``) as who wrote it in history, and this app as who approved it; a record a
person edited before approving is the app's writing, proposed by the one who staged it."""

from __future__ import annotations

import io
import json

from pending_helpers import skill_text, write_upstream

from hermes_memory import api
from hermes_memory.cli import main
from hermes_memory.history.storage import HistoryStore
from hermes_memory.pending import PendingQueue

SESSION = "20261130_101500_feed"


def last_event(home):
    return HistoryStore(home).read_events().events[-1]


def cli(home, *args):
    out = io.StringIO()
    assert main(["--home", str(home.path), *args], stdout=out) == 0
    return out.getvalue()


def test_a_background_review_proposal_is_recorded_as_the_reviews_approved_in_the_app(queue_home):
    payload = {"action": "add", "target": "memory", "content": "Deploys go out on Tuesdays."}
    write_upstream(queue_home, "memory", "ab12cd34", payload, origin="background_review", session_id=SESSION)
    assert PendingQueue(queue_home).approve("ab12cd34").ok
    event = last_event(queue_home)
    assert (event["origin"], event["session"], event["pending"]) == ("background_review", SESSION, "ab12cd34")
    assert event["approved_by"] == "app" and "proposed_by" not in event
    newest = api.history_log(queue_home)["events"][0]
    assert (newest["origin_label"], newest["approved_by"]) == ("background review", "app")
    line = cli(queue_home, "history", "log").splitlines()[0]
    assert "background review" in line and f"session {SESSION}" in line and line.endswith("approved in this app")
    listed = json.loads(cli(queue_home, "--json", "history", "log"))["events"][0]
    assert listed["approved_by"] == "app"
    provenance = api.history_provenance(queue_home)
    row = next(r for r in provenance["entries"] if r["entry"] == "Deploys go out on Tuesdays.")
    assert row["by"] == ["background_review"] and row["sessions"] == [SESSION]


def test_an_edited_proposal_is_the_apps_writing_proposed_by_the_review(queue_home):
    payload = {"action": "add", "target": "memory", "content": "Deploys go out on Tuesdays."}
    write_upstream(queue_home, "memory", "ab12cd35", payload, origin="background_review", session_id=SESSION)
    queue = PendingQueue(queue_home)
    assert queue.edit("ab12cd35", "Deploys go out on Wednesdays.").ok
    assert queue.approve("ab12cd35").ok
    event = last_event(queue_home)
    assert (event["origin"], event["proposed_by"], event["session"]) == ("app", "background_review", SESSION)
    assert "approved_by" not in event
    line = cli(queue_home, "history", "log", "memory").splitlines()[0]
    assert "this app" in line and line.endswith("proposed by background review")


def test_a_skill_approval_carries_the_proposer_too(queue_home):
    write_upstream(queue_home, "skills", "5c0000aa", {"action": "create", "name": "fish-shell",
                   "content": skill_text("fish-shell"), "category": "shells"},
                   origin="background_review", session_id=SESSION)  # fmt: skip
    assert PendingQueue(queue_home).approve("5c0000aa").ok
    event = last_event(queue_home)
    assert event["kind"] == "skill" and event["skill"] == "fish-shell"
    assert (event["origin"], event["session"], event["approved_by"]) == ("background_review", SESSION, "app")


def test_an_origin_history_does_not_know_reads_as_unknown(queue_home):
    payload = {"action": "add", "target": "user", "content": "Prefers short answers."}
    write_upstream(queue_home, "memory", "ab12cd36", payload, origin="hand")  # not an upstream origin
    assert PendingQueue(queue_home).approve("ab12cd36").ok
    event = last_event(queue_home)
    assert (event["origin"], event["approved_by"]) == ("unknown", "app") and "session" not in event
