"""search_messages: snippets, filters, ordering, context, routing and fallbacks."""

from __future__ import annotations

import sqlite3

import pytest
from sessions_helpers import T0, Corpus

from hermes_memory.sessions import (
    SessionStore,
    SessionWriter,
    create_early_db,
    search_messages,
    search_outcome,
)


def _build_basic(c: Corpus) -> Corpus:
    c.session("s_cli", "cli", model="m-cli")
    c.say("s_cli", "user", "How do I deploy the chat-send service with docker?")  # 1
    c.say("s_cli", "assistant", "Run docker compose up to deploy chat-send.")  # 2
    c.say("s_cli", "tool", "deploy log: container started", tool_name="terminal")  # 3
    c.say("s_cli", "assistant", "The service is running.")  # 4
    c.session("s_tg", "telegram")
    c.say("s_tg", "user", "Remind me to renew the passport")  # 5
    c.say("s_tg", "assistant", "I will remind you to renew the passport next week")  # 6
    c.session("s_cron", "cron")
    c.say("s_cron", "user", "deploy nightly backup")  # 7
    c.say("s_cron", "assistant", "Nightly backup deploy finished")  # 8
    return c


@pytest.fixture
def basic_db(early_corpus):
    return _build_basic(early_corpus).close()


def _ids(outcome):
    return [hit["id"] for hit in outcome]


def test_fts_hit_fields_and_snippets(basic_db):
    with SessionStore(basic_db) as store:
        outcome = search_outcome(store, "chat-send")
    assert outcome.path == "fts" and outcome.note == ""
    # BM25: the shorter message ranks first.
    assert _ids(outcome) == [2, 1]
    first = outcome[0]
    assert set(first) == {
        "id", "session_id", "role", "snippet", "timestamp", "tool_name", "source", "model",
        "session_started", "context",
    }  # fmt: skip
    assert first["snippet"] == "Run docker compose up to deploy >>>chat-send<<<."
    assert outcome[1]["snippet"] == "How do I deploy the >>>chat-send<<< service with docker?"
    assert (first["session_id"], first["role"], first["source"], first["model"]) == (
        "s_cli", "assistant", "cli", "m-cli",
    )  # fmt: skip
    assert first["timestamp"] == T0 + 20 and first["session_started"] == T0


def test_snippet_is_forty_tokens_with_ellipses(early_corpus):
    c = early_corpus
    c.session("s1")
    words = [f"w{i}" for i in range(100)]
    words[60] = "needle"
    c.say("s1", "user", " ".join(words))
    with SessionStore(c.close()) as store:
        snippet = search_messages(store, "needle")[0]["snippet"]
    assert snippet.startswith("...") and snippet.endswith("...")
    assert ">>>needle<<<" in snippet
    assert len(snippet.strip(".").split()) == 40


def test_context_is_neighbours_by_time_capped_at_200(early_corpus):
    c = early_corpus
    c.session("s1")
    c.say("s1", "user", "a" * 300)
    c.say("s1", "assistant", "the needle is here")
    c.say("s1", "user", "short reply")
    c.say("s1", "user", "not a neighbour")
    with SessionStore(c.close()) as store:
        hit = search_messages(store, "needle")[0]
    assert hit["context"] == [
        {"id": 1, "role": "user", "content": "a" * 200},
        {"id": 2, "role": "assistant", "content": "the needle is here"},
        {"id": 3, "role": "user", "content": "short reply"},
    ]


def test_role_source_and_exclude_filters(basic_db):
    with SessionStore(basic_db) as store:
        assert _ids(search_messages(store, "deploy", role_filter="user")) == [7, 1]
        assert _ids(search_messages(store, "deploy", role_filter=["tool"])) == [3]
        assert _ids(search_messages(store, "renew", source_filter=["telegram"])) == [5, 6]
        assert _ids(search_messages(store, "renew", source_filter="cli")) == []
        assert _ids(search_messages(store, "deploy", exclude_sources=["cron"])) == [3, 2, 1]
        assert _ids(search_messages(store, "deploy", source_filter="cli,cron")) == [7, 3, 8, 2, 1]


def test_cron_demotion_keeps_rank_order_within_groups(basic_db):
    with SessionStore(basic_db) as store:
        plain = search_messages(store, "deploy")
        demoted = search_messages(store, "deploy", demote_sources=("cron",))
        page = search_messages(store, "deploy", demote_sources=("cron",), limit=2, offset=2)
    assert _ids(plain) == [7, 3, 8, 2, 1]
    assert _ids(demoted) == [3, 2, 1, 7, 8]
    assert _ids(page) == [1, 7]


def test_sort_newest_and_oldest(basic_db):
    with SessionStore(basic_db) as store:
        assert _ids(search_messages(store, "deploy", sort="newest")) == [8, 7, 3, 2, 1]
        assert _ids(search_messages(store, "deploy", sort="oldest")) == [1, 2, 3, 7, 8]


def test_limit_offset_and_fields(basic_db):
    with SessionStore(basic_db) as store:
        page = search_outcome(store, "deploy", limit=2, offset=1, fields=("id", "role"))
        with pytest.raises(ValueError, match="Unknown search field"):
            search_messages(store, "deploy", fields=("id", "bogus"))
    assert page.hits == [
        {"id": 3, "session_id": "s_cli", "role": "tool"},
        {"id": 8, "session_id": "s_cron", "role": "assistant"},
    ]


def test_blank_and_unsearchable_queries(basic_db):
    with SessionStore(basic_db) as store:
        for query in ("", "   ", "!!!", "AND OR"):
            outcome = search_outcome(store, query)
            assert outcome.hits == [] and outcome.path == "none"


def test_operators_and_phrases(basic_db):
    with SessionStore(basic_db) as store:
        assert _ids(search_messages(store, "passport OR docker", sort="oldest")) == [1, 2, 5, 6]
        assert _ids(search_messages(store, '"renew the passport" NOT week')) == [5]
        assert _ids(search_messages(store, "dep*", role_filter="user")) == [7, 1]


# --- fallbacks --------------------------------------------------------------------------
def test_like_fallback_without_fts(tmp_path):
    c = Corpus(create_early_db(tmp_path / "state.db", fts=False))
    _build_basic(c)
    with SessionStore(c.close()) as store:
        assert not store.schema.has_fts
        outcome = search_outcome(store, "chat-send")
    assert outcome.path == "like"
    assert outcome.note == "This database has no full-text index; used a substring scan."
    assert _ids(outcome) == [2, 1]  # newest first: no rank without an index
    assert outcome[0]["snippet"] == "Run docker compose up to deploy >>>chat-send<<<."


def test_stale_index_is_topped_up_by_scanning_the_gap(early_corpus):
    c = _build_basic(early_corpus)
    c.writer.conn.execute("DROP TRIGGER messages_fts_insert")
    c.say("s_tg", "user", "deploy the passport scanner")  # 9: not indexed
    with SessionStore(c.close()) as store:
        outcome = search_outcome(store, "deploy", role_filter="user")
    assert outcome.path == "fts+like"
    assert outcome.unindexed == 1
    assert outcome.note == (
        "The full-text index is missing 1 newer message(s); those were scanned directly."
    )
    assert _ids(outcome) == [7, 1, 9]
    assert outcome[2]["snippet"] == ">>>deploy<<< the passport scanner"


def test_corrupt_index_falls_back_to_like(early_corpus):
    c = early_corpus
    c.session("s1")
    for i in range(200):
        c.say("s1", "user", f"deploy message number {i}")
    c.writer.conn.execute("UPDATE messages_fts_data SET block = substr(block, 1, 10) WHERE id > 10")
    c.writer.conn.commit()
    with SessionStore(c.close()) as store:
        outcome = search_outcome(store, "number 150")
    assert outcome.path == "like"
    assert outcome.note.startswith("The full-text index could not be used (database disk image")
    assert _ids(outcome) == [151]


def test_cjk_without_cjk_indexes_uses_like(early_corpus):
    c = early_corpus
    c.session("s1")
    c.say("s1", "user", "明日は東京タワーに行きます")
    c.say("s1", "user", "大阪に行きます")
    with SessionStore(c.close()) as store:
        outcome = search_outcome(store, "東京")
    assert outcome.path == "like"
    assert _ids(outcome) == [1]
    assert outcome[0]["snippet"] == "明日は>>>東京<<<タワーに行きます"


# --- modern schema ----------------------------------------------------------------------
@pytest.fixture
def modern_db(modern_corpus):
    c = modern_corpus
    c.session("m1", "cli", extra={"title": "Tower trip"})
    c.say("m1", "user", "plan the tokyo tower visit")  # 1 live
    c.say("m1", "assistant", "tower tickets booked", extra={"active": 0, "compacted": 1})  # 2
    c.say("m1", "assistant", "tower plan rewound", extra={"active": 0, "compacted": 0})  # 3
    c.say("m1", "assistant", "tower hidden note", extra={"display_kind": "hidden"})  # 4
    c.say("m1", "tool", "tower api response", tool_name="maps")  # 5
    c.say("m1", "user", "明日は東京タワーに行きます")  # 6
    return c.close()


def test_modern_visibility_rules(modern_db):
    with SessionStore(modern_db) as store:
        visible = search_messages(store, "tower", sort="oldest")
        everything = search_messages(store, "tower", sort="oldest", include_inactive=True)
    assert _ids(visible) == [1, 2, 5]  # live, compacted archive, tool; rewound and hidden out
    assert _ids(everything) == [1, 2, 3, 5]  # hidden rows stay out even then


def test_modern_tool_role_uses_canonical_scan(modern_db):
    with SessionStore(modern_db) as store:
        outcome = search_outcome(store, "maps", role_filter="tool")
    assert outcome.path == "like"
    assert outcome.note == "Tool-role and reasoning searches scan the messages directly."
    assert _ids(outcome) == [5]  # matched on tool_name


def test_modern_latin_zero_hits_retry_on_trigram(modern_db):
    with SessionStore(modern_db) as store:
        outcome = search_outcome(store, "icket")  # a substring, not a token
    assert outcome.path == "trigram"
    assert _ids(outcome) == [2]
    assert outcome[0]["snippet"] == "tower t>>>icket<<<s booked"


def test_modern_cjk_routes(modern_db):
    with SessionStore(modern_db) as store:
        long_cjk = search_outcome(store, "東京タワー")
        short_cjk = search_outcome(store, "東京")
    assert (long_cjk.path, _ids(long_cjk)) == ("trigram", [6])
    assert (short_cjk.path, _ids(short_cjk)) == ("like", [6])  # under 3 characters
    assert long_cjk[0]["snippet"] == "明日は>>>東京タワー<<<に行きます"


def test_search_never_writes(basic_db):
    before = basic_db.read_bytes()
    with SessionStore(basic_db) as store:
        search_messages(store, "deploy")
        with pytest.raises(sqlite3.OperationalError):
            store.conn.execute("DELETE FROM messages")
    assert basic_db.read_bytes() == before


def test_search_sees_rows_written_while_open(basic_db):
    with SessionStore(basic_db) as store:
        with SessionWriter(basic_db) as writer:
            writer.append_message("s_tg", "user", "fresh words", timestamp=T0 + 999)
        assert [hit["id"] for hit in search_messages(store, "fresh")] == [9]


def test_search_messages_returns_a_plain_list(basic_db):
    with SessionStore(basic_db) as store:
        hits = search_messages(store, "chat-send")
        outcome = search_outcome(store, "chat-send")
        empty = search_messages(store, "   ")
    assert type(hits) is list and type(empty) is list and empty == []
    assert hits == outcome.hits and hits
    assert all(type(hit) is dict for hit in hits)


def test_ranked_scan_gives_the_same_rows_as_filtering_before_the_limit(early_corpus, monkeypatch):
    from hermes_memory.sessions.search import _Search, scan_messages

    c = early_corpus
    for n in range(120):
        sid = f"s{n}"
        c.session(sid, ("cli", "subagent", "telegram")[n % 3])
        # distinct lengths give distinct BM25 ranks; every other message is a tool row
        c.say(sid, ("user", "tool")[n % 2], "ledger " + "filler " * (n % 37) + f"item{n}")
    path = c.close()
    monkeypatch.setattr(_Search, "JOIN_BATCH", 7)  # many joins and ranked pages
    monkeypatch.setattr(_Search, "FIRST_PAGE", 3)
    with SessionStore(path) as store:
        for scan_limit in (1, 5, 30, 500):
            kwargs = dict(exclude_sources=["subagent"], role_filter=["user"])
            scanned = scan_messages(store, "ledger", scan_limit=scan_limit, **kwargs)
            lazily = [row["id"] for row in scanned.iter_rows()]
            eager = [hit["id"] for hit in search_messages(
                store, "ledger", limit=scan_limit, fields=("id",), **kwargs)]  # fmt: skip
            assert lazily == eager
            assert len(lazily) == min(scan_limit, 40)  # 60 user rows, a third of them subagent


def test_a_bounded_rank_scores_only_the_newest_matches_and_says_so(early_corpus):
    c = early_corpus
    c.session("old", "cli")
    best = c.say("old", "user", "kubernetes kubernetes kubernetes")  # the best BM25 match, oldest
    c.session("new", "cli")
    newer = [c.say("new", "user", f"one kubernetes note among many other words, number {n}")
             for n in range(6)]  # fmt: skip
    c.say("new", "assistant", "nothing to see here")
    with SessionStore(c.close()) as store:
        whole = search_outcome(store, "kubernetes", limit=10, fields=("id",))
        assert _ids(whole)[0] == best and whole.note == ""
        bounded = search_outcome(store, "kubernetes", limit=10, fields=("id",), rank_window=3)
        assert sorted(_ids(bounded)) == sorted(newer[-3:])  # the newest three matches only
        ranked = [row[0] for row in store.query(
            "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'kubernetes' AND rowid >= ? "
            "ORDER BY rank", (newer[-3],))]  # fmt: skip
        assert _ids(bounded) == ranked  # in BM25 order among them
        assert bounded.note == "Best matches among the newest 3 matching messages."


@pytest.mark.parametrize("query", ["deploy", "passport", "chat-send", "backup OR service"])
def test_a_rank_window_above_the_match_count_changes_nothing(basic_db, query):
    with SessionStore(basic_db) as store:
        for kwargs in ({}, {"demote_sources": ("cron",)}, {"sort": "newest"}):
            plain = search_outcome(store, query, **kwargs)
            for window in (8, 5000):
                bounded = search_outcome(store, query, rank_window=window, **kwargs)
                assert (bounded.hits, bounded.path, bounded.note) == (plain.hits, plain.path, plain.note)
