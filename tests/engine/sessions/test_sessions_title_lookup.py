"""``resolve_session_by_title``: NOCASE title matching through upstream's title index.

The answer must be the one a NOCASE scan of every session gives; with the index the
lookup must never scan the sessions table (``session_search`` asks it on every call).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory.sessions import create_modern_db
from hermes_memory.sessions.store import SessionStore, next_case_variant, nocase_equal

SCAN = "SELECT id FROM sessions WHERE title = ? COLLATE NOCASE ORDER BY started_at DESC LIMIT 1"
# letters in both cases, a non-ASCII letter NOCASE does not fold, and separators
TITLE_CHARS = st.sampled_from(list("aAbBzZ é É-_1[`"))
TITLES = st.text(TITLE_CHARS, min_size=1, max_size=6)


def _database(path: Path, titles: list[str], *, with_index: bool = True) -> Path:
    create_modern_db(path)
    conn = sqlite3.connect(path)
    if not with_index:
        conn.execute("DROP INDEX idx_sessions_title")
    conn.executemany(
        "INSERT INTO sessions (id, source, started_at, title) VALUES (?, 'cli', ?, ?)",
        [(f"s{number}", 1000.0 + number * 7 % 101, title) for number, title in enumerate(titles)],
    )
    conn.commit()
    conn.close()
    return path


def _scan_answer(store: SessionStore, wanted: str) -> str | None:
    row = store.conn.execute(SCAN, (wanted.strip(),)).fetchone()
    return row[0] if row else None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(titles=st.lists(TITLES, max_size=25, unique=True), query=TITLES)
def test_title_lookup_gives_what_a_nocase_scan_gives(tmp_path_factory, titles, query):
    folder = tmp_path_factory.mktemp("titles")
    path = _database(folder / "state.db", titles)
    with SessionStore(path) as store:
        for wanted in (query, *titles[:3], *(t.swapcase() for t in titles[:3])):
            assert store.resolve_session_by_title(wanted) == _scan_answer(store, wanted), wanted


def test_title_lookup_never_scans_the_sessions_table(tmp_path):
    titles = [f"Deploy notes {n}" for n in range(300)] + ["Tower trip", "TOWER TRIP", "tower Trip"]
    path = _database(tmp_path / "state.db", titles)
    with SessionStore(path) as store:
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        found = store.resolve_session_by_title("tower trip")
        missing = store.resolve_session_by_title("no such title")
        store.conn.set_trace_callback(None)
        assert (found, missing) == (_scan_answer(store, "tower trip"), None)
        assert found == "s302"  # the newest of the three case variants
        plans = []
        for sql in statements:
            if sql.lstrip().upper().startswith("SELECT"):
                plan = store.conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
                plans.extend(row[3] for row in plan)
        assert plans and not [step for step in plans if step.startswith("SCAN sessions")], plans


def test_without_a_title_index_it_still_matches_case_insensitively(tmp_path):
    titles = ["Tower trip", "TOWER TRIP", "Tower trip"]  # no unique index: duplicates allowed
    path = _database(tmp_path / "state.db", titles, with_index=False)
    with SessionStore(path) as store:
        assert store.resolve_session_by_title("  tower TRIP ") == _scan_answer(store, "tower TRIP")
        assert store.resolve_session_by_title("tower") is None


@given(text=TITLES, after=st.text(TITLE_CHARS, max_size=7), strictly=st.booleans())
def test_next_case_variant_is_the_first_variant_in_binary_order(text, after, strictly):
    """Against every variant listed out: the least one at (or after) ``after``."""
    variants = {""}
    for char in text:
        cases = {char.upper(), char.lower()} if char.isascii() and char.isalpha() else {char}
        variants = {prefix + case for prefix in variants for case in cases}
    assert all(nocase_equal(variant, text) for variant in variants)
    later = sorted(v for v in variants if (v > after if strictly else v >= after))
    assert next_case_variant(text, after, strictly=strictly) == (later[0] if later else None)
