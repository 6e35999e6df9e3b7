"""Folder watching: the app's own reads cause no events, and an overflow costs one rescan."""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from watchdog.events import FileSystemEvent, FileSystemEventHandler

from hermes_memory.fileio import atomic_write_text
from hermes_memory.history.storage import HistoryStore
from hermes_memory.home import HermesHome
from hermes_memory.learning.graph import GraphBuilder
from hermes_memory.memory.status import read_store_status
from hermes_memory.skills.usage import empty_record, update_usage
from hermes_studio.watching import QueueOverflowEvent, WatchCancelled, content_observer
from hermes_studio.workspace import ALL_KINDS, CATCH_UP_MARGIN_NS, Change, Workspace, _FolderWatcher


class Recorder(FileSystemEventHandler):
    def __init__(self) -> None:
        self.events: list[FileSystemEvent] = []
        self.lock = threading.Lock()

    def on_any_event(self, event: FileSystemEvent) -> None:
        with self.lock:
            self.events.append(event)

    def on_overflow(self, event: FileSystemEvent) -> None:
        pass

    def snapshot(self) -> list[FileSystemEvent]:
        with self.lock:
            return list(self.events)

    def wait_for(self, predicate, timeout: float = 10.0) -> FileSystemEvent:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for event in self.snapshot():
                if predicate(event):
                    return event
            time.sleep(0.02)
        raise AssertionError(f"no matching event; saw {len(self.snapshot())} events")


@pytest.fixture
def watch():
    observers = []

    def _watch(path: Path) -> Recorder:
        recorder = Recorder()
        observer = content_observer(str(path), recorder)
        observer.start()
        observers.append(observer)
        recorder.observer = observer
        return recorder

    yield _watch
    for observer in observers:
        observer.stop()
        observer.join(timeout=5)


def _skills_home(root: Path, count: int) -> HermesHome:
    (root / "memories").mkdir(parents=True)
    (root / "memories" / "MEMORY.md").write_text("uses docker\n§\nprefers short answers", encoding="utf-8")
    for i in range(count):
        folder = root / "skills" / f"category-{i % 20}" / f"skill-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i}\ndescription: Does thing {i}\n---\n# Skill {i}\n\nSteps.\n",
            encoding="utf-8",
        )
    return HermesHome.resolve(root)


def test_a_full_graph_build_of_2000_skills_causes_no_events(tmp_path, watch):
    home = _skills_home(tmp_path / "home", 2000)
    recorder = watch(home.path)

    payload = GraphBuilder(home).build()
    for target in ("memory", "user"):
        read_store_status(home, target)
    assert payload["stats"]["learned_skills"] + len(payload["nodes"]) > 0

    # the watch is live: a write that follows is seen, and it is the only event
    skill = home.path / "skills" / "category-0" / "skill-0" / "SKILL.md"
    with skill.open("a", encoding="utf-8") as handle:
        handle.write("One more step.\n")
    recorder.wait_for(lambda e: e.src_path == str(skill))
    time.sleep(0.3)  # anything the reads had caused would have arrived before the write's
    assert {e.src_path for e in recorder.snapshot()} == {str(skill)}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel queue is inotify's")
def test_a_queue_overflow_costs_one_rescan_and_keeps_every_watch(tmp_path, watch):
    root = tmp_path / "tree"
    for i in range(30):
        (root / f"folder-{i}").mkdir(parents=True)
    recorder = watch(root)
    (emitter,) = recorder.observer.emitters
    group = emitter._inotify
    watched_before = set(group._active_callbacks_by_path)
    assert len(watched_before) == 31

    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    reader = group._inotify_fd
    a, b = root / "a.txt", root / "b.txt"
    with reader._lock:  # the reader thread stops taking events: the kernel queue fills up
        fd_a = os.open(a, os.O_WRONLY | os.O_CREAT)
        fd_b = os.open(b, os.O_WRONLY | os.O_CREAT)
        try:
            for _ in range(limit // 2 + 1000):  # alternating, so the kernel cannot merge them
                os.write(fd_a, b"x")
                os.write(fd_b, b"y")
        finally:
            os.close(fd_a)
            os.close(fd_b)
        (root / "made-during-overflow").mkdir()  # its creation event is lost

    overflow = recorder.wait_for(lambda e: isinstance(e, QueueOverflowEvent), timeout=60)
    assert overflow.src_path == str(root)
    time.sleep(1.0)  # a storm would go on reporting overflows
    assert sum(isinstance(e, QueueOverflowEvent) for e in recorder.snapshot()) == 1

    # no watch was dropped, and the folder made during the overflow is watched now
    watched_after = set(group._active_callbacks_by_path)
    assert watched_before < watched_after
    assert os.fsencode(root / "made-during-overflow") in watched_after
    late = root / "made-during-overflow" / "late.txt"
    late.write_text("seen", encoding="utf-8")
    recorder.wait_for(lambda e: e.src_path == str(late))


def test_an_overflow_means_every_kind_may_have_changed(home):
    reported: list[tuple[str, str]] = []
    handler = _FolderWatcher(home, lambda kind, path: reported.append((kind, path)))
    handler.dispatch(QueueOverflowEvent(str(home.path)))
    assert sorted(reported) == sorted((kind, "") for kind in ALL_KINDS)


def test_a_skill_edit_names_its_file_and_an_overflow_asks_for_a_rescan(qtbot, home):
    skill = home.path / "skills" / "devops" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: Ship it\n---\n", encoding="utf-8")
    workspace = Workspace(home)
    try:
        qtbot.waitUntil(lambda: workspace.watching and workspace._watch_starter is not None
                        and not workspace._watch_starter.is_alive(), timeout=10000)

        def is_skills(change: Change) -> bool:
            return change.kind == "skills"

        with qtbot.waitSignal(workspace.sig_changed, timeout=5000, check_params_cb=is_skills) as blocker:
            with skill.open("a", encoding="utf-8") as handle:
                handle.write("More.\n")
        assert blocker.args[0].detail == {"paths": [str(skill)]}

        # the watcher's thread reports lost events (as after a queue overflow)
        handler = _FolderWatcher(home, workspace._report_from_watcher)
        with qtbot.waitSignal(workspace.sig_changed, timeout=5000, check_params_cb=is_skills) as blocker:
            handler.dispatch(QueueOverflowEvent(str(home.path)))
        assert blocker.args[0].detail == {"rescan": True}
    finally:
        workspace.close()


# --- a watch started after the first reads -----------------------------------------------
def _aged_home(root: Path, count: int) -> HermesHome:
    """A home whose files were all written more than the catch-up margin ago."""
    home = _skills_home(root, count)
    time.sleep(CATCH_UP_MARGIN_NS / 1e9 + 0.2)  # (change times cannot be set back)
    return home


@pytest.fixture
def late_watch(tmp_path):
    """An aged home of 30 skills, a Workspace that watches later, and the changes it reports."""
    home = _aged_home(tmp_path / "home", 30)
    workspace = Workspace(home, watch_later=True)
    changes: list[Change] = []
    workspace.sig_changed.connect(changes.append)
    yield home, workspace, changes
    workspace.close()


def _until_watching(qtbot, workspace: Workspace) -> None:
    qtbot.waitUntil(lambda: workspace.watching and not workspace.watch_starting, timeout=20000)


def test_what_changed_before_a_late_watch_started_is_still_reported(qtbot, late_watch):
    home, workspace, changes = late_watch
    assert not workspace.watching
    # written after the Workspace was made (say, while the graph was read), before the watch
    edited = home.path / "skills" / "category-3" / "skill-3" / "SKILL.md"
    with edited.open("a", encoding="utf-8") as handle:
        handle.write("A step learned meanwhile.\n")
    new_skill = home.path / "skills" / "category-1" / "brand-new" / "SKILL.md"
    new_skill.parent.mkdir()
    new_skill.write_text("---\nname: brand-new\ndescription: Made meanwhile\n---\n", encoding="utf-8")
    atomic_write_text(home.memory_file, "uses docker\n§\nprefers short answers\n§\nnew fact", ".mem_")

    workspace.start_watching()
    _until_watching(qtbot, workspace)
    qtbot.waitUntil(lambda: {c.kind for c in changes} >= {"skills", "memory"}, timeout=10000)
    skill_paths = {path for c in changes if c.kind == "skills" for path in c.detail.get("paths", [])}
    assert {str(edited), str(new_skill)} <= skill_paths
    assert not any(c.detail.get("rescan") for c in changes)  # exact paths, no rescan of all

    # and the watch is live from then on
    later = home.path / "skills" / "category-0" / "skill-0" / "SKILL.md"
    with qtbot.waitSignal(workspace.sig_changed, timeout=5000,
                          check_params_cb=lambda c: str(later) in c.detail.get("paths", [])):  # fmt: skip
        with later.open("a", encoding="utf-8") as handle:
            handle.write("And one later.\n")


def test_a_late_watch_starts_without_the_ui_thread_waiting_for_its_walk(qtbot, late_watch, monkeypatch):
    """The catch-up reports what changed until the watch is in place, so the UI thread
    need not wait for the walk (a Workspace watching from the start still waits briefly,
    so that a small home is watched when it is made)."""
    _home, workspace, _changes = late_watch
    waited: list[float | None] = []
    real_join = threading.Thread.join

    def join(thread, timeout=None):
        if threading.current_thread() is threading.main_thread() and thread.name == "hermes-watch-start":
            waited.append(timeout)
        return real_join(thread, timeout)

    monkeypatch.setattr(threading.Thread, "join", join)
    workspace.start_watching()
    assert waited == []
    monkeypatch.undo()
    _until_watching(qtbot, workspace)


def test_a_late_watch_over_an_unchanged_home_reports_nothing(qtbot, late_watch):
    _home, workspace, changes = late_watch
    workspace.start_watching()
    _until_watching(qtbot, workspace)
    qtbot.wait(300)  # (longer than the debounce)
    assert changes == []


@pytest.fixture
def written_just_before_open(tmp_path):
    """An aged home where, just before the window opens (within the catch-up margin), the
    agent wrote config.yaml and MEMORY.md and a session to state.db, whose connection it
    keeps open (so the WAL stays, as beside a running agent)."""
    home = _aged_home(tmp_path / "home", 10)
    agent = sqlite3.connect(home.path / "state.db")
    agent.execute("PRAGMA journal_mode=WAL")
    agent.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, content TEXT)")
    agent.execute("INSERT INTO messages (content) VALUES ('deploys on Fridays')")
    agent.commit()
    home.config_file.write_text("memory:\n  memory_char_limit: 3000\n", encoding="utf-8")
    atomic_write_text(home.memory_file, "uses docker\n§\nprefers short answers\n§\nfresh", ".mem_")
    time.sleep(0.3)
    yield home, agent
    agent.close()


def _late_workspace(home: HermesHome) -> tuple[Workspace, list[Change]]:
    workspace = Workspace(home, watch_later=True)
    changes: list[Change] = []
    workspace.sig_changed.connect(changes.append)
    return workspace, changes


def test_a_late_watch_does_not_report_again_what_was_written_before_the_open(qtbot, written_just_before_open):
    home, _agent = written_just_before_open
    workspace, changes = _late_workspace(home)
    try:
        workspace.start_watching()
        _until_watching(qtbot, workspace)
        qtbot.wait(300)  # (longer than the debounce)
        assert [change.kind for change in changes] == []
    finally:
        workspace.close()


def test_a_late_watch_reports_config_and_sessions_changed_after_the_open(qtbot, written_just_before_open):
    home, agent = written_just_before_open
    workspace, changes = _late_workspace(home)
    try:
        home.config_file.write_text("memory:\n  memory_char_limit: 3300\n", encoding="utf-8")
        agent.execute("INSERT INTO messages (content) VALUES ('and on Mondays')")
        agent.commit()
        workspace.start_watching()
        _until_watching(qtbot, workspace)
        qtbot.waitUntil(lambda: {c.kind for c in changes} >= {"config", "sessions"}, timeout=10000)
    finally:
        workspace.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the cancellable walk is inotify's")
def test_a_watch_start_can_be_cancelled_and_frees_its_threads(tmp_path):
    home = _skills_home(tmp_path / "home", 50)
    before = set(threading.enumerate())
    cancelled = threading.Event()
    cancelled.set()
    observer = content_observer(str(home.path), Recorder(), cancelled=cancelled)
    with pytest.raises(WatchCancelled):
        observer.start()
    observer.stop()
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not set(threading.enumerate()) - before


def test_closing_a_workspace_whose_watch_has_not_started_is_quick_and_clean(qtbot, tmp_path):
    home = _skills_home(tmp_path / "home", 10)
    before = {t.name for t in threading.enumerate()}
    workspace = Workspace(home, watch_later=True)
    assert workspace.watch_starting and not workspace.watching
    workspace.close()
    workspace.start_watching()  # too late: nothing starts
    assert not workspace.watching and not workspace.watch_starting
    assert {t.name for t in threading.enumerate()} <= before


def test_the_window_watches_once_its_start_up_reads_are_done_and_misses_nothing(qtbot, tmp_path):
    from hermes_studio.main_window import MainWindow

    home = _aged_home(tmp_path / "home", 40)
    window = MainWindow(home)
    qtbot.addWidget(window)
    made = home.path / "skills" / "category-2" / "made-while-opening" / "SKILL.md"
    watching_then: list[bool] = []

    def agent_writes() -> None:  # right after the graph was read and drawn, before the watch
        watching_then.append(window.workspace.watching)
        made.parent.mkdir()
        made.write_text("---\nname: made-while-opening\ndescription: Written during the open\n---\n",
                        encoding="utf-8")  # fmt: skip
        update_usage(home, lambda data: data.update({"made-while-opening": {**empty_record(), "created_by": "agent"}}))

    window.graph.sig_ready.connect(agent_writes, Qt.ConnectionType.SingleShotConnection)
    try:
        assert not window.workspace.watching  # the graph's first reads go first
        window.show()
        qtbot.waitUntil(lambda: window.graph.ready and made.exists(), timeout=30000)
        assert watching_then == [False]
        assert "made-while-opening" not in window.graph.data.index  # the first graph was read before
        _until_watching(qtbot, window.workspace)
        qtbot.waitUntil(lambda: window.graph.data is not None and "made-while-opening" in window.graph.data.index,
                        timeout=20000)  # fmt: skip
        # and history records it (the capture at open trusted the graph's earlier scan)
        qtbot.waitUntil(lambda: "made-while-opening" in {e.get("skill") for e in HistoryStore(home).read_events().events},
                        timeout=20000)  # fmt: skip
    finally:
        window.close()


def test_files_deleted_before_a_late_watch_started_are_reported(qtbot, late_watch):
    home, workspace, changes = late_watch
    staged = home.path / "pending" / "memory" / "20261201-000000-abcd.json"
    staged.parent.mkdir(parents=True)
    staged.write_text("{}", encoding="utf-8")
    time.sleep(CATCH_UP_MARGIN_NS / 1e9 + 0.2)  # (an old staged write)
    late = Workspace(home, watch_later=True)  # notes MEMORY.md, USER.md, config.yaml at open
    seen: list[Change] = []
    late.sig_changed.connect(seen.append)
    try:
        # gone after the open, before the watch: a deletion leaves no time stamp behind
        home.memory_file.unlink()
        staged.unlink()
        skill = home.path / "skills" / "category-2" / "skill-2"
        for file in skill.iterdir():
            file.unlink()
        skill.rmdir()
        late.start_watching()
        _until_watching(qtbot, late)
        qtbot.waitUntil(lambda: {c.kind for c in seen} >= {"memory", "pending", "skills"}, timeout=10000)
        memory = next(c for c in seen if c.kind == "memory")
        assert memory.detail["status"].error is None and memory.detail["status"].entries == ()
        skill_paths = {p for c in seen if c.kind == "skills" for p in c.detail.get("paths", [])}
        assert str(skill.parent) in skill_paths  # the folder that lost it: re-read there
    finally:
        late.close()


def test_the_observer_reports_a_noted_file_deleted_before_it_started(tmp_path):
    home = _aged_home(tmp_path / "home", 3)
    kept = home.path / "skills" / "category-1" / "skill-1" / "SKILL.md"
    noted = {str(home.memory_file): None, str(kept): None}
    home.memory_file.unlink()  # the skill stays
    recorder = Recorder()
    observer = content_observer(str(home.path), recorder, since_ns=time.time_ns() - 1, unchanged=noted)
    observer.start()
    try:
        event = recorder.wait_for(lambda e: e.event_type == "deleted")
        assert event.src_path == str(home.memory_file)
        time.sleep(0.2)
        assert not any(e.src_path == str(kept) for e in recorder.snapshot())
    finally:
        observer.stop()
        observer.join(timeout=5)
