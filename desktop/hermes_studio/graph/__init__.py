"""The learning-graph explorer: see what the agent learned, and act on it.

- :mod:`.model`: the engine's payload as arrays (no Qt);
- :mod:`.layout`: the timeline disk and category clusters, a vectorised force layout with
  cached positions (no Qt);
- :mod:`.filters`: search, filters and the timeline's playhead (no Qt);
- :mod:`.workers`: build + layout on the graph's own thread;
- :mod:`.view`: the pyqtgraph canvas; :mod:`.timeline`: the growth scrubber;
- :mod:`.details`: the details pane, what feeds it, and the editor; :mod:`.actions`: engine calls;
- :mod:`.panel`: the tab that puts them together, from :mod:`.bars` (top, warnings and
  message bars), :mod:`.sidebar` (filters, legends, archived skills), :mod:`.pages` (the
  canvas and its loading, empty and error pages), :mod:`.overview` (the home at a glance)
  and :mod:`.prompts` (confirmations); :mod:`.homes`: recent homes.
"""

from .panel import GraphPanel

__all__ = ["GraphPanel"]
