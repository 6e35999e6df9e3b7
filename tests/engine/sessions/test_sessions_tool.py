"""The session_search tool: discover, scroll, read and browse, with their clamps and rules."""

from __future__ import annotations

import json

import pytest
from sessions_helpers import T0, Corpus

from hermes_memory.home import HermesHome
from hermes_memory.sessions import create_early_db, session_search

WHEN_T0 = "November 14, 2023 at 10:13 PM"


@pytest.fixture
def tool_db(early_corpus):
    c = early_corpus
    c.session("a1", "cli", model="m-a")
    c.say("a1", "user", "deploy the chat-send service")  # 1
    c.say("a1", "assistant", "docker compose up deploys chat-send")  # 2
    c.say("a1", "tool", "chat-send ok", tool_name="terminal")  # 3
    c.say("a1", "assistant", "done")  # 4
    c.end("a1", "compression")
    c.session("cr", "cron")
    c.say("cr", "user", "deploy chat-send nightly")  # 5: best BM25 of all
    c.session("b1", "telegram")
    c.say("b1", "user", "passport renewal")  # 6
    c.say("b1", "assistant", "chat-send reminder set for the passport renewal appointment")  # 7
    c.session("a2", "cli", parent_session_id="a1")
    c.say("a2", "user", "continue the chat-send deploy")  # 8
    c.session("sub", "subagent", parent_session_id="a1")
    c.say("sub", "assistant", "chat-send subagent work")  # 9: hidden source
    return c.close()


def _sessions(result):
    return [entry["session_id"] for entry in result["results"]]


# --- discover ------------------------------------------------------------------------------
def test_discover_envelope_order_and_hydration(tool_db):
    result = session_search(tool_db, "chat-send")
    json.dumps(result)  # JSON-serialisable
    assert {k: result[k] for k in ("success", "mode", "query", "detail", "count", "search_path")} == {
        "success": True, "mode": "discover", "query": "chat-send", "detail": "adaptive",
        "count": 3, "search_path": "fts",
    }  # fmt: skip
    # cron ranks best by BM25 but is demoted; subagent is hidden; a2 shares a1's root.
    assert _sessions(result) == ["a1", "b1", "cr"]
    first, second, third = result["results"]
    assert first == {
        "session_id": "a1", "when": WHEN_T0, "source": "cli", "model": "m-a", "title": None,
        "matched_role": "user", "match_message_id": 1,
        "snippet": "deploy the >>>chat-send<<< service",
        "bookend_start": [],
        "messages": [
            {"id": 1, "role": "user", "content": "deploy the chat-send service",
             "timestamp": T0 + 10, "anchor": True},
            {"id": 2, "role": "assistant", "content": "docker compose up deploys chat-send",
             "timestamp": T0 + 20},
            {"id": 4, "role": "assistant", "content": "done", "timestamp": T0 + 40},
        ],
        "bookend_end": [], "messages_before": 0, "messages_after": 0,
        "detail": "full", "link": "@session:a1",
    }  # fmt: skip
    assert second["detail"] == "compact" and third["detail"] == "compact"
    assert second["messages"] == [
        {"id": 7, "role": "assistant", "timestamp": T0 + 80, "anchor": True,
         "content": "chat-send reminder set for the passport renewal appointment"},
    ]  # fmt: skip
    assert (second["messages_before"], second["messages_after"]) == (1, 0)
    assert (second["bookend_start"], second["bookend_end"]) == ([], [])
    assert third["source"] == "cron" and third["snippet"] == "deploy >>>chat-send<<< nightly"


def test_discover_detail_full_hydrates_every_result(tool_db):
    result = session_search(tool_db, "chat-send", detail="full")
    assert result["detail"] == "full"
    assert [entry["detail"] for entry in result["results"]] == ["full", "full", "full"]
    assert [m["id"] for m in result["results"][1]["messages"]] == [6, 7]


def test_discover_limit_clamps(early_corpus):
    c = early_corpus
    for i in range(12):
        c.session(f"s{i:02d}", "cli")
        c.say(f"s{i:02d}", "user", f"zebra crossing number {i}")
    path = c.close()
    assert session_search(path, "zebra", limit=0)["count"] == 1
    assert session_search(path, "zebra", limit=-5)["count"] == 1
    assert session_search(path, "zebra", limit=99)["count"] == 10
    assert session_search(path, "zebra", limit="x")["count"] == 3  # the default
    assert session_search(path, "zebra", sort="newest", limit=2)["results"][0]["session_id"] == "s11"
    assert session_search(path, "zebra", sort="oldest", limit=2)["results"][0]["session_id"] == "s00"


def test_discover_role_filter(tool_db):
    result = session_search(tool_db, "chat-send", role_filter="tool")
    assert _sessions(result) == ["a1"]
    assert result["results"][0]["matched_role"] == "tool"
    assert result["results"][0]["match_message_id"] == 3


def test_discover_skips_the_live_current_lineage(tool_db):
    # b1 is the current session: its own hits are already in context.
    assert _sessions(session_search(tool_db, "chat-send", current_session_id="b1")) == ["a1", "cr"]
    # a2 continues a1, which ended by compression: a1 has left live context, a2 has not.
    result = session_search(tool_db, "chat-send", current_session_id="a2")
    assert _sessions(result) == ["a1", "b1", "cr"]
    assert result["results"][0]["match_message_id"] == 1


def test_discover_compacted_rows_of_the_live_lineage_are_searchable(modern_corpus):
    c = modern_corpus
    c.session("live", "cli")
    c.say("live", "user", "the quokka plan", extra={"active": 0, "compacted": 1})  # 1
    c.say("live", "user", "quokka again, live")  # 2
    path = c.close()
    result = session_search(path, "quokka", current_session_id="live")
    assert _sessions(result) == ["live"]
    assert result["results"][0]["match_message_id"] == 1


def test_discover_title_match_comes_first(modern_corpus):
    c = modern_corpus
    c.session("t1", "cli", extra={"title": "Tower trip"})
    c.say("t1", "user", "book the museum")  # 1
    c.session("t2", "cli")
    c.say("t2", "user", "tower trip was fun, tower trip again")  # 2
    path = c.close()
    result = session_search(path, "`Tower trip`")
    assert _sessions(result) == ["t1", "t2"]
    first = result["results"][0]
    assert (first["matched_role"], first["match_message_id"], first["title"]) == (
        "session_title", 1, "Tower trip",
    )  # fmt: skip
    assert first["snippet"] == "Session title matched: Tower trip"


def test_hydration_caps_strips_ansi_and_fills_bookends(early_corpus):
    c = early_corpus
    c.session("s")
    c.say("s", "user", "B" * 1500)  # 1: bookend start, capped at 1200
    for i in range(2, 8):
        c.say("s", "assistant", f"filler {i}")  # 2..7
    c.say("s", "user", "\x1b[31mred\x1b[0m needle " + "x" * 5000)  # 8: the anchor
    for i in range(9, 20):
        c.say("s", "assistant", f"after {i}")  # 9..19
    path = c.close()
    entry = session_search(path, "needle")["results"][0]
    anchor = next(m for m in entry["messages"] if m.get("anchor"))
    assert anchor["content"].startswith("red needle ")
    assert len(anchor["content"]) == 4000 and anchor["content"].endswith("…")
    assert anchor["content_truncated"] is True and anchor["original_content_chars"] == 5011
    assert [m["id"] for m in entry["messages"]] == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    assert [m["id"] for m in entry["bookend_start"]] == [1, 2]
    assert len(entry["bookend_start"][0]["content"]) == 1200
    assert entry["bookend_start"][0]["original_content_chars"] == 1500
    assert [m["id"] for m in entry["bookend_end"]] == [17, 18, 19]
    assert (entry["messages_before"], entry["messages_after"]) == (2, 6)


def test_discover_no_results_and_index_fallback(tmp_path):
    c = Corpus(create_early_db(tmp_path / "state.db", fts=False))
    c.session("s", "cli")
    c.say("s", "user", "find the walrus")
    path = c.close()
    result = session_search(path, "walrus")
    assert result["search_path"] == "like"
    assert result["note"] == "This database has no full-text index; used a substring scan."
    assert result["results"][0]["snippet"] == "find the >>>walrus<<<"
    empty = session_search(path, "narwhal")
    assert (empty["count"], empty["message"]) == (0, "No matching sessions found.")


def test_discover_reports_index_rebuild(early_corpus):
    c = early_corpus
    c.session("s")
    c.say("s", "user", "indexed penguin")
    c.writer.conn.execute("DROP TRIGGER messages_fts_insert")
    c.say("s", "user", "unindexed penguin")
    result = session_search(c.close(), "penguin", detail="full")
    assert result["search_path"] == "fts+like"
    assert result["index_rebuild"] == {
        "percent": 50.0,
        "note": "The full-text index is missing 1 newer message(s); those were scanned directly.",
    }


# --- browse ----------------------------------------------------------------------------------
def test_browse_recent_sessions(tool_db):
    result = session_search(tool_db, "", limit=10)
    assert result["mode"] == "browse"
    assert _sessions(result) == ["a2", "b1", "cr", "a1"]  # subagent hidden
    assert result["results"][0] == {
        "session_id": "a2", "link": "@session:a2", "title": None, "source": "cli",
        "started_at": T0 + 80, "last_active": T0 + 90, "when": "November 14, 2023 at 10:14 PM",
        "message_count": 1, "preview": "continue the chat-send deploy",
    }  # fmt: skip


def test_browse_skips_current_session_and_its_compression_root(tool_db):
    result = session_search(tool_db, limit=10, current_session_id="a2")
    assert _sessions(result) == ["b1", "cr"]
    assert _sessions(session_search(tool_db, limit=2)) == ["a2", "b1"]


# --- read ------------------------------------------------------------------------------------
def test_read_whole_session(tool_db):
    result = session_search(tool_db, session_id="a1")
    json.dumps(result)
    assert result["mode"] == "read" and result["truncated"] is False
    assert [m["id"] for m in result["messages"]] == [1, 2, 3, 4]
    assert result["messages"][2] == {
        "id": 3, "role": "tool", "content": "chat-send ok", "timestamp": T0 + 30,
        "tool_name": "terminal",
    }  # fmt: skip
    assert result["session_meta"] == {
        "when": WHEN_T0, "source": "cli", "model": "m-a", "title": None,
        "started_at": T0, "ended_at": T0 + 50, "end_reason": "compression",
        "parent_session_id": None,
    }  # fmt: skip


def test_read_long_session_shows_head_and_tail(early_corpus):
    c = early_corpus
    c.session("long")
    ids = [c.say("long", "user", f"line {i}") for i in range(45)]
    result = session_search(c.close(), session_id="long")
    assert result["truncated"] is True and result["message_count"] == 45
    assert [m["id"] for m in result["messages"]] == ids[:20] + ids[-10:]
    assert result["omitted"] == 15
    assert result["hint"] == (
        "Showing the first 20 and last 10 of 45 messages. "
        "To read the middle, call again with session_id and around_message_id."
    )


def test_read_missing_session(tool_db):
    assert session_search(tool_db, session_id="nope") == {
        "success": False, "error": "No session 'nope' in this history.",
    }  # fmt: skip


def test_read_across_profiles(tmp_path):
    root = HermesHome.resolve(tmp_path / "home")
    work = root.with_profile("work")
    for home, sid, text in ((root, "main1", "root words"), (work, "work1", "work words")):
        c = Corpus(create_early_db(home.state_db))
        c.session(sid, "cli")
        c.say(sid, "user", text)
        c.close()
    found = session_search(root, session_id="work1")
    assert (found["success"], found["profile"]) == (True, "work")
    assert found["messages"][0]["content"] == "work words"
    assert found["link"] == "@session:work/work1"
    explicit = session_search(root, session_id="work/work1")
    assert explicit["link"] == "@session:work/work1" and "profile" not in explicit
    back = session_search(work, session_id="main1")
    assert back["profile"] == "default" and back["link"] == "@session:default/main1"
    assert session_search(root, "words", profile="work")["results"][0]["session_id"] == "work1"
    bad = session_search(root, "words", profile="../etc")
    assert bad["success"] is False and "Invalid profile name" in bad["error"]


# --- scroll ----------------------------------------------------------------------------------
def test_scroll_window_and_clamps(early_corpus):
    c = early_corpus
    c.session("s")
    for i in range(50):
        c.say("s", "user", f"m{i + 1}")
    path = c.close()
    result = session_search(path, session_id="s", around_message_id=25, window=2)
    json.dumps(result)
    assert (result["mode"], result["window"]) == ("scroll", 2)
    assert [m["id"] for m in result["messages"]] == [23, 24, 25, 26, 27]
    assert result["messages"][2]["anchor"] is True
    assert (result["messages_before"], result["messages_after"]) == (22, 23)
    assert result["session_meta"] == {"when": WHEN_T0, "source": "cli", "model": None, "title": None}
    wide = session_search(path, session_id="s", around_message_id=25, window=100)
    assert wide["window"] == 20 and len(wide["messages"]) == 41
    narrow = session_search(path, session_id="s", around_message_id="25", window=0)
    assert narrow["window"] == 1 and [m["id"] for m in narrow["messages"]] == [24, 25, 26]


def test_scroll_rebinds_to_a_continuation(tool_db):
    result = session_search(tool_db, session_id="a1", around_message_id=8, window=1)
    assert result["session_id"] == "a2"
    assert result["warning"] == (
        "Message 8 lives in a2, a continuation of a1; showing it from there."
    )


def test_scroll_errors(tool_db):
    assert session_search(tool_db, session_id="b1", around_message_id=1)["error"] == (
        "Message 1 is not part of session 'b1'."
    )
    assert session_search(tool_db, session_id="b1", around_message_id=999)["error"] == (
        "Message 999 does not exist."
    )
    assert session_search(tool_db, session_id="b1", around_message_id="x")["error"] == (
        "scroll requires integer around_message_id"
    )
    rejected = session_search(tool_db, session_id="b1", around_message_id=7, current_session_id="b1")
    assert rejected["error"] == (
        "scroll rejected: anchor lives in the current session lineage "
        "(already in your active context)"
    )
    # a1 ended by compression, so scrolling it from a2 is allowed.
    allowed = session_search(tool_db, session_id="a1", around_message_id=2, current_session_id="a2")
    assert allowed["success"] is True


# --- scope and modes -------------------------------------------------------------------------
def test_telegram_scope_limits_to_the_conversation(modern_corpus):
    c = modern_corpus
    c.session("chat1", "telegram", extra={"session_key": "tg:1"})
    c.say("chat1", "user", "otter facts")
    c.session("chat2", "telegram", extra={"session_key": "tg:2"})
    c.say("chat2", "user", "otter pictures")
    c.session("now", "telegram", extra={"session_key": "tg:1"})
    c.say("now", "user", "hello")
    path = c.close()
    scoped = dict(current_platform="telegram", current_session_id="now", current_session_key="tg:1")
    assert _sessions(session_search(path, "otter", **scoped)) == ["chat1"]
    everything = session_search(path, "otter", scope="all", sort="oldest", **scoped)
    assert _sessions(everything) == ["chat1", "chat2"]
    assert session_search(path, session_id="chat2", **scoped)["error"] == (
        "That session is outside this conversation's scope (use scope='all')."
    )
    no_key = session_search(path, "otter", current_platform="telegram")
    assert no_key["count"] == 0  # fails closed
    assert session_search(path, "otter", profile="x", current_platform="telegram")["error"] == (
        "Reading another profile's history needs scope='all'."
    )


def test_mode_validation(tool_db):
    assert session_search(tool_db, "x", mode="bogus")["error"] == (
        "Unknown mode 'bogus': use 'fast' or 'summary'."
    )
    assert session_search(tool_db, "", mode="summary")["error"] == "Query cannot be empty."
    assert session_search(tool_db, "chat-send", mode="fast")["mode"] == "discover"
    assert session_search(tool_db, "x", profile="work")["error"] == (
        "profile= needs a Hermes home, not a bare database path."
    )


# --- parity with upstream's answers ---------------------------------------------------------
def test_title_match_snippet_reads_session_title_matched(modern_corpus):
    c = modern_corpus
    c.session("t1", "cli", extra={"title": "Quarterly taxes"})
    c.say("t1", "user", "file the forms")
    result = session_search(c.close(), '"Quarterly taxes"')
    (entry,) = result["results"]
    assert entry["matched_role"] == "session_title"
    assert entry["snippet"] == "Session title matched: Quarterly taxes"


def test_scroll_argument_errors_use_upstream_wording(tool_db):
    for blank in ("", "   "):
        answer = session_search(tool_db, session_id=blank, around_message_id=7)
        assert answer == {"success": False, "error": "scroll requires session_id"}
    for bad in ("seven", 7.5j, [7]):
        answer = session_search(tool_db, session_id="b1", around_message_id=bad)
        assert answer == {"success": False, "error": "scroll requires integer around_message_id"}
    # a numeric string is an integer id, as upstream's int() takes it
    assert session_search(tool_db, session_id="b1", around_message_id="7")["success"] is True


def test_answers_keep_tool_call_id_and_full_tool_calls(early_corpus):
    c = early_corpus
    calls = [
        {"id": "call_1", "type": "function",
         "function": {"name": "terminal", "arguments": '{"cmd": "make deploy"}'}},
        {"id": "call_2", "type": "function", "function": {"arguments": "{}"}},  # unnamed
    ]  # fmt: skip
    c.session("s", "cli")
    c.say("s", "user", "deploy the gateway")  # 1
    c.say("s", "assistant", "deploying the gateway", tool_calls=calls)  # 2
    c.say("s", "tool", "gateway deployed", tool_name="terminal", tool_call_id="call_1")  # 3
    path = c.close()

    read = session_search(path, session_id="s")
    by_id = {message["id"]: message for message in read["messages"]}
    assert by_id[2]["tool_calls"] == calls  # as stored, unnamed call included
    assert by_id[3]["tool_call_id"] == "call_1" and by_id[3]["tool_name"] == "terminal"
    assert "tool_call_id" not in by_id[1] and "tool_calls" not in by_id[1]

    scrolled = session_search(path, session_id="s", around_message_id=2)
    assert [m.get("tool_calls") for m in scrolled["messages"] if m["id"] == 2] == [calls]
    found = session_search(path, "gateway", role_filter="user,assistant,tool", detail="full")
    shown = {m["id"]: m for m in found["results"][0]["messages"]}
    assert shown[2]["tool_calls"] == calls and shown[3]["tool_call_id"] == "call_1"


def test_a_message_without_id_or_with_null_content_does_not_raise(early_corpus):
    from hermes_memory.sessions.present import present_message

    # as upstream's: keys without a value are dropped, a null content is kept
    assert present_message({"role": "assistant", "content": None}, 100) == {
        "role": "assistant", "content": None,
    }
    c = early_corpus
    c.session("s", "cli")
    c.say("s", "user", "rotate the keys")  # 1
    c.say("s", "assistant", None, tool_calls=[{"id": "k", "type": "function",
                                               "function": {"name": "vault"}}])  # 2
    c.say("s", "assistant", "keys rotated")  # 3
    path = c.close()
    read = session_search(path, session_id="s")
    assert read["success"] is True
    tool_turn = next(m for m in read["messages"] if m["id"] == 2)
    assert tool_turn["content"] is None and tool_turn["tool_calls"][0]["id"] == "k"
    found = session_search(path, "keys", detail="full")
    assert found["success"] is True and found["count"] == 1
    assert any(m["content"] is None for m in found["results"][0]["messages"])


def test_when_reads_unknown_without_a_timestamp():
    from hermes_memory.sessions.present import format_when

    assert format_when(None) == "unknown"
    assert format_when(1_700_000_000) == format_when("1700000000") != "unknown"
    assert format_when("yesterday") == "yesterday"  # a non-numeric text shows as it is
    assert format_when(float("inf")) == "inf"  # unconvertible: its text, never a raise
