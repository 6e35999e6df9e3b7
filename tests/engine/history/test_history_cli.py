"""The ``history`` commands, in text and with --json."""

from __future__ import annotations

import json
import time

from history_helpers import entries, events

from hermes_memory.cli import main


def run(home, capsys, *args):
    code = main(["--home", str(home.path), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_log_show_diff_restore(home, store, capsys):
    store.add("memory", "Alpha fact")
    store.add("user", "Likes tea")
    store.replace("memory", "Alpha", "Alpha fact, revised")
    code, out, _ = run(home, capsys, "history", "log")
    assert code == 0 and out.count("this app") == 3
    code, out, _ = run(home, capsys, "--json", "history", "log", "memory")
    listed = json.loads(out)["events"]
    assert [e["kind"] for e in listed] == ["memory", "memory"]
    newest, oldest = listed[0]["id"], listed[1]["id"]
    code, out, _ = run(home, capsys, "history", "show", newest)
    assert code == 0 and "Alpha fact, revised" in out and "~ Alpha fact" in out
    code, out, _ = run(home, capsys, "--json", "history", "diff", oldest, newest)
    assert json.loads(out)["changed"] == [{"before": "Alpha fact", "after": "Alpha fact, revised"}]
    code, out, _ = run(home, capsys, "history", "restore", oldest)
    assert code == 0 and "undo with: history restore" in out
    assert entries(home) == ["Alpha fact"]
    code, _, err = run(home, capsys, "history", "show", "nope")
    assert code == 1 and "No history version 'nope'" in err


def test_since_and_skill_filters(home, store, capsys):
    store.add("memory", "Old")
    cut = time.time()
    time.sleep(0.01)
    store.add("memory", "New")
    code, out, _ = run(home, capsys, "--json", "history", "log", "--since", str(cut))
    assert json.loads(out)["total"] == 1
    code, _, err = run(home, capsys, "history", "log", "memory", "extra")
    assert code == 2
    code, _, err = run(home, capsys, "history", "log", "--since", "last tuesday")
    assert code == 2 and "not a date" in err


def test_forget(home, store, capsys):
    store.add("memory", "Private one")
    cut = time.time()
    time.sleep(0.01)
    store.add("memory", "Private two")
    code, _, err = run(home, capsys, "history", "forget")
    assert code == 2 and "--yes" in err and len(events(home)) == 2
    code, out, _ = run(home, capsys, "history", "forget", "--before", str(cut), "--yes")
    assert code == 0 and "Erased 1" in out
    assert len(events(home)) == 1
    blobs = (home.path / ".memory-studio" / "history" / "blobs.jsonl").read_text(encoding="utf-8")
    assert "Private one" in blobs  # still in the kept version
    code, out, _ = run(home, capsys, "history", "forget", "--yes")
    assert code == 0 and not (home.path / ".memory-studio" / "history").exists()
    assert entries(home) == ["Private one", "Private two"]  # the stores are untouched


def test_capture_import_state_provenance_lineage(home, store, capsys):
    store.add("memory", "Something")
    home.memory_file.write_text("Something\n§\nHand added\n", encoding="utf-8")
    code, out, _ = run(home, capsys, "history", "capture")
    assert code == 0 and "Recorded 1" in out
    code, out, _ = run(home, capsys, "--json", "history", "import-sessions")
    assert code == 1 and "No session history" in json.loads(out)["error"]
    code, out, _ = run(home, capsys, "--json", "history", "state")
    state = json.loads(out)
    assert state["memory"]["entry_count"] == 2
    code, out, _ = run(home, capsys, "--json", "history", "provenance")
    rows = {r["entry"]: r for r in json.loads(out)["entries"]}
    assert rows["Hand added"]["by"] == ["hand"] and rows["Something"]["by"] == ["app"]
    fp = rows["Hand added"]["fingerprint"]
    code, out, _ = run(home, capsys, "history", "lineage", fp)
    assert code == 0 and "added    by hand" in out
