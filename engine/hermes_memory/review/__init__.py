"""Background review: a model reads one past session and proposes what the agent should
learn from it, through the memory and skill tools only (spec §4).

Modules: ``settings`` (model, endpoint and bounds from config.yaml), ``conversation``
(reading the session, making it replayable), ``digest`` (the bounded replay),
``prompts`` (the review instructions), ``toolbox`` (the whitelisted tools),
``memory_changes`` and ``skill_changes`` (planning and committing changes with the
engine's rules), ``proposals``/``recorder`` (the change records), ``pending`` (the queue
a person approves from), ``applying`` (the one path to disk), ``runner`` (the bounded
model loop) and ``commands`` (the CLI).
"""

from .applying import apply_proposal, staleness
from .conversation import ReviewError
from .digest import Digest, digest_history, fit_digest
from .pending import Decision, PendingError, PendingQueue
from .proposals import Proposal
from .runner import ReviewResult, run_review
from .settings import ReviewSettings, load_review_settings, review_settings
from .toolbox import APPLY, PROPOSE, ReviewToolbox

__all__ = [
    "APPLY",
    "PROPOSE",
    "Decision",
    "Digest",
    "PendingError",
    "PendingQueue",
    "Proposal",
    "ReviewError",
    "ReviewResult",
    "ReviewSettings",
    "ReviewToolbox",
    "apply_proposal",
    "digest_history",
    "fit_digest",
    "load_review_settings",
    "review_settings",
    "run_review",
    "staleness",
]
