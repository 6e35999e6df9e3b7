"""The Memory tab: both editors and the Consolidate view (the status bar's meters are in
:mod:`.meter`)."""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from hermes_memory.memory.edits import check_draft
from hermes_memory.memory.entries import FILE_NAMES, TARGETS

from ..workspace import Workspace
from .consolidate import ConsolidateView
from .editor import TITLES, StoreEditor
from .meter import SHORT_LABELS, CapacityMeter, StatusMeters  # noqa: F401 (where they were)


def warm_checks() -> None:
    """Run one draft check off the UI thread, so that the first check while typing finds
    the scanner's patterns compiled and its character tables built (about 100 ms). Pure
    computation, no disk: it runs on this machine for a remote home too."""
    check_draft("memory", ["Warm-up: the scanner's tables are built here."], 0, (), {})


class MemoryEditors(QWidget):
    """One editor per store, as tabs: "Agent notes" (MEMORY.md), "User profile" (USER.md)."""

    def __init__(self, workspace: Workspace, parent: QWidget | None = None):
        super().__init__(parent)
        self.workspace = workspace
        workspace.read(warm_checks)  # before the stores are read: the checks then run fast
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.editors: dict[str, StoreEditor] = {}
        for target in TARGETS:
            editor = StoreEditor(workspace, target, self)
            editor.sig_dirty_changed.connect(lambda _dirty, t=target: self._update_title(t))
            editor.sig_conflicts_shown.connect(lambda _conflicts, t=target: self._update_title(t))
            self.editors[target] = editor
            self.tabs.addTab(editor, TITLES[target][0])
            self.tabs.setTabToolTip(self.tabs.count() - 1, FILE_NAMES[target])
        self.consolidate = ConsolidateView(workspace, self)
        self.tabs.addTab(self.consolidate, "Consolidate")
        self.tabs.setTabToolTip(
            self.tabs.count() - 1, "Merge near-duplicate and overlapping entries; see stale ones"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

    def show_store(self, target: str) -> StoreEditor:
        editor = self.editors[target]
        self.tabs.setCurrentWidget(editor)
        return editor

    def show_consolidate(self) -> ConsolidateView:
        self.tabs.setCurrentWidget(self.consolidate)
        return self.consolidate

    def current_target(self) -> str | None:
        """The store whose editor is shown (None on the Consolidate view)."""
        return next((t for t, e in self.editors.items() if e is self.tabs.currentWidget()), None)

    def unsaved(self) -> list[StoreEditor]:
        return [editor for editor in self.editors.values() if editor.has_unsaved_work()]

    def _update_title(self, target: str) -> None:
        editor = self.editors[target]
        title = TITLES[target][0] + (" •" if editor.has_unsaved_work() else "")
        self.tabs.setTabText(self.tabs.indexOf(editor), title)
