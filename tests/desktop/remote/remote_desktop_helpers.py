"""Opening and waiting on a remote home's window in the desktop's remote tests."""

from __future__ import annotations

from hermes_studio.main_window import MainWindow
from hermes_studio.remote.home import RemoteHome

#: Generous: ssh + a fresh interpreter on a loaded 2-core machine.
CONNECT_MS = 60_000


def open_window(qtbot, address: str, **options) -> MainWindow:
    window = MainWindow(RemoteHome.parse(address), **options)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.workspace.connection == "connected", timeout=CONNECT_MS)
    qtbot.waitUntil(lambda: {"memory", "user"} <= set(window.workspace.statuses), timeout=CONNECT_MS)
    return window
