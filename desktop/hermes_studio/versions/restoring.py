"""Restore a recorded version through the engine, as one step on the app's undo stack.

The engine answers a restore with the version it wrote and the one before it; Undo takes
the store or skill back from the first to the second (``history_step``: for memory a merge,
so what the agent wrote since stays), Redo forward again. Every call goes through the
Workspace, on its writer thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..undo import History
from ..workspace import Workspace


def write_kind(kind: str) -> str:
    """The Workspace change kind of a history kind (``memory``, ``user``, ``skill``)."""
    return "skills" if kind == "skill" else kind


def restore(
    workspace: Workspace,
    undo: History | None,
    version_id: str,
    kind: str,
    label: str,
    on_done: Callable[[dict[str, Any]], None],
    entry: str | None = None,
) -> None:
    """Restore ``version_id`` (or one ``entry`` of it); ``on_done`` gets the engine's answer."""

    def done(result: Any) -> None:
        result = result if isinstance(result, dict) else {"ok": False, "error": "no answer"}
        steps = result.get("undo")
        if result.get("ok") and steps and undo is not None:
            back = {"from_id": steps["from_id"], "to_id": steps["to_id"]}
            forth = {"from_id": steps["to_id"], "to_id": steps["from_id"]}
            undo.record(label, write_kind(kind), ("history_step", back), ("history_step", forth))
        on_done(result)

    params = {"version_id": version_id, **({"entry": entry} if entry else {})}
    if workspace.call("history_restore_undoable", params, done, write=write_kind(kind)) is None:
        on_done({"ok": False, "error": "The home is closed; nothing was restored."})
