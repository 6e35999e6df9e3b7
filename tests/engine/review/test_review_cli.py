"""``hermes-memory review`` and ``hermes-memory pending`` end to end (scripted server)."""

from __future__ import annotations

import io
import json

from review_helpers import SESSION_ID, USER_ENTRIES

from hermes_memory.cli import main
from hermes_memory.memory.store import MemoryStore
from llm_server import reply_error, reply_text, reply_tool_calls

FISH = "Uses fish, not bash."
SHORT = "Wants answers short: command first."


def run(home, *argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["--home", str(home.path), *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def script(server):
    server.queue(
        reply_tool_calls(
            ("memory", {"action": "add", "target": "user", "content": FISH}),
            ("memory", {"action": "add", "target": "user", "content": SHORT}),
            ("terminal", {"command": "ls"}),
        ),
        reply_text("Saved two preferences."),
    )


def test_review_proposes_by_default_and_pending_decides(review_home, llm_server):
    script(llm_server)
    code, out, err = run(review_home, "review", SESSION_ID)
    assert (code, err) == (0, "")
    assert "Proposed 2 change(s), waiting for your approval:" in out
    assert f'add to USER.md: "{FISH}"' in out
    assert "Refused a call to 'terminal': not a review tool." in out
    assert "Model: Saved two preferences." in out
    assert MemoryStore(review_home).read_entries("user") == USER_ENTRIES

    code, out, _ = run(review_home, "pending", "list")
    assert code == 0 and out.startswith("2 pending write(s), oldest first:")
    assert f"[auto]  memory  add to user profile: {FISH}" in out
    code, listing, _ = run(review_home, "pending", "list", "--json")
    first, second = json.loads(listing)["items"]
    assert (first["stale"], first["would_apply"], first["session_id"]) == (False, True, SESSION_ID)
    assert first["origin_label"] == "background review"

    code, out, _ = run(review_home, "pending", "show", first["id"])
    assert code == 0 and f"+ {FISH}" in out and "Would apply now: yes." in out
    assert "USER.md after approval: " in out and f"session {SESSION_ID}" in out

    code, out, _ = run(review_home, "pending", "approve", first["id"])
    assert code == 0 and out.startswith(f"approved {first['id']}")
    code, out, _ = run(review_home, "pending", "reject", "all")
    assert code == 0 and out.startswith(f"rejected {second['id']}")
    assert MemoryStore(review_home).read_entries("user") == [*USER_ENTRIES, FISH]
    assert run(review_home, "pending", "list")[1] == "No pending writes.\n"


def test_review_apply_json(review_home, llm_server):
    script(llm_server)
    code, out, _ = run(review_home, "review", SESSION_ID, "--apply", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["status"] == "ok" and payload["mode"] == "apply"
    assert [a["success"] for a in payload["applied"]] == [True, True]
    assert payload["refused_tools"] == ["terminal"]
    assert MemoryStore(review_home).read_entries("user") == [*USER_ENTRIES, FISH, SHORT]


def test_review_apply_with_memory_write_approval_on_queues_the_memory_changes(review_home, llm_server):
    config = review_home.config_file
    config.write_text(config.read_text(encoding="utf-8") + "memory:\n  write_approval: true\n")
    script(llm_server)
    code, out, err = run(review_home, "review", SESSION_ID, "--apply")
    assert (code, err) == (0, "")
    assert "Queued 2 change(s) for your approval (write_approval is on in config.yaml):" in out
    assert "Applied" not in out
    assert MemoryStore(review_home).read_entries("user") == USER_ENTRIES
    assert run(review_home, "pending", "list")[1].startswith("2 pending write(s)")


def test_a_failed_review_exits_1_and_says_nothing_changed(review_home, llm_server):
    llm_server.queue(reply_error(503, "overloaded"))
    code, out, err = run(review_home, "review", SESSION_ID, "--max-rounds", "3", "--timeout", "5")
    assert (code, out) == (1, "")
    assert "failed" in err and "HTTP 503" in err and "Nothing was changed" in err


def test_approve_stale_and_unknown_ids_exit_1(review_home, llm_server):
    script(llm_server)
    run(review_home, "review", SESSION_ID)
    assert MemoryStore(review_home).add("user", "y" * 1290)["success"]  # room for one more
    code, out, err = run(review_home, "pending", "approve", "all", "--json")
    decisions = json.loads(out)["decisions"]
    assert code == 1 and [d["ok"] for d in decisions] == [True, False]
    code, out, err = run(review_home, "pending", "approve", "nope")
    assert code == 1 and "No pending write with id 'nope'" in err


def test_usage_errors_exit_2(review_home):
    assert run(review_home, "review", SESSION_ID, "--propose", "--apply")[0] == 2
    assert run(review_home, "review", SESSION_ID, "--max-rounds", "0")[0] == 2
    assert run(review_home, "pending")[0] == 2
