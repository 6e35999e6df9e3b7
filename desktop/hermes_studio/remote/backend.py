"""The Workspace's backend for a remote home: engine-face calls sent to
``hermes-memory serve --stdio`` on the home's host over the system's ssh.

Calls come from the Workspace's reader and writer threads. The first call connects; after
a lost connection the Workspace asks :meth:`RemoteBackend.connect` again (reconnecting),
and until then every change is refused before anything is sent: the home is read-only
while it is not connected, and nothing is ever written locally in its place.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from hermes_memory.remote.client import ConnectionLost, EngineClient, RemoteError

from .home import RemoteHome

#: Connection states, as the status bar shows them.
CONNECTING, CONNECTED, LOST = "connecting", "connected", "lost"


class NotConnected(ConnectionLost):
    """A change asked for while the home is not connected: refused, nothing sent."""


class RemoteBackend:
    """``call(method, params)`` on the remote engine; ``on_state(state, message)`` and
    ``on_event(event)`` are called on the client's threads (hand them to the UI thread)."""

    remote = True

    def __init__(
        self,
        home: RemoteHome,
        *,
        on_state: Callable[[str, str], None] | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        client: EngineClient | None = None,
    ) -> None:
        self.home = home
        self.client = client or EngineClient.over_ssh(home.target, home.profile)
        self.client.on_event = on_event
        self.client.on_lost = self._lost
        self._on_state = on_state or (lambda _state, _message: None)
        self._connect_lock = threading.Lock()
        self.state = CONNECTING
        self.message = f"connecting to {self.host}…"
        self.hello: dict[str, Any] | None = None
        self.closed = False

    @property
    def host(self) -> str:
        return self.home.host

    def _set_state(self, state: str, message: str) -> None:
        self.state, self.message = state, message
        if not self.closed:
            self._on_state(state, message)

    def connect(self) -> dict[str, Any]:
        """Connect (or reconnect) unless connected; :class:`RemoteError` in plain words."""
        with self._connect_lock:
            if self.closed:
                raise ConnectionLost(f"the connection to {self.host} was closed")
            if self.client.connected and self.hello is not None:
                return self.hello
            self._set_state(CONNECTING, f"connecting to {self.host}…")
            try:
                hello = self.client.connect()
            except RemoteError as exc:
                self.hello = None
                self._set_state(LOST, str(exc))
                raise
            self.hello = hello
            home = hello.get("home") if isinstance(hello.get("home"), dict) else {}
            self.home.remember_profiles(list(home.get("profiles") or []))
            self._set_state(CONNECTED, f"connected to {self.host} (hermes-memory {hello.get('engine', '?')})")
            return hello

    def _lost(self, reason: str) -> None:  # on the client's reader thread
        self.hello = None
        self._set_state(LOST, reason)

    def call(self, method: str, params: dict[str, Any], *, write: bool = False) -> Any:
        if not self.client.connected:
            if self.state == LOST:  # only the Workspace's reconnect tries again
                raise NotConnected(
                    f"Not connected to {self.host}: the home is read-only until the app "
                    "reconnects. Nothing was sent." if write else
                    f"Not connected to {self.host} ({self.message}); reconnecting."
                )
            self.connect()
        try:
            return self.client.call(method, **params)
        except ConnectionLost as exc:
            self.hello = None
            self._set_state(LOST, str(exc))
            raise

    def graph_builder(self) -> RemoteGraphBuilder:
        return RemoteGraphBuilder(self)

    def close(self) -> None:
        self.closed = True
        self.client.close()


class RemoteGraphBuilder:
    """The graph worker's builder for a remote home: the remote engine builds the payload."""

    def __init__(self, backend: RemoteBackend) -> None:
        self.backend = backend

    def build(self, include_all: bool = False, changed: Any = None) -> dict[str, Any]:
        return self.backend.call("graph_build", {"include_all": include_all})
