"""The Changes tab on real homes, with a real agent subprocess writing meanwhile: what changed
since the last look, the live feed with Undo (file bytes compared) and Pin, marks and pulses
on the graph, ghost nodes of staged writes, and an unreadable history as a clear state."""

from __future__ import annotations

import time

from changes_helpers import (
    ENTRIES,
    SKILL_TEXT,
    add,
    run_agent,
    seed,
    stage,
    start_agent,
    write_skill,
)
from PySide6.QtCore import Qt

from hermes_memory.memory.entries import fingerprint, parse_entries
from hermes_studio import app as studio_app
from hermes_studio.changes.panel import LAST_SEEN_KEY
from hermes_studio.main_window import MainWindow
from hermes_studio.settings import Settings


def open_window(qtbot, home, view: str = "changes") -> MainWindow:
    window = MainWindow(home, view=view)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.changes.ready and window.graph.ready and window.changes.filled(), timeout=15000)
    return window


def titles(feed) -> list[str]:
    return [card.title.text() for card in feed.cards]


def click(qtbot, button) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def wait_outcome(qtbot, card) -> str:
    qtbot.waitUntil(lambda: card.outcome.isVisible(), timeout=10000)
    return card.outcome.text()


def test_since_you_last_looked_lists_what_changed_while_closed(qtbot, home):
    seed(home)
    first = open_window(qtbot, home)
    first.close()  # remembers this moment as the last look at this home
    qtbot.waitUntil(lambda: Settings().home_value(home.label, LAST_SEEN_KEY) is not None, timeout=3000)
    last_seen = Settings().home_value(home.label, LAST_SEEN_KEY)
    assert isinstance(last_seen, float) and last_seen <= time.time()

    time.sleep(0.05)
    run_agent(home, "20261201_093000_a1b2", [add("CI caches ~/.cache/uv between runs.")])
    write_skill(home, "release-notes")

    window = open_window(qtbot, home)
    feed = window.changes.since_feed
    assert sorted(titles(feed)) == ["MEMORY.md: 1 entry added", "Skill 'release-notes' created"]
    memory_card = next(c for c in feed.cards if c.change["kind"] == "memory")
    assert "by agent" in memory_card.meta.text() and "20261201_093000_a1b2" in memory_card.meta.text()
    assert "CI caches ~/.cache/uv between runs." in memory_card.diff.text()
    assert "Since you last looked (" in feed.heading.text() and "2 changes." in feed.note.text()

    # both new nodes are marked in the graph until the person opens them
    new_entry = fingerprint("CI caches ~/.cache/uv between runs.")
    overlays = window.graph.view.overlays
    qtbot.waitUntil(lambda: sorted(overlays.marked_drawn()) == sorted([new_entry, "release-notes"]), timeout=5000)
    window.set_view("graph")
    where = window.graph.view.node_scene_pos("release-notes").toPoint()
    qtbot.mouseClick(window.graph.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert overlays.marked_drawn() == [new_entry]
    window.close()


def test_live_change_appears_pulses_and_undo_restores_the_bytes(qtbot, home):
    seed(home)
    window = open_window(qtbot, home)
    before = home.memory_file.read_bytes()
    run_agent(home, "20261201_100000_live", [add("Deploys need the VPN on.")])
    feed = window.changes.live_feed
    qtbot.waitUntil(lambda: titles(feed) == ["MEMORY.md: 1 entry added"], timeout=10000)
    assert fingerprint("Deploys need the VPN on.") in window.graph.view.overlays.pulsing()
    card = feed.cards[0]
    assert "by agent" in card.meta.text()

    # the agent goes on writing USER.md while the person undoes its MEMORY.md change
    agent = start_agent(home, "20261201_100100_more", [add(f"User fact {n}.", "user") for n in range(5)])
    click(qtbot, card.undo_button)
    assert wait_outcome(qtbot, card).startswith("Undone"), card.outcome.text()
    assert home.memory_file.read_bytes() == before
    assert agent.wait(30) == 0
    users = parse_entries(home.user_file.read_text(encoding="utf-8"))
    assert users == ["Name: Dana.", *[f"User fact {n}." for n in range(5)]]  # nothing lost

    # the Undo is on the app-wide stack: Edit ▸ Undo brings the agent's entry back
    qtbot.waitUntil(lambda: window.can_undo(), timeout=5000)
    assert "undo of MEMORY.md" in window.undo_text()
    window.commands.trigger("edit.undo")
    qtbot.waitUntil(lambda: parse_entries(home.memory_file.read_text(encoding="utf-8"))
                    == [*ENTRIES, "Deploys need the VPN on."], timeout=10000)  # fmt: skip
    window.close()


def test_one_agent_write_is_captured_once_for_every_view(qtbot, home):
    seed(home)
    window = open_window(qtbot, home)
    window.set_view("history")  # the History tab lists too, and must not capture again
    versions = window.versions
    qtbot.waitUntil(lambda: len(versions.items) == 1, timeout=10000)  # seed's MEMORY.md version
    calls: list[str] = []  # each engine call, "capture" for any that records history
    backend_call = window.workspace.backend.call

    def counted(method, params):
        calls.append("capture" if method == "history_capture" or params.get("capture") else method)
        return backend_call(method, params)

    window.workspace.backend.call = counted
    run_agent(home, "s1", [add("Captured once.")])
    qtbot.waitUntil(lambda: len(window.changes.live_feed.items) == 1, timeout=10000)  # (a hidden tab makes no cards)
    qtbot.waitUntil(lambda: len(versions.items) == 2, timeout=10000)
    qtbot.wait(300)  # let any further capture land
    assert calls.count("capture") == 1
    assert "changes_since" in calls and "history_log" in calls
    window.close()


def test_what_the_capture_at_open_records_stays_out_of_the_live_feed(qtbot, home):
    seed(home)
    for n in range(25):  # more than a first look lists
        write_skill(home, f"skill-{n:02d}")
    window = open_window(qtbot, home)
    changes = window.changes
    assert len(changes.since_feed.items) == 20 and "The latest 20 of" in changes.since_feed.note.text()
    qtbot.wait(500)  # the open capture's own history change has been handled
    assert changes.live_feed.items == []
    run_agent(home, "s-live", [add("Only this is live.")])
    qtbot.waitUntil(lambda: titles(changes.live_feed) == ["MEMORY.md: 1 entry added"], timeout=10000)
    window.close()


def test_undo_is_refused_once_the_agent_wrote_again(qtbot, home):
    seed(home)
    window = open_window(qtbot, home)
    run_agent(home, "s1", [add("First live fact.")])
    feed = window.changes.live_feed
    qtbot.waitUntil(lambda: len(feed.cards) == 1, timeout=10000)
    run_agent(home, "s2", [add("Second live fact.")])
    qtbot.waitUntil(lambda: len(feed.cards) == 2, timeout=10000)
    after = home.memory_file.read_bytes()
    older = feed.cards[1]
    click(qtbot, older.undo_button)
    assert "changed again since" in wait_outcome(qtbot, older)
    assert home.memory_file.read_bytes() == after  # the agent's later write is kept
    window.close()


def test_a_pinned_skill_changed_by_the_agent_is_flagged_and_pin_works(qtbot, home):
    seed(home)
    write_skill(home, "deploy-steps")
    window = open_window(qtbot, home)
    feed = window.changes.since_feed
    created = next(c for c in feed.cards if c.change.get("skill") == "deploy-steps")
    assert created.pin_button.isVisible()
    click(qtbot, created.pin_button)
    wait_outcome(qtbot, created)
    assert created.pin_button.text() == "Pinned"
    usage = home.skills_dir / ".usage.json"
    assert '"pinned": true' in usage.read_text(encoding="utf-8").replace("\n", " ").replace("  ", " ")

    write_skill(home, "deploy-steps", body="1. Changed by the agent behind your back.\n")
    live = window.changes.live_feed
    qtbot.waitUntil(lambda: titles(live) == ["Skill 'deploy-steps' patched"], timeout=10000)
    assert live.cards[0].flag.isVisible() and "Pinned skill changed by" in live.cards[0].flag.text()
    assert "Changed by the agent behind your back." in live.cards[0].diff.text()
    click(qtbot, live.cards[0].undo_button)
    assert wait_outcome(qtbot, live.cards[0]).startswith("Undone")
    text = (home.skills_dir / "devops" / "deploy-steps" / "SKILL.md").read_text(encoding="utf-8")
    assert text == SKILL_TEXT.format(name="deploy-steps", body="1. Do it.\n")
    window.close()


def test_staged_writes_are_ghost_nodes_that_open_their_inbox_item(qtbot, home):
    seed(home)
    stage(home, "skills", "5c000001", {"action": "create", "name": "fish-shell", "category": "shells",
          "content": SKILL_TEXT.format(name="fish-shell", body="Use fish.\n")}, "Create skill fish-shell")  # fmt: skip
    stage(home, "memory", "a1b2c3d4", add("Staged fact."), "Add memory: staged fact")
    stage(home, "memory", "d0d0d0d0", {"action": "remove", "target": "memory", "old_text": "pnpm"}, "Remove")
    window = open_window(qtbot, home, view="graph")
    overlays = window.graph.view.overlays
    qtbot.waitUntil(lambda: len(overlays.ghosts) == 2, timeout=5000)
    assert {g.item["id"] for g in overlays.ghosts} == {"5c000001", "a1b2c3d4"}  # a removal adds no node
    ghost = next(g for g in overlays.ghosts if g.item["id"] == "5c000001")
    assert ghost.pen().style() == Qt.PenStyle.DashLine
    view = window.graph.view
    # a person clicks what the fitted canvas shows (its nodes arrive over a few turns)
    qtbot.waitUntil(lambda: view.viewport().rect().contains(view.mapFromScene(ghost.scenePos())), timeout=10_000)
    where = view.mapFromScene(ghost.scenePos())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    assert window.current_view() == "inbox"
    assert window.inbox.selected_ids() == ["5c000001"]
    window.close()


def test_an_unreadable_history_is_a_clear_state_and_the_rest_works(qtbot, home):
    seed(home)
    events = home.path / ".memory-studio" / "history" / "events.jsonl"
    events.unlink()
    events.mkdir()  # not a file any more: history cannot be read
    window = open_window(qtbot, home)
    banner = window.changes.banner
    assert banner.isVisible() and "not a regular file" in banner.text()
    assert "rest of the app works" in banner.text()
    assert window.graph.data is not None and "container-logs" in window.graph.data.index
    window.close()


def test_screenshot_of_the_changes_view(qtbot, qapp, capsys, home, tmp_path):
    seed(home)
    run_agent(home, "s1", [add("A fact to show.")])
    out = tmp_path / "changes.png"
    code = studio_app.main(["--home", str(home.path), "--view", "changes", "--screenshot", str(out)])
    assert code == 0 and out.read_bytes().startswith(b"\x89PNG")
