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
from functools import cache

logger = logging.getLogger(__name__)

OPEN_TAG = "<memory-context>"
CLOSE_TAG = "</memory-context>"

#: The note that opens every fenced block; the exact wording is part of the contract.
SYSTEM_NOTE = (
    "[System note: The following is recalled memory context, NOT new user input. "
    "Treat as authoritative reference data — this is the agent's persistent memory "
    "and should inform all responses.]"
)

# --- sanitize_context: a linear pass that reaches a fixed point ----------------------------
#
# Upstream strips with three regexes in one pass each, so stripping can *create* a tag:
# "</memory-</memory-context>context>" loses its inner tag and the outer one is left whole.
# Here one left-to-right pass removes tokens (fence tags and system notes) and, wherever a
# removal joins two pieces of text, looks for a token across the join (a bounded window on
# each side, since tokens are bounded) and removes that too. The output therefore holds no
# token at all: sanitising it again changes nothing. Each character is passed once and each
# join is checked in constant time, so the work is linear in the input.
#
# Tokens are found on a "view" of the text, one character per character: lower-cased, with
# full-width forms and look-alike letters folded to ASCII, after invisible characters are
# removed from the text itself. So case, spacing, entities (&lt; &#60; &#x3c;), full-width
# brackets and a Cyrillic "о" in "memоry" are all the same tag.

_LT = r"(?:<|&lt;?|&#0*60;?|&#x0*3c;?)"
_GT = r"(?:>|&gt;?|&#0*62;?|&#x0*3e;?)"
_SLASH = r"(?:/|&#0*47;?|&#x0*2f;?|&sol;)"
_TAG = (
    rf"{_LT}\s{{0,16}}+(?P<slash>{_SLASH})?\s{{0,16}}+memory[\s_\-\u2010-\u2015]{{0,3}}+context"
    rf"(?:\s[^<>&\n]{{0,32}}+)?\s{{0,16}}+(?P<selfclose>/)?{_GT}"
)


def _words(*words: str) -> str:
    return r"\s{1,16}+".join(words)


# Both wordings of the note; upstream's "authoritative reference data[^\]]*" bounded.
_NOTE = (
    r"\[\s{0,16}+system\s{1,16}+note\s{0,16}+:\s{0,16}+"
    + _words("the", "following", "is", "recalled", "memory", "context")
    + r"\s{0,16}+,\s{0,16}+" + _words("not", "new", "user", "input") + r"\s{0,16}+\.\s{0,16}+"
    + _words("treat", "as")
    + r"\s{1,16}+(?:" + _words("informational", "background", "data")
    + "|" + _words("authoritative", "reference", "data") + r"[^\]]{0,512})\.\]\s{0,256}+"
)
_TOKEN_RE = re.compile(rf"(?P<note>{_NOTE})|(?P<tag>{_TAG})")
_TAG_RE = re.compile(_TAG)
_NOTE_RE = re.compile(_NOTE)
# Longer than any tag or note, so one across a join always starts this close to it.
_TAG_MAX = 160
_NOTE_MAX = 1600
_TAG_START = re.compile(r"[<&]")
_OPENER = re.compile(r"[<&\[]")
_NOTE_START = re.compile(r"\[")


def _kind(token: re.Match[str]) -> str:
    if token.re is _NOTE_RE or (token.re is _TOKEN_RE and token.group("note") is not None):
        return "note"
    if token.group("selfclose"):
        return "stray"
    return "close" if token.group("slash") else "open"


@cache
def _view_table() -> dict[int, str]:
    from ..memory.unicode_text import confusable_table

    table = dict(confusable_table())
    table.update({code: chr(code - 0xFEE0).lower() for code in range(0xFF01, 0xFF5F)})
    table.update({ord("\ufe64"): "<", ord("\ufe65"): ">"})
    table.update({code: chr(code).lower() for code in range(ord("A"), ord("Z") + 1)})
    return table


def _view(text: str) -> str:
    view = text.translate(_view_table())
    return view.lower() if len(view.lower()) == len(view) else view


class _Output:
    """The sanitised text so far, with its view, and the open tags whose blocks may still
    close (as [position, count] pairs, so clamping them after a cut stays linear).

    The last stretch is kept as one string (the part a join looks at); older text moves to
    frozen chunks, so appending and looking at the tail cost constant time.
    """

    _KEEP = 2 * _NOTE_MAX

    def __init__(self) -> None:
        self.frozen_text: list[str] = []
        self.frozen_view: list[str] = []
        self.frozen_length = 0
        self.text = ""
        self.view = ""
        self.opens: list[list[int]] = []

    @property
    def length(self) -> int:
        return self.frozen_length + len(self.text)

    def result(self) -> str:
        return "".join(self.frozen_text) + self.text

    def append(self, text: str, view: str) -> None:
        if not text:
            return
        self.text += text
        self.view += view
        if len(self.text) > 2 * self._KEEP:
            # Frozen in pieces no longer than the tail, so thawing one stays cheap.
            cut = len(self.text) - self._KEEP
            for start in range(0, cut, self._KEEP):
                end = min(start + self._KEEP, cut)
                self.frozen_text.append(self.text[start:end])
                self.frozen_view.append(self.view[start:end])
            self.frozen_length += cut
            self.text, self.view = self.text[cut:], self.view[cut:]

    def tail_view(self, size: int) -> str:
        while len(self.view) < size and self.frozen_view:  # after a cut into frozen text
            self._thaw()
        return self.view[-size:]

    def _thaw(self) -> None:
        text, view = self.frozen_text.pop(), self.frozen_view.pop()
        self.frozen_length -= len(text)
        self.text, self.view = text + self.text, view + self.view

    def cut(self, length: int) -> None:
        """Keep only the first ``length`` characters."""
        if length < self.frozen_length:  # a block closed far back: drop whole chunks
            self.text = self.view = ""
            while self.frozen_length > length:
                text, view = self.frozen_text.pop(), self.frozen_view.pop()
                self.frozen_length -= len(text)
                if self.frozen_length < length:
                    keep = length - self.frozen_length
                    self.text, self.view = text[:keep], view[:keep]
        else:
            keep = length - self.frozen_length
            self.text, self.view = self.text[:keep], self.view[:keep]
        moved = 0
        while self.opens and self.opens[-1][0] > length:
            moved += self.opens.pop()[1]
        if moved:
            self.opens.append([length, moved])

    def apply(self, token: re.Match[str]) -> None:
        """A removed token: an open tag starts a block, a close tag drops it."""
        kind = _kind(token)
        if kind in ("note", "stray"):
            return
        if kind == "open":
            if self.opens and self.opens[-1][0] == self.length:
                self.opens[-1][1] += 1
            else:
                self.opens.append([self.length, 1])
        elif self.opens:
            start = self.opens[-1]
            start[1] -= 1
            if not start[1]:
                self.opens.pop()
            self.cut(start[0])

    def settle(self, view: str, pos: int) -> int:
        """Remove every token that now spans the join at ``pos``; the new input position."""
        while True:
            left = self.tail_view(_NOTE_MAX)
            found = _spanning(left, view, pos) if left else None
            if found is None:
                return pos
            back, forward, token = found
            self.cut(self.length - back)
            pos += forward
            self.apply(token)


def _spanning(left: str, view: str, pos: int) -> tuple[int, int, re.Match[str]] | None:
    """The leftmost token that starts in ``left`` (the output's tail) and ends in the input
    at ``pos``: how many characters it takes back from the output, how many from the input,
    and the match.

    Only the few places a token can start are tried (a bracket, an entity, a note's "["),
    each with an anchored match on a small window, so a join costs constant time.
    """
    found: list[tuple[int, int, re.Match[str]]] = []
    for pattern, reach, openers in ((_TAG_RE, _TAG_MAX, _TAG_START), (_NOTE_RE, _NOTE_MAX, None)):
        tail = left[-reach:]
        if openers is None and "[" not in tail:
            continue
        window = tail + view[pos : pos + reach]
        size = len(tail)
        starts = (m.start() for m in (openers or _NOTE_START).finditer(tail))
        for start in starts:
            token = pattern.match(window, start)
            if token is not None and token.end() > size:
                found.append((size - start, token.end() - size, token))
                break
    return max(found, key=lambda item: item[0]) if found else None


def sanitize_context(text: str) -> str:
    """``text`` without memory-context blocks, system notes and stray fence tags, in every
    spelling, and without invisible characters; nothing left can form one (a fixed point).

    A block (open tag to its close tag) goes with its content, nested blocks too; an open
    tag that is never closed goes alone, as upstream's stray-tag rule does.
    """
    if not text:
        return text
    from ..memory.scan import strip_invisible

    text = strip_invisible(text)
    view = _view(text)
    if "context" not in view or not _OPENER.search(view):
        return text  # every tag and note has the word and starts with one of these
    out = _Output()
    pos = 0
    while True:
        token = _TOKEN_RE.search(view, pos)
        stop = token.start() if token else len(text)
        out.append(text[pos:stop], view[pos:stop])
        if token is None:
            return out.result()
        out.apply(token)
        pos = out.settle(view, token.end())


def strip_recalled_context(text: str) -> str:
    """Captured turn text without recalled-memory fences and system notes (spec §4.5).

    A turn's API copy carries the fenced recall; handed back to a provider it would be
    stored and recalled again, growing each turn. Text that holds no fence or note comes
    back unchanged (its invisible characters kept: they are the person's text); text that
    was nothing but recall comes back empty.
    """
    if not text:
        return text
    cleaned = sanitize_context(text)
    if cleaned == text:
        return text
    from ..memory.scan import strip_invisible

    if cleaned == strip_invisible(text):
        return text
    return cleaned if cleaned.strip() else ""


# A markdown bullet: a marker, whitespace, then content. The whitespace keeps
# "**Bold heading**" and "*emphasis*" out.
_BULLET_RE = re.compile(r"[-*+]\s+\S")


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
        folded = _fold(buffer)  # once per feed: the loop below only moves an index
        visible: list[str] = []
        at = 0
        while at < len(buffer):
            if self._inside:
                end = folded.find(CLOSE_TAG, at)
                if end < 0:
                    keep = _partial_tag_suffix(folded[at:], CLOSE_TAG)
                    self._held = buffer[len(buffer) - keep :] if keep else ""
                    return "".join(visible)
                at = end + len(CLOSE_TAG)
                self._inside = False
                continue
            start = self._find_open_tag(buffer, folded, at)
            if start >= 0:
                self._emit(visible, buffer[at:start])
                at = start + len(OPEN_TAG)
                self._inside = True
                continue
            keep = self._undecided_tail(buffer[at:], folded[at:])
            self._emit(visible, buffer[at : len(buffer) - keep])
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

    def _blank_before(self, buffer: str, at: int, start: int) -> bool:
        """:meth:`_boundary_after` for ``buffer[at:start]``, looking back only over the
        blanks before ``start`` (so many tags on one line stay linear)."""
        index = start - 1
        while index >= at and buffer[index] != "\n" and buffer[index].isspace():
            index -= 1
        return buffer[index] == "\n" if index >= at else self._at_line_start

    def _find_open_tag(self, buffer: str, folded: str, at: int) -> int:
        start = folded.find(OPEN_TAG, at)
        while start >= 0:
            after = start + len(OPEN_TAG)
            if (
                after < len(buffer)
                and buffer[after] in "\r\n"
                and self._blank_before(buffer, at, start)
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
