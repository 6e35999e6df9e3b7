"""Recognising host-generated text inside user messages.

Two kinds of user-role text were not typed by the user and must not be remembered as if
they were: a ``/skill`` turn embeds the whole skill body around the user's instruction,
and context compaction inserts a summary as a user message. The markers below are byte
strings the Hermes agent writes; they are matched literally.
"""

from __future__ import annotations

from typing import Any

_SKILL_INVOCATION_PREFIX = "[IMPORTANT: The user has invoked the "
_SINGLE_SKILL_MARKER = "The full skill content is loaded below.]"
_SINGLE_SKILL_INSTRUCTION = (
    "The user has provided the following instruction alongside the skill invocation: "
)
_RUNTIME_NOTE = "\n\n[Runtime note:"
_BUNDLE_MARKER = " skill bundle,"
_BUNDLE_INSTRUCTION = "\nUser instruction: "
_BUNDLE_FIRST_SKILL = "\n\n[Loaded as part of the "

#: Compaction summaries inserted as user messages start with one of these.
COMPACTION_SUMMARY_PREFIXES = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")
#: A summary merged into a real message: genuine text, this delimiter, then the summary.
MERGED_PRIOR_CONTEXT_HEADER = "[PRIOR CONTEXT — for reference only; not a new message]"
MERGED_SUMMARY_DELIMITER = "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]"
#: The private key the compressor sets on the summary messages it creates.
COMPACTION_MARKER_KEY = "_compressed_summary"


def _text_between(content: str, marker: str, end_marker: str, *, last: bool) -> str | None:
    at = content.rfind(marker) if last else content.find(marker)
    if at < 0:
        return None
    text = content[at + len(marker) :]
    end = text.find(end_marker)
    if end >= 0:
        text = text[:end]
    return text.strip() or None


def extract_user_instruction_from_skill_message(content: Any) -> str | None:
    """The user's own words from a skill turn.

    A message that is not skill scaffolding comes back unchanged; a bare ``/skill``
    invocation, or non-text content, gives ``None`` (nothing worth remembering).
    """
    if not isinstance(content, str):
        return None
    if not content.startswith(_SKILL_INVOCATION_PREFIX):
        return content
    if _BUNDLE_MARKER in content:
        # Bundles put the instruction before the loaded skills: the first marker is the user's.
        return _text_between(content, _BUNDLE_INSTRUCTION, _BUNDLE_FIRST_SKILL, last=False)
    if _SINGLE_SKILL_MARKER in content:
        # The skill body may quote the marker; the instruction follows the body, so take the last.
        return _text_between(content, _SINGLE_SKILL_INSTRUCTION, _RUNTIME_NOTE, last=True)
    return None


def is_compaction_summary_message(message: dict[str, Any]) -> bool:
    """True for a user-role message the context compressor wrote."""
    if message.get(COMPACTION_MARKER_KEY):
        return True
    content = message.get("content")
    return isinstance(content, str) and content.lstrip().startswith(COMPACTION_SUMMARY_PREFIXES)


def genuine_text_before_merged_summary(message: dict[str, Any]) -> str | None:
    """The real text that precedes a summary merged into this message, if any."""
    content = message.get("content")
    if not isinstance(content, str) or MERGED_SUMMARY_DELIMITER not in content:
        return None
    before = content.split(MERGED_SUMMARY_DELIMITER, 1)[0]
    before = before.strip().removeprefix(MERGED_PRIOR_CONTEXT_HEADER).strip()
    return before or None
