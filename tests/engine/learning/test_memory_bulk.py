"""Deleting many memory cards at once: one write per file, all or nothing, undone exactly."""

from __future__ import annotations

from hermes_memory import api
from hermes_memory.memory.entries import fingerprint, serialise_entries
from hermes_memory.memory.store import MemoryStore

MEMORY = ["Deploys run on Fridays.", "The user likes short answers.", "Staging is at 10.0.0.5.",
          "Backups are nightly."]
USER = ["Name: Ada.", "Prefers British spelling."]


def seed(home):
    for target, entries in (("memory", MEMORY), ("user", USER)):
        path = home.store_file(target)
        path.write_text(serialise_entries(entries), encoding="utf-8")
    return {t: home.store_file(t).read_bytes() for t in ("memory", "user")}


def ids(home, target, texts):
    source = "memory" if target == "memory" else "profile"
    entries = MemoryStore(home).read_entries(target)
    return [f"memory:{source}:{entries.index(t)}:{fingerprint(t)}" for t in texts]


def test_delete_across_both_files_and_restore_the_bytes(home):
    original = seed(home)
    chosen = ids(home, "memory", MEMORY[1:3]) + ids(home, "user", USER[:1])
    result = api.memory_nodes_delete(home, chosen)
    assert result["ok"], result
    assert result["deleted"] == 3
    assert MemoryStore(home).read_entries("memory") == [MEMORY[0], MEMORY[3]]
    assert MemoryStore(home).read_entries("user") == USER[1:]
    back = api.memory_stores_set(
        home, {t: {"before": s["after"], "after": s["before"]} for t, s in result["stores"].items()})
    assert back["ok"], back
    assert {t: home.store_file(t).read_bytes() for t in ("memory", "user")} == original


def test_a_stale_card_refuses_the_whole_batch(home):
    original = seed(home)
    chosen = ids(home, "memory", MEMORY[:1]) + ["memory:profile:0:0123456789ab"]
    result = api.memory_nodes_delete(home, chosen)
    assert not result["ok"] and "stale" in result["message"]
    assert "nothing was deleted" in result["message"]
    assert {t: home.store_file(t).read_bytes() for t in ("memory", "user")} == original


def test_bad_ids_are_refused(home):
    original = seed(home)
    for bad in ([], ["skill-name"], ["memory:memory:0"]):
        assert not api.memory_nodes_delete(home, bad)["ok"]
    assert {t: home.store_file(t).read_bytes() for t in ("memory", "user")} == original
