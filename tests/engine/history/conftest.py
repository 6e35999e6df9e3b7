"""Fixtures for the history tests: homes, an agent subprocess, and state.db builders."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
for _path in (_HERE, _HERE.parent / "sessions"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from history_helpers import run_agent  # noqa: E402

from hermes_memory.memory.store import MemoryStore  # noqa: E402


@pytest.fixture
def agent():
    return run_agent


@pytest.fixture
def store(home):
    return MemoryStore(home)
