"""Which home is open: recent homes (QSettings) and the home/profile switcher menu.

A home is a folder on this machine or an ``ssh://`` address (:mod:`..remote`); both join
Recent, and a remote home's profiles are the ones its engine listed when it connected.

The window shows one home at a time; switching opens a new window on the chosen home and
closes the old one (which asks about unsaved edits first), so no view ever has to swap
its home underneath itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QToolButton, QWidget

from hermes_memory.home import HermesHome, HomeError
from hermes_memory.remote.ssh import is_ssh_url

from ..remote.home import RemoteHome, is_remote
from ..settings import Settings, app_settings

RECENT_KEY = "homes/recent"
MAX_RECENT = 8




@dataclass(frozen=True)
class RecentHome:
    root: str
    profile: str | None = None
    demo: bool = False

    @property
    def remote(self) -> bool:
        return is_ssh_url(self.root)

    @property
    def home(self) -> HermesHome | RemoteHome:
        if self.remote:
            return RemoteHome.parse(self.root, self.profile)
        return HermesHome.resolve(self.root, self.profile)

    @property
    def label(self) -> str:
        text = f"{self.root} (profile {self.profile})" if self.profile else self.root
        return text + (" (demo copy)" if self.demo else "")

    def encode(self) -> str:
        return "\t".join([self.root, self.profile or "", "demo" if self.demo else ""])

    @classmethod
    def decode(cls, text: str) -> RecentHome | None:
        parts = str(text).split("\t")
        if not parts or not parts[0]:
            return None
        profile = parts[1] if len(parts) > 1 and parts[1] else None
        return cls(parts[0], profile, len(parts) > 2 and parts[2] == "demo")


class RecentHomes:
    """The most recently opened homes, newest first, kept in QSettings."""

    def __init__(self, settings: QSettings | Settings | None = None) -> None:
        self.settings = settings or app_settings()

    def items(self) -> list[RecentHome]:
        raw = self.settings.value(RECENT_KEY, [])
        if isinstance(raw, str):
            raw = [raw]
        found = [RecentHome.decode(text) for text in raw or []]
        return [item for item in found if item is not None and _usable(item)]

    def add(self, home: HermesHome | RemoteHome, *, demo: bool = False) -> None:
        entry = RecentHome(str(home.root), home.profile, demo)
        items = [entry] + [item for item in self.items() if (item.root, item.profile) != (entry.root, entry.profile)]
        self.settings.setValue(RECENT_KEY, [item.encode() for item in items[:MAX_RECENT]])
        self.settings.sync()

    def clear(self) -> None:
        self.settings.remove(RECENT_KEY)
        self.settings.sync()


class HomeSwitcher(QToolButton):
    """A button naming the open home; its menu opens another home, a profile of this
    one, a recent home or the demo. ``open_home(home, demo)`` does the switching."""

    def __init__(
        self,
        home: HermesHome,
        open_home: Callable[[HermesHome, bool], None],
        *,
        demo: bool = False,
        recent: RecentHomes | None = None,
        open_demo: Callable[[], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.home = home
        self.demo = demo
        self.open_home = open_home
        self.open_demo = open_demo
        self.recent = recent or RecentHomes()
        self.setObjectName("homeSwitcher")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        name = Path(str(home.root)).name or str(home.root)
        if is_remote(home):
            name = f"{home.host}:{Path(home.target.path or '~').name or '/'}"
        text = f"{name} · {home.profile}" if home.profile else name
        self.setText(f"⌂ {text}{' (demo)' if demo else ''}")
        self.setToolTip(f"Open home: {home.label}. Click to switch home or profile.")
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self.fill_menu)
        self.setMenu(self.menu_)

    def fill_menu(self, menu: QMenu | None = None) -> QMenu:
        menu = menu or self.menu_
        menu.clear()
        opened = menu.addAction("Open home…")
        opened.triggered.connect(self.choose_home)
        menu.addAction("Open remote home…").triggered.connect(self.choose_remote)
        if self.open_demo is not None:
            menu.addAction("Open the demo home").triggered.connect(self.open_demo)
        menu.addSeparator()
        profiles = self.home.list_profiles()
        group = QActionGroup(menu)
        default = menu.addAction("Default profile")
        default.setCheckable(True)
        default.setChecked(self.home.profile is None)
        group.addAction(default)
        default.triggered.connect(lambda: self._switch_profile(None))
        for profile in profiles:
            action = menu.addAction(f"Profile {profile}")
            action.setCheckable(True)
            action.setChecked(profile == self.home.profile)
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, p=profile: self._switch_profile(p))
        if not profiles:
            none = menu.addAction("(no profiles under this home)")
            none.setEnabled(False)
        menu.addSeparator()
        recent_menu = menu.addMenu("Recent homes")
        items = [
            item for item in self.recent.items()
            if (item.root, item.profile) != (str(self.home.root), self.home.profile)
        ]
        for item in items:
            action = QAction(item.label, recent_menu)
            action.triggered.connect(lambda _checked=False, it=item: self.open_home(it.home, it.demo))
            recent_menu.addAction(action)
        if items:
            recent_menu.addSeparator()
            recent_menu.addAction("Clear the list").triggered.connect(self.recent.clear)
        else:
            recent_menu.addAction("(none yet)").setEnabled(False)
        return menu

    def _switch_profile(self, profile: str | None) -> None:
        if profile == self.home.profile:
            return
        self.open_home(self.home.with_profile(profile), False)

    def choose_remote(self) -> None:
        """Ask for an ``ssh://`` address (checked before anything runs) and open it."""
        from ..remote.open_dialog import RemoteHomeDialog, suggested_addresses

        dialog = RemoteHomeDialog(suggested_addresses([item.root for item in self.recent.items()]), self)
        if dialog.exec() == RemoteHomeDialog.DialogCode.Accepted and dialog.home is not None:
            self.open_home(dialog.home, False)

    def choose_home(self) -> None:
        start = "" if is_remote(self.home) else str(self.home.root)
        folder = QFileDialog.getExistingDirectory(
            self, "Open a Hermes home", start,
        )
        if not folder:
            return
        home = HermesHome.resolve(folder)
        if home.exists() and not home.has_hermes_files() and not confirm_unfamiliar_folder(self, folder):
            return
        self.open_home(home, False)  # which says so if the folder cannot be opened


def confirm_unfamiliar_folder(parent: QWidget, folder: str) -> bool:
    answer = QMessageBox.question(
        parent,
        "Not a Hermes home?",
        f"{folder} holds none of the files a Hermes agent keeps (memories/, skills/, "
        "config.yaml, state.db).\n\nOpen it anyway? Nothing is written there until you "
        "save a memory entry.",
        QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel,
    )
    return answer == QMessageBox.StandardButton.Open


def _usable(item: RecentHome) -> bool:
    """A remembered address that no longer parses (edited settings) is left out."""
    if not item.remote:
        return True
    try:
        return item.home is not None
    except HomeError:
        return False
