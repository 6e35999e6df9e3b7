"""Provenance per entry and per skill, and the graph payload's ``history`` key."""

from __future__ import annotations

import json

from history_helpers import write_skill
from sessions_helpers import Corpus, memory_call

from hermes_memory.history.backfill import import_sessions
from hermes_memory.history.capture import capture
from hermes_memory.history.provenance import provenance
from hermes_memory.learning.graph import GraphBuilder
from hermes_memory.memory.entries import fingerprint
from hermes_memory.sessions import create_early_db
from hermes_memory.skills.lifecycle import pin_skill


def _session(home):
    c = Corpus(create_early_db(home.state_db))
    c.session("s-old", "telegram")
    c.say("s-old", "assistant", None, tool_calls=memory_call(
        "c1", action="add", target="memory", content="Release every Tuesday"))
    c.say("s-old", "tool", json.dumps({"success": True}), tool_name="memory", tool_call_id="c1")
    c.close()


def test_entries_combine_history_and_state_db(home, store):
    _session(home)
    home.memory_file.write_text("Release every Tuesday", encoding="utf-8")
    import_sessions(home)
    store.replace("memory", "Tuesday", "Release every Tuesday after the freeze")
    store.add("memory", "Typed in the app")
    rows = {row["entry"]: row for row in provenance(home)["entries"]}
    release = rows["Release every Tuesday after the freeze"]
    assert release["by"] == ["foreground", "app"]  # the agent added it, the app edited it
    assert release["last_by"] == "app"
    assert release["sessions"] == ["s-old"]
    assert release["first_seen"] < release["last_changed"]
    typed = rows["Typed in the app"]
    assert (typed["by"], typed["sessions"]) == (["app"], [])


def test_skills(home):
    write_skill(home, "triage")
    capture(home)
    pin_skill(home, "triage")
    (row,) = provenance(home)["skills"]
    assert row["skill"] == "triage" and row["by"] == ["unknown", "app"] and row["last_by"] == "app"
    assert len(row["versions"]) == 2


def test_graph_nodes_carry_history(home, store):
    write_skill(home, "triage")
    home.skills_usage_file.write_text(json.dumps({"triage": {"created_by": "agent", "use_count": 2}}),
                                      encoding="utf-8")  # fmt: skip
    builder = GraphBuilder(home)
    payload = builder.build()
    assert all("history" not in node for node in payload["nodes"])  # no history yet
    store.add("memory", "Graph entry")
    pin_skill(home, "triage")
    payload = builder.build()
    nodes = {node["id"]: node for node in payload["nodes"]}
    assert nodes["triage"]["history"]["lastBy"] == "app"
    memory_node = next(n for n in payload["nodes"] if n["kind"] == "memory")
    assert memory_node["fingerprint"] == fingerprint("Graph entry")
    assert memory_node["history"]["lastBy"] == "app"
    assert memory_node["history"]["version"]


def test_graph_history_follows_appended_versions(home, store):
    write_skill(home, "triage")
    home.skills_usage_file.write_text(json.dumps({"triage": {"created_by": "agent", "use_count": 2}}),
                                      encoding="utf-8")  # fmt: skip
    store.add("memory", "First entry")
    builder = GraphBuilder(home)
    builder.build()
    for n in range(20):  # past a full version, so the appended lines hold edits
        store.add("memory", f"Entry {n}")
    pin_skill(home, "triage")
    payload = builder.build()  # reads only what was appended
    cards = {n["fingerprint"]: n for n in payload["nodes"] if n["kind"] == "memory"}
    assert cards[fingerprint("Entry 19")]["history"]["lastBy"] == "app"
    assert cards[fingerprint("First entry")]["history"]["version"] != cards[fingerprint("Entry 19")]["history"]["version"]
    skill = next(n for n in payload["nodes"] if n["id"] == "triage")
    assert skill["history"]["versions"] == 1 and skill["history"]["lastBy"] == "app"
    fresh = GraphBuilder(home).build()  # the same as a full read
    assert [n.get("history") for n in fresh["nodes"]] == [n.get("history") for n in payload["nodes"]]
