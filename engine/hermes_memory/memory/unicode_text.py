"""Unicode that hides or disguises text: invisible characters and look-alike letters.

Two tricks get text past a scanner that reads code points while a model (or a person) reads
what they look like:

* **Invisible characters.** Format characters (general category ``Cf``) and the other
  default-ignorable code points (soft hyphen, U+034F, U+180E, variation selectors, Hangul
  fillers, the tag characters U+E0000–E007F used for "ASCII smuggling") render as nothing,
  so they split a phrase for the scanner or carry a payload a person never sees. They are
  found by Unicode property (via the ``regex`` package), not from a list. Emoji keep the
  invisible parts they legitimately need: one VS15/VS16 after an emoji (keycaps like 1️⃣),
  a subdivision flag's tag sequence (🏴 England), an ideographic or Mongolian variation
  selector after its own script. The zero-width joiner of ZWJ emoji is *not* excused: it
  is in upstream's own list, and the agent blocks any entry that contains it.
* **Look-alike letters.** A Cyrillic ``і`` in "іgnore" reads as Latin. :func:`fold_confusables`
  maps letters to the ASCII letter they imitate, using the Unicode confusables data shipped
  by the ``confusable-homoglyphs`` package. Letters of another script are folded only inside
  a word that also has Latin letters (a mixed-script word): a whole word in Russian, Greek
  or Arabic is left alone. Latin-script look-alikes of ASCII (small capitals, dotless ı,
  long ſ) are folded everywhere; no language spells words with them in place of ASCII, and
  accented letters (é, ü, ø) are not in that set.

Every fold here maps one character to one character, so offsets stay valid.
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from functools import cache

import regex

__all__ = [
    "confusable_table",
    "fold_accents",
    "fold_confusables",
    "hidden_characters",
    "remove_all_invisible",
    "remove_hidden",
]

# Default-ignorable or format characters, less the prepended concatenation marks (U+0600
# ARABIC NUMBER SIGN and kin), which are Cf but visible.
_INVISIBLE = regex.compile(r"[[\p{Cf}\p{Default_Ignorable_Code_Point}]--\p{PCM}]", regex.V1)

_VS = r"[\uFE00-\uFE0F\U000E0100-\U000E01EF\u180B-\u180D\u180F]"
# Invisible characters inside these sequences are part of honest text.
_LEGITIMATE = regex.compile(
    # A subdivision flag: black flag, 2-6 tag letters or digits, cancel tag (UTS #51).
    r"\U0001F3F4[\U000E0030-\U000E0039\U000E0061-\U000E007A]{2,6}\U000E007F"
    # One text/emoji presentation selector after an emoji (digits, # and * are emoji too:
    # keycaps are digit + VS16 + U+20E3).
    rf"|(?<=\p{{Emoji}})[\uFE0E\uFE0F](?!{_VS})"
    # Ideographic variation sequences and standardized CJK variants.
    rf"|(?<=\p{{Han}})[\uFE00-\uFE0F\U000E0100-\U000E01EF](?!{_VS})"
    # Mongolian free variation selectors.
    rf"|(?<=\p{{Mongolian}})[\u180B-\u180D\u180F](?!{_VS})",
    regex.V1,
)


def hidden_characters(text: str, always: frozenset[str] = frozenset()) -> list[tuple[int, str]]:
    """``(index, char)`` of every invisible character that is not part of honest text.

    Characters in ``always`` are reported even inside an emoji sequence (upstream's list).
    Linear: two regex passes, the second only when something was found.
    """
    if text.isascii():
        return []
    found = [(m.start(), m.group()) for m in _INVISIBLE.finditer(text)]
    if not found or all(char in always for _, char in found):
        return found
    excused: set[int] = set()
    for match in _LEGITIMATE.finditer(text):
        excused.update(range(*match.span()))
    return [(index, char) for index, char in found if char in always or index not in excused]


def remove_hidden(text: str, always: frozenset[str] = frozenset()) -> str:
    """``text`` without the characters :func:`hidden_characters` reports."""
    hits = hidden_characters(text, always)
    if not hits:
        return text
    drop = {index for index, _ in hits}
    return "".join(char for index, char in enumerate(text) if index not in drop)


def remove_all_invisible(text: str) -> str:
    """``text`` without any invisible character, honest or not: what a reader sees."""
    if text.isascii():
        return text
    return _INVISIBLE.sub("", text)


# --- Confusables --------------------------------------------------------------------------

_ASCII_TARGETS = set(string.ascii_letters + string.digits)
_LATIN = regex.compile(r"\p{Latin}")
_WORD = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")


@dataclass(frozen=True)
class _Tables:
    latin: dict[int, str]  # Latin-script look-alikes -> lower-case ASCII
    every: dict[int, str]  # every look-alike, any script -> lower-case ASCII
    latin_class: re.Pattern[str]  # any Latin-script look-alike
    # An ASCII letter touching a look-alike of another script. Every mixed-script word
    # written to fool a reader has one; honest multilingual text (words apart) has none.
    touch: re.Pattern[str]


def _char_class(codes: list[int]) -> str:
    return "[" + "".join(re.escape(chr(code)) for code in sorted(codes)) + "]"


@cache
def _tables() -> _Tables:
    from confusable_homoglyphs.confusables import confusables_data

    def ascii_target(char: str) -> str | None:
        for glyph in confusables_data.get(char, ()):
            if glyph["c"] in _ASCII_TARGETS:
                return glyph["c"].lower()
        return None

    every: dict[int, str] = {}
    for char in confusables_data:
        if len(char) != 1 or char.isascii():
            continue
        # Prefer the lower-case letter's target: the data maps capital I-like letters to "l".
        lower = char.lower()
        target = (ascii_target(lower) if len(lower) == 1 else None) or ascii_target(char)
        if target is not None:
            every[ord(char)] = target
    latin = {code: target for code, target in every.items() if _LATIN.match(chr(code))}
    # Basic-plane only, so re keeps the class as a bitmap (astral look-alikes are mostly
    # mathematical letters, which NFKC has already folded). Both branches start with the
    # ASCII letter, so re skips straight to those.
    foreign = _char_class([code for code in every if code not in latin and code <= 0xFFFF])
    return _Tables(
        latin=latin,
        every=every,
        latin_class=re.compile(_char_class(list(latin))),
        touch=re.compile(f"[A-Za-z](?={foreign})|(?<={foreign})[A-Za-z]"),
    )


def confusable_table() -> dict[int, str]:
    """Every look-alike letter (any script) -> the lower-case ASCII letter it imitates."""
    return _tables().every


def fold_confusables(text: str) -> str:
    """``text`` with look-alike letters replaced by the ASCII letter they imitate (lower case),
    one character for one; see the module docstring for which words are folded.

    Linear: one pass for Latin look-alikes, one for scripts touching, and then only the
    words where they touch are rewritten, each once.
    """
    if text.isascii():
        return text
    tables = _tables()
    if tables.latin_class.search(text):
        text = text.translate(tables.latin)
    pieces: list[str] = []
    done = 0
    for hit in tables.touch.finditer(text):
        if hit.start() < done:
            continue  # inside a word already folded
        start = hit.start()
        while start > done and _WORD_CHAR.match(text, start - 1):
            start -= 1
        word = _WORD.match(text, start)
        end = word.end() if word else hit.end()
        pieces += [text[done:start], text[start:end].translate(tables.every)]
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


# --- Accents ----------------------------------------------------------------------------

_ACCENTED_LATIN = regex.compile(r"[\p{Latin}--\p{ASCII}]", regex.V1)
_MARKS_AFTER_ASCII = regex.compile(r"(?<=[A-Za-z])\p{M}+")


@cache
def _base_letter(char: str) -> str:
    base = "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c))
    return base if len(base) == 1 and base.isascii() else char


def fold_accents(text: str) -> str:
    """``text`` with accents taken off Latin letters ("ìgnóre" reads as "ignore") and
    combining marks after ASCII letters dropped (a phrase buried in diacritics).

    For the rules only: they are English phrases, so honest accented words ("réponse",
    "Größe") cannot become one. Precomposed letters fold one for one; dropped marks shorten
    the text.
    """
    if text.isascii():
        return text
    text = _ACCENTED_LATIN.sub(lambda match: _base_letter(match.group()), text)
    return _MARKS_AFTER_ASCII.sub("", text)
