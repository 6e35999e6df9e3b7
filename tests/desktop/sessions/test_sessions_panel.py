"""The Sessions tab on a copy of the demo home: search by keyboard, transcripts, what a
session taught, where an entry or skill came from, and the clear states of a bad state.db."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from sessions_tab_helpers import K8S_MEMORY, KUBERNETES_SESSION

from hermes_memory.memory.entries import fingerprint
from hermes_memory.memory.store import MemoryStore
from hermes_studio.sessions import SessionsPanel
from hermes_studio.sessions.delegate import HTML_ROLE
from hermes_studio.sessions.panel import SESSION_ROLE
from hermes_studio.workspace import Workspace


def rows(panel: SessionsPanel) -> list[tuple[str, int | None, str]]:
    found = []
    for row in range(panel.results.count()):
        item = panel.results.item(row)
        session_id, message_id = item.data(SESSION_ROLE)
        found.append((session_id, message_id, item.data(HTML_ROLE)))
    return found


def test_first_look_lists_recent_sessions_and_opens_the_latest(panel):
    sessions = [session for session, _, _ in rows(panel)]
    assert len(sessions) == 12 and sessions[0] == KUBERNETES_SESSION
    assert "12 most recent sessions" in panel.state.text()
    assert panel.session_id == KUBERNETES_SESSION
    assert "First Kubernetes deploy" in panel.header.text()


def test_typing_searches_with_snippets_and_the_keyboard_opens_the_hit(panel, qtbot):
    panel.search_box.setFocus()
    with qtbot.waitSignal(panel.sig_results_shown, timeout=5000,
                          check_params_cb=lambda serial: serial == panel.live.serial):  # fmt: skip
        qtbot.keyClicks(panel.search_box, "kubectl")
    hits = rows(panel)
    assert hits and all(message_id is not None for _, message_id, _ in hits)
    assert {session for session, _, _ in hits} == {KUBERNETES_SESSION}
    assert any("<b>kubectl</b>" in html.lower() for _, _, html in hits)
    assert "matching message" in panel.state.text()

    panel.session_id = None  # so the transcript read below is the one the keys open
    with qtbot.waitSignal(panel.sig_transcript_shown, timeout=5000):
        qtbot.keyClick(panel.search_box, Qt.Key.Key_Down)
        qtbot.keyClick(panel.results, Qt.Key.Key_Return)
    assert panel.session_id == KUBERNETES_SESSION
    assert panel.anchor == hits[panel.results.currentRow()][1]
    assert "◀ where it came from" in panel.view.toHtml()

    qtbot.keyClick(panel.search_box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: "most recent" in panel.state.text(), timeout=5000)


def test_keystrokes_coalesce_and_an_older_answer_never_replaces_a_newer_one(panel, qtbot):
    answers: list[dict] = []
    panel.live.sig_answer.connect(answers.append)
    with qtbot.waitSignal(panel.sig_results_shown, timeout=5000,
                          check_params_cb=lambda serial: serial == panel.live.serial):  # fmt: skip
        qtbot.keyClicks(panel.search_box, "settlement")
    assert answers[-1]["query"] == "settlement" and answers[-1]["latest"]
    assert len(answers) < len("settlement")  # ten keys, fewer searches
    serials = [a["serial"] for a in answers]
    assert serials == sorted(serials)
    shown = rows(panel)

    # a late answer for an earlier query (as if the engine had been slow) is dropped
    panel.live._answered(answers[-1]["serial"] - 1, "settl", {"ok": True, "results": [], "count": 0,
                                                               "sessions": 0, "query": "settl"})  # fmt: skip
    assert rows(panel) == shown and answers[-1]["query"] == "settlement"


def test_no_match_says_so(panel, qtbot):
    with qtbot.waitSignal(panel.sig_results_shown, timeout=5000,
                          check_params_cb=lambda serial: serial == panel.live.serial):  # fmt: skip
        qtbot.keyClicks(panel.search_box, "zeppelin")
    assert panel.results.count() == 0
    assert "No message matches “zeppelin”" in panel.state.text()


def test_the_transcript_collapses_tool_calls_and_highlights_writes(panel, qtbot):
    text = panel.view.toPlainText()
    assert "writes memory: add to MEMORY.md: Since November" in text
    assert "writes skill: create skill 'k8s-rollout-check'" in text
    assert '"category": "devops"' not in text  # the call's arguments are folded away
    call = next(c for m in panel.transcript["messages"] for c in m["calls"] if c["name"] == "skill_manage")
    panel._link(f"toggle:{call['id']}")
    assert '"category": "devops"' in panel.view.toPlainText()
    panel._link(f"toggle:{call['id']}")
    assert '"category": "devops"' not in panel.view.toPlainText()


def test_what_it_taught_lists_entries_and_skills_as_links(panel, qtbot):
    qtbot.waitUntil(lambda: panel.lesson is not None, timeout=5000)
    html = panel.lesson_label.text()
    assert "href='node:k8s-rollout-check'" in html and "href='node:docker-compose-dev-db'" in html
    assert "href='entry:0'" in html and K8S_MEMORY[:30] in html
    opened: list[str] = []
    entries: list[tuple[str, str]] = []
    panel.sig_open_node.connect(opened.append)
    panel.sig_open_entry.connect(lambda target, text: entries.append((target, text)))
    panel.lesson_label.linkActivated.emit("node:k8s-rollout-check")
    panel.lesson_label.linkActivated.emit("entry:0")
    assert opened == ["k8s-rollout-check"]
    assert entries[0][0] == "memory" and entries[0][1].startswith(K8S_MEMORY)
    assert panel.revert_button.isEnabled()


def test_where_an_entry_came_from_opens_its_session_at_the_writing_message(panel, qtbot, demo_home):
    entry = next(e for e in MemoryStore(demo_home).read_entries("memory") if e.startswith("8 July incident"))
    with qtbot.waitSignal(panel.sig_transcript_shown, timeout=5000):
        panel.show_origins(target="memory", fingerprint=fingerprint(entry))
    assert panel.session_id == "20260708_008"
    writer = next(m for m in panel.transcript["messages"] if m["id"] == panel.anchor)
    assert writer["calls"][0]["name"] == "memory" and "8 July incident" in writer["calls"][0]["arguments"]
    assert "Settlement lock incident" in panel.origins.text()


def test_a_missing_state_db_is_a_clear_state(make_panel, demo_home, qtbot):
    demo_home.state_db.unlink()
    workspace = Workspace(demo_home)
    try:
        panel = make_panel(workspace)
        assert "No session history here yet" in panel.state.text()
        assert panel.results.count() == 0
    finally:
        workspace.close()


def test_a_vanished_session_is_a_clear_state(panel, demo_home, qtbot):
    conn = sqlite3.connect(demo_home.state_db)
    with conn:
        conn.execute("DELETE FROM messages WHERE session_id = ?", ("20260420_001",))
        conn.execute("DELETE FROM sessions WHERE id = ?", ("20260420_001",))
    conn.close()
    with qtbot.waitSignal(panel.sig_transcript_shown, timeout=5000):
        panel.open_session("20260420_001", 3)
    assert "That session is gone" in panel.view.toPlainText()
    # what it taught is in history, not in state.db: still listed (and revertable)
    qtbot.waitUntil(lambda: panel.lesson is not None, timeout=5000)
    assert "What it taught" in panel.lesson_label.text() and "Dana Okafor" in panel.lesson_label.text()
    with qtbot.waitSignal(panel.sig_transcript_shown, timeout=5000):
        panel.open_session(KUBERNETES_SESSION)  # the others still read
    assert "First Kubernetes deploy" in panel.header.text()


def test_a_state_db_locked_by_the_agent_says_so_and_recovers(panel, demo_home, qtbot):
    agent = sqlite3.connect(demo_home.state_db, isolation_level=None)
    agent.execute("BEGIN EXCLUSIVE")  # a rollback-journal writer holds every reader off
    try:
        qtbot.keyClicks(panel.search_box, "docker")
        qtbot.waitUntil(lambda: "holding state.db" in panel.state.text(), timeout=10000)
        assert panel.results.count() == 0
    finally:
        agent.execute("ROLLBACK")
        agent.close()
    qtbot.waitUntil(lambda: "matching message" in panel.state.text(), timeout=10000)  # it retried
    assert panel.results.count() > 0


def test_best_match_order_uses_the_engines_relevance_search(panel, qtbot):
    answers: list[dict] = []
    panel.live.sig_answer.connect(answers.append)
    with qtbot.waitSignal(panel.sig_results_shown, timeout=5000,
                          check_params_cb=lambda serial: serial == panel.live.serial):  # fmt: skip
        qtbot.keyClicks(panel.search_box, "kubectl")
    assert answers[-1]["order"] == "newest" and "newest first" in panel.state.text()
    newest = [message for _, message, _ in rows(panel)]
    assert newest == sorted(newest, reverse=True)  # ids grow with time
    with qtbot.waitSignal(panel.sig_results_shown, timeout=5000):
        panel.order_box.setCurrentIndex(panel.order_box.findData("best"))
    assert answers[-1]["order"] == "best" and "best match first" in panel.state.text()
    assert sorted(message for _, message, _ in rows(panel)) == sorted(newest)


def test_new_sessions_and_messages_appear_without_a_click(panel, demo_home, qtbot):
    from hermes_memory.sessions import SessionWriter

    with SessionWriter(demo_home.state_db) as writer:
        writer.append_message(KUBERNETES_SESSION, "user", "One more thing: the rollout of ledger-web too.")
        writer.create_session("20261201_live", "telegram", extra={"title": "A live session"})
        writer.append_message("20261201_live", "user", "Hello from the phone.")
    qtbot.waitUntil(lambda: "ledger-web too" in panel.view.toPlainText(), timeout=10000)
    qtbot.waitUntil(lambda: rows(panel)[0][0] == "20261201_live", timeout=10000)
    assert panel.session_id == KUBERNETES_SESSION
