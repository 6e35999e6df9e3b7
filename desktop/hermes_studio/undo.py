"""The app's one undo stack: commands that do and revert their change through the engine.

Every change a person makes through the app (pin, unpin, edit, archive, restore, delete in the
graph; saving a memory store) is recorded as an :class:`EngineCommand` once the engine has
done it. Undo runs the command's revert step on the Workspace's writer thread, redo runs
its forward step again; the engine decides, under its locks, and merges anything the agent
wrote meanwhile. A step the engine refuses (someone changed that thing since) is reported
and the history stays where it was, so Ctrl+Z never pretends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from .workspace import Workspace

#: An engine-face call: the method's name and its parameters (plain data, so an undo works
#: on a remote home too).
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class FaceCall:
    """A call of the engine face (``hermes_memory.api``) that undoes or redoes a change:
    plain data, so it runs the same on a home reached over ``serve``."""

    label: str
    kind: str  # the Workspace change kind it writes: "memory", "user" or "skills"
    method: str
    params: dict[str, Any]


class EngineCommand(QUndoCommand):
    """A change already made through the engine, with the engine calls that revert and redo it."""

    def __init__(
        self, history: History, label: str, kind: str, undo_work: Call, redo_work: Call
    ) -> None:
        super().__init__(label)
        self.history = history
        self.kind = kind  # the Workspace change kind: "memory", "user" or "skills"
        self.undo_work = undo_work
        self.redo_work = redo_work
        self.stamp = time.monotonic()  # when it was done: Edit ▸ Undo takes the latest first
        # Pushed after the engine did it, so the first redo() only moves the index; so does
        # the step that puts the index back after the engine refused an undo or redo.
        self.skip_next = True

    def redo(self) -> None:
        if self.skip_next:
            self.skip_next = False
            return
        self.history.run(self, self.redo_work, "Redo")

    def undo(self) -> None:
        if self.skip_next:
            self.skip_next = False
            return
        self.history.run(self, self.undo_work, "Undo")


class History(QObject):
    """The stack and the engine calls behind it."""

    sig_report = Signal(str, bool)  # (message, ok) after an undo or redo ran

    def __init__(self, workspace: Workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.stack = QUndoStack(self)
        self.running = 0  # undo/redo steps still on the writer thread

    def record(self, label: str, kind: str, undo_work: Call, redo_work: Call) -> None:
        """Add a change the engine has just made."""
        for step in (undo_work, redo_work):  # refused here, not later inside Qt's undo()
            if not (isinstance(step, tuple) and len(step) == 2 and isinstance(step[0], str)):
                raise TypeError(f"an undo step is (method, params), not {step!r}")
        self.stack.push(EngineCommand(self, label, kind, undo_work, redo_work))

    def record_calls(self, label: str, undo: FaceCall, redo: FaceCall) -> None:
        """Add a change whose undo and redo are engine-face calls (one step, however many
        things the change touched)."""
        self.record(label, undo.kind, (undo.method, undo.params), (redo.method, redo.params))

    def run(self, command: EngineCommand, work: Call, verb: str) -> None:
        self.running += 1

        def done(result: dict) -> None:
            self.running -= 1
            ok = bool(result.get("ok", result.get("success")))
            message = str(result.get("message") or result.get("error") or "")
            if not ok:  # nothing changed on disk: put the history back where it was
                command.skip_next = True
                (self.stack.redo if verb == "Undo" else self.stack.undo)()
            self.sig_report.emit(f"{verb}: {command.text()} — {message}" if message else
                                 f"{verb}: {command.text()}", ok)

        method, params = work
        if self.workspace.call(method, params, done, write=command.kind) is None:
            self.running -= 1
