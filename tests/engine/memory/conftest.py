"""Fixtures for the memory store tests."""

import sys
from pathlib import Path

import pytest

if str(Path(__file__).parent) not in sys.path:  # helpers beside the tests (home_snapshot)
    sys.path.insert(0, str(Path(__file__).parent))

from hermes_memory.memory.store import MemoryStore


@pytest.fixture
def store(home):
    return MemoryStore(home)


@pytest.fixture
def write_store(home):
    """Write raw text to MEMORY.md (``memory``) or USER.md (``user``) of ``home``."""

    def _write(target: str, text: str | bytes) -> None:
        path = home.store_file(target)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_bytes(text.encode("utf-8"))

    return _write
