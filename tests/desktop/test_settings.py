"""The settings file: answered from memory, written by a worker within a moment of a change
(so a crash soon after keeps it) and at quit, never synced on the UI thread."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading

import pytest
from PySide6.QtCore import QSettings

from hermes_memory.home import HermesHome
from hermes_studio import app as studio_app
from hermes_studio import settings as settings_module
from hermes_studio.graph.homes import RecentHomes
from hermes_studio.settings import FLUSH_DELAY_S, Settings, app_settings, flush_all, settings_file


def on_disk(key: str):
    """What a fresh reader of the settings file finds under ``key`` now."""
    return QSettings(str(settings_file()), QSettings.Format.IniFormat).value(key)


@pytest.fixture
def syncs(monkeypatch):
    """The threads that synced a QSettings (a sync reads and rewrites the file)."""
    seen: list[str] = []
    real = QSettings.sync

    def sync(self):
        seen.append(threading.current_thread().name)
        return real(self)

    monkeypatch.setattr(QSettings, "sync", sync)
    return seen


def test_a_change_reaches_the_file_within_a_second_and_never_from_the_ui_thread(qtbot, syncs):
    settings = Settings()
    settings.set_theme("dark")
    settings.set_home_value("/some/home", "view", "changes")
    settings.sync()  # (asks for the write; returns at once)
    assert on_disk("view/theme") is None  # batched: not written while the caller waits
    qtbot.waitUntil(lambda: on_disk("view/theme") == "dark", timeout=FLUSH_DELAY_S * 1000 + 2500)
    assert Settings().home_value("/some/home", "view") == "changes"
    assert syncs and threading.main_thread().name not in syncs


def test_flush_writes_at_once_and_waits_for_it(syncs, monkeypatch):
    monkeypatch.setattr(settings_module, "FLUSH_DELAY_S", 3600.0)  # a batch that would wait an hour
    settings = Settings()
    settings.set_splitter("graph", [200, 600, 300])
    assert settings.flush(timeout=30)  # written now, not after the batch's delay
    assert Settings().splitter("graph") == [200, 600, 300]
    assert threading.main_thread().name not in syncs


def test_reads_come_from_memory_and_a_change_is_seen_at_once(syncs, monkeypatch):
    settings = Settings()
    reads: list[str] = []
    monkeypatch.setattr(settings_module, "_read_all", lambda path: reads.append(str(path)) or {})
    settings.set_geometry(10, 20, 1200, 800, False)
    assert settings.geometry() == (10, 20, 1200, 800, False)
    assert settings.value("window/geometry") is not None
    assert reads == []  # no re-read of the file for an answer
    assert syncs == []  # and nothing written yet
    settings.flush()


def test_a_crash_a_second_after_a_change_keeps_it(tmp_path):
    path = tmp_path / "studio.ini"
    script = textwrap.dedent(f"""
        import os, signal, time
        from hermes_studio.settings import Settings
        settings = Settings({str(path)!r})
        settings.set_home_value("/a/home", "changes/last_seen", 1234.5)
        time.sleep({FLUSH_DELAY_S + 1.0})
        os.kill(os.getpid(), signal.SIGKILL)  # no flush, no atexit
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=60, capture_output=True, text=True)
    assert done.returncode == -9, done.stderr
    assert Settings(path).home_value("/a/home", "changes/last_seen") == 1234.5


def test_recent_homes_and_removal_go_through_the_handle(tmp_path):
    home = HermesHome.resolve(tmp_path / "home")
    settings = Settings()
    RecentHomes(settings).add(home)
    assert [item.root for item in RecentHomes(settings).items()] == [str(home.root)]
    settings.flush()
    assert [item.root for item in RecentHomes(Settings()).items()] == [str(home.root)]
    RecentHomes(settings).clear()
    settings.flush()
    assert on_disk("homes/recent") is None


@pytest.fixture
def demo_home(tmp_path) -> HermesHome:
    target = tmp_path / "demo-home"
    shutil.copytree(studio_app.bundled_demo_home(), target)
    return HermesHome.resolve(target)


def test_a_window_restarted_from_the_file_finds_what_the_last_one_saved(
    open_window, discard_on_close, demo_home, qtbot, syncs
):
    first = open_window(demo_home, settings=Settings())
    first.resize(1250, 820)
    first.set_view("changes")
    first.graph.search.setText("deploy")
    first.close()
    assert threading.main_thread().name not in syncs  # closing never waited for the disk
    flush_all()  # as the app does when it quits

    second = open_window(demo_home, settings=Settings())  # a new handle reads the file
    assert (second.width(), second.height()) == (1250, 820)
    assert second.current_view() == "changes"
    assert second.graph.search.text() == "deploy"
    assert threading.main_thread().name not in syncs


def test_the_app_shares_one_handle_per_settings_file():
    assert app_settings() is app_settings()
