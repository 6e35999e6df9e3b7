"""``hermes-memory sessions ...`` commands, and the read-only guarantee across everything."""

from __future__ import annotations

import io
import json
import os

import pytest
from sessions_helpers import Corpus, memory_call

from hermes_memory import cli
from hermes_memory.home import HermesHome
from hermes_memory.sessions import (
    create_early_db,
    memory_provenance,
    search_messages,
    session_search,
)
from hermes_memory.sessions.store import SessionStore


def run(home: HermesHome, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--home", str(home.path), *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def cli_home(tmp_path):
    home = HermesHome.resolve(tmp_path / "home")
    home.memories_dir.mkdir(parents=True)
    home.memory_file.write_text("Project uses Postgres 16\n§\nDeploys go through CI", "utf-8")
    home.user_file.write_text("User prefers dark mode", "utf-8")
    c = Corpus(create_early_db(home.state_db))
    c.session("s1", "cli", model="m1")
    c.say("s1", "user", "remember that I like dark mode")  # 1
    c.say("s1", "assistant", "Saved.", tool_calls=memory_call(
        "c1", action="add", target="user", content="User prefers dark mode"))  # 2  # fmt: skip
    c.end("s1", "user_exit")
    c.session("s2", "telegram")
    c.say("s2", "user", "we moved to Postgres 16 today")  # 3
    c.say("s2", "assistant", None, tool_calls=memory_call(
        "c2", action="add", target="memory", content="Project uses Postgres 16"))  # fmt: skip
    c.close()
    return home


def test_search_human_and_json(cli_home):
    code, out, err = run(cli_home, "sessions", "search", "dark mode")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "2023-11-14 22:13  cli       s1  #1 user",
        "    remember that I like >>>dark<<< >>>mode<<<",
        "1 message(s).",
    ]
    code, out, _ = run(cli_home, "--json", "sessions", "search", "postgres", "--role", "user")
    payload = json.loads(out)
    assert (code, payload["path"], payload["count"]) == (0, "fts", 1)
    assert payload["results"][0]["id"] == 3
    code, out, _ = run(cli_home, "sessions", "search", "postgres", "--source", "cli", "--json")
    assert json.loads(out)["count"] == 0
    code, out, _ = run(cli_home, "sessions", "search", "zzz")
    assert (code, out) == (0, "No matching messages.\n")


def test_list_and_show(cli_home):
    code, out, _ = run(cli_home, "sessions", "list")
    assert code == 0
    assert out.splitlines() == [
        "s2  2023-11-14 22:14  telegram      2 msgs  we moved to Postgres 16 today",
        "s1  2023-11-14 22:13  cli           2 msgs  remember that I like dark mode",
    ]
    code, out, _ = run(cli_home, "sessions", "list", "--limit", "1", "--json")
    assert [s["id"] for s in json.loads(out)["sessions"]] == ["s2"]
    code, out, _ = run(cli_home, "sessions", "show", "s1")
    assert code == 0
    assert out.splitlines() == [
        "Session s1",
        "  source cli, model m1, started 2023-11-14 22:13, ended 2023-11-14 22:13 (user_exit)",
        "",
        "[2023-11-14 22:13] #1 USER",
        "  remember that I like dark mode",
        "",
        "[2023-11-14 22:13] #2 ASSISTANT",
        "  called: memory",
        "  Saved.",
    ]
    code, out, _ = run(cli_home, "--json", "sessions", "show", "s2")
    shown = json.loads(out)
    assert shown["session"]["source"] == "telegram"
    assert shown["messages"][1]["tool_calls"][0]["function"]["name"] == "memory"


def test_show_missing_session(cli_home):
    code, out, err = run(cli_home, "sessions", "show", "nope")
    assert (code, out) == (1, "")
    assert err.startswith("hermes-memory: No session 'nope' in ")


def test_provenance(cli_home):
    code, out, _ = run(cli_home, "sessions", "provenance", "--json")
    assert code == 0
    rows = json.loads(out)["entries"]
    assert [(r["target"], r["entry"], r["first_seen"], r["sessions"]) for r in rows] == [
        ("memory", "Project uses Postgres 16", 1_700_000_050.0, ["s2"]),
        ("memory", "Deploys go through CI", None, []),
        ("user", "User prefers dark mode", 1_700_000_020.0, ["s1"]),
    ]
    code, out, _ = run(cli_home, "sessions", "provenance")
    assert out.splitlines() == [
        "memory Project uses Postgres 16",
        "       first 2023-11-14 22:14, last changed 2023-11-14 22:14, 1 session(s)",
        "memory Deploys go through CI",
        "       not written by the agent in this history",
        "user   User prefers dark mode",
        "       first 2023-11-14 22:13, last changed 2023-11-14 22:13, 1 session(s)",
    ]


def test_missing_and_corrupt_database(tmp_path):
    home = HermesHome.resolve(tmp_path / "home")
    home.path.mkdir()
    for argv in (["list"], ["search", "x"], ["show", "s"]):
        code, out, err = run(home, "sessions", *argv)
        assert (code, out) == (1, "")
        assert err.startswith(f"hermes-memory: No session history at {home.state_db}")
    assert not home.state_db.exists()
    home.state_db.write_bytes(b"garbage" * 500)
    code, _, err = run(home, "sessions", "list")
    assert code == 1 and "is not an SQLite database" in err
    assert home.state_db.read_bytes() == b"garbage" * 500
    # Provenance with no memory entries never needs the database.
    code, out, _ = run(home, "sessions", "provenance")
    assert (code, out) == (0, "No memory entries.\n")


def test_usage_errors(cli_home, capsys):
    assert run(cli_home, "sessions", "list", "--limit", "0")[0] == 2
    assert run(cli_home, "sessions")[0] == 2
    assert run(cli_home, "sessions", "search")[0] == 2


def test_nothing_is_ever_written(cli_home):
    """Every read path leaves state.db byte-for-byte and mtime-for-mtime unchanged."""
    db = cli_home.state_db
    before = (db.read_bytes(), os.stat(db).st_mtime_ns)
    files_before = set(os.listdir(cli_home.path))
    with SessionStore(db) as store:
        search_messages(store, "dark mode")
        search_messages(store, "東京")  # LIKE path
        store.list_sessions()
        store.get_anchored_view("s1", 1)
    for kwargs in (
        {"query": "postgres"}, {"query": ""}, {"session_id": "s1"},
        {"session_id": "s1", "around_message_id": 1}, {"query": "dark", "mode": "summary"},
    ):  # fmt: skip
        assert session_search(cli_home, **kwargs)["success"] is True
    memory_provenance(cli_home, ["User prefers dark mode"])
    for argv in (["list"], ["search", "dark"], ["show", "s1"], ["provenance"]):
        assert run(cli_home, "sessions", *argv)[0] == 0
    assert (db.read_bytes(), os.stat(db).st_mtime_ns) == before
    # SQLite may leave an empty WAL and its index beside the file, nothing else.
    assert set(os.listdir(cli_home.path)) - files_before <= {"state.db-wal", "state.db-shm"}
    wal = cli_home.path / "state.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0


def test_sessions_search_demotes_cron_below_interactive_sessions(tmp_path):
    home = HermesHome.resolve(tmp_path / "home")
    home.path.mkdir()
    c = Corpus(create_early_db(home.state_db))
    c.session("cron1", "cron")
    c.say("cron1", "user", "backup backup backup nightly")  # 1: the best BM25 match
    c.session("me", "cli")
    c.say("me", "user", "why did the backup of the photos library fail last week")  # 2
    c.close()
    with SessionStore(home.state_db) as store:
        assert [hit["session_id"] for hit in search_messages(store, "backup")] == ["cron1", "me"]

    code, out, _ = run(home, "--json", "sessions", "search", "backup")
    assert code == 0
    assert [hit["session_id"] for hit in json.loads(out)["results"]] == ["me", "cron1"]
    code, out, _ = run(home, "sessions", "search", "backup")
    assert code == 0
    listed = [line.split()[3] for line in out.splitlines() if " #" in line]
    assert listed == ["me", "cron1"]
    # the same order as the agent's own session_search
    assert [r["session_id"] for r in session_search(home, "backup")["results"]] == ["me", "cron1"]
