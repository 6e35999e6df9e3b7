"""The graph's ``history`` keys come from history's summary index when there is one: the
same keys as a full read of history, without replaying it on every cold build."""

from __future__ import annotations

import json

import pytest

from hermes_memory.history import provenance
from hermes_memory.history.capture import capture
from hermes_memory.history.log_index import index_path, summary_rows
from hermes_memory.history.storage import HistoryStore
from hermes_memory.learning.graph import GraphBuilder
from hermes_memory.memory.store import MemoryStore
from hermes_memory.skills.lifecycle import pin_skill


def _history(hb) -> None:
    """Skills and memory with a few versions each: captures, app edits, delta versions."""
    home = hb.home
    names = [f"tool-{n}" for n in range(6)]
    for name in names:
        hb.skill(f"tools/{name}", description=f"Use {name} for work")
    hb.usage({name: {"created_by": "agent", "use_count": 1} for name in names})
    hb.memory("memory", ["Release every Tuesday", "tool-1 needs a token"])
    capture(home)
    store = MemoryStore(home)
    for n in range(25):  # past a full version, so later versions are stored as edits
        store.add("memory", f"Entry {n} about tool-{n % 6}")
    pin_skill(home, "tool-2")


def _history_keys(payload: dict) -> list:
    return [(node["id"], node.get("history")) for node in payload["nodes"]]


def test_history_keys_from_the_index_equal_a_full_read(home, hb, monkeypatch):
    _history(hb)
    summary_rows(home)  # writes the index, as 'history log' does
    store = MemoryStore(home)
    store.add("memory", "Appended after the index was written")  # the index does not cover these
    pin_skill(home, "tool-4")
    index = index_path(HistoryStore(home))
    before = index.read_bytes()

    def no_replay(*_args, **_kwargs):
        raise AssertionError("the whole history was replayed although its index is there")

    with monkeypatch.context() as patch:
        patch.setattr(provenance, "Timeline", no_replay)
        from_index = GraphBuilder(home).build()
    assert index.read_bytes() == before  # a build only reads an index that lags behind the log
    with monkeypatch.context() as patch:
        patch.setattr(provenance, "_skill_rows", lambda *_args: None)  # no index: replay it all
        full = GraphBuilder(home).build()
    assert _history_keys(from_index) == _history_keys(full)
    nodes = {node["id"]: node for node in full["nodes"]}
    assert nodes["tool-4"]["history"]["lastBy"] == "app"
    assert nodes["tool-2"]["history"]["versions"] == 2
    cards = [node for node in full["nodes"] if node["kind"] == "memory"]
    assert len(cards) == 28 and all("history" in card for card in cards)


@pytest.mark.parametrize("damage", ["not json", "rows of the wrong shape"])
def test_a_damaged_index_falls_back_to_a_full_read(home, hb, damage):
    _history(hb)
    expected = _history_keys(GraphBuilder(home).build())
    summary_rows(home)
    index = index_path(HistoryStore(home))
    if damage == "not json":
        index.write_text("{", encoding="utf-8")
    else:
        data = json.loads(index.read_text(encoding="utf-8"))
        data["rows"] = [[row[0], row[1], "skill"] for row in data["rows"]]
        index.write_text(json.dumps(data), encoding="utf-8")
    assert _history_keys(GraphBuilder(home).build()) == expected


@pytest.mark.parametrize("staleness", ["missing", "older version", "not json"])
def test_a_build_rebuilds_a_missing_or_outdated_index_once(home, hb, monkeypatch, staleness):
    _history(hb)
    expected = _history_keys(GraphBuilder(home).build())
    summary_rows(home)
    index = index_path(HistoryStore(home))
    current = index.read_bytes()
    if staleness == "missing":
        index.unlink()
    elif staleness == "older version":
        index.write_bytes(current.replace(b'"v":2', b'"v":1', 1))
    else:
        index.write_text("{", encoding="utf-8")

    def no_replay(*_args, **_kwargs):
        raise AssertionError("the whole history was replayed instead of rebuilding its index")

    with monkeypatch.context() as patch:
        patch.setattr(provenance, "Timeline", no_replay)
        assert _history_keys(GraphBuilder(home).build()) == expected
        assert json.loads(index.read_bytes()) == json.loads(current)  # written as 'history log' would
        rebuilt = index.stat().st_mtime_ns
        assert _history_keys(GraphBuilder(home).build()) == expected
    assert index.stat().st_mtime_ns == rebuilt  # the next build only read it
