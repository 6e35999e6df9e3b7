"""Desktop fixtures: every test must leave no top-level window behind."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication


def _top_level_windows() -> dict[int, str]:
    return {
        shiboken6.getCppPointer(widget)[0]: f"{type(widget).__name__} {widget.windowTitle()!r}"
        for widget in QApplication.topLevelWidgets()
    }


@pytest.fixture(autouse=True)
def _no_leaked_windows(qapp):
    """Fail a test that leaves a window alive once pending deleteLater() calls have run."""
    before = _top_level_windows()
    yield
    # pytest-qt closes and deleteLater()s widgets given to qtbot.addWidget; at event-loop
    # level 0 those deletions only happen when deferred deletes are flushed explicitly.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    leaked = [name for key, name in _top_level_windows().items() if key not in before]
    assert not leaked, f"windows left alive by this test: {leaked}"
