"""The Inbox: the agent's staged writes, waiting for a person to approve, edit or reject.

``model`` holds the listed items (a plain list behind a small Qt model), ``render`` turns
the engine's previews into text, ``workers`` packages the engine face's ``pending_*`` calls
for the Workspace's threads, ``details`` shows one item, and ``panel`` is the tab itself
with its count badge and the status-bar count.
"""

from .panel import InboxPanel, InboxStatus

__all__ = ["InboxPanel", "InboxStatus"]
