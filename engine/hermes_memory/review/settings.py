"""How a background review reaches its model and how far it may go.

Read from ``config.yaml``::

    auxiliary:
      background_review:
        provider: openrouter         # litellm provider prefix; "custom" = OpenAI-compatible
        model: google/gemini-flash   # no model here -> the session_search block is used
        base_url: http://...         # optional endpoint (litellm api_base)
        api_key: sk-...              # optional; otherwise litellm reads the provider's env var
        timeout: 120                 # seconds per LLM call
        max_rounds: 16               # model turns (each may carry several tool calls)
        max_input_tokens: 600000     # prompt tokens over the whole run; <= 0 disables
        max_input_chars: 120000      # size of the replayed conversation (the digest)
        digest_tail: 24              # recent messages replayed verbatim
        enabled: true                # automatic reviews only; a manual run ignores it

The connection (provider, model, base_url, api_key) is taken as a whole from
``background_review`` when it names a model, else from ``session_search``: mixing one
block's model with the other's endpoint would send a request nobody configured.

The agent's write-approval gates apply to reviews too: with ``memory.write_approval`` or
``skills.write_approval`` set to true, even an apply-mode review queues those changes for
a person instead of writing them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config import load_config
from ..home import HermesHome
from ..sessions.summary import litellm_model
from .proposals import MEMORY, SKILL

REVIEW_SECTION = "background_review"
FALLBACK_SECTION = "session_search"


@dataclass(frozen=True)
class ReviewSettings:
    model: str | None = None  # a litellm model string ("provider/model")
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    max_rounds: int = 16  # upstream's fork runs with max_iterations=16
    max_input_tokens: int = 600_000  # upstream's default aggregate budget
    max_input_chars: int = 120_000
    digest_tail: int = 24
    max_message_chars: int = 4_000  # one replayed message (tool output can be huge)
    enabled: bool = True
    source: str | None = None  # which config block the connection came from
    # proposal kinds ("memory", "skill") whose writes wait for a person's approval
    needs_approval: frozenset[str] = frozenset()

    @property
    def configured(self) -> bool:
        return bool(self.model)

    def describe(self) -> str:
        where = f" at {self.api_base}" if self.api_base else ""
        return f"{self.model}{where}" if self.model else "no model"


def _section(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    auxiliary = config.get("auxiliary") if isinstance(config, Mapping) else None
    section = auxiliary.get(name) if isinstance(auxiliary, Mapping) else None
    return section if isinstance(section, Mapping) else {}


def _text(section: Mapping[str, Any], key: str) -> str | None:
    value = section.get(key)
    if value is None or isinstance(value, (dict, list, bool)):
        return None
    return str(value).strip() or None


def _positive(section: Mapping[str, Any], key: str, default: float) -> float:
    value = section.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return default
    return value


def _budget(section: Mapping[str, Any], key: str, default: int) -> int:
    """Like :func:`_positive`, but an explicit 0 or less means "no budget" (as upstream)."""
    value = section.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return int(value) if value > 0 else 0


def _approval_gates(config: Mapping[str, Any]) -> frozenset[str]:
    gated = set()
    for section_name, kind in (("memory", MEMORY), ("skills", SKILL)):
        section = config.get(section_name) if isinstance(config, Mapping) else None
        if isinstance(section, Mapping) and section.get("write_approval") is True:
            gated.add(kind)
    return frozenset(gated)


def review_settings(config: Mapping[str, Any]) -> ReviewSettings:
    """Settings from a loaded config mapping (see the module docstring)."""
    review = _section(config, REVIEW_SECTION)
    connection, source = review, REVIEW_SECTION
    if not _text(review, "model"):
        fallback = _section(config, FALLBACK_SECTION)
        connection, source = fallback, FALLBACK_SECTION if _text(fallback, "model") else None
    base_url = _text(connection, "base_url")
    enabled = review.get("enabled", True)
    return ReviewSettings(
        model=litellm_model(_text(connection, "provider"), _text(connection, "model"), base_url),
        api_base=base_url,
        api_key=_text(connection, "api_key"),
        # a timeout set beside the model belongs to that endpoint
        timeout=float(_positive(review, "timeout", _positive(connection, "timeout", 120.0))),
        max_rounds=int(_positive(review, "max_rounds", 16)),
        max_input_tokens=_budget(review, "max_input_tokens", 600_000),
        max_input_chars=int(_positive(review, "max_input_chars", 120_000)),
        digest_tail=int(_positive(review, "digest_tail", 24)),
        max_message_chars=int(_positive(review, "max_message_chars", 4_000)),
        enabled=enabled is not False,  # fail-open, as upstream
        source=source,
        needs_approval=_approval_gates(config),
    )


def load_review_settings(home: HermesHome) -> ReviewSettings:
    return review_settings(load_config(home).data)
