"""The Changes tab: what changed since the person last looked, and live while the home is open.

``render`` turns the engine's change items into text, ``card`` is one change with Undo, Pin
and Show in graph, ``panel`` is the tab itself, and ``wiring`` ties it to the graph's
overlays (marks, pulses, ghost nodes of staged writes) and the Inbox.
"""

from .panel import ChangesPanel

__all__ = ["ChangesPanel"]
