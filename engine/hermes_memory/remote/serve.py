"""``hermes-memory serve --stdio``: one home's engine, spoken to in JSON lines.

Requests are read from standard input and answered in order on standard output; change
events of the home are written in between, each as one whole line. Standard output
carries nothing else: whatever else would print goes to standard error, as do the logs.
A bad line (not JSON, too long, not a request, an unknown method, wrong parameters) gets
an error answer and the server carries on; a call that raises answers ``failed`` with its
message. End of input (the connection closed) ends the server.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO

from .. import __version__
from ..home import HermesHome, HomeError
from . import protocol as p
from .watch import HomeWatcher

log = logging.getLogger(__name__)
TOO_LARGE = object()


def read_lines(stream: BinaryIO, limit: int = p.MAX_LINE_BYTES) -> Iterator[bytes | object]:
    """The lines of ``stream``; a line longer than ``limit`` is skipped without being
    kept in memory, and :data:`TOO_LARGE` stands in its place."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(limit)
            yield TOO_LARGE
            continue
        yield line


class Server:
    """Answers requests for one home. ``out`` is the protocol stream (binary)."""

    def __init__(self, home: HermesHome, out: BinaryIO, poll_interval: float = 0.25):
        self.home = home
        self._out = out
        self._write_lock = threading.Lock()
        self._methods = p.exposed_methods()
        self._poll_interval = poll_interval
        self._watcher: HomeWatcher | None = None
        self.greeted = False
        self.closed = False

    # --- output ------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        data = p.encode(message)
        with self._write_lock:
            if self.closed:
                return
            try:
                self._out.write(data)
                self._out.flush()
            except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
                self.closed = True  # the other side went away: stop quietly

    # --- requests ----------------------------------------------------------------
    def handle_line(self, line: bytes | object) -> dict[str, Any] | None:
        """The answer to one input line (``None`` for a blank line)."""
        if line is TOO_LARGE:
            return p.error_response(None, p.ProtocolError(
                p.TOO_LARGE, f"request line longer than {p.MAX_LINE_BYTES:,} bytes; ignored"))
        assert isinstance(line, bytes)
        if not line.strip():
            return None
        request_id = None
        try:
            message = p.decode(line)
            request_id = message.get("id") if isinstance(message.get("id"), str | int) else None
            request_id, method, params = p.request_parts(message)
            return p.response(request_id, self.call(method, params))
        except p.ProtocolError as error:
            return p.error_response(request_id, error)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        if method == "hello":
            return self._hello(params)
        if not self.greeted:
            raise p.ProtocolError(p.HELLO_FIRST, "send hello with your protocol version first")
        if method == "ping":
            return {"pong": True}
        function = self._methods.get(method)
        if function is None:
            raise p.ProtocolError(p.UNKNOWN_METHOD, f"no method {method!r} (hello lists them)")
        bound = p.bind_params(method, function, self.home, params)
        try:
            return function(*bound.args, **bound.kwargs)
        except HomeError as exc:
            raise p.ProtocolError(p.FAILED, str(exc)) from None
        except Exception as exc:  # a failing call must not end the server
            log.exception("%s failed", method)
            raise p.ProtocolError(p.FAILED, f"{method} failed: {type(exc).__name__}: {exc}") from None

    def _hello(self, params: dict[str, Any]) -> dict[str, Any]:
        p.check_client_protocol(params.get("protocol"), params.get("engine"))
        if not self.home.exists():
            raise p.ProtocolError(p.NOT_A_HOME, _not_a_home(self.home))
        self.greeted = True
        self._start_watching()
        return {
            "protocol": p.PROTOCOL_VERSION,
            "engine": __version__,
            "host": socket.gethostname(),
            "home": {
                "path": str(self.home.path),
                "root": str(self.home.root),
                "profile": self.home.profile,
                "hermes_files": self.home.has_hermes_files(),
                "profiles": self.home.list_profiles(),
            },
            "methods": sorted([*p.BUILTIN_METHODS, *self._methods]),
        }

    def _start_watching(self) -> None:
        if self._watcher is None and self._poll_interval > 0:
            self._watcher = HomeWatcher(self.home, self.send, self._poll_interval)
            self._watcher.start()

    # --- the loop ----------------------------------------------------------------
    def run(self, stream: BinaryIO) -> int:
        try:
            for line in read_lines(stream):
                answer = self.handle_line(line)
                if answer is not None:
                    self.send(answer)
                if self.closed:
                    break
        except KeyboardInterrupt:
            return 130
        finally:
            if self._watcher:
                self._watcher.stop()
            self.closed = True
        return 0


def _not_a_home(home: HermesHome) -> str:
    try:
        home.require()
    except HomeError as exc:
        return str(exc)
    return f"{home.path} is not a Hermes home."


def serve_stdio(home: HermesHome, poll_interval: float = 0.25) -> int:
    """Serve on this process's standard input and output. The protocol keeps a private
    copy of stdout; file descriptor 1 itself is pointed at stderr, so nothing printed by
    any code (ours, a library's, a C extension's) can corrupt the protocol stream."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="hermes-memory serve: %(levelname)s %(name)s: %(message)s")
    sys.stdout.flush()
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with protocol_out:
        return Server(home, protocol_out, poll_interval).run(sys.stdin.buffer)
