"""The ``history`` commands, in text and with --json."""

from __future__ import annotations

import json
import random
import time

import pytest
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


@pytest.mark.parametrize("zone", ["UTC", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "America/St_Johns",
                                  "Africa/Monrovia"])  # fmt: skip
def test_log_dates_are_local_time_across_clock_changes(zone, monkeypatch):
    from hermes_memory.history import commands

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        commands._HOURS.clear()
        rng = random.Random(zone)
        # around every hour of two years (so every clock change), and anywhere at all
        moments = [1.7e9 + 3600 * k + rng.uniform(-90, 90) for k in range(0, 17_520, 7)]
        moments += [rng.uniform(0, 4e9) for _ in range(2000)]
        # before 1970, and offsets in seconds (Monrovia kept -0:44:30 until 1972)
        moments += [rng.uniform(-2e9, 1e8) for _ in range(2000)] + [-60.5, -0.5, 63_072_000.0]
        for ts in moments:
            assert commands._date(ts) == time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)), ts
    finally:
        monkeypatch.undo()
        time.tzset()
        commands._HOURS.clear()
        commands._DAYS.clear()
