"""The learning graph's edges and its density statistics (spec §2.5, §2.6, §2.8).

Skill↔skill edges come only from declared ``related_skills``. Memory→skill edges score
each skill against a card's title and body: +6 when the whole lower-case skill name
appears in the text, +1 per shared token (``[a-z0-9]+`` runs of 3+ characters); the
top 4 by (score, name) become edges.

Upstream compares every card with every skill. :class:`SkillMatcher` gives the same
answer from two look-up tables built once per set of skill names, so ten thousand
skills cost about what ten do.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from itertools import accumulate, compress, repeat
from operator import eq, le
from typing import Any, Protocol

MEMORY_EDGES_PER_CARD = 4
NAME_HIT_SCORE = 6
_TOKEN_SPLIT = re.compile(r"[^a-z0-9]+")


class SkillNodeLike(Protocol):
    name: str
    category: str
    created_by: Any
    use_count: int
    related: Sequence[str]


# ASCII characters that are not [a-z0-9] all become a space (for the fast path below).
_ASCII_SEPARATORS = str.maketrans(
    {chr(code): " " for code in range(128) if not chr(code).isdigit() and not "a" <= chr(code) <= "z"}
)


def tokens(text: str) -> set[str]:
    """Runs of ``[a-z0-9]`` of three or more characters (``text`` is already lower-case)."""
    if text.isascii():  # same split, a few times faster than the regex
        return {token for token in text.translate(_ASCII_SEPARATORS).split() if len(token) >= 3}
    return {token for token in _TOKEN_SPLIT.split(text) if len(token) >= 3}


# _ASCII_SEPARATORS that keeps line breaks, to translate many names in one call.
_NAME_SEPARATORS = {code: value for code, value in _ASCII_SEPARATORS.items() if code != ord("\n")}


def _name_tokens(lowered: list[str]) -> list[set[str]]:
    """``[tokens(name) for name in lowered]``, translating all the names at once."""
    joined = "\n".join(lowered)
    if not joined.isascii() or joined.count("\n") != len(lowered) - 1:
        return [tokens(name) for name in lowered]
    return [
        {token for token in piece.split() if len(token) >= 3}
        for piece in joined.translate(_NAME_SEPARATORS).split("\n")
    ]


#: Stands between the names in :func:`_lowered_and_flat`, and, translated, becomes a
#: token of its own there (a NUL in a name is a separator like any other character
#: outside [a-z0-9]).
_BETWEEN_NAMES = " \n "
_END_OF_NAME = "\x00"
# _ASCII_SEPARATORS with line breaks (only ever between names) as end-of-name marks: a
# one-to-one table, which str.translate applies many times faster than one that maps a
# character to several.
_FLAT_SEPARATORS = {**_ASCII_SEPARATORS, ord("\n"): _END_OF_NAME}


def _lowered_and_flat(names: Sequence[str]) -> tuple[list[str], str | None]:
    """The names lower-cased and, for ASCII names without line breaks, all of them as one
    text of their ``[a-z0-9]`` runs separated by spaces, with an end-of-name mark after
    each name's (see :func:`_flat_tokens`); found by one ``lower``, one translation and
    one split over all the names at once. None for other names (then
    :func:`_name_tokens`)."""
    joined = _BETWEEN_NAMES.join(names)
    if not joined.isascii() or joined.count("\n") != len(names) - 1:
        return [name.lower() for name in names], None
    lowered = joined.lower()  # ASCII: letter by letter, as each name's own lower()
    return lowered.split(_BETWEEN_NAMES), lowered.translate(_FLAT_SEPARATORS)


def _flat_tokens(flat_text: str) -> tuple[list[str], list[int]]:
    """The runs of a text from :func:`_lowered_and_flat` in order (runs under three
    characters included: no text token ever equals one), and for each the position of
    its name, plus one more (the count after the last)."""
    flat = flat_text.split()
    # the position of a token's name: how many end-of-name marks come before it
    return flat, list(accumulate(map(eq, flat, repeat(_END_OF_NAME)), initial=0))


def skill_edges(nodes: Sequence[SkillNodeLike], names: Collection[str] | None = None) -> list[tuple[str, str]]:
    """Undirected ``(min, max)`` name pairs for declared relations inside ``nodes``, in
    the order first declared. ``names``: the names of ``nodes``, when the caller has them."""
    if names is None:
        names = {node.name for node in nodes}
    edges: dict[tuple[str, str], None] = {}  # (a dict keeps the first place of each)
    for node in nodes:
        related = node.related
        if not related:
            continue
        name = node.name
        for other in related:
            if other in names and other != name:
                edges[(name, other) if name < other else (other, name)] = None
    return list(edges)


def density_stats(nodes: Sequence[SkillNodeLike], edges: Sequence[tuple[str, str]]) -> dict[str, Any]:
    count = len(nodes)
    denominator = max(count, 1)  # upstream's: an empty graph reads as 100% isolated
    linked = {name for edge in edges for name in edge}
    categories = Counter(node.category for node in nodes)
    return {
        "nodes": count,
        "related_edges": len(edges),
        "edges_per_node": round(len(edges) / denominator, 3),
        "linked_nodes": len(linked),
        "isolated_pct": round(100 * (denominator - len(linked)) / denominator, 1),
        "categories": len(categories),
        "agent_created": sum(1 for node in nodes if node.created_by == "agent"),
        "used": sum(1 for node in nodes if node.use_count > 0),
        "top_categories": [[name, n] for name, n in categories.most_common(8)],
    }


class SkillMatcher:
    """Scores memory text against a fixed list of skill names, as upstream does.

    A name's tokens are indexed only once some text holds them (most tokens of ten
    thousand names, each with its own number, are in no memory card): :meth:`prepare`
    indexes those of many texts in one pass over the names. Whole names are found in a
    text by looking up, at each place where a name's first three characters occur, the
    text's next few characters for each length such names have.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.names = tuple(names)
        lowered_names, self._flat_text = _lowered_and_flat(self.names)
        self._by_token: dict[str, list[int]] = {}
        self._looked_up: set[str] = set()  # tokens whose names are in _by_token (if any)
        if self._flat_text is None:  # index every token now, name by name
            by_token: defaultdict[str, list[int]] = defaultdict(list)
            for position, name_tokens in enumerate(_name_tokens(lowered_names)):
                for token in name_tokens:
                    by_token[token].append(position)
            self._by_token = dict(by_token)
        self._short: list[int] = []  # names under 3 characters: checked every time
        self._short_names: list[str] = []
        by_lowered: dict[str, list[int]] = {}  # names of 3+ characters, lower-cased
        lengths: defaultdict[str, set[int]] = defaultdict(set)  # their first three -> lengths
        for position, lowered in enumerate(lowered_names):
            if len(lowered) >= 3:
                hits = by_lowered.get(lowered)
                if hits is None:
                    by_lowered[lowered] = [position]
                    lengths[lowered[:3]].add(len(lowered))
                else:
                    hits.append(position)
            elif lowered:
                self._short.append(position)
                self._short_names.append(lowered)
        self._by_lowered = by_lowered
        self._lengths = {trigram: sorted(found) for trigram, found in lengths.items()}

    def prepare(self, texts: Iterable[str]) -> None:
        """Index the name tokens these texts hold, all in one pass (optional: :meth:`top`
        indexes what its text needs)."""
        wanted: set[str] = set()
        for text in texts:
            wanted |= tokens(text.lower())
        self._index(wanted)

    def _index(self, wanted: set[str]) -> None:
        if self._flat_text is None:
            return
        missing = wanted - self._looked_up
        if not missing:
            return
        self._looked_up |= missing
        # made again each time (a few ms): kept, the strings of 10,000 names would hold 2 MB
        flat, owners = _flat_tokens(self._flat_text)
        by_token = self._by_token
        for token, position in compress(zip(flat, owners, strict=False), map(missing.__contains__, flat)):
            hits = by_token.get(token)
            if hits is None:
                by_token[token] = [position]
            elif hits[-1] != position:  # a name holds a token once
                hits.append(position)

    def _named(self, text: str) -> set[int]:
        """The names (positions) that occur in ``text`` (lower-cased) as a whole."""
        found = set(compress(self._short, map(text.__contains__, self._short_names)))
        lengths_of, by_lowered = self._lengths, self._by_lowered
        for start in range(len(text) - 2):
            lengths = lengths_of.get(text[start : start + 3])
            if lengths:
                for length in lengths:
                    hits = by_lowered.get(text[start : start + length])
                    if hits:
                        found.update(hits)
        return found

    def top(self, text: str, limit: int = MEMORY_EDGES_PER_CARD) -> list[str]:
        """The best-scoring names for ``text`` (title + "\\n" + body), best first."""
        text = text.lower()
        words = tokens(text)
        self._index(words)
        scores: Counter[int] = Counter()
        by_token = self._by_token
        for token in words:
            hits = by_token.get(token)
            if hits:
                scores.update(hits)  # counted in C; each name holds a token once
        for position in self._named(text):
            scores[position] += NAME_HIT_SCORE
        if limit <= 0:
            return []
        names = self.names
        if len(scores) <= limit:
            return [name for _score, name in sorted((-score, names[at]) for at, score in scores.items())]
        # only scores at or above the limit-th best can make it: find that score from the
        # counts of each score
        levels = Counter(scores.values())
        kept = 0
        for threshold in sorted(levels, reverse=True):
            kept += levels[threshold]
            if kept >= limit:
                break
        above, tied = [], []
        for position in compress(scores, map(le, repeat(threshold), scores.values())):  # (in C)
            (above if scores[position] > threshold else tied).append(position)
        best = [name for _score, name in sorted((-scores[at], names[at]) for at in above)]
        # many names can tie at the threshold (hundreds share one token with the text):
        # pick the few first by name without sorting them all
        from heapq import nsmallest  # here: a graph build's imports are part of its start

        return best + nsmallest(limit - len(best), map(names.__getitem__, tied))


def memory_skill_edges_naive(texts: Sequence[str], names: Sequence[str]) -> list[list[str]]:
    """The upstream algorithm, kept as the reference :class:`SkillMatcher` is tested on."""
    result = []
    for text in texts:
        lowered = text.lower()
        words = tokens(lowered)
        scored = []
        for name in names:
            score = (NAME_HIT_SCORE if name.lower() in lowered else 0) + len(
                tokens(name.lower()) & words
            )
            if score > 0:
                scored.append((-score, name))
        scored.sort()
        result.append([name for _score, name in scored[:MEMORY_EDGES_PER_CARD]])
    return result
