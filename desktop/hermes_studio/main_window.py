"""The main window: one open Hermes home, a tab per view, a status bar and the menus.

The window owns the home's :class:`Workspace` (engine work off the UI thread, one writer,
folder watching) and closes it when it closes. The "Learning graph" tab holds the graph
explorer and the "Memory" tab the two memory editors; the status bar always shows both
stores' capacity meters, and a home switcher sits in the tab bar's corner. The window never
reads Hermes files itself: that goes through the engine.

Every action is declared once in :mod:`.menus` (menus, shortcuts, the Ctrl+K palette);
:class:`~hermes_studio.undo.History` is the one undo stack behind Edit ▸ Undo. What the
window remembers between launches (geometry, splitters, per home the view, graph mode and
filters) goes through :mod:`.settings`.
"""

from __future__ import annotations

import functools
import html
import time
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QGuiApplication, QKeySequence, QResizeEvent, QShortcut
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QSplitter, QTabWidget, QWidget

from hermes_memory.home import HermesHome, HomeError
from hermes_memory.learning.memory_cards import parse_memory_id
from hermes_memory.memory.entries import FILE_NAMES, fingerprint

from . import __version__
from .changes import ChangesPanel
from .changes import wiring as changes_wiring
from .graph import GraphPanel
from .graph import actions as graph_actions
from .graph import sidebar as graph_sidebar
from .graph.homes import HomeSwitcher, RecentHomes
from .graph.layout import CLUSTERS, TIMELINE
from .graph.style import DARK_CANVAS, LIGHT_CANVAS
from .icons import app_icon
from .inbox import InboxPanel
from .memory.meter import StatusMeters
from .settings import Settings, app_settings
from .theme import MODES, Mode, apply_theme, current_mode, theme_for
from .undo import FaceCall, History
from .workspace import Workspace

if TYPE_CHECKING:
    from .memory import MemoryEditors, StoreEditor
    from .sessions import SessionsPanel
    from .versions import PastStores, VersionsPanel

APP_NAME = "Hermes Memory Studio"
VIEWS = ("graph", "memory", "inbox", "changes", "history", "sessions")
#: Tabs made the first time they are shown (or asked for), not at start-up: the graph's
#: first frame does not wait for them. The Inbox and Changes follow the home from the
#: start (the Inbox count, the marks and ghost nodes on the graph, the live feed).
LAZY_TABS = {"memory": "Memory", "history": "History", "sessions": "Sessions"}
DEFAULT_SIZE = (1200, 800)
#: Below this width the graph's filter panel folds away (View ▸ Side panels brings it back).
NARROW_WIDTH = 1180
#: The Inbox's and Changes' first reads, the watch and the other mode's layout start once
#: the graph is drawn, or after this long without one.
FOLLOWERS_AT_LATEST_MS = 30_000
#: The watch and the other mode's layout start this long after the start-up reads, so the
#: first moments with the graph on screen (and a screenshot) have the machine to themselves.
BACKGROUND_AFTER_MS = 400
#: How long Quit waits for a save chosen in its question.
SAVE_ON_QUIT_MS = 10000


class MainWindow(QMainWindow):
    """The studio's window over one Hermes home."""

    def __init__(
        self,
        home: HermesHome,
        *,
        view: str | None = None,
        demo: bool = False,
        settings: Settings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.home = home
        self.demo = demo
        self.settings = settings or app_settings()
        self.side_panels_auto = True  # fold the filter panel when narrow, until the person decides

        suffix = " (demo copy)" if demo else ""
        self.setWindowTitle(f"{APP_NAME} — {home.label}{suffix}")
        self.setWindowIcon(app_icon())
        self.resize(*DEFAULT_SIZE)
        self.setMinimumSize(900, 600)

        # watched once the start-up reads are done (see _start_followers)
        self.workspace = Workspace(home, watch_later=True)
        self.workspace.sig_error.connect(self._show_error)
        self.history = History(self.workspace, self)
        self.history.sig_report.connect(self._history_report)
        self.history.stack.indexChanged.connect(self._on_history_index)

        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Views")
        remembered = self.settings.home_value(home.label, "graph", {})
        first_mode = CLUSTERS if isinstance(remembered, dict) and remembered.get("mode") == "clusters" else TIMELINE
        self.graph = GraphPanel(self.workspace, self, mode=first_mode)
        self.graph.prepare_when_drawn = False  # the other mode's layout waits for the start-up reads
        self.tabs.addTab(self.graph, "Learning graph")
        self.home_switcher = HomeSwitcher(
            home, self.open_home, demo=demo, open_demo=self._open_demo_home, parent=self
        )
        self.home_switcher.setAccessibleName("Home and profile")
        self.tabs.setCornerWidget(self.home_switcher, Qt.Corner.TopRightCorner)
        RecentHomes(self.settings).add(home, demo=demo)
        self._lazy: dict[str, QWidget] = {}  # the lazy tabs made so far
        self.tabs.addTab(QWidget(), LAZY_TABS["memory"])
        # The Inbox's listing and the changes since the last look are read once the graph is
        # drawn (its first frame does not wait on them), or at once if one is shown first.
        self.inbox = InboxPanel(self.workspace, self, start=False)
        self.inbox.install(self.tabs, self.statusBar())  # its tab, badge and status-bar count
        self.changes = ChangesPanel(self.workspace, self.settings, self.history, self, start=False)
        self._followers_started = False
        self.graph.sig_ready.connect(self._start_followers)
        QTimer.singleShot(FOLLOWERS_AT_LATEST_MS, self, self._start_followers)  # (should no graph come)
        self.tabs.addTab(self.changes, "Changes")
        changes_wiring.connect(self)  # marks, pulses and ghost nodes on the graph
        self.tabs.addTab(QWidget(), LAZY_TABS["history"])
        self.tabs.addTab(QWidget(), LAZY_TABS["sessions"])
        self._wire_versions()
        self._wire_sessions()
        self.setCentralWidget(self.tabs)

        self.home_label = QLabel(f"Home: {home.path}{suffix}")
        self.home_label.setTextFormat(Qt.TextFormat.PlainText)
        self.home_label.setToolTip(str(home.path))
        self.home_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.statusBar().addWidget(self.home_label, 1)
        if self.workspace.remote:
            from .remote.status import ConnectionStatus

            self.connection_status = ConnectionStatus(self.workspace, self)
            self.statusBar().addPermanentWidget(self.connection_status)
        self.meters = StatusMeters(self.workspace, self)
        self.meters.sig_open.connect(self.open_memory)
        self.statusBar().addPermanentWidget(self.meters)

        self._wire_history()
        from .menus import install  # the menus call back into this window

        self.commands = install(self)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.apply_canvas_theme()
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)
        self._restore_settings(view)
        self.workspace.refresh_all()

    # --- views ------------------------------------------------------------------------
    def set_view(self, view: str) -> None:
        """Make ``view`` (one of :data:`VIEWS`) the current tab."""
        if view not in VIEWS:
            raise ValueError(f"Unknown view {view!r}; use one of {', '.join(VIEWS)}.")
        if view in LAZY_TABS:
            self.tab(view)
        elif view in ("inbox", "changes"):
            self._start_followers()
        self.tabs.setCurrentIndex(VIEWS.index(view))

    def _start_followers(self) -> None:
        """The first reads of the Inbox and Changes tabs (once), after the capture of what
        the agent wrote while the home was closed (queued first, so they see it)."""
        if self._followers_started:
            return
        self._followers_started = True
        self.workspace.capture_history(at_open=True)
        self.inbox.refresh()
        self.changes.load_since()
        self.workspace.after_queued_work(self._start_background_soon)

    def _start_background_soon(self) -> None:
        if shiboken6.isValid(self):  # (the answer can come after the window is gone)
            QTimer.singleShot(BACKGROUND_AFTER_MS, self, self._start_background)

    def _start_background(self) -> None:
        """Once the start-up reads are done (nothing on screen waits for these): watch the
        home (what changed since it opened is reported then) and lay out the other mode."""
        if not shiboken6.isValid(self):
            return
        self.workspace.start_watching()
        self.graph.prepare_when_drawn = True
        if self.graph.ready:
            self.graph.prepare_other_mode()

    # --- the tabs made on first show ------------------------------------------------------
    @property
    def memory(self) -> MemoryEditors:
        return self.tab("memory")  # type: ignore[return-value]

    @property
    def versions(self) -> VersionsPanel:
        return self.tab("history")  # type: ignore[return-value]

    @property
    def sessions(self) -> SessionsPanel:
        return self.tab("sessions")  # type: ignore[return-value]

    @property
    def past(self) -> PastStores:
        self.tab("memory")
        return self._past

    def made(self, view: str) -> QWidget | None:
        """The panel of a lazy tab if it has been made, without making it."""
        return self._lazy.get(view)

    def tab(self, view: str) -> QWidget:
        """The panel of ``view``'s tab, made now if this is the first time it is needed."""
        panel = self._lazy.get(view)
        if panel is not None or view not in LAZY_TABS:
            return panel if panel is not None else self.tabs.widget(VIEWS.index(view))
        make = {"memory": self._make_memory, "history": self._make_versions, "sessions": self._make_sessions}
        panel = self._lazy[view] = make[view]()
        index, current = VIEWS.index(view), self.tabs.currentIndex()
        placeholder = self.tabs.widget(index)
        blocked = self.tabs.blockSignals(True)  # the same tab stays current: nothing to report
        self.tabs.removeTab(index)
        self.tabs.insertTab(index, panel, LAZY_TABS[view])
        self.tabs.setCurrentIndex(current)
        self.tabs.blockSignals(blocked)
        placeholder.deleteLater()
        self._remember_splitters()
        if self.isVisible() and self._pending_splitters:
            QTimer.singleShot(0, self, self._restore_splitters)
        return panel

    def _make_memory(self) -> MemoryEditors:
        from .memory import MemoryEditors
        from .memory.card import HISTORY_REQUESTS
        from .versions.past import PastStores

        memory = MemoryEditors(self.workspace, self)
        memory.tabs.currentChanged.connect(self._on_tab_changed)
        HISTORY_REQUESTS.sig_entry.connect(self._card_history)
        self._past = PastStores(self.workspace, self.history, memory)
        self._past.attach(memory.tabs, memory)
        self._past.sig_back_to_now.connect(lambda: self.graph.scrubber.scrub(1.0))
        replay = self.graph.replay
        if replay.state is not None:  # the playhead is in the past already
            self._past.show_state(replay.when, replay.state)
        self._wire_editors(memory)
        for editor in memory.editors.values():
            editor.restyle()  # the canvas theme of the moment
        return memory

    def _make_versions(self) -> VersionsPanel:
        from .versions import VersionsPanel

        return VersionsPanel(self.workspace, self.history, self)

    def _make_sessions(self) -> SessionsPanel:
        from .sessions import SessionsPanel

        sessions = SessionsPanel(self.workspace, self)
        sessions.sig_open_node.connect(lambda node_id: (self.set_view("graph"), self.graph.open_node(node_id)))
        sessions.sig_open_entry.connect(self.open_entry)
        sessions.sig_reverted.connect(self._record_revert)
        return sessions

    def current_view(self) -> str:
        return VIEWS[self.tabs.currentIndex()]

    def open_memory(self, target: str) -> StoreEditor:
        """Show the editor of ``target`` (``memory`` or ``user``)."""
        self.set_view("memory")
        return self.memory.show_store(target)

    def current_editor(self) -> StoreEditor | None:
        if self.current_view() != "memory" or self.made("memory") is None:
            return None
        target = self.memory.current_target()
        return self.memory.editors[target] if target is not None else None

    def _show_error(self, message: str) -> None:
        self.statusBar().showMessage(message, 15000)

    # --- history: the tab, "History" on cards and nodes, the memory at the playhead ----
    def _wire_versions(self) -> None:
        self.graph.details.sig_history.connect(self.show_node_history)  # (cards: _make_memory)
        self.graph.replay.sig_state.connect(self._replayed)

    def _replayed(self, when: float | None, state: dict | None) -> None:
        if self.made("memory") is not None:  # else shown when the Memory tab is made
            self._past.show_state(when, state)

    def show_node_history(self, node_id: str) -> None:
        node = self.graph.data.node(node_id) if self.graph.data else None
        self.versions.show_node(node_id, str((node or {}).get("label") or ""))
        self.set_view("history")

    def _card_history(self, card, text: str) -> None:
        memory = self.made("memory")
        if not shiboken6.isValid(self) or memory is None or not memory.isAncestorOf(card):
            return  # a card of another window
        from hermes_memory.memory.entries import fingerprint

        target = next(t for t, editor in memory.editors.items() if editor.isAncestorOf(card))
        self.versions.show_entry(target, fingerprint(text), text)
        self.set_view("history")

    # --- the theme ----------------------------------------------------------------------
    def set_theme(self, mode: Mode) -> None:
        """Light, dark or follow the system: the whole app, the graph canvas included."""
        from PySide6.QtWidgets import QApplication

        if mode not in MODES:
            raise ValueError(f"Unknown theme {mode!r}; use one of {', '.join(MODES)}.")
        apply_theme(QApplication.instance(), mode)
        self.settings.set_theme(mode)
        for window in QApplication.topLevelWidgets():
            if isinstance(window, MainWindow):
                window.apply_canvas_theme()

    def apply_canvas_theme(self) -> None:
        style = DARK_CANVAS if theme_for(current_mode()).dark else LIGHT_CANVAS
        self.graph.view.set_canvas_style(style)
        self.graph.scrubber.style_ = style
        self.graph.scrubber.update()
        memory = self.made("memory")
        for editor in memory.editors.values() if memory is not None else ():
            editor.restyle()
        self.commands.refresh()

    def _on_system_scheme(self, _scheme) -> None:
        """Following the system: the platform switched between light and dark."""
        from PySide6.QtWidgets import QApplication

        if current_mode() == "system":
            apply_theme(QApplication.instance(), "system")
            self.apply_canvas_theme()

    def theme_mode(self) -> Mode:
        return current_mode()

    # --- narrow windows -----------------------------------------------------------------
    def set_side_panels(self, shown: bool, *, auto: bool = False) -> None:
        """Show or fold the graph's filter panel (it folds by itself below NARROW_WIDTH)."""
        if not auto:
            self.side_panels_auto = False
        self.graph.sidebar.setVisible(shown)

    def side_panels_shown(self) -> bool:
        return not self.graph.sidebar.isHidden()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.side_panels_auto:
            self.set_side_panels(event.size().width() >= NARROW_WIDTH, auto=True)

    # --- undo: one history for the whole window ----------------------------------------
    def _wire_history(self) -> None:
        """Record every graph action and every save with the engine steps that revert it."""
        self.graph.sig_action_done.connect(self._record_graph_action)
        message = self.graph.message
        message.sig_undo.disconnect(self.graph.undo)  # its Undo button is Edit ▸ Undo too
        message.sig_undo.connect(lambda _step: self.undo())
        find = QKeySequence(QKeySequence.StandardKey.Find)
        for shortcut in self.graph.findChildren(QShortcut):
            if shortcut.key() == find:
                shortcut.setEnabled(False)  # Edit ▸ Find carries it, in every tab
        self._last_undo_source: list[str] = []

    def _wire_sessions(self) -> None:
        """Sessions links open the graph and the editors (see :meth:`_make_sessions`); "Where
        this came from" in a node's details or on a memory card opens the Sessions tab."""
        self.graph.details.sig_origin.connect(self.show_origin_of_node)

    def _wire_editors(self, memory: MemoryEditors) -> None:
        """A new Memory tab: its saves and merges join the undo history, "Where this came
        from" on a card opens the Sessions tab."""
        memory.consolidate.sig_applied.connect(self._record_consolidation)
        for editor in memory.editors.values():
            editor.sig_saved.connect(functools.partial(self._record_save, editor))
            # Edit ▸ Undo/Redo carry these keys; the editors' own buttons stay.
            editor.undo_action.setShortcuts([])
            editor.redo_action.setShortcuts([])
            editor.sig_origin.connect(
                lambda text, t=editor.target: self.show_origin(target=t, fingerprint=fingerprint(text)))

    def open_entry(self, target: str, text: str) -> None:
        """Show ``target``'s editor at the entry reading ``text`` (if it is still there)."""
        editor = self.open_memory(target)
        card = next((c for c in editor.document.cards if c.text.strip() == text.strip()), None)
        if card is not None:
            editor.focus_card(card.uid)

    def show_origin(self, **what: str) -> None:
        self.set_view("sessions")
        self.sessions.show_origins(**what)

    def show_origin_of_node(self, node_id: str) -> None:
        if node_id.startswith("memory:"):
            card = parse_memory_id(node_id)
            node = self.graph.details.node or {}
            self.show_origin(target=card.target, fingerprint=card.fingerprint or str(node.get("fingerprint")))
        else:
            self.show_origin(skill=node_id)

    def _record_revert(self, result: dict) -> None:
        change = result.get("change")
        if not result.get("ok") or not change or not (change.get("memory") or change.get("skills")):
            return
        self.history.record(
            f"revert what session {change['session']} taught",
            "memory",
            ("sessions_apply_change", {"change": change, "direction": "undo"}),
            ("sessions_apply_change", {"change": change, "direction": "redo"}),
        )

    def _record_graph_action(self, result: dict) -> None:
        undo, redo = result.get("undo"), result.get("redo")
        if result.get("ok") and isinstance(undo, FaceCall) and isinstance(redo, FaceCall):
            self.history.record_calls(str(result.get("message") or redo.label), undo, redo)
            return
        if not result.get("ok") or not isinstance(undo, graph_actions.Undo) or redo is None:
            return
        label = str(result.get("message") or redo.label).split(" — ")[0]
        self.history.record(
            label,
            undo.target or "skills",
            ("graph_undo", {"step": undo.step()}),
            ("graph_undo", {"step": redo.step()}),
        )

    def _record_save(self, editor: StoreEditor, result: dict) -> None:
        before, after = result.get("before"), result.get("after")
        if before is None or after is None or list(before) == list(after):
            return
        target = editor.target
        self.history.record(
            f"save {FILE_NAMES[target]}",
            target,
            ("set_entries", {"target": target, "expected": list(after), "entries": list(before)}),
            ("set_entries", {"target": target, "expected": list(before), "entries": list(after)}),
        )

    def _record_consolidation(self, result: dict) -> None:
        """A merge from the Consolidate view: one step, undone in every store it touched."""
        changes = result.get("changes") or []
        if not changes:
            return
        self.history.record(
            str(result.get("label") or "merge entries"),
            changes[0]["target"],
            ("consolidate_revert", {"changes": changes, "reverse": True}),
            ("consolidate_revert", {"changes": changes, "reverse": False}),
        )

    def _draft_first(self, editor: StoreEditor | None, redo: bool) -> bool:
        """Whether Undo (or Redo) acts on the editor's draft rather than the history: the
        more recent of the two goes first, so Ctrl+Z walks back through time."""
        if editor is None:
            return False
        history = self.history.stack
        if redo:
            if not editor.redo_action.isEnabled():
                return False
            return not history.canRedo() or self._last_undo_source[-1:] == ["draft"]
        if not editor.undo_action.isEnabled():
            return False
        if not history.canUndo():
            return True
        draft = editor.document.undo_stack
        draft_stamp = getattr(draft.command(draft.index() - 1), "stamp", 0.0)
        history_stamp = getattr(history.command(history.index() - 1), "stamp", 0.0)
        return draft_stamp >= history_stamp

    def can_undo(self) -> bool:
        editor = self.current_editor()
        if editor is not None and editor.undo_action.isEnabled():
            return True
        return self.history.stack.canUndo() and not self.history.running

    def can_redo(self) -> bool:
        editor = self.current_editor()
        if editor is not None and editor.redo_action.isEnabled():
            return True
        return self.history.stack.canRedo() and not self.history.running

    def undo_text(self) -> str:
        editor = self.current_editor()
        if self._draft_first(editor, redo=False):
            return f"&Undo {editor.document.undo_stack.undoText().lower()}"
        text = self.history.stack.undoText()
        return f"&Undo {text}" if text and self.history.stack.canUndo() else "&Undo"

    def redo_text(self) -> str:
        editor = self.current_editor()
        if self._draft_first(editor, redo=True):
            return f"&Redo {editor.document.undo_stack.redoText().lower()}"
        text = self.history.stack.redoText()
        return f"&Redo {text}" if text and self.history.stack.canRedo() else "&Redo"

    def undo(self) -> None:
        editor = self.current_editor()
        if self._draft_first(editor, redo=False):
            editor.document.undo_stack.undo()
            self._last_undo_source.append("draft")
        elif self.history.stack.canUndo() and not self.history.running:
            self.history.stack.undo()
            self._last_undo_source.append("history")
        self.commands.refresh()

    def redo(self) -> None:
        editor = self.current_editor()
        if self._draft_first(editor, redo=True):
            editor.document.undo_stack.redo()
        elif self.history.stack.canRedo() and not self.history.running:
            self.history.stack.redo()
        if self._last_undo_source:
            self._last_undo_source.pop()
        self.commands.refresh()

    def _on_tab_changed(self, index: int) -> None:
        view = VIEWS[index] if self.sender() is self.tabs and 0 <= index < len(VIEWS) else None
        if view in LAZY_TABS:
            self.tab(view)  # shown for the first time: made now
        elif view in ("inbox", "changes"):
            self._start_followers()
        self.commands.refresh()
        if self._pending_splitters:
            QTimer.singleShot(0, self, self._restore_splitters)

    def _on_history_index(self, _index: int) -> None:
        if shiboken6.isValid(self.history.stack):  # (it also signals while being destroyed)
            self.commands.refresh()

    def _history_report(self, message: str, ok: bool) -> None:
        self.statusBar().showMessage(message, 10000)
        self.graph.message.show_message(message, error=not ok)
        self.commands.refresh()

    # --- remembering ----------------------------------------------------------------------
    def splitters(self) -> dict[str, QSplitter]:
        """The splitters whose sizes are remembered, of the tabs made so far."""
        found = {"graph": self.graph.splitter}
        memory = self.made("memory")
        for target, editor in memory.editors.items() if memory is not None else ():
            found[f"editor-{target}"] = editor.splitter
        return found

    def _remember_splitters(self) -> None:
        """Queue the remembered sizes of splitters not sized yet (a tab made just now)."""
        pending = getattr(self, "_pending_splitters", {})
        seen = getattr(self, "_sized_splitters", set())
        for name, splitter in self.splitters().items():
            if name in seen:
                continue
            seen.add(name)
            sizes = self.settings.splitter(name)
            if sizes is not None and len(sizes) == splitter.count():
                pending[name] = sizes
        self._pending_splitters, self._sized_splitters = pending, seen

    def _restore_settings(self, view: str | None) -> None:
        settings, label = self.settings, self.home.label
        geometry = settings.geometry()
        if geometry is not None:
            x, y, width, height, maximized = geometry
            self.resize(max(width, self.minimumWidth()), max(height, self.minimumHeight()))
            screen = self.screen().availableGeometry() if self.screen() else None
            if screen is not None and screen.contains(x + 40, y + 20):  # still on a screen
                self.move(x, y)
            if maximized:
                self.setWindowState(Qt.WindowState.WindowMaximized)
        self._remember_splitters()
        remembered = settings.home_value(label, "view")
        self.set_view(view or (remembered if remembered in VIEWS else VIEWS[0]))
        graph = settings.home_value(label, "graph", {})
        if isinstance(graph, dict):
            self._restore_graph(graph)

    def _restore_graph(self, graph: dict) -> None:
        panel = self.graph
        if graph.get("mode") == "clusters":
            panel.clusters_button.setChecked(True)
        panel.colour_box.setChecked(bool(graph.get("by_kind")))
        for combo, key in ((panel.kind_combo, "kind"), (panel.source_combo, "source")):
            index = graph.get(key)
            if isinstance(index, int) and 0 <= index < combo.count():
                combo.setCurrentIndex(index)
        panel.pinned_box.setChecked(bool(graph.get("pinned_only")))
        panel.twin.set_layout(str(graph.get("layout") or "graph"))
        if isinstance(graph.get("query"), str):
            panel.search.setText(graph["query"])
        graph_sidebar.restore_filters(panel, graph)  # "Has problems", the local graph

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if self._pending_splitters:  # once laid out, so the sizes mean what they meant
            QTimer.singleShot(0, self, self._restore_splitters)

    def _restore_splitters(self) -> None:
        """Apply remembered sizes to the splitters on screen; the others wait for their tab."""
        splitters = self.splitters()
        for name, sizes in list(self._pending_splitters.items()):
            if splitters[name].isVisible():
                splitters[name].setSizes(sizes)
                del self._pending_splitters[name]

    def save_settings(self) -> None:
        settings, label, panel = self.settings, self.home.label, self.graph
        normal = self.normalGeometry() if self.isMaximized() else self.geometry()
        settings.set_geometry(normal.x(), normal.y(), normal.width(), normal.height(), self.isMaximized())
        for name, splitter in self.splitters().items():
            if all(size > 0 for size in splitter.sizes()):
                settings.set_splitter(name, splitter.sizes())
        settings.set_home_value(label, "view", self.current_view())
        self.changes.save_settings()
        settings.set_home_value(label, "graph", {
            "mode": "clusters" if panel.clusters_button.isChecked() else "timeline",
            "by_kind": panel.colour_box.isChecked(),
            "kind": panel.kind_combo.currentIndex(),
            "source": panel.source_combo.currentIndex(),
            "pinned_only": panel.pinned_box.isChecked(),
            "query": panel.search.text(),
            "layout": panel.twin.layout,
            **graph_sidebar.remembered_filters(panel),
        })
        settings.sync()

    # --- closing ----------------------------------------------------------------------
    def ask_unsaved(self, editors: list[StoreEditor]) -> QMessageBox.StandardButton:
        """Save, Discard or Cancel, for closing over unsaved edits."""
        names = " and ".join(editor.title_label.text() for editor in editors)
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Unsaved memory edits")
        box.setText(f"{names} {'has' if len(editors) == 1 else 'have'} unsaved edits.")
        box.setInformativeText("Save them before closing?")
        box.setStandardButtons(
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        return QMessageBox.StandardButton(box.exec())

    def save_all(self, editors: list[StoreEditor]) -> list[StoreEditor]:
        """Save each editor and wait for the writes; the editors still unsaved after."""
        for editor in editors:
            editor.save()
        loop = QEventLoop()
        deadline = time.monotonic() + SAVE_ON_QUIT_MS / 1000
        timer = QTimer()
        timer.setInterval(20)

        def check() -> None:
            if not any(e.busy for e in editors) or time.monotonic() > deadline:
                loop.quit()

        timer.timeout.connect(check)
        timer.start()
        check()
        if any(e.busy for e in editors):
            loop.exec()
        timer.stop()
        return [editor for editor in editors if editor.has_unsaved_work()]

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        memory = self.made("memory")
        unsaved = memory.unsaved() if memory is not None else []
        if unsaved and self.isVisible():
            answer = self.ask_unsaved(unsaved)
            if answer == QMessageBox.StandardButton.Save:
                unsaved = self.save_all(unsaved)
            if answer == QMessageBox.StandardButton.Cancel or (
                unsaved and answer == QMessageBox.StandardButton.Save
            ):
                editor = self.open_memory(unsaved[0].target)
                if answer == QMessageBox.StandardButton.Save:
                    reason = editor.save_block_reason() or "Resolve the conflict shown first."
                    self.statusBar().showMessage(f"Not closed: {reason}", 15000)
                event.ignore()
                return
        self.save_settings()
        self.graph.close_panel()
        sessions = self.made("sessions")
        if sessions is not None:
            sessions.close_panel()
        self.workspace.close()
        super().closeEvent(event)

    def grab(self, *args):  # noqa: D102 - a screenshot waits for the first graph and entries
        self.graph.wait_ready(120_000)  # a big home under load can take a while; never grab "Reading…"
        self._start_followers()  # (started by the drawn graph, unless it never came)
        self.inbox.wait_ready(5000)
        self.changes.wait_ready(5000)
        if self.current_view() == "history":
            self.versions.wait_ready(10000)
        if self.current_view() == "sessions":
            self.sessions.wait_ready(5000)
        memory = self.made("memory")  # (a tab not made yet is not on screen)
        editors = list(memory.editors.values()) if memory is not None else []
        deadline = time.monotonic() + 5
        loop = QEventLoop()
        while time.monotonic() < deadline and not all(
            (editor.disk.loaded or editor.status is not None)
            and (editor.card_list.complete or not editor.isVisible())
            for editor in editors
        ):
            loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        for _ in range(3):  # let the cards lay out around their text
            loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        return super().grab(*args)

    # --- switching homes --------------------------------------------------------------
    def open_home(self, home: HermesHome, demo: bool = False) -> MainWindow | None:
        """Replace this window with one on ``home``; None if this one refused to close."""
        from .app import StartupError, instead_of_the_bundled_demo  # the app imports this module

        try:
            home, demo = instead_of_the_bundled_demo(home, demo)
            home.require()
        except (HomeError, StartupError) as exc:
            QMessageBox.warning(self, "Cannot open that home", str(exc))
            return None
        window = MainWindow(home, view=self.current_view(), demo=demo, settings=self.settings)
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

    # --- help -----------------------------------------------------------------------------
    def about_text(self) -> str:
        return (
            f"<h3>{APP_NAME} {__version__}</h3>"
            "<p>See and steer what a Hermes-style AI agent learns: its memory "
            "entries, its skills and where each came from.</p>"
            f"<p>Open home: <code>{html.escape(str(self.home.path))}</code></p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, f"About {APP_NAME}", self.about_text())
