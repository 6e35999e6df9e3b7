"""The window shown when the home asked for cannot be opened: what is wrong and what to do.

A missing folder, a file instead of a folder, an unknown profile, or a folder that holds
nothing a Hermes agent keeps: the window says which, and offers "Open home…", "Open the
demo home", "Open remote home…" (an ``ssh://`` address) and (for a folder that merely
looks unfamiliar) "Open it anyway". Choosing one
opens the main window on that home and closes this one.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.home import HermesHome, HomeError

from .commands import Command, CommandRegistry
from .icons import app_icon

APP_NAME = "Hermes Memory Studio"


class HomeErrorWindow(QMainWindow):
    """An error page over a home that cannot be opened."""

    def __init__(
        self,
        home: HermesHome,
        problem: str,
        open_window: Callable[[HermesHome, bool], QWidget | None],
        open_demo: Callable[[], HermesHome],
        *,
        unfamiliar: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.home = home
        self.problem = problem
        self._open_window = open_window
        self._open_demo = open_demo
        self.opened: QWidget | None = None
        self.setWindowTitle(f"{APP_NAME} — cannot open {home.label}")
        self.setWindowIcon(app_icon())
        self.resize(900, 600)

        heading = QLabel("<h2>This home cannot be opened</h2>", self)
        self.message = QLabel(html.escape(problem), self)
        self.message.setObjectName("homeProblem")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        todo = (
            "Choose the folder the agent uses (by default ~/.hermes, or $HERMES_HOME), or "
            "explore the demo home to see what the app shows."
        )
        if unfamiliar:
            todo = (
                "If this really is the agent's home (perhaps it has not written anything yet), "
                "open it anyway: nothing is written there until you save a memory entry. "
            ) + todo
        self.todo = QLabel(f"<b>What to do:</b> {html.escape(todo)}", self)
        self.todo.setWordWrap(True)
        self.open_button = QPushButton("Open home…", self)
        self.open_button.setDefault(True)
        self.open_button.clicked.connect(self.choose_home)
        self.remote_button = QPushButton("Open remote home…", self)
        self.remote_button.clicked.connect(self.choose_remote)
        self.demo_button = QPushButton("Open the demo home", self)
        self.demo_button.clicked.connect(self.open_demo)
        self.anyway_button = QPushButton("Open it anyway", self)
        self.anyway_button.setVisible(unfamiliar)
        self.anyway_button.clicked.connect(lambda: self.open(self.home, False))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.open_button, self.remote_button, self.demo_button, self.anyway_button):
            buttons.addWidget(button)
        buttons.addStretch(1)

        page = QWidget(self)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(60, 40, 60, 40)
        layout.addStretch(1)
        for widget in (heading, self.message, self.todo):
            widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(widget)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addStretch(2)
        self.setCentralWidget(page)

        self.commands = CommandRegistry(self)
        for command in (
            Command("file.open_home", "&Open home…", self.choose_home, ["Ctrl+O"]),
            Command("file.open_remote", "Open r&emote home…", self.choose_remote, ["Ctrl+Shift+O"]),
            Command("file.demo", "Open the &demo home", self.open_demo),
            Command("file.quit", "&Quit", self.close, ["Ctrl+Q"], role=QAction.MenuRole.QuitRole),
        ):
            self.commands.add(command)
        self.commands.build_menubar(
            self.menuBar(), [("&File", ["file.open_home", "file.open_remote", "file.demo", None, "file.quit"])]
        )

    def choose_home(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a Hermes home", str(self.home.root))
        if folder:
            self.open(HermesHome.resolve(folder), False)

    def choose_remote(self) -> None:
        from .graph.homes import RecentHomes
        from .remote.open_dialog import RemoteHomeDialog, suggested_addresses

        dialog = RemoteHomeDialog(suggested_addresses([i.root for i in RecentHomes().items()]), self)
        if dialog.exec() == RemoteHomeDialog.DialogCode.Accepted and dialog.home is not None:
            self.open(dialog.home, False)

    def open_demo(self) -> None:
        try:
            home = self._open_demo()
        except (HomeError, RuntimeError) as exc:
            QMessageBox.warning(self, "Cannot open the demo home", str(exc))
            return
        self.open(home, True)

    def open(self, home: HermesHome, demo: bool) -> None:
        try:
            home.require()
        except HomeError as exc:
            self.message.setText(html.escape(str(exc)))
            return
        self.opened = self._open_window(home, demo)
        if self.opened is not None:
            self.close()
