"""Fixtures for the History tests: a home with recorded versions and the main window on it."""

from __future__ import annotations

import pytest
from versions_helpers import seed_history

from hermes_studio.main_window import MainWindow


@pytest.fixture
def times(home):
    """When each seeded step happened (the home now has its versions)."""
    return seed_history(home)


@pytest.fixture
def history_home(home, times):
    return home


@pytest.fixture
def window(qtbot, history_home):
    """The main window on the History tab, its first list and diff shown."""
    widget = MainWindow(history_home, view="history")
    qtbot.addWidget(widget)
    widget.resize(1300, 820)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(lambda: bool(widget.versions.ready and widget.versions.items), timeout=10000)
    yield widget
    widget.close()
