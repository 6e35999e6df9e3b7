"""What a background review writes is in history as the background review's, with the
reviewed session: memory entries, created skills and their files."""

from __future__ import annotations

from review_helpers import SESSION_ID
from test_review_run import PREFERENCE, script_preference_and_skill

from hermes_memory.history.service import log, taught
from hermes_memory.pending import PendingQueue
from hermes_memory.review import APPLY, PROPOSE, run_review


def test_an_apply_mode_review_is_recorded_as_the_background_review_with_its_session(review_home, llm_server):
    script_preference_and_skill(llm_server)
    result = run_review(review_home, SESSION_ID, mode=APPLY)
    assert result.ok and all(a["success"] for a in result.applied)
    events = log(review_home)["events"]
    user = [e for e in events if e["kind"] == "user" and e["action"] != "capture"]
    skill = [e for e in events if e["kind"] == "skill" and e.get("skill") == "static-site-deploy"]
    assert [(e["origin"], e["origin_label"], e["session"]) for e in user] == [
        ("background_review", "background review", SESSION_ID)]
    assert skill, "a skill the review created has no history"
    assert [(e["action"], e["origin"], e["session"]) for e in skill] == [("create", "background_review", SESSION_ID)]
    assert skill[0]["text_changed"]
    lesson = taught(review_home, SESSION_ID)
    assert lesson["memory"]["user"]["added"] == [PREFERENCE]
    assert [(s["skill"], s["created"]) for s in lesson["skills"]] == [("static-site-deploy", True)]


def test_an_approved_review_proposal_keeps_the_reviewed_session(review_home, llm_server):
    script_preference_and_skill(llm_server)
    result = run_review(review_home, SESSION_ID, mode=PROPOSE)
    for record_id in result.queued:
        assert PendingQueue(review_home).approve(record_id).ok
    events = [e for e in log(review_home)["events"] if e["action"] != "capture"]
    assert {e["session"] for e in events} == {SESSION_ID}
    created = [e for e in events if e["kind"] == "skill"]
    assert [e["action"] for e in created] == ["create"]
