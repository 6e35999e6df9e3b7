"""The connection state of a remote home, in the status bar: connecting, connected, lost.

While the connection is lost the app keeps what it showed and the home is read-only (every
change is refused before anything is sent); the Workspace reconnects by itself, and
"Reconnect now" does not wait for its next try.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from ..workspace import Workspace

TEXTS = {
    "connecting": "⟳ Connecting to {host}…",
    "connected": "● Connected to {host}",
    "lost": "⚠ Connection to {host} lost — read-only, reconnecting",
}


class ConnectionStatus(QWidget):
    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("connectionStatus")
        self.workspace = workspace
        self.host = getattr(workspace.home, "host", str(workspace.home.path))
        self.label = QLabel(self)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.reconnect_button = QToolButton(self)
        self.reconnect_button.setText("Reconnect now")
        self.reconnect_button.setAutoRaise(True)
        self.reconnect_button.clicked.connect(workspace.reconnect)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 6, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.reconnect_button)
        workspace.sig_connection.connect(self.show_state)
        self.show_state(workspace.connection, workspace.connection_message)

    @property
    def state(self) -> str:
        return self.workspace.connection

    def show_state(self, state: str, message: str) -> None:
        self.label.setText(TEXTS.get(state, "{host}").format(host=self.host))
        self.label.setProperty("state", state)
        self.setToolTip(message or state)
        self.label.setToolTip(message or state)
        self.reconnect_button.setVisible(state == "lost")
