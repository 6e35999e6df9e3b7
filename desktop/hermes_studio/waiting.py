"""Waiting for a view's first answer, for a screenshot taken before anyone looks."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QTimer, SignalInstance


def wait_until_ready(
    is_ready: Callable[[], bool], ready_signal: SignalInstance, timeout_ms: int
) -> bool:
    """Run the event loop until ``ready_signal`` fires (or ``timeout_ms`` passes), unless
    ``is_ready()`` already; answer ``is_ready()``."""
    if not is_ready():
        loop = QEventLoop()
        QTimer.singleShot(timeout_ms, loop.quit)
        ready_signal.connect(loop.quit)
        loop.exec()
        ready_signal.disconnect(loop.quit)
    return is_ready()
