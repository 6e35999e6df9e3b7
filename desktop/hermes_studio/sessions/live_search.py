"""Search as you type, without piling up work: keystrokes are coalesced, one search is in
flight at a time, and an answer is shown only if it is newer than the one on screen.

Each query gets a serial number. While a search runs, further keystrokes only replace the
query waiting to go next; when the answer comes back the latest query is sent. An answer
for an older query is still shown if nothing newer is on screen (so results follow the
typing), and never after a newer one.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ..workspace import Workspace

#: Quiet time after a keystroke before the query goes out (keys typed faster coalesce).
COALESCE_MS = 15
LIMIT = 30


class LiveSearch(QObject):
    sig_answer = Signal(dict)  # the engine's answer, with "serial", "latest" (bool) and "query"
    _sig_crashed = Signal(int, str, str)  # (serial, query, error) from the worker's thread

    def __init__(self, workspace: Workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.serial = 0  # of the newest query asked for
        self.shown = 0  # of the newest answer handed out
        self.in_flight = False
        self.order = "newest"  # or "best" (relevance: ranks every match, slower for common words)
        self._waiting: tuple[int, str] | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(COALESCE_MS)
        self._timer.timeout.connect(self._send)
        self._sig_crashed.connect(lambda serial, query, error: self._answered(
            serial, query, {"ok": False, "state": "error", "error": error}))
        self.closed = False

    def ask(self, query: str, *, now: bool = False) -> int:
        """Search for ``query`` (blank: the recent sessions); its serial number."""
        self.serial += 1
        self._waiting = (self.serial, query)
        if now:
            self._timer.stop()
            self._send()
        else:
            self._timer.start()
        return self.serial

    def close(self) -> None:
        self.closed = True
        self._timer.stop()

    def _send(self) -> None:
        if self.in_flight or self._waiting is None or self.closed:
            return  # the answer in flight sends the waiting query
        serial, query = self._waiting
        self._waiting = None
        self.in_flight = True
        if query.strip():
            method, params = "sessions_search", {"query": query, "limit": LIMIT, "order": self.order}
        else:
            method, params = "sessions_recent", {"limit": LIMIT}
        future = self.workspace.call(method, params, lambda result: self._answered(serial, query, result))
        if future is None:  # the workspace is closing
            self.in_flight = False
            return

        def crashed(done) -> None:  # an engine bug never calls back: free the slot anyway
            if done.exception() is not None:
                self._sig_crashed.emit(serial, query, f"the search failed: {done.exception()}")

        future.add_done_callback(crashed)

    def _answered(self, serial: int, query: str, result: Any) -> None:
        self.in_flight = False
        if self.closed:
            return
        if serial > self.shown:
            self.shown = serial
            answer: dict[str, Any] = dict(result) if isinstance(result, dict) else {
                "ok": False, "state": "error", "error": str(result)}  # fmt: skip
            answer.update(serial=serial, query=query, latest=serial == self.serial)
            self.sig_answer.emit(answer)
        if self._waiting is not None:
            self._send()
