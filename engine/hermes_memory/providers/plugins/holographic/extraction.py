"""End-of-session fact harvesting (``auto_extract``, spec §10 "Lifecycle hooks").

Only what the user wrote is harvested: compaction summaries the host inserted as user
messages are skipped (their prose reliably matches the decision patterns, issue #57682),
but genuine text placed before a merged summary is kept.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from ...scaffolding import genuine_text_before_merged_summary, is_compaction_summary_message

logger = logging.getLogger(__name__)

MIN_MESSAGE_CHARS = 10
MAX_FACT_CHARS = 400

PREFERENCE_PATTERNS = (
    re.compile(r"\bI\s+(?:prefer|like|love|use|want|need)\s+\S", re.I),
    re.compile(r"\bmy\s+(?:favou?rite|preferred|default)\s+\w+\s+is\s+\S", re.I),
    re.compile(r"\bI\s+(?:always|never|usually)\s+\S", re.I),
)
DECISION_PATTERNS = (
    re.compile(r"\bwe\s+(?:decided|agreed|chose)\s+\S", re.I),
    re.compile(r"\bthe\s+project\s+(?:uses|needs|requires)\s+\S", re.I),
)


def user_texts(messages: list[dict[str, Any]]) -> list[str]:
    """The user-authored text of each user message worth scanning."""
    texts = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        text = genuine_text_before_merged_summary(message)
        if text is None:
            if is_compaction_summary_message(message):
                continue
            text = message.get("content")
        if isinstance(text, str) and len(text) >= MIN_MESSAGE_CHARS:
            texts.append(text)
    return texts


def extract_facts(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(content, category)`` pairs: preferences as ``user_pref``, decisions as ``project``."""
    facts = []
    for text in user_texts(messages):
        if any(pattern.search(text) for pattern in PREFERENCE_PATTERNS):
            facts.append((text[:MAX_FACT_CHARS], "user_pref"))
        if any(pattern.search(text) for pattern in DECISION_PATTERNS):
            facts.append((text[:MAX_FACT_CHARS], "project"))
    return facts
