"""The engine's one face for the desktop (and, later, for a remote home over ``serve``).

Plain functions over a :class:`~hermes_memory.home.HermesHome`, taking and returning plain,
JSON-serialisable data (dicts, lists, strings, numbers). The desktop calls them in-process
for a local home; a remote home will carry the same calls as JSON lines. Nothing here
imports Qt, and nothing here keeps state between calls: every call re-reads the disk.

Each flow keeps its own section below; the work itself lives in the flow's package.
"""

from __future__ import annotations

# --- memory stores -------------------------------------------------------------------

# --- skills and the learning graph ---------------------------------------------------

# --- the staged-write queue (pending/) -----------------------------------------------

# --- history and provenance (history/) -----------------------------------------------

# --- session history (sessions/) -----------------------------------------------------
