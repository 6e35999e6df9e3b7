"""A single background thread that runs submitted tasks strictly in FIFO order.

The manager hands provider writes (turn sync, session-boundary hooks) and next-turn
prefetches to one worker, so turn N always reaches a provider before turn N+1 and no
provider ever sees two of its own writes at once. The thread is a daemon: a wedged
provider must never block interpreter exit.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

_STOP = object()


class WorkerClosed(RuntimeError):
    """The worker no longer accepts tasks."""


class SerialWorker:
    def __init__(self, name: str = "mem-sync") -> None:
        self._name = name
        self._tasks: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def started(self) -> bool:
        return self._thread is not None

    def submit(self, fn: Callable[[], Any]) -> Future:
        """Queue ``fn``; the thread starts with the first task."""
        with self._lock:
            if self._closed:
                raise WorkerClosed("the memory worker is shut down")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            future: Future = Future()
            self._tasks.put((future, fn))
            return future

    def close(self) -> None:
        """Refuse new tasks; the thread exits once everything queued so far has run."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._thread is not None:
                self._tasks.put(_STOP)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end; True when it has (or never started)."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def _run(self) -> None:
        while True:
            item = self._tasks.get()
            if item is _STOP:
                return
            future, fn = item
            if not future.set_running_or_notify_cancel():
                continue  # cancelled while queued
            try:
                future.set_result(fn())
            except BaseException as exc:  # reported through the future
                future.set_exception(exc)
