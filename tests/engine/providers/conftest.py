"""Fixtures for the provider tests: no test may leave a thread behind."""

from __future__ import annotations

import threading

import pytest

from hermes_memory.providers.plugins.holographic import hrr


@pytest.fixture(autouse=True)
def no_leaked_threads():
    """Every thread a test starts must be finished (joined) when the test ends."""
    start_count = threading.active_count()
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=5)
    assert threading.active_count() == start_count, threading.enumerate()


@pytest.fixture(params=["numpy", "keywords"])
def vector_mode(request):
    """Run a holographic test with HRR vectors and again with the keyword-only fallback."""
    hrr.set_numpy_enabled(request.param == "numpy")
    yield request.param
    hrr.set_numpy_enabled(True)
