"""Every action of the main window, declared once, and the menus built from them.

File (Open home…, Open recent, Profiles, Open the demo home, Quit), Edit (Undo, Redo, Find,
Command palette), View (each tab, Ctrl+1…6 in tab order; Theme, Zoom, Side panels) and Help (Keyboard shortcuts,
About). The command palette lists the same actions, and jumps to any skill or entry.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from hermes_memory.memory.entries import FILE_NAMES, preview

from .commands import Command, CommandRegistry
from .graph.homes import RecentHomes
from .graph.twin import SELECTION_MENU, install_commands
from .palette import CommandPalette, PaletteItem
from .theme import MODE_LABELS

if TYPE_CHECKING:
    from .main_window import MainWindow

#: Keys that belong to one widget rather than to the window, for the shortcut list.
LOCAL_SHORTCUTS = [
    ("Memory editor", "Save", "Ctrl+S"),
    ("Memory editor", "New entry", "Ctrl+N"),
    ("Memory editor", "Merge the ticked entries", "Ctrl+M"),
    ("Memory editor", "Remove the ticked or current entry", "Delete"),
    ("Memory editor", "Move the current entry up / down", "Alt+Up / Alt+Down"),
    ("Graph", "Play or pause the timeline", "Space (on the canvas)"),
    ("Graph", "Open the first match of the search", "Enter (in the search box)"),
    ("Graph", "Clear the search", "Esc (in the search box)"),
    ("Palette", "Move through the matches / run one", "Up, Down / Enter"),
]

#: The View menu's entry per tab, in tab order (Ctrl+N shows the N-th tab).
TAB_COMMANDS = {
    "graph": ("&Learning graph", ["Ctrl+1"], "Show the learning graph"),
    "memory": ("&Memory", ["Ctrl+2"], "Show the memory editors"),
    "inbox": ("In&box", ["Ctrl+3"], "Show the writes the agent staged for approval"),
    "changes": ("&Changes", ["Ctrl+4"], "Show what changed since you last looked, and live"),
    "history": ("&History", ["Ctrl+5"], "Show the versions of the stores and skills"),
    "sessions": ("&Sessions", ["Ctrl+6"], "Search the agent's past sessions"),
}

MENUS = [
    ("&File", ["file.open_home", "file.open_remote", "file.recent", "file.profiles", "file.fleet",
               "file.demo", None, "file.export", None, "file.quit"]),
    ("&Edit", ["edit.undo", "edit.redo", None, "edit.find", "edit.palette"]),
    ("&View", [
        *(f"view.{view}" for view in TAB_COMMANDS), None, "view.theme", None,
        "view.zoom_in", "view.zoom_out", "view.zoom_fit", None, "view.side_panels",
    ]),
    ("&Selection", SELECTION_MENU),
    ("&Help", ["help.shortcuts", None, "help.about"]),
]


def install(window: MainWindow) -> CommandRegistry:
    """Declare the window's commands and build its menu bar from them."""
    registry = CommandRegistry(window)
    graph_shown = lambda: window.current_view() == "graph"  # noqa: E731
    add = registry.add

    add(Command("file.open_home", "&Open home…", window.home_switcher.choose_home, ["Ctrl+O"],
                tip="Open another Hermes home (a folder)", keywords=("folder", "switch")))
    add(Command("file.open_remote", "Open r&emote home…", window.home_switcher.choose_remote,
                ["Ctrl+Shift+O"], tip="Open a Hermes home on another machine (ssh://…)",
                keywords=("ssh", "server", "remote")))
    add(Command("file.fleet", "&Fleet…", lambda: open_fleet(window), ["Ctrl+Shift+F"],
                tip="Every known home at a glance: meters, pending writes, last change",
                keywords=("homes", "agents", "servers", "profiles")))
    add(Command("file.recent", "Open &recent", submenu=lambda menu: _fill_recent(window, menu),
                tip="Homes opened before"))
    add(Command("file.profiles", "&Profiles", submenu=lambda menu: _fill_profiles(window, menu),
                tip="The profiles of this home"))
    add(Command("file.demo", "Open the &demo home", window._open_demo_home,
                tip="A private copy of the bundled demo home"))
    _add_exports(window, registry)
    add(Command("file.quit", "&Quit", window.close, ["Ctrl+Q"], role=QAction.MenuRole.QuitRole,
                tip="Close the app (asks about unsaved edits)"))

    add(Command("edit.undo", "&Undo", window.undo, ["Ctrl+Z"], enabled=window.can_undo,
                text=window.undo_text, tip="Undo the last change, in any tab"))
    add(Command("edit.redo", "&Redo", window.redo, ["Ctrl+Shift+Z", "Ctrl+Y"],
                enabled=window.can_redo, text=window.redo_text, tip="Redo what you undid"))
    add(Command("edit.find", "&Find…", lambda: find(window), ["Ctrl+F"],
                tip="Search the graph, or jump to a memory entry"))
    add(Command("edit.palette", "Command &palette…", lambda: open_palette(window), ["Ctrl+K"],
                tip="Run any action by name, or jump to a skill or entry"))

    for view, (name, keys, tip) in TAB_COMMANDS.items():  # (each of main_window.VIEWS)
        # through set_view, the window's one way to switch tabs (it builds a tab on first show)
        add(Command(f"view.{view}", name, lambda v=view: window.set_view(v), keys,
                    checked=lambda v=view: window.current_view() == v, tip=tip,
                    keywords=("tab", "go to", "switch")))
    theme_ids = []
    for mode in ("light", "dark", "system"):
        theme_ids.append(f"view.theme.{mode}")
        add(Command(f"view.theme.{mode}", f"Theme: {MODE_LABELS[mode]}",
                    lambda m=mode: window.set_theme(m), checked=lambda m=mode: window.theme_mode() == m,
                    tip=f"Use the {MODE_LABELS[mode].lower()} theme" if mode != "system"
                    else "Follow the system's light or dark setting"))
    add(Command("view.theme", "&Theme", submenu=lambda menu: _fill_themes(registry, menu, theme_ids),
                in_palette=False))
    add(Command("view.zoom_in", "Zoom &in", lambda: zoom(window, 1 / 1.25), ["Ctrl++", "Ctrl+="],
                enabled=graph_shown, tip="Zoom into the graph"))
    add(Command("view.zoom_out", "Zoom &out", lambda: zoom(window, 1.25), ["Ctrl+-"],
                enabled=graph_shown, tip="Zoom out of the graph"))
    add(Command("view.zoom_fit", "Zoom to &fit", window.graph.view.fit, ["Ctrl+0"],
                enabled=graph_shown, tip="Show the whole graph"))
    add(Command("view.side_panels", "Side &panels",
                lambda: window.set_side_panels(not window.side_panels_shown()), ["Ctrl+\\"],
                checked=window.side_panels_shown,
                tip="Show or fold the graph's filter panel (it folds by itself in a narrow window)"))

    # The selected node of the graph: in the palette by name, and the canvas's context menu.
    node = lambda: selected_node(window)  # noqa: E731
    add(Command("node.open", "Open details", lambda: window.graph.open_node(node()["id"]),
                enabled=lambda: node() is not None, tip="Show the selected node's details"))
    add(Command("node.pin", "Pin skill", lambda: window.graph.set_pinned(node()["id"], True),
                enabled=lambda: _curatable(node()) and not node().get("pinned"),
                tip="Keep the selected skill from being archived"))
    add(Command("node.unpin", "Unpin skill", lambda: window.graph.set_pinned(node()["id"], False),
                enabled=lambda: _curatable(node()) and bool(node().get("pinned"))))
    add(Command("node.edit", "Edit…", lambda: window.graph._edit_when_loaded(node()["id"]),
                enabled=lambda: node() is not None and (_curatable(node()) or node().get("kind") == "memory"),
                tip="Edit the selected skill's SKILL.md or memory entry, checked as you type"))
    add(Command("node.archive", "Archive skill…", lambda: window.graph.archive_skill(node()["id"]),
                enabled=lambda: _curatable(node()) and not node().get("pinned"),
                tip="Move the selected skill to skills/.archive (restorable; Undo)"))
    add(Command("node.delete", "Delete memory…", lambda: window.graph.delete_memory(node()["id"]),
                enabled=lambda: node() is not None and node().get("kind") == "memory",
                tip="Remove the selected memory entry from its file (Undo puts it back)"))
    install_commands(registry, window.graph.twin, graph_shown)
    view = window.graph.view
    view.sig_context.disconnect(window.graph._context_menu)
    view.sig_context.connect(lambda node_id, pos: node_context_menu(window, registry, node_id, pos))

    add(Command("help.shortcuts", "&Keyboard shortcuts", lambda: show_shortcuts(window, registry),
                ["F1"], tip="Every shortcut of the app"))
    add(Command("help.about", "&About Hermes Memory Studio", window.show_about,
                role=QAction.MenuRole.AboutRole))

    registry.build_menubar(window.menuBar(), MENUS)
    window.quit_action = registry.actions["file.quit"]
    window.about_action = registry.actions["help.about"]
    return registry


def open_fleet(window: MainWindow) -> None:
    from .remote.fleet import FleetDialog

    FleetDialog.show_for(window)


# --- submenus --------------------------------------------------------------------------
EXPORTS = [
    ("file.export.png_view", "Graph as &PNG (current view)…", "png", False),
    ("file.export.png_whole", "Graph as PNG (&whole graph)…", "png", True),
    ("file.export.svg_view", "Graph as &SVG (current view)…", "svg", False),
    ("file.export.svg_whole", "Graph as SVG (w&hole graph)…", "svg", True),
    ("file.export.growth", "&Growth animation (GIF)…", "gif", False),
]


def _add_exports(window: MainWindow, registry: CommandRegistry) -> None:
    """File ▸ Export: pictures of the graph and its growth animation (graph/export.py)."""
    from .graph import export

    def ready() -> bool:  # a graph to export, and one export at a time
        job = getattr(window, "export_job", None)
        return window.graph.data is not None and (job is None or job.finished)

    ids = []
    for command_id, name, kind, whole in EXPORTS:
        ids.append(command_id)
        registry.add(Command(command_id, name, lambda k=kind, w=whole: export.ask_and_export(window, k, w),
                             enabled=ready,
                             tip=f"Export {name.replace('&', '').rstrip('…').lower()}", keywords=("export", "save")))
    registry.add(Command("file.export", "E&xport", submenu=lambda menu: _fill_submenu(registry, menu, ids),
                         in_palette=False))


def _fill_submenu(registry: CommandRegistry, menu: QMenu, ids: list[str]) -> None:
    registry.refresh()
    for command_id in ids:
        menu.addAction(registry.actions[command_id])


def _fill_recent(window: MainWindow, menu: QMenu) -> None:
    recent = RecentHomes(window.settings)
    home = window.home
    items = [i for i in recent.items() if (i.root, i.profile) != (str(home.root), home.profile)]
    for item in items:
        menu.addAction(item.label).triggered.connect(
            lambda _checked=False, it=item: window.open_home(it.home, it.demo)
        )
    if items:
        menu.addSeparator()
        menu.addAction("Clear the list").triggered.connect(recent.clear)
    else:
        menu.addAction("(none yet)").setEnabled(False)


def _fill_profiles(window: MainWindow, menu: QMenu) -> None:
    home = window.home
    group = QActionGroup(menu)
    for profile in [None, *home.list_profiles()]:
        action = menu.addAction("Default profile" if profile is None else f"Profile {profile}")
        action.setCheckable(True)
        action.setChecked(profile == home.profile)
        group.addAction(action)
        if profile != home.profile:
            action.triggered.connect(
                lambda _checked=False, p=profile: window.open_home(home.with_profile(p), False)
            )
    if not home.list_profiles():
        menu.addAction("(no profiles under this home)").setEnabled(False)


def _fill_themes(registry: CommandRegistry, menu: QMenu, ids: list[str]) -> None:
    registry.refresh()
    group = QActionGroup(menu)
    for command_id in ids:
        action = registry.actions[command_id]
        group.addAction(action)
        menu.addAction(action)


# --- the graph's selected node ------------------------------------------------------------
NODE_MENU = ["node.open", None, "node.edit", "node.pin", "node.unpin", "node.archive", "node.delete"]
#: A right-click inside a selection of several nodes: the bulk actions, on the shown ones.
SELECTION_CONTEXT_MENU = ["node.open", None, "selection.pin", "selection.unpin", "selection.archive",
                          "selection.delete"]


def selected_node(window: MainWindow) -> dict | None:
    data, node_id = window.graph.data, window.graph.view.selected_id()
    return data.node(node_id) if data is not None and node_id is not None else None


def _curatable(node: dict | None) -> bool:
    """A skill of the agent's own (bundled and external skills are read-only)."""
    return node is not None and node.get("kind") == "skill" and node.get("source") not in ("base", "external")


def node_context_menu(window: MainWindow, registry: CommandRegistry, node_id: str, pos) -> QMenu:
    """Right-click on a node, as in a file manager: on a node of a selection of several, the
    selection stays and the menu offers what acts on all of it; on any other node, that node
    alone is selected and the menu offers the node commands that apply (from the registry)."""
    twin = window.graph.twin
    twin.context_clicked(node_id)
    node = selected_node(window) or {}
    shown = len(twin.shown_selection())
    if shown > 1 and node_id in twin.selection:
        hidden = twin.hidden_count()
        label = f"{shown:,} selected" + (f" ({hidden:,} more hidden by the filters)" if hidden else "")
        items = SELECTION_CONTEXT_MENU
    else:
        label, items = html.unescape(str(node.get("label", node_id))), NODE_MENU
    items = [c for c in items if c is None or registry.is_enabled(c)]
    menu = registry.context_menu(window, items)
    title = QAction(label, menu)
    title.setEnabled(False)
    menu.insertAction(menu.actions()[0] if menu.actions() else None, title)
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    window.node_menu = menu
    menu.popup(pos)
    return menu


# --- what the commands do ----------------------------------------------------------------
def zoom(window: MainWindow, factor: float) -> None:
    window.graph.view.vb.scaleBy((factor, factor))


def find(window: MainWindow) -> None:
    if window.current_view() == "graph":
        window.graph.focus_search()
    else:
        open_palette(window, entries_only=True)


def palette_items(window: MainWindow, registry: CommandRegistry, *, entries_only: bool = False) -> list[PaletteItem]:
    items: list[PaletteItem] = []
    if not entries_only:
        registry.refresh()
        for command in registry.palette_commands():
            name = (command.text() if command.text else command.name).replace("&", "")
            items.append(PaletteItem(name, registry.shortcut_text(command),
                                     lambda c=command.id: registry.trigger(c),
                                     registry.is_enabled(command.id)))
        data = window.graph.data
        if data is not None:
            for node_id in data.ids:
                node = data.node(node_id) or {}
                if node.get("kind") == "skill":
                    items.append(PaletteItem(f"Skill: {node_id}", "open in the graph",
                                             lambda n=node_id: _jump_to_node(window, n)))
    for target, editor in window.memory.editors.items():
        for number, card in enumerate(editor.document.cards, start=1):
            if card.text.strip():
                items.append(PaletteItem(
                    f"Entry: {preview(card.text, 70)}", f"{FILE_NAMES[target]} #{number}",
                    lambda t=target, uid=card.uid: _jump_to_entry(window, t, uid),
                ))
    return items


def _jump_to_node(window: MainWindow, node_id: str) -> None:
    window.set_view("graph")
    window.graph.open_node(node_id)


def _jump_to_entry(window: MainWindow, target: str, uid: int) -> None:
    editor = window.open_memory(target)
    editor.focus_card(uid)


def open_palette(window: MainWindow, *, entries_only: bool = False) -> CommandPalette:
    palette = CommandPalette(palette_items(window, window.commands, entries_only=entries_only), window)
    if entries_only:
        palette.setWindowTitle("Find a memory entry")
    palette.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    window.palette_dialog = palette
    palette.open()
    palette.query.setFocus()
    return palette


def show_shortcuts(window: MainWindow, registry: CommandRegistry) -> QDialog:
    rows = [
        (menu.replace("&", ""), registry.commands[cid].plain_name,
         registry.shortcut_text(registry.commands[cid]))
        for menu, ids in MENUS for cid in ids
        if cid is not None and registry.commands[cid].shortcuts
    ]
    rows += LOCAL_SHORTCUTS
    dialog = QDialog(window)
    dialog.setWindowTitle("Keyboard shortcuts")
    dialog.resize(620, 520)
    table = QTableWidget(len(rows), 3, dialog)
    table.setHorizontalHeaderLabels(["Where", "Action", "Keys"])
    table.setAccessibleName("Keyboard shortcuts")
    for row, values in enumerate(rows):
        for column, value in enumerate(values):
            table.setItem(row, column, QTableWidgetItem(value))
    table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
    table.verticalHeader().hide()
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(table)
    layout.addWidget(buttons)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    window.shortcuts_dialog = dialog
    dialog.open()
    return dialog
