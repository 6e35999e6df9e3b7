"""Processes that use one home's queue at the same time as the tests: an agent staging
and writing, approvers, and approvers that die halfway. Run as a script."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore
from hermes_memory.memory.tool import memory_tool
from hermes_memory.pending import PendingError, PendingQueue
from hermes_memory.pending import queue as queue_module


def agent(home: HermesHome, count: int) -> None:
    """Stage ``count`` memory adds through the gated tool and write as many user entries
    directly, interleaved, as an agent turn would."""
    store = MemoryStore(home)
    for n in range(count):
        reply = json.loads(memory_tool("add", "memory", f"Staged fact number {n}.", store=store))
        assert reply.get("staged"), reply
        print(json.dumps({"staged": reply["pending_id"]}), flush=True)
        assert store.add("user", f"Direct fact number {n}.")["success"]


def approver(home: HermesHome, done_flag: Path) -> None:
    queue = PendingQueue(home)
    while True:
        finished = done_flag.exists()
        for decision in queue.decide_all(approve=True):
            print(json.dumps(decision.as_dict()), flush=True)
        if finished and not queue.list().records:
            return
        time.sleep(0.005)


def race(home: HermesHome, pending_id: str, go: Path) -> None:
    while not go.exists():
        time.sleep(0.001)
    try:
        result = PendingQueue(home).approve(pending_id).as_dict()
    except PendingError as exc:
        result = {"ok": False, "error": str(exc)}
    print(json.dumps(result), flush=True)


def crash_before_write(home: HermesHome, pending_id: str) -> None:
    queue_module.apply_record = lambda *args, **kwargs: os._exit(3)
    PendingQueue(home).approve(pending_id)


def crash_after_write(home: HermesHome, pending_id: str) -> None:
    PendingQueue._log = lambda *args, **kwargs: os._exit(3)
    PendingQueue(home).approve(pending_id)


if __name__ == "__main__":
    mode, root, *rest = sys.argv[1:]
    target = HermesHome.resolve(root)
    if mode == "agent":
        agent(target, int(rest[0]))
    elif mode == "approver":
        approver(target, Path(rest[0]))
    elif mode == "race":
        race(target, rest[0], Path(rest[1]))
    elif mode == "crash-before-write":
        crash_before_write(target, rest[0])
    elif mode == "crash-after-write":
        crash_after_write(target, rest[0])
