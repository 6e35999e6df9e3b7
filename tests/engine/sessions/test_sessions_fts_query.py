"""The FTS5 query sanitiser: fixed vectors for each step, and a property over any text."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory.sessions.fts_query import (
    MAX_FTS5_QUERY_CHARS,
    contains_cjk,
    query_terms,
    sanitize_fts5_query,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # empty and punctuation-only input: nothing to search
        ("", ""),
        ("   ", ""),
        ("!!! ??? ()", ""),
        ('"" ""', ""),
        ("AND OR NOT", ""),
        # hyphenated, dotted and underscored terms are quoted (step 6)
        ("chat-send", '"chat-send"'),
        ("fix config.yaml now", 'fix "config.yaml" now'),
        ("snake_case", '"snake_case"'),
        ("-leading", '"-leading"'),
        # balanced phrases survive, stray quotes become spaces (step 2)
        ('"exact phrase" here', '"exact phrase" here'),
        ('say "hello', "say hello"),
        ('"unbalanced "pair" x', '"unbalanced" pair x'),
        ('"  spaced   out  "', '"spaced out"'),
        # special characters become spaces (step 3)
        ("c++ 2^3 {a}", "c 2 3 a"),
        ("col:value", "col value"),
        ("a|b&c~d", "a b c d"),
        ("it's", "it s"),
        # % is removed unless the query has CJK
        ("50%", "50"),
        ("东京 50%", '东京 "50%"'),
        # stars: runs collapse, leading ones go, a trailing one stays a prefix (step 4)
        ("deploy*", "deploy*"),
        ("deploy***", "deploy*"),
        ("**deploy", "deploy"),
        ("* deploy", "deploy"),
        ("a*b", "a* b"),
        # operators only between terms (step 5)
        ("NOT deploy", "deploy"),
        ("deploy AND", "deploy"),
        ("deploy OR OR docker", "deploy OR docker"),
        ("deploy NOT docker", "deploy NOT docker"),
        ("deploy and docker", "deploy and docker"),  # lower case is a plain word
        ("AND*", '"AND"*'),
        ("NEAR(deploy docker)", "NEAR deploy docker"),
        ('"a b" OR "c d"', '"a b" OR "c d"'),
        # CJK is kept as is
        ("東京 タワー", "東京 タワー"),
        # control characters and lone surrogates are dropped
        ("dep\x00loy\ud800", "dep loy"),
    ],
)
def test_sanitize_vectors(raw, expected):
    assert sanitize_fts5_query(raw) == expected


def test_sanitize_caps_length():
    raw = "word " * 1000
    out = sanitize_fts5_query(raw)
    assert len(out) <= MAX_FTS5_QUERY_CHARS
    # 512 characters hold 102 whole "word " and the start of the next one.
    assert out.split() == ["word"] * 102 + ["wo"]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('"exact phrase" chat-send OR db*', ["exact phrase", "chat-send", "db"]),
        ("NOT x AND y", ["x", "y"]),
        ("Deploy deploy DEPLOY", ["Deploy"]),
        ("東京タワー", ["東京タワー"]),
        ("50% (off)", ["50%", "off"]),
        ("", []),
    ],
)
def test_query_terms(raw, expected):
    assert query_terms(raw) == expected


def test_contains_cjk():
    assert contains_cjk("見る") and contains_cjk("한국어") and contains_cjk("カタカナ")
    assert not contains_cjk("plain ascii, ünïcödé")


def _fts_connection() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE early USING fts5(content)")
    conn.execute("CREATE VIRTUAL TABLE modern USING fts5(content, tool_name, tool_calls)")
    conn.execute("INSERT INTO early VALUES ('deploy the chat-send service with docker')")
    conn.execute("INSERT INTO modern VALUES ('deploy chat-send', 'terminal', '[]')")
    return conn


_CONN = _fts_connection()
_FTS_ALPHABET = st.sampled_from(
    list('abcXYZ019 -_.*"():^+{}[]<>,;!?$=\\\'`@/#&|~%\t\n')
    + ["AND", "OR", "NOT", "NEAR", "東", "京", "é", "\u200b", "\x00", "\x1a", "😀"]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.text(), st.lists(_FTS_ALPHABET, max_size=25).map("".join)))
def test_any_text_is_empty_or_a_valid_match(text):
    query = sanitize_fts5_query(text)
    if not query:
        return
    for table in ("early", "modern"):
        # Raises sqlite3.OperationalError on an FTS5 syntax error.
        _CONN.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (query,)).fetchone()


def test_every_control_character_and_surrogate_is_blanked_and_nothing_else():
    import sys
    import unicodedata

    from hermes_memory.sessions.fts_query import _clean_characters

    text = "".join(chr(code) for code in range(sys.maxunicode + 1))
    expected = "".join(" " if unicodedata.category(ch) in ("Cc", "Cs") else ch for ch in text)
    assert _clean_characters(text) == expected
