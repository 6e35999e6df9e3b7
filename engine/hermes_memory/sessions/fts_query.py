"""Turn anything a person (or a model) types into a valid FTS5 query, or into nothing.

FTS5 has its own query language: bare ``-`` or ``.`` are syntax errors, ``AND``/``OR``/
``NOT`` are binary operators, ``*`` is only legal as a prefix marker, ``:`` and ``^``
select columns. Upstream once passed the raw text to MATCH and failed on ``chat-send``;
:func:`sanitize_fts5_query` follows the modern upstream steps so every input either comes
out empty (nothing searchable) or parses.

The module also extracts plain *terms* from a query for the paths that do not use FTS5
(LIKE scans, Python-made snippets, trigram matching).
"""

from __future__ import annotations

import re

#: Longer queries are cut; nobody types more, and FTS5 cost grows with every term.
MAX_FTS5_QUERY_CHARS = 512

_OPERATORS = frozenset({"AND", "OR", "NOT"})
# Characters FTS5 gives meaning to (or rejects) outside a quoted string.
_SPECIAL = set('+{}():"^@/#&|~[]<>,;!?$=\\\'`')
_PHRASE = re.compile(r'"([^"]*)"')
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
# A bareword FTS5 accepts: ASCII letters and digits, '_', U+001A and anything non-ASCII.
# '_' is left out on purpose: the spec quotes underscored terms (step 6).
_BAREWORD = re.compile(r"^[A-Za-z0-9\x1a\u0080-\U0010ffff]+$")

_CJK = re.compile(
    "["
    "\u2e80-\u2fdf"  # radicals
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3100-\u312f\u31a0-\u31bf"  # bopomofo
    "\u3400-\u4dbf"  # extension A
    "\u4e00-\u9fff"  # unified ideographs
    "\uac00-\ud7af"  # hangul syllables
    "\uf900-\ufaff"  # compatibility ideographs
    "\U00020000-\U0002ebef"  # extensions B-F
    "]"
)


def contains_cjk(text: str) -> bool:
    return bool(_CJK.search(text or ""))


# Unicode categories Cc (C0 and C1 controls, DEL) and Cs (surrogates), as character ranges.
_CONTROL_OR_SURROGATE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _clean_characters(text: str) -> str:
    """Control characters and lone surrogates become spaces (SQLite cannot bind the latter)."""
    return _CONTROL_OR_SURROGATE.sub(" ", text)


def _has_word_character(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _quote(term: str) -> str:
    return '"' + term.replace('"', "") + '"'


_STARRED_PIECE = re.compile(r"([^*]+)(\*?)")


def _sanitize_token(token: str) -> list[str]:
    """FTS5 tokens for one space-free chunk of text.

    A ``*`` survives only right after a word (prefix search); leading ones vanish. A word
    FTS5 would not accept bare (``chat-send``, ``file.py``, ``snake_case``) is quoted.
    """
    out = []
    for match in _STARRED_PIECE.finditer(token):
        word, star = match.group(1), match.group(2)
        if not _has_word_character(word):
            continue
        if word in _OPERATORS and not star:
            out.append(word)
            continue
        if word in _OPERATORS or "_" in word or not _BAREWORD.match(word):
            word = _quote(word)
        out.append(word + star)
    return out


def _drop_dangling_operators(tokens: list[str]) -> list[str]:
    """Keep an operator only between two terms; leading, trailing and repeated ones go."""
    kept: list[str] = []
    for token in tokens:
        if token in _OPERATORS:
            if kept and kept[-1] not in _OPERATORS:
                kept.append(token)
        else:
            kept.append(token)
    while kept and kept[-1] in _OPERATORS:
        kept.pop()
    return kept


def sanitize_fts5_query(query: str | None) -> str:
    """A valid FTS5 MATCH expression for ``query``, or ``""`` when nothing is searchable.

    Steps (spec §8.5): cap the length; protect balanced ``"..."`` phrases and blank stray
    quotes; blank FTS5 special characters (and ``%`` unless the query has CJK); collapse
    ``*`` runs and drop leading ones; drop dangling AND/OR/NOT; quote dotted, hyphenated
    and underscored terms; restore the phrases.
    """
    if not query:
        return ""
    text = _clean_characters(query[:MAX_FTS5_QUERY_CHARS])

    phrases: list[str] = []

    def protect(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        if not _has_word_character(inner):
            return " "
        phrases.append(_quote(" ".join(inner.split())))
        return f" \x00{len(phrases) - 1}\x00 "

    text = _PHRASE.sub(protect, text)
    text = text.replace('"', " ")

    keep_percent = contains_cjk(text)
    text = "".join(
        " " if ch in _SPECIAL or (ch == "%" and not keep_percent) else ch for ch in text
    )
    text = re.sub(r"\*+", "*", text)  # leading stars are dropped per token below

    tokens: list[str] = []
    for raw in text.split():
        if _PLACEHOLDER.fullmatch(raw):  # placeholders were padded with spaces
            tokens.append(raw)
        else:
            tokens.extend(_sanitize_token(raw))
    tokens = _drop_dangling_operators([t for t in tokens if t])
    if not tokens:
        return ""
    result = " ".join(tokens)
    return _PLACEHOLDER.sub(lambda m: phrases[int(m.group(1))], result)


def query_terms(query: str | None) -> list[str]:
    """Plain search terms for substring paths: phrases whole, words split, operators gone.

    ``'"exact phrase" chat-send OR db*'`` gives ``["exact phrase", "chat-send", "db"]``.
    """
    if not query:
        return []
    text = _clean_characters(query[:MAX_FTS5_QUERY_CHARS])
    terms: list[str] = []
    for match in _PHRASE.finditer(text):
        inner = " ".join(match.group(1).split())
        if _has_word_character(inner):
            terms.append(inner)
    text = _PHRASE.sub(" ", text).replace('"', " ")
    for raw in text.split():
        word = "".join(" " if ch in _SPECIAL or ch == "*" else ch for ch in raw).strip()
        for piece in word.split():
            piece = piece.strip(".-_")
            if piece in _OPERATORS or not _has_word_character(piece):
                continue
            terms.append(piece)
    seen: set[str] = set()
    unique = []
    for term in terms:
        key = term.lower()
        if key not in seen:
            seen.add(key)
            unique.append(term)
    return unique
