"""Engine calls packaged for the Workspace's threads: zero-argument callables answering
with the engine's plain payload dict."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

Work = Callable[[], dict]


def reported(work: Work, *, refused: dict[str, Any], nothing_done: str, log: logging.Logger) -> Work:
    """``work``, with an engine bug turned into a refusal payload (``refused`` plus an error
    saying ``nothing_done``), so the view waiting on it leaves its busy state whatever happens."""

    def run() -> dict:
        try:
            return work()
        except Exception as exc:
            log.exception("engine call failed")
            return {**refused, "error": f"Unexpected error, {nothing_done}: {exc}"}

    return run
