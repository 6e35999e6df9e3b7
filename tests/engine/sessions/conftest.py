"""Fixtures for the session-history tests: generated state.db files and the LLM server."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
for _path in (_HERE, _HERE.parents[1]):  # this folder (helpers) and tests/ (llm_server)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from sessions_helpers import Corpus  # noqa: E402

from hermes_memory.sessions import create_early_db, create_modern_db  # noqa: E402
from llm_server import llm_server  # noqa: E402,F401  (the fixture, re-exported here)


@pytest.fixture(autouse=True)
def _utc():
    """Dates in tool output use local time; pin it so tests can assert exact strings."""
    previous = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if previous is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = previous
    time.tzset()


@pytest.fixture
def early_corpus(tmp_path):
    """A Corpus over a fresh early-schema database (close() before reading)."""
    corpus = Corpus(create_early_db(tmp_path / "state.db"))
    yield corpus
    corpus.writer.close()


@pytest.fixture
def modern_corpus(tmp_path):
    corpus = Corpus(create_modern_db(tmp_path / "state.db"))
    yield corpus
    corpus.writer.close()
