"""The Sessions tab: the agent's past sessions, searched as you type, read as transcripts,
with what each taught (links into the graph and editors) and a revert you can undo.

``live_search`` coalesces keystrokes into one engine search at a time, ``render`` turns
the engine's plain data into HTML, ``delegate`` draws the result rows, and ``panel`` is
the tab itself. Every engine call is a ``sessions_*`` function of the engine face.
"""

from .panel import SessionsPanel

__all__ = ["SessionsPanel"]
