"""A remote home's connection: lost mid-save (the remote file is old or new, never torn,
and the app says so), read-only while lost, reconnecting with the unsaved edit kept; and
bad input (unknown host, refused key, no engine, not a home, hostile addresses) answered
with a clear message and nothing run."""

from __future__ import annotations

import os
import shlex
import stat
import threading

import pytest
from remote_desktop_helpers import CONNECT_MS, open_window
from remote_helpers import keygen

from hermes_memory.memory.store import MemoryStore
from hermes_studio import app
from hermes_studio.remote.home import RemoteHome
from hermes_studio.remote.open_dialog import RemoteHomeDialog, suggested_addresses
from hermes_studio.workspace import Workspace

pytestmark = pytest.mark.timeout(300)

ADDED = " Likes tea."


def kill_after_sending(client, delay: float) -> None:
    """The ssh client dies ``delay`` seconds after the next request went out."""
    send = client.request

    def request(method, params, timeout):
        process = client._process
        threading.Timer(delay, process.kill).start()
        client.request = send
        return send(method, params, timeout)

    client.request = request


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.3])
def test_killing_the_connection_mid_save_leaves_old_or_new_and_says_so(qtbot, address, remote_home, delay):
    window = open_window(qtbot, address)
    editor = window.open_memory("user")
    qtbot.waitUntil(lambda: bool(editor.document.cards), timeout=CONNECT_MS)
    old = MemoryStore(remote_home).read_entries("user")
    card = editor.card_at(0)
    card.text_edit.setFocus()
    card.text_edit.moveCursor(card.text_edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(card.text_edit, ADDED)
    new = [old[0] + ADDED, *old[1:]]
    outcome: list[tuple[str, object]] = []
    editor.sig_saved.connect(lambda result: outcome.append(("saved", result)))
    editor.sig_refused.connect(lambda message: outcome.append(("refused", message)))
    kill_after_sending(window.workspace.backend.client, delay)
    editor.save_action.trigger()
    qtbot.waitUntil(lambda: bool(outcome), timeout=CONNECT_MS)

    on_disk = MemoryStore(remote_home).read_entries("user")
    assert on_disk in (old, new)  # never torn
    kind, said = outcome[0]
    if kind == "refused":
        assert "lost" in said and "never half-written" in said or "Nothing was sent" in said, said
    qtbot.waitUntil(lambda: window.workspace.connection == "lost"
                    or window.connection_status.label.text().startswith("⚠"), timeout=CONNECT_MS)
    # It reconnects by itself; the edit survives and is saved (or already was) as usual.
    qtbot.waitUntil(lambda: window.workspace.connection == "connected", timeout=CONNECT_MS)
    qtbot.wait(500)  # the re-read after reconnecting
    if editor.document.dirty:
        assert any(text.endswith(ADDED) for text in editor.document.texts())
        with qtbot.waitSignal(editor.sig_saved, timeout=CONNECT_MS):
            editor.save_action.trigger()
    assert MemoryStore(remote_home).read_entries("user") == new
    window.close()


def test_while_lost_the_app_keeps_what_it_showed_and_refuses_changes(qtbot, address, remote_home):
    window = open_window(qtbot, address)
    window.graph.wait_ready(CONNECT_MS)
    workspace = window.workspace
    shown = (len(window.graph.data.ids), workspace.statuses["memory"].entries)
    workspace._reconnect_delay = 4000  # time to try a change while lost
    with qtbot.waitSignal(workspace.sig_connection, timeout=CONNECT_MS,
                          check_params_cb=lambda state, _message: state == "lost"):
        workspace.backend.client._process.kill()
    assert "lost" in window.connection_status.label.text()
    assert window.connection_status.reconnect_button.isVisibleTo(window.connection_status)
    before = (remote_home.path / "memories" / "MEMORY.md").read_bytes()
    answers = []
    workspace.call("store_write", {"target": "memory", "action": "add", "content": "while lost"},
                   answers.append, write="memory")
    qtbot.waitUntil(lambda: bool(answers), timeout=10_000)
    assert not answers[0]["ok"] and "read-only" in answers[0]["error"] and "Nothing was sent" in answers[0]["error"]
    assert (remote_home.path / "memories" / "MEMORY.md").read_bytes() == before
    assert (len(window.graph.data.ids), workspace.statuses["memory"].entries) == shown
    window.connection_status.reconnect_button.click()
    qtbot.waitUntil(lambda: workspace.connection == "connected", timeout=CONNECT_MS)
    assert window.connection_status.label.text().startswith("●")
    window.close()


def lost_message(qtbot, home: RemoteHome) -> str:
    workspace = Workspace(home)
    try:
        qtbot.waitUntil(lambda: workspace.connection == "lost", timeout=CONNECT_MS)
        return workspace.connection_message
    finally:
        workspace.close()


def test_unknown_host(qtbot, ssh_env):
    message = lost_message(qtbot, RemoteHome.parse("ssh://no-such-host.invalid/srv/hermes"))
    assert "unknown host no-such-host.invalid" in message


def test_refused_key(qtbot, sshd, ssh_env, remote_home, tmp_path, monkeypatch):
    keygen(tmp_path / "stranger")
    config = tmp_path / "ssh_config"
    config.write_text(sshd.client_config.read_text().replace(str(sshd.user_key), str(tmp_path / "stranger")))
    monkeypatch.setenv("HERMES_MEMORY_SSH_OPTIONS", f"-F {shlex.quote(str(config))}")
    message = lost_message(qtbot, RemoteHome.parse(sshd.url(remote_home.path)))
    assert "refused the key" in message and "No password is asked for" in message


def test_a_host_without_the_engine(qtbot, sshd, ssh_env, remote_home, monkeypatch):
    monkeypatch.setenv("HERMES_MEMORY_REMOTE_COMMAND", "/nonexistent/bin/hermes-memory")
    message = lost_message(qtbot, RemoteHome.parse(sshd.url(remote_home.path)))
    assert "hermes-memory is not installed on 127.0.0.1" in message and "pip install" in message


def test_a_path_that_is_not_a_home(qtbot, sshd, ssh_env, tmp_path):
    message = lost_message(qtbot, RemoteHome.parse(sshd.url(tmp_path / "no home here")))
    assert "not a Hermes home" in message and "no home here" in message


HOSTILE = [
    "ssh://-oProxyCommand=touch${IFS}/tmp/pwned/x",
    "ssh://host name/x",
    "ssh://'evil'/x",
    'ssh://a"b/x',
    "ssh://user:secret@host/x",
    "ssh://host/x\n-oProxyCommand=x",
]


@pytest.fixture
def ssh_spy(tmp_path, monkeypatch):
    """An "ssh" that only records that it was run."""
    marker = tmp_path / "ssh-was-run"
    spy = tmp_path / "spy-ssh"
    spy.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\nexit 255\n")
    spy.chmod(spy.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("HERMES_MEMORY_SSH", str(spy))
    return marker


@pytest.mark.parametrize("address", HOSTILE)
def test_a_hostile_address_is_refused_with_a_message_and_nothing_runs(qtbot, address, ssh_spy, tmp_path, capsys):
    shot = tmp_path / "shot.png"
    assert app.main(["--home", address, "--screenshot", str(shot)]) == app.EXIT_USAGE
    said = capsys.readouterr().err
    assert said.startswith("hermes-studio: ") and len(said) > 40, said
    dialog = RemoteHomeDialog([address])
    qtbot.addWidget(dialog)
    dialog.accept()
    assert dialog.home is None and dialog.problem.isVisibleTo(dialog) and dialog.problem.text()
    assert not ssh_spy.exists()
    assert not os.path.exists("/tmp/pwned")


def test_hosts_from_ssh_config_are_offered(tmp_path):
    ssh_dir = tmp_path.parent / "ssh-config-home"
    (ssh_dir / ".ssh").mkdir(parents=True)
    (ssh_dir / ".ssh" / "config").write_text("Host gateway cron-box\n  User agent\nHost *.internal\n")
    os.environ["HOME"] = str(ssh_dir)  # restored by the autouse isolation fixture
    assert suggested_addresses(["ssh://old/x", "/local/home"]) == [
        "ssh://old/x", "ssh://gateway/", "ssh://cron-box/"]


def test_an_unsaved_edit_survives_a_reconnect_and_is_merged_with_the_agents_write(qtbot, address, remote_home):
    window = open_window(qtbot, address)
    workspace = window.workspace
    editor = window.open_memory("user")
    qtbot.waitUntil(lambda: bool(editor.document.cards), timeout=CONNECT_MS)
    card = editor.card_at(0)
    card.text_edit.setFocus()
    card.text_edit.moveCursor(card.text_edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(card.text_edit, ADDED)
    workspace._reconnect_delay = 3000
    with qtbot.waitSignal(workspace.sig_connection, timeout=CONNECT_MS,
                          check_params_cb=lambda state, _message: state == "lost"):
        workspace.backend.client._process.kill()
    # The agent writes on the remote side while the app is away.
    assert MemoryStore(remote_home).add("user", "Written by the agent while the app was away.")["success"]
    qtbot.waitUntil(lambda: workspace.connection == "connected", timeout=CONNECT_MS)
    qtbot.waitUntil(lambda: "Written by the agent while the app was away." in editor.document.texts(),
                    timeout=CONNECT_MS)
    assert editor.document.dirty and editor.document.texts()[0].endswith(ADDED)
    with qtbot.waitSignal(editor.sig_saved, timeout=CONNECT_MS):
        editor.save_action.trigger()
    saved = MemoryStore(remote_home).read_entries("user")
    assert saved[0].endswith(ADDED) and "Written by the agent while the app was away." in saved
    window.close()
