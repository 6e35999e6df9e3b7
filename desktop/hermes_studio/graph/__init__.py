"""The learning-graph explorer: see what the agent learned, and act on it.

- :mod:`.model`: the engine's payload as arrays (no Qt);
- :mod:`.layout`: the timeline disk and category clusters, a vectorised force layout with
  cached positions (no Qt);
- :mod:`.filters`: search, filters and the timeline's playhead (no Qt);
- :mod:`.workers`: build + layout on the graph's own thread;
- :mod:`.view`: the pyqtgraph canvas; :mod:`.timeline`: the growth scrubber;
- :mod:`.details`: the details pane and the editor; :mod:`.actions`: engine calls;
- :mod:`.panel`: the tab that puts them together; :mod:`.homes`: recent homes.
"""

from .panel import GraphPanel

__all__ = ["GraphPanel"]
