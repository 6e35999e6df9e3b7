"""The history section of the engine face returns plain JSON-able data."""

from __future__ import annotations

import json
import time

from history_helpers import write_skill

from hermes_memory import api
from hermes_memory.memory.entries import fingerprint


def test_every_history_call_is_plain_data(home, store, agent):
    write_skill(home, "notes")
    store.add("memory", "Face entry")
    middle = time.time()
    time.sleep(0.01)
    agent(home, "s-face", [{"action": "add", "target": "memory", "content": "Agent entry"}])
    results = {"capture": api.history_capture(home)}
    log = api.history_log(home)
    version = log["events"][-1]["id"]
    results.update(
        log=log,
        skill_log=api.history_log(home, kind="skill", skill="notes"),
        show=api.history_show(home, version),
        diff=api.history_diff(home, version, "now"),
        lineage=api.history_entry_lineage(home, fingerprint("Face entry")),
        state_then=api.history_state_at(home, middle, texts=True),
        state_now=api.history_state_at(home),
        provenance=api.history_provenance(home),
        growth=api.history_growth(home),
        versions=api.history_versions(home),
        size=api.history_size(home),
        taught=api.session_taught(home, "s-face"),
        revert_plan=api.session_revert(home, "s-face"),
        imported=api.history_import_sessions(home),
    )
    for name, result in results.items():
        assert result["ok"], (name, result)
        assert json.loads(json.dumps(result)) == result, name
    assert results["state_then"]["memory"]["entries"] == ["Face entry"]
    assert results["state_now"]["memory"]["entry_count"] == 2
    assert results["size"]["bytes"] > 0 and results["size"]["path"].endswith("history")
    points = results["growth"]["points"]
    assert points[-1]["memory_entries"] == 2 and points[-1]["active_skills"] == 1
    assert points[-1]["memory_chars"] == len("Face entry\n§\nAgent entry")
    # the scrubber's lighter read: the same versions, when and of what, oldest first
    assert results["versions"]["points"] == [{"ts": p["ts"], "kind": p["kind"]} for p in points]
    assert results["revert_plan"]["dry_run"] is True  # the face defaults to a dry run
    assert results["taught"]["memory"]["memory"]["added"] == ["Agent entry"]
    assert api.history_restore(home, version)["ok"]
    assert api.history_forget(home)["ok"]
    assert api.history_log(home)["events"] == []
