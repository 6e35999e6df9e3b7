"""History: every recorded version of the memory stores, the skills and single entries.

``panel`` is the History tab (versions, diffs, Restore), ``past`` the read-only Memory
view at the graph scrubber's date, ``restoring`` the restore-as-one-undo-step both use,
and ``render`` the words and HTML for versions and diffs. The scrubber's replay itself
lives with the graph (:mod:`hermes_studio.graph.timeline`).
"""

from .panel import VersionsPanel
from .past import PastStores

__all__ = ["PastStores", "VersionsPanel"]
