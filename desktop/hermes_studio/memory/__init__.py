"""The memory editors: MEMORY.md ("Agent notes") and USER.md ("User profile").

- :mod:`.model`: the editor's document (cards, base, undo stack), plain data behind Qt;
- :mod:`.meter`: the capacity meter, full-size in an editor and compact in the status bar;
- :mod:`.card`, :mod:`.merge_panel`, :mod:`.editor`, :mod:`.widget`: the widgets;
- :mod:`.workers`: the engine calls the editors run on the Workspace's threads.
"""

from .editor import StoreEditor
from .meter import CapacityMeter
from .widget import MemoryEditors, StatusMeters

__all__ = ["CapacityMeter", "MemoryEditors", "StatusMeters", "StoreEditor"]
