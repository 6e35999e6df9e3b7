"""The Sessions tab in the window: links into the graph and the editors, "Where this came
from" on a node and on a memory card, and "Revert what this session taught" as one step of
the app's undo stack, byte for byte, while an agent process keeps writing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog
from sessions_tab_helpers import K8S_MEMORY, K8S_USER, KUBERNETES_SESSION

from hermes_memory.memory.store import MemoryStore
from hermes_studio import app as studio_app

HERE = Path(__file__).parent


def skill_file(home, name: str) -> Path:
    return next(home.skills_dir.glob(f"*/{name}/SKILL.md"))


def test_taught_links_open_the_graph_node_and_the_entry_in_its_editor(window, qtbot):
    sessions = window.sessions
    window.set_view("sessions")
    qtbot.waitUntil(lambda: sessions.lesson is not None and sessions.session_id == KUBERNETES_SESSION,
                    timeout=5000)  # fmt: skip
    sessions.lesson_label.linkActivated.emit("node:k8s-rollout-check")
    assert window.current_view() == "graph"
    assert window.graph.details.node_id() == "k8s-rollout-check"

    window.set_view("sessions")
    number = next(i for i, e in enumerate(sessions.lesson["entries"]) if e["target"] == "user")
    sessions.lesson_label.linkActivated.emit(f"entry:{number}")
    assert window.current_view() == "memory" and window.memory.current_target() == "user"
    editor = window.memory.editors["user"]
    qtbot.waitUntil(lambda: editor.current_uid is not None, timeout=5000)
    assert editor.document.card(editor.current_uid).text.startswith(K8S_USER)


def test_where_this_came_from_in_a_skills_details(window, qtbot):
    window.graph.open_node("k8s-rollout-check")
    details = window.graph.details
    assert details.origin_button.isVisible()
    with qtbot.waitSignal(window.sessions.sig_transcript_shown, timeout=5000):
        qtbot.mouseClick(details.origin_button, Qt.MouseButton.LeftButton)
    sessions = window.sessions
    assert window.current_view() == "sessions"
    qtbot.waitUntil(lambda: sessions.anchor is not None, timeout=5000)
    assert sessions.session_id == KUBERNETES_SESSION
    anchor = next(m for m in sessions.transcript["messages"] if m["id"] == sessions.anchor)
    assert anchor["calls"][0]["write"]["label"] == "create skill 'k8s-rollout-check'"


def test_where_this_came_from_on_a_memory_card(window, qtbot):
    editor = window.open_memory("memory")
    qtbot.waitUntil(lambda: editor.status is not None, timeout=5000)
    uid = next(c.uid for c in editor.document.cards if c.text.startswith("Releases go through"))
    qtbot.waitUntil(lambda: uid in editor.card_list.cards, timeout=10_000)  # cards arrive a few a turn
    card = editor.card_list.cards[uid]
    with qtbot.waitSignal(window.sessions.sig_transcript_shown, timeout=5000):
        qtbot.mouseClick(card.origin_button, Qt.MouseButton.LeftButton)
    sessions = window.sessions
    assert window.current_view() == "sessions" and sessions.session_id == "20260604_007"
    anchor = next(m for m in sessions.transcript["messages"] if m["id"] == sessions.anchor)
    assert "Releases go through" in anchor["calls"][0]["arguments"]


def _open_revert_dialog(window, qtbot) -> QDialog:
    sessions = window.sessions
    window.set_view("sessions")
    qtbot.waitUntil(lambda: sessions.revert_button.isEnabled() and sessions.session_id == KUBERNETES_SESSION,
                    timeout=5000)  # fmt: skip
    qtbot.mouseClick(sessions.revert_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: sessions.revert_dialog is not None, timeout=5000)
    return sessions.revert_dialog


def test_cancelling_the_dry_run_writes_nothing(window, qtbot, demo_home):
    before = {p: p.read_bytes() for p in demo_home.path.rglob("*") if p.is_file() and ".memory-studio" not in p.parts}
    dialog = _open_revert_dialog(window, qtbot)
    plan = dialog.plan_view.toPlainText()
    assert K8S_MEMORY in plan and "archive (restorable)" in plan and "docker-compose-dev-db" in plan
    assert dialog.buttons.button(dialog.buttons.StandardButton.Cancel).isDefault()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.sessions.revert_dialog is None, timeout=5000)
    after = {p: p.read_bytes() for p in demo_home.path.rglob("*") if p.is_file() and ".memory-studio" not in p.parts}
    assert {p: b for p, b in after.items() if not p.name.endswith(".lock")} == \
        {p: b for p, b in before.items() if not p.name.endswith(".lock")}  # fmt: skip
    assert not window.history.stack.canUndo()


def test_revert_then_undo_and_redo_while_the_agent_writes(window, qtbot, demo_home):
    store = MemoryStore(demo_home)
    memory_before = store.read_entries("memory")
    user_before = demo_home.user_file.read_bytes()
    docker_before = skill_file(demo_home, "docker-compose-dev-db").read_bytes()
    k8s_path = skill_file(demo_home, "k8s-rollout-check")
    k8s_before = k8s_path.read_bytes()
    agent = subprocess.Popen(
        [sys.executable, str(HERE / "agent_writer.py"), str(demo_home.path), "4", "0.3"],
        stdout=subprocess.PIPE, text=True, cwd=HERE,
    )
    try:
        assert agent.stdout.readline().strip() == "ready"
        dialog = _open_revert_dialog(window, qtbot)
        with qtbot.waitSignal(window.sessions.sig_reverted, timeout=15000) as reverted:
            qtbot.mouseClick(dialog.revert_button, Qt.MouseButton.LeftButton)
        assert reverted.args[0]["ok"], reverted.args[0]
        assert not any(e.startswith(K8S_MEMORY) for e in store.read_entries("memory"))
        assert K8S_USER.encode() not in demo_home.user_file.read_bytes()
        assert not k8s_path.exists()  # archived, restorable
        assert (demo_home.skills_archive_dir / "k8s-rollout-check" / "SKILL.md").read_bytes() == k8s_before
        assert skill_file(demo_home, "docker-compose-dev-db").read_bytes() != docker_before
        assert window.history.stack.undoText() == f"revert what session {KUBERNETES_SESSION} taught"
        written = [line.strip() for line in agent.stdout if line.strip() != "done"]
        assert agent.wait(timeout=30) == 0 and len(written) == 4
    finally:
        agent.kill()

    reverted_memory = store.read_entries("memory")
    assert reverted_memory == [e for e in memory_before if not e.startswith(K8S_MEMORY)] + written
    window.set_view("sessions")
    with qtbot.waitSignal(window.history.sig_report, timeout=15000) as report:
        window.undo()
    assert report.args[1], report.args[0]
    # everything the session taught is back byte for byte; nothing the agent wrote is lost
    assert demo_home.user_file.read_bytes() == user_before
    assert skill_file(demo_home, "docker-compose-dev-db").read_bytes() == docker_before
    assert k8s_path.read_bytes() == k8s_before
    assert sorted(store.read_entries("memory")) == sorted(memory_before + written)

    with qtbot.waitSignal(window.history.sig_report, timeout=15000) as report:
        window.redo()
    assert report.args[1], report.args[0]
    assert sorted(store.read_entries("memory")) == sorted(reverted_memory)
    assert not k8s_path.exists() and K8S_USER.encode() not in demo_home.user_file.read_bytes()


def test_the_sessions_view_renders_a_screenshot_on_the_demo_home(qapp, tmp_path, capsys):
    out = tmp_path / "sessions.png"
    code = studio_app.main(["--demo", "--view", "sessions", "--screenshot", str(out), "--size", "1280x800"])
    assert code == 0, capsys.readouterr().err
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)


def test_a_profile_entrys_graph_link_and_its_origin_round_trip(window, qtbot):
    sessions = window.sessions
    window.set_view("sessions")
    qtbot.waitUntil(lambda: sessions.lesson is not None and sessions.session_id == KUBERNETES_SESSION,
                    timeout=5000)  # fmt: skip
    entry = next(e for e in sessions.lesson["entries"] if e["target"] == "user")
    assert entry["node_id"].startswith("memory:profile:")
    sessions.lesson_label.linkActivated.emit(f"node:{entry['node_id']}")
    details = window.graph.details
    assert window.current_view() == "graph" and details.node_id() == entry["node_id"]
    assert details.title.text().startswith(K8S_USER)

    sessions.open_session("20260420_001")  # elsewhere, so the click below must move it
    with qtbot.waitSignal(sessions.sig_transcript_shown, timeout=5000,
                          check_params_cb=lambda sid: sid == KUBERNETES_SESSION):  # fmt: skip
        qtbot.mouseClick(details.origin_button, Qt.MouseButton.LeftButton)
    anchor = next(m for m in sessions.transcript["messages"] if m["id"] == sessions.anchor)
    assert K8S_USER in anchor["calls"][0]["arguments"] and "USER.md" in anchor["calls"][0]["write"]["label"]
