"""The store editor's command row: the toolbar's actions (shortcuts, tips), the save state and
the Save button, and when each command is enabled.

The actions belong to the editor (their parent) and call its public methods; the editor
calls :meth:`EditorActions.update` with its state whenever that state changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolBar, QToolButton, QWidget

if TYPE_CHECKING:
    from .editor import StoreEditor

#: Widest the save-state text beside the Save button may be (pixels); longer text elides.
STATE_WIDTH = 380


def make_action(
    parent: QWidget, text: str, tip: str, slot: Callable, shortcuts: list[str] | None = None
) -> QAction:
    """An action whose tip names its shortcuts."""
    action = QAction(text, parent)
    if shortcuts:
        action.setShortcuts([QKeySequence(s) for s in shortcuts])
        keys = ", ".join(QKeySequence(s).toString(QKeySequence.SequenceFormat.NativeText) for s in shortcuts)
        tip = f"{tip} ({keys})"
    action.setToolTip(tip)
    action.setStatusTip(tip)
    action.triggered.connect(slot)
    return action


class EditorActions:
    """The editor's commands on a toolbar, then the save state and the Save button (``row``)."""

    def __init__(self, editor: StoreEditor) -> None:
        self.toolbar = QToolBar(editor)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.new = make_action(
            editor, "New entry", "Add an empty entry after the current one", editor.new_entry,
            ["Ctrl+N"],
        )
        self.merge = make_action(
            editor, "Merge", "Join the ticked entries into one entry to edit",
            editor.merge_selected, ["Ctrl+M"],
        )
        self.remove = make_action(
            editor, "Remove", "Remove the ticked entries, or the current one",
            editor.remove_selected, ["Delete"],
        )
        self.up = make_action(
            editor, "Move up", "Move the current entry up", lambda: editor.move_current(-1),
            ["Alt+Up"],
        )
        self.down = make_action(
            editor, "Move down", "Move the current entry down", lambda: editor.move_current(1),
            ["Alt+Down"],
        )
        self.undo_stack = editor.document.undo_stack
        self.undo = make_action(
            editor, "Undo", "Undo the last change", self.undo_stack.undo, ["Ctrl+Z"]
        )
        self.redo = make_action(
            editor, "Redo", "Redo the change you undid", self.undo_stack.redo,
            ["Ctrl+Shift+Z", "Ctrl+Y"],
        )
        self.revert = make_action(
            editor,
            "Revert to disk",
            "Throw away unsaved edits and show the file as it is on disk (undoable)",
            editor.revert,
        )
        self.normalise = make_action(
            editor,
            "Normalise…",
            "Rewrite the file in canonical form (a backup is kept next to it)",
            editor.normalise,
        )
        self.save = make_action(
            editor, "Save", "Save your edits under the file lock", editor.save, ["Ctrl+S"]
        )
        for action in (
            self.new, self.merge, self.remove, None, self.up, self.down, None, self.undo,
            self.redo, None, self.revert, self.normalise,
        ):
            if action is None:
                self.toolbar.addSeparator()
            else:
                self.toolbar.addAction(action)
        editor.addAction(self.save)  # the shortcut works with focus anywhere inside

        self.status_label = QLabel(editor)
        self.status_label.setObjectName("saveState")
        self.save_button = QToolButton(editor)
        self.save_button.setDefaultAction(self.save)
        self.save_button.setObjectName("saveButton")
        self.row = QHBoxLayout()
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.addWidget(self.toolbar, 1)
        self.row.addWidget(self.status_label)
        self.row.addWidget(self.save_button)

    def update(
        self,
        *,
        editable: bool,
        selected: int,
        position: int | None,
        count: int,
        dirty: bool,
        drift: bool,
        busy: bool,
        on_disk: bool,
        save_block: str | None,
    ) -> None:
        """Enable each command for the editor's state, and say beside Save where it stands.

        ``selected`` counts the ticked cards, ``position`` is the current card's index among
        ``count`` cards, ``drift`` means the file needs normalising, ``on_disk`` that the file
        exists, and ``save_block`` says why Save is off (``None`` when it is on).
        """
        self.new.setEnabled(editable)
        self.merge.setEnabled(editable and selected >= 2)
        self.merge.setToolTip(
            "Join the ticked entries into one entry to edit (Ctrl+M)"
            if selected >= 2
            else "Tick two or more entries to merge them into one (Ctrl+M)"
        )
        self.remove.setEnabled(editable and bool(selected or position is not None))
        self.up.setEnabled(editable and position is not None and position > 0)
        self.down.setEnabled(editable and position is not None and position < count - 1)
        stack = self.undo_stack
        self.undo.setEnabled(editable and stack.canUndo())
        self.redo.setEnabled(editable and stack.canRedo())
        self.undo.setToolTip(
            f"Undo: {stack.undoText().lower()} (Ctrl+Z)" if stack.canUndo() else "Nothing to undo"
        )
        self.redo.setToolTip(
            f"Redo: {stack.redoText().lower()} (Ctrl+Shift+Z)"
            if stack.canRedo()
            else "Nothing to redo"
        )
        self.revert.setEnabled(editable and dirty)
        self.normalise.setVisible(drift)
        self.normalise.setEnabled(drift and not busy)
        self.save.setEnabled(save_block is None)
        self.save.setToolTip(
            "Save your edits under the file lock (Ctrl+S)" if save_block is None else save_block
        )
        self.save_button.setToolTip(self.save.toolTip())
        if busy:
            state = "Saving…"
        elif dirty:
            state = "Unsaved changes" if save_block is None else save_block
        else:
            state = "All changes saved" if on_disk else ""
        self.set_state_text(state)

    def set_state_text(self, text: str) -> None:
        """The save state beside the Save button, elided to fit; the full text is the tip."""
        metrics = self.status_label.fontMetrics()
        self.status_label.setText(
            metrics.elidedText(text, Qt.TextElideMode.ElideRight, STATE_WIDTH)
        )
        self.status_label.setToolTip(text)
