"""The app on a remote home over a real sshd: graph, meters, following the agent, saving,
approving, Recent and profiles: the same views as on a local home."""

from __future__ import annotations

import subprocess
import sys

import pytest
from remote_desktop_helpers import CONNECT_MS, open_window

from hermes_memory import api
from hermes_memory.memory.store import MemoryStore
from hermes_studio.graph.homes import RecentHomes
from hermes_studio.main_window import MainWindow

pytestmark = pytest.mark.timeout(300)

AGENT = """
import sys, time
sys.path.insert(0, sys.argv[1])
from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore
store = MemoryStore(HermesHome.resolve(sys.argv[2]))
entries = store.read_entries("memory")
store.remove("memory", entries[-1][:40])  # room for the new entry
result = store.add("memory", "The agent learned this on the server.")
print("ok" if result.get("success") else result, flush=True)
"""


def test_opens_the_remote_home_with_its_graph_meters_and_connection_state(qtbot, address, remote_home):
    window = open_window(qtbot, address)
    assert window.connection_status.label.text().startswith("● Connected to 127.0.0.1")
    window.graph.wait_ready(CONNECT_MS)
    local = api.graph_build(remote_home)
    assert window.graph.data is not None and len(window.graph.data.ids) == len(local["nodes"])
    stores = api.store_status(remote_home)["stores"]
    for target in ("memory", "user"):
        status = window.workspace.statuses[target]
        assert status.used == stores[target]["used"] and status.limit == stores[target]["limit"]
    staged = api.pending_count(remote_home)["count"]
    assert staged >= 1  # the fixture's staged write, beside any the demo home carries
    qtbot.waitUntil(lambda: window.inbox.count == staged, timeout=CONNECT_MS)
    assert address in window.windowTitle() and "remote%20home" in address
    assert any(item.root == window.home.root for item in RecentHomes().items())
    window.close()


def test_follows_an_agent_process_writing_on_the_remote_side(qtbot, address, remote_home):
    window = open_window(qtbot, address)
    from remote_helpers import ENGINE_DIR

    agent = subprocess.run([sys.executable, "-c", AGENT, str(ENGINE_DIR), str(remote_home.path)],
                           capture_output=True, text=True, timeout=60)
    assert agent.stdout.strip() == "ok", agent.stderr
    expected = MemoryStore(remote_home).read_entries("memory")
    qtbot.waitUntil(lambda: list(window.workspace.statuses["memory"].entries) == expected,
                    timeout=10_000)
    editor = window.memory.editors["memory"]
    qtbot.waitUntil(lambda: "The agent learned this on the server." in editor.document.texts(),
                    timeout=10_000)
    window.close()


def test_saves_an_edit_and_approves_a_staged_write_on_the_remote_disk(qtbot, address, remote_home):
    window = open_window(qtbot, address)
    editor = window.open_memory("user")
    qtbot.waitUntil(lambda: editor.status is not None and bool(editor.document.cards), timeout=CONNECT_MS)
    card = editor.card_at(0)
    card.text_edit.setFocus()
    card.text_edit.moveCursor(card.text_edit.textCursor().MoveOperation.End)
    qtbot.keyClicks(card.text_edit, " Likes tea.")
    with qtbot.waitSignal(editor.sig_saved, timeout=CONNECT_MS):
        editor.save_action.trigger()
    assert MemoryStore(remote_home).read_entries("user")[0].endswith("Likes tea.")
    assert not editor.document.dirty

    inbox = window.inbox
    staged = api.pending_count(remote_home)["count"]
    qtbot.waitUntil(lambda: inbox.model.row_of("a1b2c3d4") >= 0, timeout=CONNECT_MS)
    inbox.list.setCurrentIndex(inbox.model.index(inbox.model.row_of("a1b2c3d4")))
    qtbot.waitUntil(inbox.approve_button.isEnabled, timeout=CONNECT_MS)
    with qtbot.waitSignal(inbox.sig_decided, timeout=CONNECT_MS) as decided:
        inbox.approve_button.click()
    assert decided.args[0]["ok"], decided.args[0]
    assert "Staging runs on port 5433." in MemoryStore(remote_home).read_entries("memory")
    assert not (remote_home.path / "pending" / "memory" / "a1b2c3d4.json").exists()
    qtbot.waitUntil(lambda: inbox.count == staged - 1, timeout=10_000)

    # Undo goes to the remote engine too: the save is taken back there.
    window.set_view("graph")
    qtbot.waitUntil(lambda: window.history.stack.canUndo(), timeout=5000)
    window.history.stack.undo()
    qtbot.waitUntil(lambda: not MemoryStore(remote_home).read_entries("user")[0].endswith("Likes tea."),
                    timeout=CONNECT_MS)
    window.close()


def test_a_remote_homes_profiles_are_listed_and_open_over_ssh(qtbot, address, remote_home):
    profile = remote_home.path / "profiles" / "ops"
    (profile / "memories").mkdir(parents=True)
    (profile / "memories" / "MEMORY.md").write_text("Ops profile entry.", encoding="utf-8")
    window = open_window(qtbot, address)
    assert window.home.list_profiles() == ["ops"]
    menu = window.home_switcher.fill_menu()
    assert "Profile ops" in [action.text() for action in menu.actions()]
    ops = MainWindow(window.home.with_profile("ops"))
    qtbot.addWidget(ops)
    qtbot.waitUntil(lambda: "memory" in ops.workspace.statuses, timeout=CONNECT_MS)
    assert ops.workspace.statuses["memory"].entries == ("Ops profile entry.",)
    ops.close()
    window.close()
