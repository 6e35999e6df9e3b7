"""Review runs against the scripted OpenAI-compatible server (real HTTP, real litellm)."""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest
from review_helpers import SESSION_ID, USER_ENTRIES, skill_text

from hermes_memory.memory.store import MemoryStore
from hermes_memory.pending import PendingQueue
from hermes_memory.review import APPLY, PROPOSE, load_review_settings, run_review, staleness
from hermes_memory.skills.usage import read_usage
from llm_server import (
    reply_error,
    reply_hang,
    reply_malformed_tool_call,
    reply_raw,
    reply_text,
    reply_tool_calls,
)

PREFERENCE = "Prefers short answers: the command first, the explanation after. Uses fish, not bash."
DEPLOY_SKILL = skill_text(
    "static-site-deploy",
    description="Deploy a static site to a VPS",
    body="# Static site deploy\n\n## Procedure\n1. Build the site.\n"
    "2. `rsync -av --delete public/ <user>@<host>:<dir>` (without --delete old pages stay).\n"
    "3. Purge the CDN cache, or the old CSS keeps being served.\n",
)


def script_preference_and_skill(server):
    server.queue(
        reply_tool_calls(
            ("memory", {"action": "add", "target": "user", "content": PREFERENCE}),
            ("skills_list", {}),
        ),
        reply_tool_calls(
            ("skill_manage", {"action": "create", "name": "static-site-deploy",
                              "category": "devops", "content": DEPLOY_SKILL}),
        ),  # fmt: skip
        reply_text("Saved the user's answer style and a deploy skill."),
    )


def _settings(home, **changes):
    return dataclasses.replace(load_review_settings(home), **changes)


def tool_results(request) -> list[dict]:
    """The review's own tool results in a request (after its instruction message)."""
    messages = request.messages
    start = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [json.loads(m["content"]) for m in messages[start:] if m["role"] == "tool"]


# --- propose / approve / reject ---------------------------------------------------------
def test_propose_mode_queues_the_expected_proposals(review_home, llm_server, snap):
    script_preference_and_skill(llm_server)
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID)
    assert result.ok, result.error
    assert (result.mode, result.stopped, result.rounds) == (PROPOSE, "finished", 3)
    assert result.final_text == "Saved the user's answer style and a deploy skill."
    # nothing but the queue changed
    after = snap(review_home.path)
    added = sorted(set(after) - set(before))
    memory_id, skill_id = (p.id for p in result.proposals)
    assert added == [f"pending/memory/{memory_id}.json", f"pending/skills/{skill_id}.json"]
    assert all(after[path] == data for path, data in before.items())

    memory, skill = PendingQueue(review_home).list().records
    assert (memory.kind, memory.target, memory.action) == ("memory", "user", "add")
    assert memory.payload["content"] == PREFERENCE
    assert memory.session_id == SESSION_ID and memory.created_at > 0
    assert memory.origin == skill.origin == "background_review"
    assert (skill.kind, skill.target, skill.action) == ("skill", "static-site-deploy", "create")
    assert skill.payload == {"action": "create", "name": "static-site-deploy",
                             "content": DEPLOY_SKILL, "category": "devops"}  # fmt: skip
    assert skill.summary.startswith("create 'static-site-deploy' — ")


def test_the_model_sees_the_session_the_memory_and_only_review_tools(review_home, llm_server):
    script_preference_and_skill(llm_server)
    run_review(review_home, SESSION_ID)
    first = llm_server.requests[0].body
    assert first["model"] == "test-model"
    assert [t["function"]["name"] for t in first["tools"]] == [
        "memory", "skills_list", "skill_view", "skill_manage"]
    system, *history, request = first["messages"]
    assert system["role"] == "system" and USER_ENTRIES[0] in system["content"]
    assert "I use fish, not bash." in history[0]["content"]
    assert any(m.get("tool_calls") for m in history)  # the session's tool loop is replayed
    assert request["role"] == "user" and "memory" in request["content"]
    # the model is told its calls were recorded, not applied
    results = tool_results(llm_server.requests[1])
    assert results[0]["staged"] is True and len(results[0]["pending_id"]) == 8
    assert [s["name"] for s in results[1]["skills"]][:1] == ["docker-logs"]


def test_approving_applies_through_the_engine(review_home, llm_server):
    script_preference_and_skill(llm_server)
    result = run_review(review_home, SESSION_ID)
    queue = PendingQueue(review_home)
    memory, skill = result.proposals
    decision = queue.approve(memory.id)
    assert decision.ok, decision.message
    assert MemoryStore(review_home).read_entries("user") == [*USER_ENTRIES, PREFERENCE]
    decision = queue.approve(skill.id)
    assert decision.ok, decision.message
    skill_md = review_home.skills_dir / "devops" / "static-site-deploy" / "SKILL.md"
    assert skill_md.read_text(encoding="utf-8") == DEPLOY_SKILL
    assert read_usage(review_home).record("static-site-deploy")["created_by"] == "agent"
    assert queue.list().records == []
    logged = [json.loads(line)["id"] for sub in ("memory", "skills") for line in
              (review_home.path / "pending" / sub / ".decisions.jsonl").read_text().splitlines()]  # fmt: skip
    assert logged == [memory.id, skill.id]


def test_a_stale_proposal_is_refused_and_reject_removes_it(review_home, llm_server, snap):
    llm_server.queue(
        reply_tool_calls(("memory", {"action": "replace", "target": "user", "old_text": "Dana",
                                     "content": USER_ENTRIES[0] + " " + PREFERENCE})),
        reply_text("Updated the profile."),
    )  # fmt: skip
    result = run_review(review_home, SESSION_ID)
    (proposal,) = result.proposals
    assert (proposal.operation, proposal.before) == ("replace", USER_ENTRIES)
    # a person edits the entry meanwhile
    assert MemoryStore(review_home).replace("user", "Dana", "Name: Dana Ruiz.")["success"]
    queue = PendingQueue(review_home)
    assert "no longer in memory" in staleness(review_home, proposal)
    before = snap(review_home.path)
    decision = queue.approve(proposal.id)
    assert (decision.ok, decision.stale) == (False, True)
    assert decision.message.startswith("Entry changed since it was staged")
    # refused: nothing written but the record's failed status, and still queued
    changed = {k for k, v in snap(review_home.path).items() if before.get(k) != v}
    assert changed == {f"pending/memory/{proposal.id}.json"}
    assert [r.id for r in queue.list().records] == [proposal.id]
    assert queue.find(proposal.id).data["last_error"] == decision.message
    assert queue.reject(proposal.id).ok
    assert queue.list().records == []
    assert MemoryStore(review_home).read_entries("user") == ["Name: Dana Ruiz."]


def test_a_skill_changed_since_the_review_is_stale(review_home, llm_server):
    llm_server.queue(
        reply_tool_calls(("skill_view", {"name": "docker-logs"})),
        reply_tool_calls(("skill_manage", {"action": "patch", "name": "docker-logs",
                                           "old_string": "--since 10m", "new_string": "--since 1h"})),
        reply_text("Patched."),
    )  # fmt: skip
    (proposal,) = run_review(review_home, SESSION_ID).proposals
    skill_md = review_home.skills_dir / "devops" / "docker-logs" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\n3. Also check `docker ps`.\n", encoding="utf-8")
    changed = skill_md.read_bytes()
    decision = PendingQueue(review_home).approve(proposal.id)
    assert decision.stale and "changed since this write was staged" in decision.message
    assert skill_md.read_bytes() == changed


def test_apply_mode_writes_directly(review_home, llm_server):
    script_preference_and_skill(llm_server)
    result = run_review(review_home, SESSION_ID, mode=APPLY)
    assert result.ok and [a["success"] for a in result.applied] == [True, True]
    assert MemoryStore(review_home).read_entries("user") == [*USER_ENTRIES, PREFERENCE]
    assert (review_home.skills_dir / "devops" / "static-site-deploy" / "SKILL.md").exists()
    assert not (review_home.path / "pending").exists()  # no queue in apply mode


def test_apply_mode_queues_what_a_write_approval_gate_holds(review_home, llm_server):
    script_preference_and_skill(llm_server)
    settings = _settings(review_home, needs_approval=frozenset({"memory"}))
    result = run_review(review_home, SESSION_ID, mode=APPLY, settings=settings)
    memory_change, skill_change = result.proposals
    assert result.ok and result.queued == [memory_change.id]
    # the model was told the truth: the memory change waits for a person, the skill is saved
    memory_result = tool_results(llm_server.requests[1])[0]
    assert (memory_result["staged"], memory_result["pending_id"]) == (True, memory_change.id)
    skill_result = tool_results(llm_server.requests[2])[-1]
    assert "staged" not in skill_result and skill_result["note"].startswith("Saved")
    assert [(a["id"], a["success"]) for a in result.applied] == [(skill_change.id, True)]
    assert MemoryStore(review_home).read_entries("user") == USER_ENTRIES  # not written
    assert (review_home.skills_dir / "devops" / "static-site-deploy" / "SKILL.md").exists()
    (waiting,) = PendingQueue(review_home).list().records
    assert waiting.id == memory_change.id
    assert PendingQueue(review_home).approve(waiting.id).ok
    assert MemoryStore(review_home).read_entries("user") == [*USER_ENTRIES, PREFERENCE]


def test_changes_that_build_on_a_held_change_are_held_too(review_home, llm_server):
    llm_server.queue(
        reply_tool_calls(("skill_manage", {"action": "create", "name": "static-site-deploy",
                                           "content": DEPLOY_SKILL})),
        reply_tool_calls(("skill_manage", {"action": "patch", "name": "static-site-deploy",
                                           "old_string": "Build the site.", "new_string": "Run `hugo`."})),
        reply_text("Done."),
    )  # fmt: skip
    settings = _settings(review_home, needs_approval=frozenset({"skill"}))
    result = run_review(review_home, SESSION_ID, mode=APPLY, settings=settings)
    assert result.queued == [p.id for p in result.proposals] and result.applied == []
    assert not (review_home.skills_dir / "static-site-deploy").exists()


def test_later_changes_build_on_earlier_ones(review_home, llm_server):
    llm_server.queue(
        reply_tool_calls(("skill_manage", {"action": "create", "name": "static-site-deploy",
                                           "content": DEPLOY_SKILL})),
        reply_tool_calls(
            ("skill_manage", {"action": "write_file", "name": "static-site-deploy",
                              "file_path": "references/cdn.md", "file_content": "# CDN\nPurge.\n"}),
            ("skill_manage", {"action": "patch", "name": "static-site-deploy",
                              "old_string": "Build the site.", "new_string": "Run `hugo`."}),
        ),
        reply_text("Done."),
    )  # fmt: skip
    create, support, patch = run_review(review_home, SESSION_ID, mode=APPLY).proposals
    assert support.depends_on == [create.id] and patch.depends_on == [create.id]
    directory = review_home.skills_dir / "static-site-deploy"
    assert "Run `hugo`." in (directory / "SKILL.md").read_text()
    assert (directory / "references" / "cdn.md").read_text() == "# CDN\nPurge.\n"


# --- the rules the review runs under ------------------------------------------------------
def test_read_before_write_is_enforced(review_home, llm_server):
    patch = {"action": "patch", "name": "docker-logs", "old_string": "--since 10m",
             "new_string": "--since 1h"}  # fmt: skip
    llm_server.queue(
        reply_tool_calls(("skill_manage", patch)),
        reply_tool_calls(("skill_view", {"name": "docker-logs"})),
        reply_tool_calls(("skill_manage", patch)),
        reply_text("Patched after reading."),
    )
    result = run_review(review_home, SESSION_ID)
    refused = tool_results(llm_server.requests[1])[-1]
    assert refused["success"] is False and refused["_read_before_write_required"] is True
    viewed = tool_results(llm_server.requests[2])[-1]
    assert "docker logs --since 10m" in viewed["content"] and viewed["editable"] is True
    (proposal,) = result.proposals
    assert proposal.operation == "patch" and "--since 1h" in proposal.after


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("pinned-notes", "is pinned"),
        ("git-basics", "bundled built-in"),
        ("hub-tool", "hub-installed"),
        ("team-style", "external skills are read-only"),
        ("my-recipes", "belongs to the user"),
    ],
)
def test_protected_skills_are_refused(review_home, llm_server, snap, name, reason):
    llm_server.queue(
        reply_tool_calls(
            ("skill_view", {"name": name}),
            ("skill_manage", {"action": "patch", "name": name, "old_string": "When to use",
                              "new_string": "Use"}),
            ("skill_manage", {"action": "edit", "name": name, "content": skill_text(name)}),
        ),
        reply_text("Nothing to save."),
    )  # fmt: skip
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID, mode=APPLY)
    view, patch, edit = tool_results(llm_server.requests[1])
    assert view["success"] is True and view["editable"] is False  # reading is allowed
    assert reason in view["read_only_reason"]
    for refused in (patch, edit):
        assert refused["success"] is False and reason in refused["error"]
    assert result.ok and result.proposals == [] and result.final_text == "Nothing to save."
    assert snap(review_home.path) == before


def test_tools_outside_the_whitelist_are_refused_and_reported(review_home, llm_server, snap):
    llm_server.queue(
        reply_tool_calls(("terminal", {"command": "rm -rf ~"}), ("read_file", {"path": "/etc"})),
        reply_text("Nothing to save."),
    )
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID, mode=APPLY)
    for refused in tool_results(llm_server.requests[1]):
        assert refused["success"] is False
        assert "not available in a background review" in refused["error"]
        assert "memory, skills_list, skill_view, skill_manage" in refused["error"]
    assert result.refused_tools == ["terminal", "read_file"]
    assert snap(review_home.path) == before


def test_destructive_skill_actions_are_denied_automatically(review_home, llm_server, snap):
    llm_server.queue(
        reply_tool_calls(
            ("skill_manage", {"action": "delete", "name": "docker-logs", "absorbed_into": ""}),
            ("skill_manage", {"action": "remove_file", "name": "docker-logs",
                              "file_path": "references/a.md"}),
        ),
        reply_text("Nothing to save."),
    )  # fmt: skip
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID, mode=APPLY)
    assert all(r["denied"] is True for r in tool_results(llm_server.requests[1]))
    assert result.denied == ["delete docker-logs", "remove_file docker-logs"]
    assert snap(review_home.path) == before


# --- failures change nothing ---------------------------------------------------------------
FAILURES = {
    "server-error": (reply_error(500, "upstream exploded"), "http"),
    "malformed-json-arguments": (reply_malformed_tool_call("bad-json"), "bad-response"),
    "tool-call-without-name": (reply_malformed_tool_call("no-name"), "bad-response"),
    "unreadable-response": (reply_raw("<html>gateway</html>"), "bad-response"),
}


@pytest.mark.parametrize("mode", [PROPOSE, APPLY])
@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_failing_server_leaves_the_home_byte_identical(review_home, llm_server, snap,
                                                         mode, failure):  # fmt: skip
    reply, kind = FAILURES[failure]
    # a first round that plans real changes, then the failure
    llm_server.queue(
        reply_tool_calls(("memory", {"action": "add", "target": "user", "content": PREFERENCE}),
                         ("skill_manage", {"action": "create", "name": "static-site-deploy",
                                           "content": DEPLOY_SKILL})),
        reply,
    )  # fmt: skip
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID, mode=mode)
    assert (result.status, result.error_kind) == ("failed", kind)
    assert "Nothing was changed" in result.error
    assert result.proposals == [] and result.queued == [] and result.applied == []
    assert snap(review_home.path) == before


def test_a_timeout_leaves_the_home_byte_identical(review_home, llm_server, snap):
    llm_server.queue(reply_hang(10))
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID, mode=APPLY,
                        settings=_settings(review_home, timeout=0.5))  # fmt: skip
    assert (result.status, result.error_kind) == ("failed", "timeout")
    assert "did not answer within 0.5 s" in result.error
    assert snap(review_home.path) == before


def test_no_model_configured_fails_without_a_request(review_home, llm_server, snap):
    review_home.config_file.write_text("memory: {}\n", encoding="utf-8")
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID)
    assert result.error_kind == "not-configured" and "background_review.model" in result.error
    assert llm_server.requests == [] and snap(review_home.path) == before


def test_the_session_search_model_is_the_fallback(review_home, llm_server):
    review_home.config_file.write_text(
        "auxiliary:\n  session_search:\n    provider: custom\n    model: search-model\n"
        f"    base_url: {llm_server.base_url}\n    api_key: test\n", encoding="utf-8")
    llm_server.queue(reply_text("Nothing to save."))
    result = run_review(review_home, SESSION_ID)
    assert result.ok and result.model == "openai/search-model"
    assert llm_server.requests[0].body["model"] == "search-model"


def test_an_unknown_session_is_reported(review_home, llm_server):
    result = run_review(review_home, "no-such-session")
    assert result.status == "failed" and "No session 'no-such-session'" in result.error
    assert llm_server.requests == []


# --- bounds ---------------------------------------------------------------------------------
def test_the_round_limit_stops_the_loop(review_home, llm_server):
    view = reply_tool_calls(("skill_view", {"name": "docker-logs"}))
    llm_server.queue(view, view, view)
    result = run_review(review_home, SESSION_ID, settings=_settings(review_home, max_rounds=2))
    assert (result.status, result.stopped, result.rounds) == ("ok", "max-rounds", 2)
    assert len(llm_server.requests) == 2


def test_the_token_budget_stops_before_an_oversized_request(review_home, llm_server, snap):
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID,
                        settings=_settings(review_home, max_input_tokens=100))  # fmt: skip
    assert (result.status, result.stopped, result.rounds) == ("ok", "token-budget", 0)
    assert llm_server.requests == [] and snap(review_home.path) == before


def test_the_replayed_conversation_is_bounded(review_home, llm_server):
    llm_server.queue(reply_text("Nothing to save."))
    result = run_review(review_home, SESSION_ID,
                        settings=_settings(review_home, max_input_chars=600))  # fmt: skip
    assert result.digest["chars"] <= 600 and result.digest["summarised"] > 0
    _system, digest, *_rest = llm_server.requests[0].messages
    assert digest["content"].startswith("[Digest of the earlier conversation.")


def test_cancelling_between_rounds_changes_nothing(review_home, llm_server, snap):
    cancel = threading.Event()

    def cancel_while_answering(_request):
        cancel.set()  # a person pressed "stop" while the model was thinking
        return reply_tool_calls(("memory", {"action": "add", "target": "user",
                                            "content": PREFERENCE}))  # fmt: skip

    llm_server.queue(cancel_while_answering)
    before = snap(review_home.path)
    result = run_review(review_home, SESSION_ID, mode=APPLY, cancel=cancel)
    assert (result.status, result.stopped) == ("cancelled", "cancelled")
    assert len(llm_server.requests) == 1 and snap(review_home.path) == before
