"""``hermes-memory pending`` end to end, and the engine face the desktop's Inbox uses."""

from __future__ import annotations

import io
import json
import time

from pending_helpers import MEMORY, write_upstream

from hermes_memory import api
from hermes_memory.cli import main
from hermes_memory.memory.store import MemoryStore


def run(home, *argv, stdin=None):
    import sys

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(stdin or "")
    try:
        code = main(["--home", str(home.path), *argv], stdout=out, stderr=err)
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def batch(home, rid="c1c1c1c1"):
    write_upstream(home, "memory", rid, {"action": "batch", "target": "memory", "operations": [
        {"action": "add", "content": "One."}, {"action": "add", "content": "Two."},
        {"action": "remove", "old_text": "5433", "matched_entry": MEMORY[2]}]},
        summary="apply 3 op(s) to memory: ...", origin="background_review",
        session_id="s-1")  # fmt: skip


def test_list_show_approve_ops_edit_reject(queue_home):
    batch(queue_home)
    write_upstream(queue_home, "skills", "c2c2c2c2", {"action": "delete", "name": "docker-logs"},
                   summary="delete skill 'docker-logs'")  # fmt: skip
    code, out, _ = run(queue_home, "pending", "list")
    assert code == 0 and "  c1c1c1c1 [auto]  memory  apply 3 op(s) to memory: ..." in out
    assert "  c2c2c2c2  skill   delete skill 'docker-logs'" in out
    code, out, _ = run(queue_home, "pending", "show", "c1c1c1c1")
    assert code == 0 and "Would apply now: yes." in out and "- " + MEMORY[2] in out
    assert "MEMORY.md after approval:" in out and "From background review, session s-1" in out
    code, out, _ = run(queue_home, "pending", "show", "c2c2c2c2")
    assert "delete skill 'docker-logs' (archived, restorable)" in out
    code, out, _ = run(queue_home, "pending", "approve", "c1c1c1c1", "--ops", "1,3")
    assert code == 0 and out.startswith("partly approved c1c1c1c1") and "Removed entry" in out
    code, out, _ = run(queue_home, "pending", "edit", "c1c1c1c1", "-",
                       stdin=json.dumps({"action": "add", "target": "memory", "content": "Deux."}))  # fmt: skip
    assert code == 0 and "Now: add to memory: Deux." in out
    code, out, _ = run(queue_home, "pending", "approve", "c1c1c1c1", "--ops", "1")
    assert code == 1  # no longer a batch
    code, out, _ = run(queue_home, "pending", "reject", "all")
    assert code == 0 and out.count("rejected") == 2
    assert MemoryStore(queue_home).read_entries("memory") == [*MEMORY[:2], "One."]
    assert run(queue_home, "pending", "list")[1] == "No pending writes.\n"


def test_usage_errors_exit_2(queue_home):
    assert run(queue_home, "pending")[0] == 2
    assert run(queue_home, "pending", "approve", "x", "--ops", "one")[0] == 2
    assert run(queue_home, "pending", "approve", "all", "--ops", "1")[0] == 2


def test_the_engine_face_gives_the_inbox_everything_it_shows(queue_home):
    batch(queue_home)
    write_upstream(queue_home, "memory", "c3c3c3c3", {"action": "remove", "target": "memory",
                   "content": None, "old_text": "x", "matched_entry": "gone entry"},
                   created_at=time.time() - 3600)  # fmt: skip
    (queue_home.path / "pending" / "memory" / "c4c4c4c4.json").write_text("{")
    listing = api.pending_list(queue_home)
    json.dumps(listing)  # plain data
    assert listing["gate"] == {"memory": False, "skills": False}
    by_id = {i["id"]: i for i in listing["items"]}
    stale, broken, fresh = by_id["c3c3c3c3"], by_id["c4c4c4c4"], by_id["c1c1c1c1"]
    keys = {"id", "kind", "summary", "origin", "origin_label", "created_at", "created", "age_seconds",
            "session_id", "stale", "stale_reason", "broken", "broken_reason", "would_apply"}  # fmt: skip
    assert all(keys <= set(i) for i in listing["items"])
    assert stale["stale"] and "gone entry" in stale["stale_reason"] and stale["age_seconds"] >= 3600
    assert broken["broken"] and "not valid JSON" in broken["broken_reason"]
    assert (fresh["kind"], fresh["origin_label"], fresh["session_id"]) == ("memory", "background review", "s-1")
    assert api.pending_count(queue_home) == {"count": 3, "memory": 3, "skills": 0}
    shown = api.pending_show(queue_home, "c1c1c1c1")
    assert shown["ok"] and shown["meter_after"]["text"].endswith("%") and shown["diff"]["entries"]
    refused = api.pending_show(queue_home, "../x")
    assert refused["ok"] is False and "not a pending id" in refused["error"]
    assert api.pending_approve(queue_home, "c1c1c1c1", ops=[2])["decision"] == "partly approved"
    assert api.pending_edit(queue_home, "c1c1c1c1", "{")["ok"] is False
    assert api.pending_approve(queue_home, "c3c3c3c3")["stale"] is True
    assert api.pending_reject(queue_home, "c4c4c4c4")["ok"]
    result = api.pending_decide_all(queue_home, approve=True)
    assert [d["id"] for d in result["decisions"]] == ["c1c1c1c1"]  # the failed one is skipped
    assert MemoryStore(queue_home).read_entries("memory") == [*MEMORY[:2], "Two.", "One."]
