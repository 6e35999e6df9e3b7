"""The app's actions, each declared once: name, shortcut, when it is enabled, what it runs.

A :class:`Command` is plain data; :class:`CommandRegistry` turns each into one
:class:`QAction` (owned by the window, so its shortcut works anywhere in it) and builds the
menus, toolbars, context menus and the command palette from the same actions. A new action
is one :meth:`CommandRegistry.add` call, and it appears in its menu, in the palette and
under its shortcut. ``enabled`` is asked again whenever a menu opens, the palette lists the
actions, or :meth:`CommandRegistry.refresh` is called; a disabled action never runs, even
from a shortcut.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QToolBar, QWidget


@dataclass(frozen=True)
class Command:
    """One user action."""

    id: str  # "file.open_home"
    name: str  # the menu text (with & for the mnemonic); the palette drops the &
    run: Callable[[], object] | None = None
    shortcuts: Sequence[str] = ()
    enabled: Callable[[], bool] | None = None
    checked: Callable[[], bool] | None = None  # a checkable action's state
    text: Callable[[], str] | None = None  # a menu text that follows the state ("Undo pin")
    tip: str = ""
    submenu: Callable[[QMenu], None] | None = None  # fills a submenu each time it opens
    role: QAction.MenuRole = QAction.MenuRole.NoRole
    in_palette: bool = True
    keywords: Sequence[str] = field(default=())

    @property
    def plain_name(self) -> str:
        return self.name.replace("&&", "\0").replace("&", "").replace("\0", "&")


class CommandRegistry:
    """Every command of a window, as QActions, and the menus built from them."""

    def __init__(self, owner: QWidget) -> None:
        self.owner = owner
        self.commands: dict[str, Command] = {}
        self.actions: dict[str, QAction] = {}

    def add(self, command: Command) -> QAction:
        if command.id in self.commands:
            raise ValueError(f"Command {command.id!r} is declared twice.")
        action = QAction(command.name, self.owner)
        action.setObjectName(command.id)
        action.setMenuRole(command.role)
        if command.shortcuts:
            action.setShortcuts([QKeySequence(key) for key in command.shortcuts])
        tip = command.tip or command.plain_name
        keys = self.shortcut_text(command)
        action.setToolTip(f"{tip} ({keys})" if keys else tip)
        action.setStatusTip(tip)
        if command.checked is not None:
            action.setCheckable(True)
        if command.submenu is not None:
            menu = QMenu(command.plain_name, self.owner)
            menu.aboutToShow.connect(lambda m=menu, c=command: self._fill(m, c))
            action.setMenu(menu)
        elif command.run is not None:
            action.triggered.connect(lambda _checked=False, c=command.id: self.trigger(c))
        self.owner.addAction(action)  # shortcuts work wherever the focus is in the window
        self.commands[command.id] = command
        self.actions[command.id] = action
        self._refresh_one(command.id)
        return action

    @staticmethod
    def _fill(menu: QMenu, command: Command) -> None:
        menu.clear()
        command.submenu(menu)

    # --- running -------------------------------------------------------------------------
    def is_enabled(self, command_id: str) -> bool:
        command = self.commands[command_id]
        return command.enabled is None or bool(command.enabled())

    def trigger(self, command_id: str) -> bool:
        """Run a command if it is enabled now; True if it ran."""
        command = self.commands[command_id]
        if command.run is None or not self.is_enabled(command_id):
            self._refresh_one(command_id)
            return False
        command.run()
        self.refresh()
        return True

    def refresh(self) -> None:
        for command_id in self.commands:
            self._refresh_one(command_id)

    def _refresh_one(self, command_id: str) -> None:
        command, action = self.commands[command_id], self.actions[command_id]
        # A shortcut of a disabled action never fires; enabled ones re-check when run.
        action.setEnabled(self.is_enabled(command_id))
        if command.text is not None:
            action.setText(command.text())
        if command.checked is not None:
            blocked = action.blockSignals(True)
            action.setChecked(bool(command.checked()))
            action.blockSignals(blocked)

    # --- building menus ---------------------------------------------------------------------
    def build_menu(self, menu: QMenu, items: Sequence[str | None]) -> QMenu:
        """Fill ``menu`` with the commands named in ``items`` (``None`` is a separator)."""
        for item in items:
            if item is None:
                menu.addSeparator()
            else:
                menu.addAction(self.actions[item])
        menu.aboutToShow.connect(self.refresh)
        return menu

    def build_menubar(
        self, bar: QMenuBar, layout: Sequence[tuple[str, Sequence[str | None]]]
    ) -> dict[str, QMenu]:
        menus = {}
        for title, items in layout:
            menus[title.replace("&", "")] = self.build_menu(bar.addMenu(title), items)
        return menus

    def build_toolbar(self, toolbar: QToolBar, items: Sequence[str | None]) -> QToolBar:
        for item in items:
            if item is None:
                toolbar.addSeparator()
            else:
                toolbar.addAction(self.actions[item])
        return toolbar

    def context_menu(self, parent: QWidget, items: Sequence[str | None]) -> QMenu:
        self.refresh()
        return self.build_menu(QMenu(parent), items)

    # --- for the palette and the shortcut list ------------------------------------------
    def shortcut_text(self, command: Command) -> str:
        return ", ".join(
            QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)
            for key in command.shortcuts
        )

    def palette_commands(self) -> list[Command]:
        return [
            command
            for command in self.commands.values()
            if command.in_palette and command.run is not None and command.submenu is None
        ]
