"""Fencing recalled memory (spec §4.5).

Recalled context rides on the API copy of the user message inside a
``<memory-context>`` fence with a fixed system note, so the model never mistakes it for
something the user typed. :func:`sanitize_context` strips fences and notes from provider
output (one provider must not forge a fence) and from captured turn text (so recall does
not recurse). :class:`StreamingContextScrubber` does the same for streamed output whose
fenced span may straddle chunk boundaries.
"""

from __future__ import annotations

import logging
import re

logger = logging.getLogger(__name__)

OPEN_TAG = "<memory-context>"
CLOSE_TAG = "</memory-context>"

#: The note that opens every fenced block; the exact wording is part of the contract.
SYSTEM_NOTE = (
    "[System note: The following is recalled memory context, NOT new user input. "
    "Treat as authoritative reference data — this is the agent's persistent memory "
    "and should inform all responses.]"
)

# Order matters: whole blocks first (so a block's note and tags go with it), then loose
# notes (both the current and the older "informational background data" wording), then
# any stray tag.
_WHOLE_BLOCK_RE = re.compile(r"<\s*memory-context\s*>[\s\S]*?</\s*memory-context\s*>", re.I)
_SYSTEM_NOTE_RE = re.compile(
    r"\[System note:\s*The following is recalled memory context,\s*NOT new user input\.\s*"
    r"Treat as (?:informational background data|authoritative reference data[^\]]*)\.\]\s*",
    re.I,
)
_STRAY_TAG_RE = re.compile(r"</?\s*memory-context\s*>", re.I)

# A markdown bullet: a marker, whitespace, then content. The whitespace keeps
# "**Bold heading**" and "*emphasis*" out.
_BULLET_RE = re.compile(r"[-*+]\s+\S")


def sanitize_context(text: str) -> str:
    """``text`` without memory-context blocks, system notes and stray fence tags."""
    for pattern in (_WHOLE_BLOCK_RE, _SYSTEM_NOTE_RE, _STRAY_TAG_RE):
        text = pattern.sub("", text)
    return text


def drop_repeated_recall_lines(text: str) -> str:
    """Drop a self-contained bullet that repeats an earlier one in the same section.

    Several stores (and providers) often surface one fact twice; a repeat costs tokens on
    every later turn because the block is replayed byte-identically. A section ends at any
    column-0 line that is not a bullet. A bullet with an indented continuation line is
    never dropped and never suppresses another: two entries may share a headline and
    differ underneath it.
    """
    lines = text.split("\n")
    kept: list[str] = []
    seen: set[str] = set()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped and line[0].isspace():  # continuation of the bullet above
            kept.append(line)
            continue
        is_bullet = _BULLET_RE.match(stripped) is not None
        if stripped and not is_bullet:
            seen.clear()
        elif is_bullet:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            has_continuation = bool(following.strip()) and following[0].isspace()
            if not has_continuation:
                if stripped in seen:
                    continue
                seen.add(stripped)
        kept.append(line)
    return "\n".join(kept)


def build_memory_context_block(raw: str) -> str:
    """The fenced block for raw recalled context, or ``""`` when there is nothing to say."""
    if not raw or not raw.strip():
        return ""
    clean = sanitize_context(raw)
    if clean != raw:
        logger.warning("memory provider returned pre-wrapped context; stripped")
    clean = drop_repeated_recall_lines(clean)
    return f"{OPEN_TAG}\n{SYSTEM_NOTE}\n\n{clean}\n{CLOSE_TAG}"


def _fold(text: str) -> str:
    """Lower-case ``text`` without changing its length, so indices stay valid."""
    if text.isascii():
        return text.lower()
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)


def _partial_tag_suffix(folded: str, tag: str) -> int:
    """Length of the longest tail of ``folded`` that could begin ``tag`` (shorter than it)."""
    for size in range(min(len(folded), len(tag) - 1), 0, -1):
        if tag.startswith(folded[-size:]):
            return size
    return 0


class StreamingContextScrubber:
    """Hide ``<memory-context>`` spans from streamed text, whatever the chunking.

    One instance per top-level response: ``feed()`` each chunk and show what it returns,
    then ``flush()`` at the end. An open tag counts only at a block boundary (nothing but
    whitespace before it on its line, and a line break right after it); a tag in mid-line
    is ordinary text. Possible partial tags at a chunk's end are held back until the next
    chunk decides them, so the output never depends on where the chunks were cut.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._held = ""  # undecided tail carried to the next feed
        self._inside = False  # within a fenced span: text is dropped
        self._at_line_start = True  # visible output so far ends at a block boundary

    def feed(self, text: str) -> str:
        if not text:
            return ""
        buffer = self._held + text
        self._held = ""
        visible: list[str] = []
        while buffer:
            folded = _fold(buffer)
            if self._inside:
                end = folded.find(CLOSE_TAG)
                if end < 0:
                    keep = _partial_tag_suffix(folded, CLOSE_TAG)
                    self._held = buffer[len(buffer) - keep :] if keep else ""
                    return "".join(visible)
                buffer = buffer[end + len(CLOSE_TAG) :]
                self._inside = False
                continue
            start = self._find_open_tag(buffer, folded)
            if start >= 0:
                self._emit(visible, buffer[:start])
                buffer = buffer[start + len(OPEN_TAG) :]
                self._inside = True
                continue
            keep = self._undecided_tail(buffer, folded)
            self._emit(visible, buffer[: len(buffer) - keep])
            self._held = buffer[len(buffer) - keep :] if keep else ""
            break
        return "".join(visible)

    def flush(self) -> str:
        """The held tail at end of stream; inside an unterminated span it is discarded."""
        tail = "" if self._inside else self._held
        self.reset()
        return tail

    # --- helpers ------------------------------------------------------------------------
    def _boundary_after(self, text: str) -> bool:
        """Whether the visible output would sit at a block boundary after ``text``."""
        before, newline, line = text.rpartition("\n")
        return not line.strip() and (bool(newline) or self._at_line_start)

    def _find_open_tag(self, buffer: str, folded: str) -> int:
        start = folded.find(OPEN_TAG)
        while start >= 0:
            after = start + len(OPEN_TAG)
            if (
                after < len(buffer)
                and buffer[after] in "\r\n"
                and self._boundary_after(buffer[:start])
            ):
                return start
            start = folded.find(OPEN_TAG, start + 1)
        return -1

    def _undecided_tail(self, buffer: str, folded: str) -> int:
        # A whole open tag at the very end waits for the character that confirms it.
        if folded.endswith(OPEN_TAG) and self._boundary_after(buffer[: -len(OPEN_TAG)]):
            return len(OPEN_TAG)
        return _partial_tag_suffix(folded, OPEN_TAG)

    def _emit(self, visible: list[str], text: str) -> None:
        if text:
            visible.append(text)
            self._at_line_start = self._boundary_after(text)
