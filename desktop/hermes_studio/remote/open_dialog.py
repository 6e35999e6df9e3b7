"""Open remote home…: an ``ssh://[user@]host[:port]/path`` address, typed or picked from
the remote homes opened before and the hosts of ``~/.ssh/config``.

The address is checked as the engine checks it before anything runs: an address that
could smuggle an ssh option (``-oProxyCommand=…``), a password, spaces or quotes in the
host is refused with a message, and the dialog stays open to correct it.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.remote.ssh import RemoteAddressError

from .home import RemoteHome, ssh_config_hosts

HELP = (
    "Type an address like ssh://me@server.example/home/me/.hermes, or a host from "
    "~/.ssh/config (ssh://myserver/ opens the engine's default home there). Your ssh keys, "
    "agent and ~/.ssh/config are used; no password is asked for or kept. The host needs "
    "the engine installed (pip install hermes-memory-studio)."
)


class RemoteHomeDialog(QDialog):
    def __init__(self, suggestions: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open a remote Hermes home")
        self.home: RemoteHome | None = None
        self.address = QComboBox(self)
        self.address.setEditable(True)
        self.address.setMinimumWidth(460)
        self.address.addItems(suggestions)
        self.address.setCurrentText(suggestions[0] if suggestions else "ssh://")
        self.address.lineEdit().setPlaceholderText("ssh://[user@]host[:port]/path")
        self.problem = QLabel(self)
        self.problem.setObjectName("addressProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        explanation = QLabel(HELP, self)
        explanation.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (QLabel("Address:", self), self.address, self.problem, explanation, buttons):
            layout.addWidget(widget)

    def accept(self) -> None:  # the address is checked before the dialog closes
        try:
            self.home = RemoteHome.parse(self.address.currentText())
        except RemoteAddressError as exc:
            self.home = None
            self.problem.setText(str(exc))
            self.problem.show()
            return
        super().accept()


def suggested_addresses(recent_roots: list[str]) -> list[str]:
    """Remote homes opened before, then ``ssh://HOST/`` for each ~/.ssh/config host."""
    found = [root for root in recent_roots if root.lower().startswith("ssh://")]
    for host in ssh_config_hosts():
        address = f"ssh://{host}/"
        if address not in found:
            found.append(address)
    return found
