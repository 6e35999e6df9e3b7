"""Entity extraction for facts (spec §10, precision over recall).

Three sources, strongest first: quoted spans (straight and curly, single and double),
"X aka / also known as Y" pairs, and runs of two or more Capitalised Words outside
quotes. A wrong entity pollutes every later probe, so candidates are cleaned and
plausibility-checked, and a capitalised run at the start of a sentence made only of
generic words ("Status Summary", "User Memory") is dropped as a heading, not a name.
"""

from __future__ import annotations

import re
import unicodedata

MAX_ENTITY_CHARS = 80
MAX_ENTITY_WORDS = 8

_QUOTED = (
    re.compile(r'(?<!\w)"([^"\r\n]+)"(?!\w)'),
    re.compile(r"(?<!\w)'([^'\r\n]+)'(?!\w)"),  # the lookarounds keep possessives out
    re.compile("\u201c([^\u201d\r\n]+)\u201d"),
    re.compile("\u2018([^\u2019\r\n]+)\u2019"),
)
_PARTICLE = r"(?:van|von|de|del|der|da|di|la|le)"
_TITLE_WORD = r"[A-Z](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_])?"
_TITLE_TERM = rf"{_TITLE_WORD}(?:\s+(?:{_PARTICLE}\s+)?{_TITLE_WORD}){{0,5}}"
_BARE_TERM = r"[a-z][a-z0-9_.\-]+[a-z0-9_]"
_ALIAS = re.compile(
    rf"(?P<left>{_TITLE_TERM}|{_BARE_TERM})\s+(?i:aka|also\s+known\s+as)\s+"
    rf"(?P<right>{_TITLE_TERM}|{_BARE_TERM})"
)
_CAPITALISED_RUN = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")

# Words that make headings and status fragments far more often than names.
_GENERIC_WORDS = frozenset(
    {
        "active", "assistant", "config", "configuration", "confirmed", "current",
        "decision", "default", "detail", "details", "existing", "fact", "facts",
        "general", "important", "information", "memory", "new", "note", "notes",
        "previous", "project", "recent", "session", "setting", "settings", "status",
        "summary", "system", "task", "update", "user", "workflow",
    }
)  # fmt: skip
_EDGE_PUNCTUATION = " \t\r\n,;:!?()[]{}"


def clean_candidate(raw: str) -> str | None:
    """The normalised candidate, or ``None`` when it cannot plausibly be an entity."""
    candidate = unicodedata.normalize("NFKC", raw)
    candidate = re.sub(r"\s+", " ", candidate).strip(_EDGE_PUNCTUATION)
    candidate = re.sub(r"['\u2019]s$", "", candidate, flags=re.IGNORECASE).strip()
    if not candidate or len(candidate) > MAX_ENTITY_CHARS:
        return None
    if len(candidate.split()) > MAX_ENTITY_WORDS:
        return None
    alnum = [ch for ch in candidate if ch.isalnum()]
    if not alnum:
        return None
    if len(alnum) == 1 and alnum[0].isascii() and not alnum[0].isupper():
        return None
    return candidate


def candidate_key(name: str) -> str:
    """Case-folded with hyphens, underscores and spaces unified: "Foo-Bar" == "foo bar"."""
    return re.sub(r"[-_\s]+", " ", name.casefold()).strip()


def _at_sentence_start(text: str, start: int) -> bool:
    before = text[:start]
    return not before.strip() or re.search(r"(?:[.!?]\s*|\n\s*)$", before) is not None


def _is_generic_heading(name: str) -> bool:
    words = re.findall(r"[a-z0-9]+", name.casefold())
    if not words:
        return False
    return words[0] in {"no", "not"} or all(word in _GENERIC_WORDS for word in words)


def extract_entities(text: str) -> list[str]:
    """Entity names in ``text``, deduplicated, in order of first appearance."""
    events: list[tuple[int, int, str, str]] = []  # (start, priority, kind, raw)
    quoted_spans: list[tuple[int, int]] = []
    for pattern in _QUOTED:
        for match in pattern.finditer(text):
            quoted_spans.append(match.span(1))
            events.append((match.start(1), 0, "quoted", match.group(1)))
    for match in _ALIAS.finditer(text):
        for side in ("left", "right"):
            events.append((match.start(side), 1, "alias", match.group(side)))
    for match in _CAPITALISED_RUN.finditer(text):
        start, end = match.span(1)
        if any(q_start <= start and end <= q_end for q_start, q_end in quoted_spans):
            continue
        events.append((start, 2, "implicit", match.group(1)))

    names: list[str] = []
    seen: set[str] = set()
    for start, _priority, kind, raw in sorted(events):
        candidate = clean_candidate(raw)
        if candidate is None:
            continue
        if (
            kind == "implicit"
            and _at_sentence_start(text, start)
            and _is_generic_heading(candidate)
        ):
            continue
        key = candidate_key(candidate)
        if key not in seen:
            seen.add(key)
            names.append(candidate)
    return names
