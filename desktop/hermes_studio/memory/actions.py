"""The store editor's command row: the toolbar's actions (shortcuts, tips), the save state and
the Save button, and when each command is enabled.

The commands are declared once in the editor's registry (their actions belong to the editor
and call its public methods); the editor calls :meth:`EditorActions.update` with its state
whenever that state changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolBar, QToolButton

from ..commands import Command, CommandRegistry

if TYPE_CHECKING:
    from .editor import StoreEditor

#: Widest the save-state text beside the Save button may be (pixels); longer text elides.
STATE_WIDTH = 380


#: The command row's layout: command ids, ``None`` for a separator.
TOOLBAR = [
    "entry.new", "entry.merge", "entry.remove", None, "entry.up", "entry.down", None,
    "entry.undo", "entry.redo", None, "store.revert", "store.normalise",
]


class EditorActions:
    """The editor's commands on a toolbar, then the save state and the Save button (``row``).

    Each command is declared once in the editor's :class:`CommandRegistry`; the toolbar is
    built from it. Whether a command is enabled is the editor's state, set by :meth:`update`.
    """

    def __init__(self, editor: StoreEditor) -> None:
        self.registry = CommandRegistry(editor)
        self._enabled: dict[str, bool] = {}
        self.undo_stack = editor.document.undo_stack
        commands = [
            ("entry.new", "New entry", "Add an empty entry after the current one",
             editor.new_entry, ["Ctrl+N"]),
            ("entry.merge", "Merge", "Join the ticked entries into one entry to edit",
             editor.merge_selected, ["Ctrl+M"]),
            ("entry.remove", "Remove", "Remove the ticked entries, or the current one",
             editor.remove_selected, ["Delete"]),
            ("entry.up", "Move up", "Move the current entry up",
             lambda: editor.move_current(-1), ["Alt+Up"]),
            ("entry.down", "Move down", "Move the current entry down",
             lambda: editor.move_current(1), ["Alt+Down"]),
            ("entry.undo", "Undo", "Undo the last change", self.undo_stack.undo, ["Ctrl+Z"]),
            ("entry.redo", "Redo", "Redo the change you undid", self.undo_stack.redo,
             ["Ctrl+Shift+Z", "Ctrl+Y"]),
            ("store.revert", "Revert to disk",
             "Throw away unsaved edits and show the file as it is on disk (undoable)",
             editor.revert, []),
            ("store.normalise", "Normalise…",
             "Rewrite the file in canonical form (a backup is kept next to it)",
             editor.normalise, []),
            ("store.save", "Save", "Save your edits under the file lock", editor.save, ["Ctrl+S"]),
        ]
        for command_id, name, tip, run, keys in commands:
            self.registry.add(Command(
                command_id, name, run, keys, tip=tip,
                enabled=lambda c=command_id: self._enabled.get(c, True),
            ))
        actions = self.registry.actions
        self.new, self.merge, self.remove = (
            actions["entry.new"], actions["entry.merge"], actions["entry.remove"]
        )
        self.up, self.down = actions["entry.up"], actions["entry.down"]
        self.undo, self.redo = actions["entry.undo"], actions["entry.redo"]
        self.revert, self.normalise = actions["store.revert"], actions["store.normalise"]
        self.save = actions["store.save"]
        self.toolbar = self.registry.build_toolbar(QToolBar(editor), TOOLBAR)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toolbar.setAccessibleName("Entry commands")

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
        stack = self.undo_stack
        self._enabled = {
            "entry.new": editable,
            "entry.merge": editable and selected >= 2,
            "entry.remove": editable and bool(selected or position is not None),
            "entry.up": editable and position is not None and position > 0,
            "entry.down": editable and position is not None and position < count - 1,
            "entry.undo": editable and stack.canUndo(),
            "entry.redo": editable and stack.canRedo(),
            "store.revert": editable and dirty,
            "store.normalise": drift and not busy,
            "store.save": save_block is None,
        }
        self.registry.refresh()
        self.merge.setToolTip(
            "Join the ticked entries into one entry to edit (Ctrl+M)"
            if selected >= 2
            else "Tick two or more entries to merge them into one (Ctrl+M)"
        )
        self.undo.setToolTip(
            f"Undo: {stack.undoText().lower()} (Ctrl+Z)" if stack.canUndo() else "Nothing to undo"
        )
        self.redo.setToolTip(
            f"Redo: {stack.redoText().lower()} (Ctrl+Shift+Z)"
            if stack.canRedo()
            else "Nothing to redo"
        )
        self.normalise.setVisible(drift)
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
