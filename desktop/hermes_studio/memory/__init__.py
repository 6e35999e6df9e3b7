"""The memory editors: MEMORY.md ("Agent notes") and USER.md ("User profile").

- :mod:`.model`: the editor's document (cards, base, undo stack), plain data behind Qt;
- :mod:`.meter`: the capacity meter, full-size in an editor and compact in the status bar;
- :mod:`.card`, :mod:`.card_list`, :mod:`.conflicts`, :mod:`.banner`, :mod:`.previews`,
  :mod:`.editor`, :mod:`.widget`: the widgets;
- :mod:`.actions`, :mod:`.disk_sync` (with :mod:`.folding`), :mod:`.saving`: the command row, how it
  follows the file on disk, and how it writes (engine-face calls through the Workspace);
- :mod:`.style`: colours and the editor's stylesheet.
"""

from .editor import StoreEditor
from .meter import CapacityMeter
from .widget import MemoryEditors, StatusMeters

__all__ = ["CapacityMeter", "MemoryEditors", "StatusMeters", "StoreEditor"]
