"""The on-disk entry format of MEMORY.md and USER.md, and its character accounting.

A store file is its entries joined by ``"\\n§\\n"``: no header, no trailing newline. Parsing
is tolerant (BOM, CRLF, whitespace around delimiters, duplicate entries) but always
splits on the *full* delimiter, so an entry may contain ``§`` itself.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence

ENTRY_DELIMITER = "\n§\n"
TARGETS = ("memory", "user")
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}

_LEGACY_HEADING = re.compile(r"^## ", re.MULTILINE)


def normalise_newlines(text: str) -> str:
    """Drop one leading BOM and turn CRLF/CR into LF, as the agent's text-mode read does."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalise_line_endings(text: str) -> str:
    """CRLF and lone CR become LF: what a stored entry reads back as, so store that."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Characters an entry may not hold: C0 and C1 controls except tab and newline (a NUL makes
# the whole file read as binary; escapes reach terminals), lone surrogates (undecodable
# input; not UTF-8 at all) and the Unicode noncharacters (U+FDD0..U+FDEF, U+xFFFE/U+xFFFF).
_UNSTORABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(chr(plane + 0xFFFE) + chr(plane + 0xFFFF) for plane in range(0, 0x110000, 0x10000))
    + "]"
)


def unstorable_character(text: str) -> tuple[int, str] | None:
    """``(offset, char)`` of the first character an entry cannot hold, or ``None``."""
    match = _UNSTORABLE.search(text)
    return (match.start(), match.group()) if match else None


def describe_character(char: str) -> str:
    """``"U+0000 (a control character)"`` and the like, for messages."""
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        kind = "a lone surrogate, left by input that was not valid UTF-8"
    elif unicodedata.category(char) == "Cc":
        kind = "a control character"
    else:
        kind = "a Unicode noncharacter"
    return f"U+{code:04X} ({kind})"


def visible(text: str) -> str:
    """``text`` with the characters an entry cannot hold shown as ``\\xNN`` / ``\\uNNNN``,
    so a damaged entry prints safely (no terminal escapes, no encoding errors)."""

    def escape(match: re.Match) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return _UNSTORABLE.sub(escape, text)


def split_pieces(text: str) -> list[str]:
    """Stripped, non-empty pieces between delimiters, duplicates kept (for drift checks)."""
    text = normalise_newlines(text)
    if not text.strip():
        return []
    return [piece.strip() for piece in text.split(ENTRY_DELIMITER) if piece.strip()]


def has_delimiter_line(entry: str) -> bool:
    """True when a line of the entry is a bare ``§``: it would read back as two entries."""
    return "§" in normalise_newlines(entry).split("\n")


def dedupe(entries: Iterable[str]) -> list[str]:
    """Drop exact duplicates, keeping the first occurrence in order."""
    seen: set[str] = set()
    unique = []
    for entry in entries:
        if entry not in seen:
            seen.add(entry)
            unique.append(entry)
    return unique


def is_legacy_sectioned(text: str) -> bool:
    """A hand-written file that uses ``## `` headings instead of ``§`` delimiters.

    Upstream reads such a file as one huge entry and then blocks or freezes it
    (issue 32965); we adopt each section as an entry instead. Two or more headings and
    no delimiter at all are required, so an ordinary entry that happens to contain one
    heading is never split.
    """
    text = normalise_newlines(text)
    return ENTRY_DELIMITER not in text and len(_LEGACY_HEADING.findall(text)) >= 2


def split_legacy_sections(text: str) -> list[str]:
    """Each ``## `` section becomes an entry; text before the first heading is kept too."""
    text = normalise_newlines(text)
    starts = [match.start() for match in _LEGACY_HEADING.finditer(text)]
    bounds = [0, *starts, len(text)]
    pieces = (text[begin:end].strip() for begin, end in zip(bounds, bounds[1:], strict=False))
    return [piece for piece in pieces if piece]


def parse_entries(text: str) -> list[str]:
    """Entries of a store file: split on the full delimiter, strip, drop empties, dedupe."""
    if is_legacy_sectioned(text):
        return dedupe(split_legacy_sections(text))
    return dedupe(split_pieces(text))


def serialise_entries(entries: Sequence[str]) -> str:
    return ENTRY_DELIMITER.join(entries)


def char_count(entries: Sequence[str]) -> int:
    """Characters (code points) the entries use, delimiters included; 0 when empty."""
    return len(serialise_entries(entries)) if entries else 0


def usage_percent(current: int, limit: int) -> int:
    if limit <= 0:
        return 0
    return min(100, int(current / limit * 100))


class BudgetUse:
    """``percent`` and ``over_budget`` for anything that knows its ``used`` characters and
    its ``limit`` (a store read from disk, a draft being edited)."""

    used: int
    limit: int

    @property
    def percent(self) -> int:
        return usage_percent(self.used, self.limit)

    @property
    def over_budget(self) -> bool:
        return self.used > self.limit


def usage_counts(current: int, limit: int) -> str:
    """``"1,234/2,200"`` as used in failure payloads."""
    return f"{current:,}/{limit:,}"


def usage_summary(current: int, limit: int) -> str:
    """``"56% — 1,234/2,200 chars"`` as used in success payloads."""
    return f"{usage_percent(current, limit)}% — {usage_counts(current, limit)} chars"


def fingerprint(entry: str) -> str:
    """Stable identity of an entry: the first 12 hex digits of SHA-256 of its stripped text."""
    return hashlib.sha256(entry.strip().encode("utf-8")).hexdigest()[:12]


def preview(entry: str, width: int = 80) -> str:
    """The first ``width`` characters, with ``...`` when the entry is longer."""
    return entry[:width] + ("..." if len(entry) > width else "")
