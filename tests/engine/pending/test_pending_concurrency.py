"""Real processes on one queue: an agent staging and writing while approvals run, racing
approvers, and approvers that die halfway (nothing lost, nothing applied twice)."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

from pending_helpers import MEMORY, USER, write_upstream

from hermes_memory.memory.store import MemoryStore
from hermes_memory.pending import PendingQueue

ACTORS = Path(__file__).with_name("pending_actors.py")


def spawn(*args) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen([sys.executable, str(ACTORS), *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def finish(process: subprocess.Popen, timeout: float = 120) -> list[dict]:
    out, err = process.communicate(timeout=timeout)
    return [json.loads(line) for line in out.splitlines() if line.strip()], err, process.returncode


def decisions_log(home) -> list[dict]:
    path = home.path / "pending" / "memory" / ".decisions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_an_agent_stages_and_writes_while_two_approvers_run(queue_home, tmp_path):
    (queue_home.path / "config.yaml").write_text(
        "memory:\n  write_approval: true\n  memory_char_limit: 100000\n  user_char_limit: 100000\n")
    count = 30
    done = tmp_path / "agent-done"
    approvers = [spawn("approver", queue_home.path, done) for _ in range(2)]
    agent_lines, agent_err, code = finish(spawn("agent", queue_home.path, count))
    assert code == 0, agent_err
    done.touch()
    outcomes = [finish(p) for p in approvers]
    assert all(code == 0 for _, _, code in outcomes), [err for _, err, _ in outcomes]
    staged = [line["staged"] for line in agent_lines]
    approved = [d["id"] for lines, _, _ in outcomes for d in lines if d["ok"]]
    # every staged write approved exactly once, by one of the two approvers
    assert sorted(approved) == sorted(staged)
    logged = collections.Counter(e["id"] for e in decisions_log(queue_home) if e["decision"] == "approved")
    assert set(logged.values()) == {1} and set(logged) == set(staged)
    # nothing lost: the staged adds and the agent's own writes are all there, once
    store = MemoryStore(queue_home)
    assert sorted(store.read_entries("memory")) == sorted([*MEMORY, *(f"Staged fact number {n}." for n in range(count))])
    assert store.read_entries("user") == [*USER, *(f"Direct fact number {n}." for n in range(count))]
    assert PendingQueue(queue_home).list().records == []


def test_racing_approvers_apply_a_record_once(queue_home, tmp_path):
    write_upstream(queue_home, "memory", "2ace2ace", {
        "action": "batch", "target": "memory", "operations": [
            {"action": "replace", "old_text": "pnpm", "matched_entry": MEMORY[0],
             "content": "Project uses pnpm 9."},
            {"action": "add", "content": "Raced fact."}]})  # fmt: skip
    go = tmp_path / "go"
    racers = [spawn("race", queue_home.path, "2ace2ace", go) for _ in range(4)]
    go.touch()
    results = [finish(p)[0][0] for p in racers]
    assert sum(1 for r in results if r["ok"]) == 1
    losers = [r["error"] for r in results if not r["ok"]]
    assert all("just decided" in e or "No pending write" in e for e in losers), losers
    assert MemoryStore(queue_home).read_entries("memory") == ["Project uses pnpm 9.", *MEMORY[1:], "Raced fact."]
    assert [e["decision"] for e in decisions_log(queue_home)] == ["approved"]


def test_a_claim_left_by_a_dead_approver_is_put_back_and_nothing_was_written(queue_home):
    write_upstream(queue_home, "memory", "dead0001", {"action": "add", "target": "memory",
                                                      "content": "After a crash.", "old_text": None})  # fmt: skip
    _, _, code = finish(spawn("crash-before-write", queue_home.path, "dead0001"))
    assert code == 3
    folder = queue_home.path / "pending" / "memory"
    assert [p.name.split(".json")[0] for p in folder.glob("dead0001.json.claim.*")] == ["dead0001"]
    assert MemoryStore(queue_home).read_entries("memory") == MEMORY
    queue = PendingQueue(queue_home)
    assert [r.id for r in queue.list().records] == ["dead0001"]  # recovered
    assert not list(folder.glob("*.claim.*"))
    assert queue.approve("dead0001").ok
    assert MemoryStore(queue_home).read_entries("memory") == [*MEMORY, "After a crash."]


def test_a_crash_after_the_write_never_applies_it_twice(queue_home):
    write_upstream(queue_home, "memory", "dead0002", {
        "action": "replace", "target": "memory", "old_text": "pnpm", "matched_entry": MEMORY[0],
        "content": "Project uses pnpm 9."})  # fmt: skip
    _, _, code = finish(spawn("crash-after-write", queue_home.path, "dead0002"))
    assert code == 3
    entries = MemoryStore(queue_home).read_entries("memory")
    assert entries == ["Project uses pnpm 9.", *MEMORY[1:]]
    queue = PendingQueue(queue_home)
    (record,) = queue.list().records  # the record is back, so nothing is lost ...
    decision = queue.approve(record.id)  # ... and replaying it is refused as stale
    assert decision.stale and MemoryStore(queue_home).read_entries("memory") == entries


def test_a_claim_whose_decision_was_logged_is_dropped_not_replayed(queue_home):
    path = write_upstream(queue_home, "memory", "dead0003", {
        "action": "add", "target": "memory", "content": "Logged.", "old_text": None})
    claim = path.with_name("dead0003.json.claim.999999999.abcd")
    os.rename(path, claim)
    (path.parent / ".decisions.jsonl").write_text(json.dumps(
        {"id": "dead0003", "decision": "approved", "claim": claim.name}) + "\n")
    assert PendingQueue(queue_home).list().records == []
    assert not claim.exists()
