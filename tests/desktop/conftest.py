"""Desktop fixtures: every test must leave no top-level window behind, and a main window
opened as a person would see it (shown, its graph drawn and both stores read)."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication, QMessageBox


def _top_level_windows() -> dict[int, str]:
    return {
        shiboken6.getCppPointer(widget)[0]: f"{type(widget).__name__} {widget.windowTitle()!r}"
        for widget in QApplication.topLevelWidgets()
    }


@pytest.fixture(autouse=True)
def _collect_on_the_ui_thread(qapp):
    """As in the app: worker threads never run the cycle collector (see gc_policy)."""
    from hermes_studio.gc_policy import UiThreadCollector

    collector = UiThreadCollector(qapp)
    collector.start()
    yield
    collector.stop()
    collector.deleteLater()


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


@pytest.fixture
def discard_on_close(monkeypatch):
    """A window closing over unsaved edits would ask; in these tests it discards."""
    monkeypatch.setattr(QMessageBox, "exec", lambda box: int(QMessageBox.StandardButton.Discard.value))


@pytest.fixture
def open_window(qtbot):
    """Open ``MainWindow(home, **kwargs)`` and wait until it is ready; closed at the end."""
    from hermes_studio.main_window import MainWindow

    made: list[MainWindow] = []

    def _open(home, **kwargs) -> MainWindow:
        window = MainWindow(home, **kwargs)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.graph.ready and len(window.workspace.statuses) == 2, timeout=30000)
        made.append(window)
        return window

    yield _open
    for window in made:
        window.close()
