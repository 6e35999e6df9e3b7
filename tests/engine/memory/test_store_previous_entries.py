"""A committed replace or remove reports the full text of the entry it overwrote
(``replaced_entry``/``removed_entry``; in a batch ``replaced_entries``/``removed_entries``
by 1-based op position), as upstream's newer store does for providers' ``previous_content``."""

from __future__ import annotations

import json

from hermes_memory.memory.store import MemoryStore
from hermes_memory.memory.tool import memory_tool

FACTS = ["Project uses pnpm 8 with workspaces.", "Deploys run on Tuesdays.", "CI lives in GitHub Actions."]


def seeded(home) -> MemoryStore:
    store = MemoryStore(home)
    for fact in FACTS:
        assert store.add("memory", fact)["success"]
    return store


def test_replace_and_remove_report_the_whole_entry_they_overwrote(home):
    store = seeded(home)
    replaced = store.replace("memory", "pnpm", "Project uses pnpm 9.")
    assert replaced["success"] and replaced["replaced_entry"] == FACTS[0] and "removed_entry" not in replaced
    removed = store.remove("memory", "Tuesdays")
    assert removed["success"] and removed["removed_entry"] == FACTS[1] and "replaced_entry" not in removed
    assert "replaced_entry" not in store.add("memory", "A new fact.")


def test_a_batch_reports_each_overwritten_entry_by_op_position(home):
    store = seeded(home)
    result = store.apply_batch("memory", [
        {"action": "add", "content": "Releases are tagged vX.Y.Z."},
        {"action": "replace", "old_text": "GitHub", "content": "CI lives in Buildkite."},
        {"action": "remove", "old_text": "pnpm"},
    ])  # fmt: skip
    assert result["success"]
    assert result["replaced_entries"] == {2: FACTS[2]} and result["removed_entries"] == {3: FACTS[0]}
    only_adds = store.apply_batch("memory", [{"action": "add", "content": "One more."}])
    assert only_adds["success"] and "replaced_entries" not in only_adds and "removed_entries" not in only_adds


def test_a_refused_write_reports_nothing_overwritten(home):
    store = seeded(home)
    missing = store.remove("memory", "no such text")
    assert not missing["success"] and "removed_entry" not in missing
    batch = store.apply_batch("memory", [{"action": "remove", "old_text": "pnpm"},
                                         {"action": "remove", "old_text": "nowhere"}])  # fmt: skip
    assert not batch["success"] and "removed_entries" not in batch
    assert store.entries("memory") == FACTS


def test_by_fingerprint_edits_report_it_too(home):
    from hermes_memory.memory.entries import fingerprint

    store = seeded(home)
    replaced = store.replace_by_fingerprint("memory", fingerprint(FACTS[1]), "Deploys run on Fridays.")
    assert replaced["replaced_entry"] == FACTS[1]
    unchanged = store.replace_by_fingerprint("memory", fingerprint("Deploys run on Fridays."), "Deploys run on Fridays.")
    assert unchanged["success"] and "replaced_entry" not in unchanged
    assert store.remove_by_fingerprint("memory", fingerprint(FACTS[2]))["removed_entry"] == FACTS[2]


def test_the_tool_payload_carries_them_as_json(home):
    store = seeded(home)
    single = json.loads(memory_tool(action="remove", target="memory", old_text="Tuesdays", store=store))
    assert single["removed_entry"] == FACTS[1]
    batch = json.loads(memory_tool(target="memory", operations=[
        {"action": "replace", "old_text": "pnpm", "content": "Project uses pnpm 9."}], store=store))  # fmt: skip
    assert batch["replaced_entries"] == {"1": FACTS[0]}
