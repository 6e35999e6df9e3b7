"""Properties: a write staged through the gate and approved at once leaves the store exactly
as the direct write would have; approving twice never applies twice."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import ENTRY_DELIMITER
from hermes_memory.memory.store import MemoryStore
from hermes_memory.pending import MEMORY, PendingError, PendingQueue
from hermes_memory.pending.applying import pin_memory_write

WORDS = st.text(alphabet="abcdefghij ", min_size=3, max_size=24).map(str.strip).filter(bool)


@st.composite
def store_and_batch(draw):
    entries = draw(st.lists(WORDS, min_size=1, max_size=6, unique=True))
    ops, live = [], list(entries)
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["add", "replace", "remove"] if live else ["add"]))
        if kind == "add":
            content = draw(WORDS)
            ops.append({"action": "add", "content": content})
            if content not in live:
                live.append(content)
            continue
        old = draw(st.sampled_from(live))
        if kind == "remove":
            ops.append({"action": "remove", "old_text": old})
            live.remove(old)
        else:
            new = draw(WORDS.filter(lambda w, live=live: w not in live))
            ops.append({"action": "replace", "old_text": old, "content": new})
            live[live.index(old)] = new
    return entries, ops


def fresh_home(root: Path, entries: list[str]) -> HermesHome:
    (root / "memories").mkdir(parents=True)
    (root / "memories" / "MEMORY.md").write_text(ENTRY_DELIMITER.join(entries), encoding="utf-8")
    return HermesHome.resolve(root)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(store_and_batch())
def test_staged_then_approved_equals_the_direct_write(case):
    entries, ops = case
    with tempfile.TemporaryDirectory() as tmp:
        direct = fresh_home(Path(tmp) / "direct", entries)
        staged = fresh_home(Path(tmp) / "staged", entries)
        direct_result = MemoryStore(direct).apply_batch("memory", [dict(op) for op in ops])
        plan = pin_memory_write(MemoryStore(staged), {"action": "batch", "target": "memory",
                                                      "operations": [dict(op) for op in ops]})  # fmt: skip
        if not direct_result["success"]:
            assert isinstance(plan, dict) and not plan["success"]  # refused now, never queued
            return
        queue = PendingQueue(staged)
        record = queue.stage(MEMORY, plan.payload, "batch", "foreground")
        assert queue.approve(record.id).ok
        assert staged.memory_file.read_bytes() == direct.memory_file.read_bytes()
        try:
            again = queue.approve(record.id)
        except PendingError:
            again = None
        assert again is None  # decided: gone from the queue, never applied twice
        assert staged.memory_file.read_bytes() == direct.memory_file.read_bytes()
