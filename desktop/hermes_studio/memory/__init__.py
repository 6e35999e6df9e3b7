"""The memory editors: MEMORY.md ("Agent notes") and USER.md ("User profile").

- :mod:`.model`: the editor's document (cards, base, undo stack), plain data behind Qt;
- :mod:`.meter`: the capacity meter, full-size in an editor and compact in the status bar;
- :mod:`.card`, :mod:`.card_list`, :mod:`.conflicts`, :mod:`.banner`, :mod:`.previews`,
  :mod:`.editor`, :mod:`.widget`: the widgets;
- :mod:`.actions`, :mod:`.disk_sync` (with :mod:`.folding`), :mod:`.saving`: the command row, how it
  follows the file on disk, and how it writes (engine-face calls through the Workspace);
- :mod:`.style`: colours and the editor's stylesheet.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .editor import StoreEditor
    from .meter import CapacityMeter
    from .widget import MemoryEditors, StatusMeters

#: Each name's module, imported on first use: the status bar's meters need only ``meter``,
#: and the editors are made with the Memory tab, the first time it is shown.
_HOMES = {"CapacityMeter": "meter", "MemoryEditors": "widget", "StatusMeters": "meter", "StoreEditor": "editor"}

__all__ = ["CapacityMeter", "MemoryEditors", "StatusMeters", "StoreEditor"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
