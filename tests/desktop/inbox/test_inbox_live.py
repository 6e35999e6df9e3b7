"""The Inbox while an agent (a real subprocess) stages writes: records appear by themselves,
the tab badge and the status bar follow, and decisions made meanwhile lose nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from inbox_helpers import ENTRIES, seed
from PySide6.QtCore import Qt
from test_inbox_panel import decide, select

from hermes_memory.memory.entries import parse_entries
from hermes_studio import app as studio_app
from hermes_studio.inbox.panel import InboxStatus
from hermes_studio.main_window import VIEWS, MainWindow

STAGER = Path(__file__).with_name("agent_stager.py")
AGENT_RECORDS = 6


def run_agent(home, count: int, interval: float) -> subprocess.Popen:
    agent = subprocess.Popen([sys.executable, str(STAGER), str(home.path), str(count), str(interval)],
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert agent.stdout is not None and agent.stdout.readline().strip() == "ready"
    return agent


def test_a_staged_record_appears_with_badge_and_status_count(qtbot, home):
    seed(home)
    window = MainWindow(home, view="inbox")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.inbox.ready, timeout=5000)
    inbox_tab = window.tabs.indexOf(window.inbox)
    assert window.tabs.tabText(inbox_tab) == "Inbox"
    status = window.statusBar().findChild(InboxStatus)
    assert status is not None and status.text() == "Inbox: empty"

    agent = run_agent(home, 1, 0.05)
    assert agent.wait(10) == 0
    qtbot.waitUntil(lambda: window.tabs.tabText(inbox_tab) == "Inbox (1)", timeout=5000)
    assert status.text() == "Inbox: 1"
    qtbot.waitUntil(lambda: window.inbox.model.ids() == ["ab000000"], timeout=2000)
    assert "agent fact 0" in window.inbox.model.items[0]["summary"]
    assert window.inbox.model.items[0]["session_id"] == "20261201_101500_agent"

    qtbot.mouseClick(status, Qt.MouseButton.LeftButton)  # the status-bar count opens the tab
    assert window.current_view() == "inbox" and "inbox" in VIEWS
    window.set_view("graph")
    qtbot.mouseClick(status, Qt.MouseButton.LeftButton)
    assert window.current_view() == "inbox"
    window.close()


def test_decisions_while_the_agent_stages_lose_nothing(qtbot, panel, staged_home):
    agent = run_agent(staged_home, AGENT_RECORDS, 0.15)
    qtbot.waitUntil(lambda: "ab000000" in panel.model.ids(), timeout=5000)
    select(qtbot, panel, "ab000000")
    assert decide(qtbot, panel, panel.approve_button)["ok"]
    select(qtbot, panel, "a1b2c3d4")
    assert decide(qtbot, panel, panel.reject_button)["ok"]
    staged = [line.strip() for line in agent.stdout if line.strip() != "done"]
    assert agent.wait(10) == 0 and len(staged) == AGENT_RECORDS
    # every record the agent staged and nobody decided is listed, live
    waiting = set(staged) - {"ab000000"}
    qtbot.waitUntil(lambda: waiting <= set(panel.model.ids()), timeout=3000)
    assert "a1b2c3d4" not in panel.model.ids()
    on_disk = {p.stem for p in (staged_home.path / "pending" / "memory").glob("*.json")}
    assert waiting <= on_disk and "ab000000" not in on_disk
    entries = parse_entries(staged_home.memory_file.read_text(encoding="utf-8"))
    assert entries == [*ENTRIES, "Agent fact 0, staged while the person decided."]


def test_screenshot_of_the_inbox_view(qtbot, qapp, capsys, staged_home, tmp_path):
    out = tmp_path / "inbox.png"
    code = studio_app.main(["--home", str(staged_home.path), "--view", "inbox", "--screenshot", str(out)])
    assert code == 0 and out.read_bytes().startswith(b"\x89PNG")
    assert str(out) in capsys.readouterr().out


def test_an_edit_whose_write_is_decided_elsewhere_keeps_the_text(qtbot, panel, staged_home):
    select(qtbot, panel, "a1b2c3d4")
    qtbot.mouseClick(panel.edit_button, Qt.MouseButton.LeftButton)
    panel.details.editor.selectAll()
    qtbot.keyClicks(panel.details.editor, "My better wording.")
    rejected = subprocess.run([sys.executable, "-c", "import sys; from hermes_memory.cli import main; "
                               "sys.exit(main(sys.argv[1:]))", "--home", str(staged_home.path),
                               "pending", "reject", "a1b2c3d4"], capture_output=True, text=True)  # fmt: skip
    assert rejected.returncode == 0, rejected.stderr
    qtbot.waitUntil(lambda: "left the queue" in panel.banner.text(), timeout=5000)
    assert panel.details.editing and panel.details.editor.toPlainText() == "My better wording."
    assert not panel.details.approve_edit_button.isEnabled()
    # the agent staging more meanwhile does not take the text away either
    agent = run_agent(staged_home, 1, 0.0)
    assert agent.wait(10) == 0
    qtbot.waitUntil(lambda: "ab000000" in panel.model.ids(), timeout=5000)
    assert panel.details.editing and panel.details.editor.toPlainText() == "My better wording."
    qtbot.mouseClick(panel.details.cancel_edit_button, Qt.MouseButton.LeftButton)
    assert not panel.details.editing and panel.details.shown is not None
