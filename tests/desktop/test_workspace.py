"""The Workspace: engine work off the UI thread, one writer, and folder watching."""

import threading

import pytest

from hermes_memory.fileio import atomic_write_text
from hermes_memory.memory.store import MemoryStore
from hermes_studio.workspace import Change, Workspace, classify


@pytest.fixture
def workspace(home, qtbot):
    home.memory_file.write_text("alpha\n§\nbeta", encoding="utf-8")
    ws = Workspace(home)
    # as the window does at open: the seeded file becomes the first history version
    with qtbot.waitSignal(ws.sig_changed, timeout=5000, check_params_cb=_is_history):
        ws.capture_history()
    yield ws
    ws.close()


def _is_history(change: Change) -> bool:
    return change.kind == "history" and change.origin == "disk"


def _statuses(qtbot, ws, target, count=1):
    seen = []
    with qtbot.waitSignals([ws.sig_store_status] * count, timeout=5000) as blocker:
        ws.refresh_store(target)
    for signal in blocker.all_signals_and_args:
        seen.append(signal.args[0])
    return seen


def test_refresh_reports_the_store_as_the_engine_counts_it(qtbot, workspace):
    with qtbot.waitSignal(workspace.sig_store_status, timeout=5000) as blocker:
        workspace.refresh_store("memory")
    status = blocker.args[0]
    assert status.target == "memory"
    assert status.entries == ("alpha", "beta")
    assert (status.used, status.limit, status.percent) == (12, 2200, 0)
    assert workspace.statuses["memory"] is status


def test_agent_atomic_replace_is_seen_as_a_disk_change(qtbot, home, workspace):
    with qtbot.waitSignal(workspace.sig_store_status, timeout=5000):
        workspace.refresh_store("memory")

    def is_memory_disk_change(change: Change) -> bool:
        return change.kind == "memory" and change.origin == "disk"

    with qtbot.waitSignal(workspace.sig_changed, timeout=5000, check_params_cb=is_memory_disk_change) as blocker:
        atomic_write_text(home.memory_file, "alpha\n§\nbeta\n§\ngamma", ".mem_")
    change = blocker.args[0]
    assert change.detail["previous"].entries == ("alpha", "beta")
    assert change.detail["status"].entries == ("alpha", "beta", "gamma")
    assert workspace.statuses["memory"].used == 20


def test_own_write_reports_app_change_without_a_disk_echo(qtbot, home, workspace):
    with qtbot.waitSignal(workspace.sig_store_status, timeout=5000):
        workspace.refresh_store("memory")
    results = []
    changes = []
    workspace.sig_changed.connect(changes.append)
    writer_threads = []

    def add():
        writer_threads.append(threading.current_thread().name)
        return MemoryStore(home).add("memory", "gamma")

    with qtbot.waitSignal(workspace.sig_store_status, timeout=5000):
        workspace.write("memory", add, results.append)
    assert results[0]["success"] is True
    assert writer_threads[0].startswith("hermes-write")
    qtbot.wait(400)  # let the file events of our own write arrive and settle
    assert [(c.kind, c.origin) for c in changes] == [("memory", "app")]
    assert workspace.statuses["memory"].entries == ("alpha", "beta", "gamma")


def test_a_write_on_disk_is_recorded_in_history_once(qtbot, home, workspace):
    events = home.path / ".memory-studio" / "history" / "events.jsonl"
    before = events.read_text(encoding="utf-8").splitlines()
    changes = []
    workspace.sig_changed.connect(changes.append)
    with qtbot.waitSignal(workspace.sig_changed, timeout=5000, check_params_cb=_is_history) as blocker:
        atomic_write_text(home.memory_file, "alpha\n§\nbeta\n§\ngamma", ".mem_")
    assert blocker.args[0].detail["result"]["recorded"] == 1
    qtbot.wait(400)  # any further capture would have landed by now
    added = events.read_text(encoding="utf-8").splitlines()[len(before):]
    assert len(added) == 1
    assert [c for c in changes if _is_history(c)] == [blocker.args[0]]


def test_refused_write_reports_the_engine_message_and_no_change(qtbot, home, workspace):
    results, changes = [], []
    workspace.sig_changed.connect(changes.append)
    with qtbot.waitCallback(timeout=5000) as callback:
        workspace.write("memory", lambda: MemoryStore(home).remove("memory", "zzz"), callback)
    assert callback.args[0]["success"] is False
    assert "No entry matched 'zzz'" in callback.args[0]["error"]
    assert changes == [] and results == []


def test_config_change_reloads_both_stores(qtbot, home, workspace):
    workspace.refresh_all()
    qtbot.waitUntil(lambda: len(workspace.statuses) == 2, timeout=5000)
    with qtbot.waitSignals([workspace.sig_store_status] * 2, timeout=5000):
        home.config_file.write_text("memory:\n  memory_char_limit: 100\n  user_char_limit: 50\n")
    assert workspace.statuses["memory"].limit == 100
    assert workspace.statuses["user"].limit == 50


def test_unreadable_file_is_an_error_in_the_status_not_a_crash(qtbot, home, workspace):
    home.user_file.write_bytes(b"\xff\xfe not utf-8")
    with qtbot.waitSignal(workspace.sig_store_status, timeout=5000) as blocker:
        workspace.refresh_store("user")
    assert "not valid UTF-8" in blocker.args[0].error


def test_close_stops_every_thread(qtbot, home):
    before = {t.name for t in threading.enumerate()}
    ws = Workspace(home)
    with qtbot.waitSignal(ws.sig_store_status, timeout=5000):
        ws.refresh_store("memory")
    ws.close()
    ws.close()
    assert {t.name for t in threading.enumerate()} <= before
    assert ws.read(lambda: 1) is None  # nothing runs after close


def test_classify(home):
    path = home.path
    assert classify(home, str(path / "memories" / "MEMORY.md")) == "memory"
    assert classify(home, str(path / "memories" / "USER.md")) == "user"
    assert classify(home, str(path / "memories" / "MEMORY.md.lock")) is None
    assert classify(home, str(path / "memories" / ".mem_x.tmp")) is None
    assert classify(home, str(path / "config.yaml")) == "config"
    assert classify(home, str(path / "skills" / "dev" / "x" / "SKILL.md")) == "skills"
    assert classify(home, str(path / "skills" / ".usage.json.lock")) is None
    assert classify(home, str(path / "state.db-wal")) == "sessions"
    assert classify(home, "/somewhere/else/MEMORY.md") is None


def test_reading_a_wal_history_is_not_reported_as_new_history(qtbot, home, workspace):
    from hermes_memory.sessions import SessionStore, SessionWriter, create_early_db

    create_early_db(home.state_db)
    with SessionWriter(home.state_db) as writer:
        writer.create_session("s1", "cli")
        writer.append_message("s1", "user", "hello")

    def read_history():
        with SessionStore.open(home) as store:
            return len(store.get_messages("s1"))

    assert read_history() == 1  # the first read may create the -wal file: a real change
    qtbot.wait(300)
    changes = []
    workspace.sig_changed.connect(changes.append)
    for _ in range(3):
        assert read_history() == 1
    qtbot.wait(300)
    assert [c.kind for c in changes if c.kind == "sessions"] == []


def test_call_runs_an_engine_face_function_for_the_home_off_the_ui_thread(qtbot, tmp_path):
    import threading

    from hermes_memory.home import HermesHome
    from hermes_studio.workspace import Workspace

    home_dir = tmp_path / "home"
    (home_dir / "memories").mkdir(parents=True)
    (home_dir / "memories" / "MEMORY.md").write_text("first entry", encoding="utf-8")
    workspace = Workspace(HermesHome.resolve(home_dir), watch=False)
    try:
        results = []
        threads = []
        workspace.backend.call = _recording(workspace.backend.call, threads)
        workspace.call("store_entries", {"target": "memory"}, results.append)
        qtbot.waitUntil(lambda: bool(results), timeout=5000)
        assert [e["text"] for e in results[0]["memory"]["entries"]] == ["first entry"]
        assert threads and threads[0] != threading.main_thread().name

        errors = []
        workspace.sig_error.connect(errors.append)
        workspace.call("no_such_function", {}, results.append)
        qtbot.waitUntil(lambda: bool(errors), timeout=5000)
        assert "no_such_function" in errors[0]
    finally:
        workspace.close()


def _recording(call, threads):
    import threading

    def record(method, params):
        threads.append(threading.current_thread().name)
        return call(method, params)

    return record


def test_a_read_of_a_locked_state_db_waits_briefly_and_says_locked(qtbot, home, workspace):
    import sqlite3

    from hermes_memory.sessions import SessionWriter, create_early_db
    from hermes_studio.workspace import READER_STATE_DB_WAIT

    create_early_db(home.state_db)
    with SessionWriter(home.state_db) as writer:
        writer.create_session("s1", "cli")
        writer.append_message("s1", "user", "hello")
    agent = sqlite3.connect(home.state_db, isolation_level=None)
    agent.execute("PRAGMA journal_mode = DELETE")  # a WAL reader is never held off
    agent.execute("BEGIN EXCLUSIVE")
    try:
        answers = []
        workspace.call("sessions_transcript", {"session_id": "s1"}, answers.append)
        qtbot.waitUntil(lambda: bool(answers), timeout=10000)
    finally:
        agent.execute("ROLLBACK")
        agent.close()
    # the reader thread waited its own brief while, not the five seconds a CLI read waits
    assert answers[0]["state"] == "locked"
    assert f"stayed locked for {READER_STATE_DB_WAIT:g} s" in answers[0]["error"]
