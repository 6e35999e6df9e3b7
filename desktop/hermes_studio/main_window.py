"""The main window: one open Hermes home, a tab per view, a status bar and the menus.

The window owns the home's :class:`Workspace` (engine work off the UI thread, one writer,
folder watching) and closes it when it closes. The "Learning graph" tab holds the graph
explorer and the "Memory" tab the two memory editors; the status bar always shows both
stores' capacity meters, and a home switcher sits in the tab bar's corner. The window never
reads Hermes files itself: that goes through the engine.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QTabWidget, QWidget

from hermes_memory.home import HermesHome, HomeError

from . import __version__
from .graph import GraphPanel
from .graph.homes import HomeSwitcher, RecentHomes
from .inbox import InboxPanel
from .memory import MemoryEditors, StatusMeters
from .memory.editor import StoreEditor
from .workspace import Workspace

APP_NAME = "Hermes Memory Studio"
VIEWS = ("graph", "memory", "inbox")
DEFAULT_SIZE = (1200, 800)


class MainWindow(QMainWindow):
    """The studio's window over one Hermes home."""

    def __init__(
        self,
        home: HermesHome,
        *,
        view: str = "graph",
        demo: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.home = home
        self.demo = demo

        suffix = " (demo copy)" if demo else ""
        self.setWindowTitle(f"{APP_NAME} — {home.label}{suffix}")
        self.resize(*DEFAULT_SIZE)

        self.workspace = Workspace(home)
        self.workspace.sig_error.connect(self._show_error)

        self.tabs = QTabWidget(self)
        self.graph = GraphPanel(self.workspace, self)
        self.tabs.addTab(self.graph, "Learning graph")
        self.home_switcher = HomeSwitcher(
            home, self.open_home, demo=demo, open_demo=self._open_demo_home, parent=self
        )
        self.tabs.setCornerWidget(self.home_switcher, Qt.Corner.TopRightCorner)
        RecentHomes().add(home, demo=demo)
        self.memory = MemoryEditors(self.workspace, self)
        self.tabs.addTab(self.memory, "Memory")
        self.inbox = InboxPanel(self.workspace, self)
        self.inbox.install(self.tabs, self.statusBar())  # its tab, badge and status-bar count
        self.setCentralWidget(self.tabs)
        self.set_view(view)

        self.home_label = QLabel(f"Home: {home.path}{suffix}")
        self.home_label.setTextFormat(Qt.TextFormat.PlainText)
        self.home_label.setToolTip(str(home.path))
        self.home_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.statusBar().addWidget(self.home_label, 1)
        self.meters = StatusMeters(self.workspace, self)
        self.meters.sig_open.connect(self.open_memory)
        self.statusBar().addPermanentWidget(self.meters)

        self._build_menus()
        self.workspace.refresh_all()

    # --- views ------------------------------------------------------------------------
    def set_view(self, view: str) -> None:
        """Make ``view`` (one of :data:`VIEWS`) the current tab."""
        if view not in VIEWS:
            raise ValueError(f"Unknown view {view!r}; use one of {', '.join(VIEWS)}.")
        self.tabs.setCurrentIndex(VIEWS.index(view))

    def current_view(self) -> str:
        return VIEWS[self.tabs.currentIndex()]

    def open_memory(self, target: str) -> StoreEditor:
        """Show the editor of ``target`` (``memory`` or ``user``)."""
        self.set_view("memory")
        return self.memory.show_store(target)

    def _show_error(self, message: str) -> None:
        self.statusBar().showMessage(message, 15000)

    # --- closing ----------------------------------------------------------------------
    def confirm_discard(self, editors: list[StoreEditor]) -> bool:
        """Ask before closing over unsaved edits; True means close anyway."""
        names = " and ".join(editor.title_label.text() for editor in editors)
        answer = QMessageBox.question(
            self,
            "Unsaved memory edits",
            f"{names} {'has' if len(editors) == 1 else 'have'} unsaved edits. Close and "
            "discard them? (Cancel, then Save, to keep them.)",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        unsaved = self.memory.unsaved()
        if unsaved and self.isVisible() and not self.confirm_discard(unsaved):
            self.open_memory(unsaved[0].target)
            event.ignore()
            return
        self.graph.close_panel()
        self.workspace.close()
        super().closeEvent(event)

    def grab(self, *args):  # noqa: D102 - a screenshot waits for the graph's first layout
        self.graph.wait_ready(120_000)  # a big home under load can take a while; never grab "Reading…"
        self.inbox.wait_ready(5000)
        return super().grab(*args)

    # --- switching homes --------------------------------------------------------------
    def open_home(self, home: HermesHome, demo: bool = False) -> MainWindow | None:
        """Replace this window with one on ``home``; None if this one refused to close."""
        try:
            home.require()
        except HomeError as exc:
            QMessageBox.warning(self, "Cannot open that home", str(exc))
            return None
        window = MainWindow(home, view=self.current_view(), demo=demo)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.show()  # before closing this one, so the application does not quit
        if not self.close():
            window.close()
            return None
        return window

    def _open_demo_home(self) -> None:
        from .app import StartupError, demo_home_copy  # the app imports this module

        try:
            self.open_home(HermesHome.resolve(demo_home_copy()), demo=True)
        except StartupError as exc:
            QMessageBox.warning(self, "Cannot open the demo home", str(exc))

    # --- menus ------------------------------------------------------------------------
    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.setStatusTip(f"Close {APP_NAME}")
        # close(), not QApplication.quit(): later views get a closeEvent to ask about edits.
        self.quit_action.triggered.connect(self.close)
        file_menu.addAction(self.quit_action)

        help_menu = self.menuBar().addMenu("&Help")
        self.about_action = QAction(f"&About {APP_NAME}", self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        help_menu.addAction(self.about_action)

    def about_text(self) -> str:
        return (
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>See and steer what a Hermes-style AI agent learns: its memory "
            "entries, its skills and where each came from.</p>"
            f"<p>Open home: <code>{html.escape(str(self.home.path))}</code></p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, f"About {APP_NAME}", self.about_text())
