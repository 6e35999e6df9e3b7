"""Background review: a model reads one past session and proposes what the agent should
learn from it, through the memory and skill tools only (spec §4).

Modules: ``settings`` (model, endpoint and bounds from config.yaml), ``conversation``
(reading the session, making it replayable), ``digest`` (the bounded replay),
``prompts`` (the review instructions), ``toolbox`` (the whitelisted tools),
``memory_changes`` and ``skill_changes`` (planning and committing changes with the
engine's rules), ``proposals``/``recorder`` (the change records), ``applying`` (the
changes as staged writes of :mod:`hermes_memory.pending`, queued or written), ``runner`` (the bounded
model loop) and ``commands`` (the CLI).
"""

from .applying import apply_proposal, queue_proposals, staleness, to_record
from .conversation import ReviewError
from .digest import Digest, digest_history, fit_digest
from .proposals import Proposal
from .runner import ReviewResult, run_review
from .settings import ReviewSettings, load_review_settings, review_settings
from .toolbox import APPLY, PROPOSE, ReviewToolbox

__all__ = [
    "APPLY",
    "PROPOSE",
    "Digest",
    "Proposal",
    "ReviewError",
    "ReviewResult",
    "ReviewSettings",
    "ReviewToolbox",
    "apply_proposal",
    "digest_history",
    "fit_digest",
    "load_review_settings",
    "queue_proposals",
    "review_settings",
    "run_review",
    "staleness",
    "to_record",
]
