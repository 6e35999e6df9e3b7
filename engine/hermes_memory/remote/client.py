"""A client of ``hermes-memory serve --stdio``: over ssh for a remote home, or a local
subprocess (tests, a sandboxed engine).

``connect()`` starts the process and does the handshake; ``call(method, **params)`` sends
one engine-face call and waits for its answer (calls may come from several threads);
change events arrive on :attr:`EngineClient.events` and, when given, ``on_event`` (called
on the reader thread: hand it to your own loop). A lost connection fails every waiting
call with :class:`ConnectionLost`, in words ssh's failure was, and calls ``on_lost(reason)``
when given (also with no call waiting); ``reconnect()`` starts over.
"""

from __future__ import annotations

import collections
import itertools
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from . import protocol as p
from .ssh import SshTarget, explain_failure, parse_ssh_url, remote_engine_argv, ssh_argv


class RemoteError(Exception):
    """Anything that went wrong talking to a remote engine, worded for a person."""


class ConnectionLost(RemoteError):
    """The serve process ended or its connection broke."""


class RemoteTimeout(RemoteError):
    """No answer in time (the connection may still be alive)."""


class CallError(RemoteError):
    """The engine answered with an error: ``code`` is one of :mod:`.protocol`'s codes."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class EngineClient:
    """One serve process and its handshake. Build with :meth:`over_ssh` or :meth:`local`."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        label: str,
        target: SshTarget | None = None,
        timeout: float = 60.0,
        connect_timeout: float = 30.0,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        env: dict[str, str] | None = None,
        on_lost: Callable[[str], None] | None = None,
    ):
        self.argv = list(argv)
        self.label = label
        self.target = target
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self.on_event = on_event
        self.on_lost = on_lost
        self.env = env
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.hello: dict[str, Any] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, _Waiter] = {}
        self._lock = threading.Lock()  # the waiting calls
        self._write_lock = threading.Lock()  # whole request lines
        self._stderr_reader: threading.Thread | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)
        self._lost: str | None = None

    # --- construction ------------------------------------------------------------
    @classmethod
    def over_ssh(cls, address: str | SshTarget, profile: str | None = None, **options: Any) -> EngineClient:
        """``ssh … hermes-memory --home PATH [--profile NAME] serve --stdio`` on the host of
        ``address`` (``ssh://[user@]host[:port]/path``; :class:`~.ssh.RemoteAddressError` if
        unusable)."""
        target = parse_ssh_url(address) if isinstance(address, str) else address
        arguments = remote_engine_argv(target, _serve_arguments(profile))
        return cls(ssh_argv(target, arguments, keepalive=True), label=target.label,
                   target=target, **options)

    @classmethod
    def local(cls, home: str | Path, profile: str | None = None, python: str = sys.executable,
              **options: Any) -> EngineClient:
        """A serve subprocess on this machine (same protocol, no ssh)."""
        argv = [python, "-m", "hermes_memory.cli", "--home", str(home), *_serve_arguments(profile)]
        return cls(argv, label="this machine", **options)

    # --- connection --------------------------------------------------------------
    @property
    def connected(self) -> bool:
        process = self._process
        return (process is not None and process.poll() is None and self._lost is None
                and self.hello is not None)

    def connect(self) -> dict[str, Any]:
        """Start the process and shake hands; the server's hello (versions, home, methods)."""
        self.close()
        self._lost = None
        self._stderr.clear()
        try:
            self._process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=self.env,
            )
        except OSError as exc:
            raise RemoteError(f"cannot start {self.argv[0]!r}: {exc.strerror or exc}") from None
        process = self._process
        # the stderr reader first: an ssh that fails at once is explained by the answers
        # reader, which must find this reader to wait for ssh's last words
        self._stderr_reader = threading.Thread(target=self._read_stderr, args=(process,),
                                               daemon=True, name="engine-client-stderr")
        self._stderr_reader.start()
        threading.Thread(target=self._read_answers, args=(process,), daemon=True,
                         name="engine-client-reader").start()
        try:
            hello = self.request("hello", {"protocol": p.PROTOCOL_VERSION, "engine": __version__},
                                 self.connect_timeout)
        except CallError as exc:
            self.close()
            if exc.code == p.NOT_A_HOME:
                raise RemoteError(f"not a Hermes home on {self.label}: {exc}") from None
            raise RemoteError(f"{self.label}: {exc}") from None
        except RemoteTimeout:
            self.close()
            raise RemoteTimeout(f"{self.label} did not answer within {self.connect_timeout:g} s") from None
        except RemoteError:
            self.close()
            raise
        problem = p.check_server_hello(hello, self.label)
        if problem:
            self.close()
            raise RemoteError(problem)
        self.hello = hello
        return hello

    def reconnect(self) -> dict[str, Any]:
        return self.connect()

    def close(self) -> None:
        """End the serve process (closing its input ends it; it is killed if it lingers)."""
        process, self._process = self._process, None
        self.hello = None
        if process is None:
            return
        try:
            process.stdin.close()
        except (OSError, AttributeError):
            pass
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        self._fail_waiting(f"the connection to {self.label} was closed")

    def __enter__(self) -> EngineClient:
        if not self.connected:
            self.connect()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # --- calls -------------------------------------------------------------------
    def call(self, method: str, /, **params: Any) -> Any:
        """``method(home, **params)`` on the remote engine, waiting up to :attr:`timeout`."""
        return self.request(method, params, self.timeout)

    def request(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        process = self._process
        if process is None or self._lost:
            raise ConnectionLost(self._lost or f"not connected to {self.label}")
        request_id = next(self._ids)
        waiter = _Waiter()
        with self._lock:
            self._waiting[request_id] = waiter
        line = p.encode({"id": request_id, "method": method, "params": params})
        try:
            with self._write_lock:
                assert process.stdin is not None
                process.stdin.write(line)
                process.stdin.flush()
        except (OSError, ValueError):
            with self._lock:
                self._waiting.pop(request_id, None)
            reason = self._lost or self._why_ended(process)
            if process is self._process:
                self._lost = reason
            raise ConnectionLost(reason) from None
        if not waiter.done.wait(timeout):
            with self._lock:
                self._waiting.pop(request_id, None)
            raise RemoteTimeout(f"{method} on {self.label}: no answer within {timeout:g} s")
        if waiter.lost:
            raise ConnectionLost(waiter.lost)
        message = waiter.message
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            raise CallError(str(error.get("code", "failed")), str(error.get("message", "failed")))
        return message.get("result")

    # --- reader threads ------------------------------------------------------------
    def _read_answers(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                message = p.decode(line)
            except p.ProtocolError:
                continue  # not ours (stdout is protocol-only on our side); keep reading
            if "event" in message:
                self.events.put(message)
                if self.on_event:
                    self.on_event(message)
                continue
            with self._lock:
                waiter = self._waiting.pop(message.get("id"), None)
            if waiter:
                waiter.message = message
                waiter.done.set()
        process.wait()
        reason = self._why_ended(process)
        current = process is self._process
        if current:
            self._lost = reason
        self._fail_waiting(reason)
        if current and self.hello is not None and self.on_lost:  # not a close(), not a failed start
            self.on_lost(reason)

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self._stderr.append(line.decode("utf-8", "replace").rstrip())

    def _why_ended(self, process: subprocess.Popen[bytes]) -> str:
        try:
            code = process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=2)  # ssh's last words come after stdout closes
        text = "\n".join(self._stderr)
        if self.target is not None and code is not None:
            message = explain_failure(self.target, code, text)
            if message:
                return message
        last = self._stderr[-1] if self._stderr else "no message"
        return f"lost the connection to {self.label} (exit {code}): {last}"

    def _fail_waiting(self, reason: str) -> None:
        with self._lock:
            waiting, self._waiting = self._waiting, {}
        for waiter in waiting.values():
            waiter.lost = reason
            waiter.done.set()


class _Waiter:
    __slots__ = ("done", "message", "lost")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.message: dict[str, Any] = {}
        self.lost: str | None = None


def _serve_arguments(profile: str | None) -> list[str]:
    return (["--profile", profile] if profile else []) + ["serve", "--stdio"]
