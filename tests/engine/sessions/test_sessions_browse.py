"""The engine face's reads for the Sessions tab (``sessions_*`` in api.py) on real state.db
files: newest-first search off the index, its fallbacks, transcripts and clear refusals."""

from __future__ import annotations

import json

import pytest

from hermes_memory import api
from hermes_memory.sessions import SessionWriter, create_modern_db


@pytest.fixture
def modern_home(home):
    create_modern_db(home.state_db)
    with SessionWriter(home.state_db) as writer:
        writer.create_session("s1", "cli", started_at=1000.0, extra={"title": "Deploys"})
        writer.create_session("s2", "cron", started_at=2000.0)
        for number in range(12):
            writer.append_message("s1" if number % 2 else "s2", "user", f"deploy number {number} went fine",
                                  timestamp=1000.0 + number)  # fmt: skip
        writer.append_message("s1", "assistant", "a rewound deploy note", timestamp=1100.0,
                              extra={"active": 0, "compacted": 0})  # fmt: skip
        writer.append_message("s1", "assistant", None, timestamp=1101.0, tool_calls=[
            {"id": "c1", "type": "function", "function": {"name": "memory", "arguments": json.dumps(
                {"action": "add", "target": "user", "content": "Deploys on Fridays are fine."})}}])  # fmt: skip
        writer.append_message("s1", "tool", json.dumps({"success": False, "error": "over budget"}),
                              tool_name="memory", tool_call_id="c1", timestamp=1102.0)  # fmt: skip
    return home


def test_newest_first_reads_the_index_newest_first_and_hides_rewound_rows(modern_home):
    result = api.sessions_search(modern_home, "deploy", limit=5)
    assert result["ok"] and result["order"] == "newest" and result["path"] == "fts"
    ids = [hit["id"] for hit in result["results"]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 5
    assert all(">>>deploy<<<" in hit["snippet"].lower() for hit in result["results"])
    assert all("rewound" not in hit["snippet"] for hit in result["results"])
    titled = next(hit for hit in result["results"] if hit["session_id"] == "s1")
    assert titled["title"] == "Deploys" and titled["source"] == "cli"


def test_best_match_is_the_engines_relevance_search(modern_home):
    best = api.sessions_search(modern_home, "deploy", limit=20, order="best")
    newest = api.sessions_search(modern_home, "deploy", limit=20)
    assert best["order"] == "best"
    assert {h["id"] for h in best["results"]} == {h["id"] for h in newest["results"]}
    sources = [hit["source"] for hit in best["results"]]
    assert sources == sorted(sources, key=lambda s: s == "cron")  # cron after conversations


def test_text_the_index_cannot_take_goes_the_engines_way(modern_home):
    result = api.sessions_search(modern_home, "部署")
    assert result["ok"] and result["order"] == "best" and result["count"] == 0


def test_a_transcript_marks_writes_and_refused_results(modern_home):
    result = api.sessions_transcript(modern_home, "s1")
    assert result["ok"] and result["session"]["title"] == "Deploys"
    writer = next(m for m in result["messages"] if m["calls"])
    assert writer["write"] == "memory"
    assert writer["calls"][0]["write"]["label"] == "add to USER.md: Deploys on Fridays are fine."
    answer = next(m for m in result["messages"] if m.get("result_of") == "c1")
    assert answer["failed"] and answer["write"] == "memory"
    assert all("rewound" not in m["content"] for m in result["messages"])


def test_refusals_say_which_state(home, modern_home):
    assert api.sessions_transcript(modern_home, "gone")["state"] == "vanished"
    modern_home.state_db.unlink()
    for answer in (api.sessions_search(home, "deploy"), api.sessions_recent(home),
                   api.sessions_transcript(home, "s1")):  # fmt: skip
        assert answer["ok"] is False and answer["state"] == "missing" and "state.db" in answer["error"]
    home.state_db.write_bytes(b"not a database at all" * 100)
    assert api.sessions_search(home, "deploy")["state"] == "invalid"
