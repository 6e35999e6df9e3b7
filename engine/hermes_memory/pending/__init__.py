"""The agent's staged-write queue, in upstream's format: ``<home>/pending/memory/<id>.json``
and ``<home>/pending/skills/<id>.json`` (spec hermes-staged-writes §1).

The agent stages writes here when ``memory.write_approval``/``skills.write_approval`` is on,
our ``memory`` tool does the same (:mod:`.gate`), and the background review queues its
proposals here too, so the agent's ``/memory pending`` and ``hermes-memory pending`` show one
queue. Modules: ``records`` (the file format, tolerant reading), ``summaries`` (upstream's
one-line summaries), ``memory_ops`` and ``skill_ops`` (what a record does, as a dry run),
``applying`` (previews and writes through the store and the skills package), ``queue``
(claims, approve/reject/edit, the decision log), ``changes`` (before/after changes in
upstream's shapes), ``legacy`` (moving the old ``review/pending/`` records over), ``gate``
(the tool's write-approval gate) and ``commands`` (the CLI).
"""

from .applying import Context, apply_memory_payload, apply_record, preview
from .queue import ALL, Decision, Listing, PendingError, PendingQueue
from .records import BACKGROUND_REVIEW, FOREGROUND, MEMORY, SKILLS, PendingRecord

__all__ = [
    "ALL",
    "BACKGROUND_REVIEW",
    "FOREGROUND",
    "MEMORY",
    "SKILLS",
    "Context",
    "Decision",
    "Listing",
    "PendingError",
    "PendingQueue",
    "PendingRecord",
    "apply_memory_payload",
    "apply_record",
    "preview",
]
