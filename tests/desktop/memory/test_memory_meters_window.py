"""Capacity meters (bands, text, clicks) and the editors inside the main window."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox

from hermes_memory.fileio import atomic_write_text
from hermes_memory.memory.entries import char_count, parse_entries, serialise_entries
from hermes_studio.main_window import MainWindow
from hermes_studio.memory.meter import CapacityMeter, percent, projection_text, usage_text
from hermes_studio.memory.style import DARK_COLOURS, LIGHT_COLOURS, band


@pytest.mark.parametrize(
    ("used", "limit", "expected"),
    [(0, 2200, "calm"), (1759, 2200, "calm"), (1760, 2200, "warning"), (2200, 2200, "warning"),
     (2201, 2200, "over"), (5, 0, "over")],
)
def test_bands(used, limit, expected):
    assert band(used, limit) == expected


def test_meter_text_uses_the_engine_counts_and_shows_over_budget_percentages():
    assert usage_text(2034, 2200) == "2,034 / 2,200 chars · 92%"
    assert percent(56, 2200) == 2 and percent(2640, 2200) == 120
    assert projection_text(2244, 2034, 2200) == (
        "After save: 2,244 / 2,200 chars · 102%  (on disk now: 2,034)"
    )
    assert LIGHT_COLOURS.over != LIGHT_COLOURS.calm and DARK_COLOURS.calm != LIGHT_COLOURS.calm


def test_meter_projection_tooltip_and_click(qtbot):
    meter = CapacityMeter("Notes", compact=True)
    qtbot.addWidget(meter)
    assert meter.text() == "Notes: …"
    meter.set_usage(2300, 2200, file_name="MEMORY.md")
    assert meter.band == "over" and meter.text() == "Notes 2,300/2,200 · 104%"
    assert "Over budget by 100 characters" in meter.toolTip()
    assert "Click to open the editor" in meter.toolTip()
    meter.show()
    qtbot.waitExposed(meter)
    meter.grab()  # paints without error in every state
    with qtbot.waitSignal(meter.sig_clicked, timeout=1000):
        qtbot.mouseClick(meter, Qt.MouseButton.LeftButton, pos=QPoint(5, 5))

    full = CapacityMeter("Agent notes")
    qtbot.addWidget(full)
    full.set_usage(1000, 2200)
    full.set_projection(2034)
    assert full.text() == "After save: 2,034 / 2,200 chars · 92%  (on disk now: 1,000)"
    assert full.band == "warning"  # the band of what saving would give
    assert "After saving your edits: 2,034" in full.toolTip()
    full.grab()


@pytest.fixture
def window(qtbot, home):
    home.memory_file.write_text("alpha\n§\nbeta", encoding="utf-8")
    home.user_file.write_text("Name: Dana", encoding="utf-8")
    win = MainWindow(home, view="graph")
    qtbot.addWidget(win)
    qtbot.waitUntil(lambda: len(win.workspace.statuses) == 2, timeout=5000)
    yield win
    win.close()


def test_memory_tab_holds_both_editors_and_the_status_bar_both_meters(window):
    memory = window.memory  # (made on first use)
    assert window.tabs.widget(1) is memory
    assert [window.memory.tabs.tabText(i) for i in range(2)] == ["Agent notes", "User profile"]
    meters = window.meters.meters
    assert meters["memory"].text() == "Notes 12/2,200 · 0%"
    assert meters["user"].text() == "Profile 10/1,375 · 0%"
    assert window.memory.editors["memory"].document.texts() == ["alpha", "beta"]


def test_status_bar_meters_follow_an_atomic_write_with_no_editor_open(qtbot, home, window):
    assert window.current_view() == "graph"
    entries = ["alpha", "beta", "gamma written by the agent"]
    atomic_write_text(home.memory_file, serialise_entries(entries), ".mem_")
    meter = window.meters.meters["memory"]
    qtbot.waitUntil(lambda: meter.used == char_count(entries), timeout=3000)


def test_clicking_a_meter_opens_its_editor(qtbot, window):
    with qtbot.waitSignal(window.meters.sig_open, timeout=1000):
        window.meters.meters["user"].sig_clicked.emit()
    assert window.current_view() == "memory"
    assert window.memory.current_target() == "user"
    assert window.open_memory("memory") is window.memory.editors["memory"]


def press(label: str, asked: list):
    """Stand in for QMessageBox.exec: note the question's buttons, press ``label``."""

    def exec_box(box: QMessageBox) -> int:
        asked.append(
            ([b.text().replace("&", "") for b in box.buttons()], box.defaultButton().text())
        )
        button = next(b for b in box.buttons() if b.text().replace("&", "") == label)
        button.click()
        return int(box.standardButton(button).value)

    return exec_box


def test_quitting_over_unsaved_edits_offers_save_discard_cancel(qtbot, window, monkeypatch, home):
    editor = window.memory.editors["memory"]
    editor.document.set_text(editor.document.cards[0].uid, "alpha, edited")
    assert window.memory.tabs.tabText(0) == "Agent notes •"
    window.show()
    qtbot.waitExposed(window)
    asked: list = []
    monkeypatch.setattr(QMessageBox, "exec", press("Cancel", asked))
    window.quit_action.trigger()
    assert window.isVisible() and sorted(asked[0][0]) == ["Cancel", "Discard", "Save"]
    qtbot.waitUntil(lambda: window.workspace.watching, timeout=10000)  # still open: the person chose to stay
    assert window.current_view() == "memory"

    monkeypatch.setattr(QMessageBox, "exec", press("Save", asked))
    window.quit_action.trigger()
    assert not window.isVisible() and not window.workspace.watching
    assert parse_entries(home.memory_file.read_text(encoding="utf-8"))[0] == "alpha, edited"


def test_quitting_and_discarding_writes_nothing(qtbot, window, monkeypatch, home):
    before = home.memory_file.read_bytes()
    editor = window.memory.editors["memory"]
    editor.document.set_text(editor.document.cards[0].uid, "alpha, edited")
    window.show()
    qtbot.waitExposed(window)
    monkeypatch.setattr(QMessageBox, "exec", press("Discard", []))
    window.close()
    assert not window.isVisible() and home.memory_file.read_bytes() == before


def test_closing_the_window_stops_the_workspace_threads(qtbot, home):
    before = {t.name for t in threading.enumerate()}
    win = MainWindow(home)
    qtbot.addWidget(win)
    qtbot.waitUntil(lambda: len(win.workspace.statuses) == 2, timeout=5000)
    win.close()
    assert {t.name for t in threading.enumerate()} <= before
