"""Fixtures for the Inbox: a seeded home with staged records, a Workspace and the panel."""

from __future__ import annotations

import pytest
from inbox_helpers import seed, stage_demo_records

from hermes_studio.inbox import InboxPanel
from hermes_studio.workspace import Workspace


@pytest.fixture
def staged_home(home):
    seed(home)
    stage_demo_records(home)
    return home


@pytest.fixture
def workspace(staged_home, qtbot):
    ws = Workspace(staged_home)
    yield ws
    ws.close()


@pytest.fixture
def panel(qtbot, workspace):
    """The Inbox panel, shown and loaded (its first item's preview in place)."""
    widget = InboxPanel(workspace)
    qtbot.addWidget(widget)
    widget.resize(1200, 760)
    widget.show()
    qtbot.waitExposed(widget)
    qtbot.waitUntil(lambda: widget.ready, timeout=5000)
    return widget
