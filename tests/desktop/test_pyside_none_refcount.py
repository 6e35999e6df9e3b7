"""Guard against PySide6 6.12.0's "Fatal Python error: none_dealloc" on Python 3.11.

On Python 3.11, ``None`` is an ordinary reference-counted object. PySide6 6.12.0 returns
``None`` from Qt calls that return nothing without taking a new reference to it, so every
such call (``QLabel.setText`` and thousands of others) decrements ``None``'s reference
count by one. After a few thousand calls the count reaches zero and the interpreter
aborts with "Fatal Python error: none_dealloc". Python 3.12+ makes ``None`` immortal
(PEP 683), so the same bug is harmless there. pyproject.toml pins PySide6 below 6.12.
"""

from __future__ import annotations

import sys

import PySide6
from PySide6.QtWidgets import QLabel

CALLS = 20_000
CHUNK = 1_000
# Unrelated code (the GC, interned objects, caches) may legitimately drop a few
# references to None; the bug drops one per call, i.e. at least CHUNK per chunk.
SLACK = 100


def test_qt_calls_returning_nothing_do_not_steal_references_to_none(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    start = sys.getrefcount(None)
    for done in range(CHUNK, CALLS + 1, CHUNK):
        for _ in range(CHUNK):
            label.setText("Hermes")
        now = sys.getrefcount(None)
        # Checked per chunk so the test fails before the count can reach zero and
        # abort the whole test run. A drop means each call released a reference to None
        # it never took: the PySide6 6.12.0 bug.
        assert now >= start - SLACK, (
            f"the reference count of None fell from {start} to {now} after {done} "
            f"QLabel.setText calls: this PySide6 ({PySide6.__version__}) releases None "
            "without owning it and will crash with 'Fatal Python error: none_dealloc'"
        )


def test_installed_pyside6_is_safe_on_this_python():
    major, minor = PySide6.__version_info__[:2]
    assert (major, minor) < (6, 12) or sys.version_info >= (3, 12), (
        f"PySide6 {PySide6.__version__} on Python {sys.version.split()[0]}: PySide6 6.12 "
        "aborts Python 3.11 with 'Fatal Python error: none_dealloc' after a few thousand "
        "Qt calls returning None. Install PySide6-Essentials>=6.11,<6.12 (as pyproject.toml "
        "pins) or use Python 3.12 or newer."
    )
