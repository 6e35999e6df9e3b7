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
from collections.abc import Iterable, Sequence
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


_FLAT_TOKENS = re.compile(r"[a-z0-9]{3,}|\n")


def _flat_name_tokens(lowered: list[str]) -> list[str] | None:
    """The tokens of every name in order, each name's followed by "\\n" (found by one
    regular expression over all the names at once), or None for names that are not ASCII
    or hold a line break (then :func:`_name_tokens`)."""
    joined = "\n".join(lowered)
    if not joined.isascii() or joined.count("\n") != len(lowered) - 1:
        return None
    return _FLAT_TOKENS.findall(joined.translate(_NAME_SEPARATORS) + "\n")


def skill_edges(nodes: Sequence[SkillNodeLike]) -> list[tuple[str, str]]:
    """Undirected ``(min, max)`` name pairs for declared relations inside ``nodes``."""
    names = {node.name for node in nodes}
    seen: set[tuple[str, str]] = set()
    edges: list[tuple[str, str]] = []
    for node in nodes:
        related = node.related
        if not related:
            continue
        name = node.name
        for other in related:
            if other not in names or other == name:
                continue
            pair = (name, other) if name < other else (other, name)
            if pair not in seen:
                seen.add(pair)
                edges.append(pair)
    return edges


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
    """Scores memory text against a fixed list of skill names, as upstream does."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = tuple(names)
        by_token: defaultdict[str, list[int]] = defaultdict(list)
        by_trigram: defaultdict[str, list[int]] = defaultdict(list)
        self._short: list[int] = []  # names under 3 characters: checked every time
        self._lowered = lowered_names = [name.lower() for name in self.names]
        flat = _flat_name_tokens(lowered_names)
        if flat is not None:
            position = 0
            for token in flat:  # each name's tokens, then a line break
                if token == "\n":
                    position += 1
                    continue
                hits = by_token[token]
                if not hits or hits[-1] != position:  # a name holds a token once
                    hits.append(position)
        else:
            for position, name_tokens in enumerate(_name_tokens(lowered_names)):
                for token in name_tokens:
                    by_token[token].append(position)
        for position, lowered in enumerate(lowered_names):
            if len(lowered) >= 3:
                by_trigram[lowered[:3]].append(position)
            elif lowered:
                self._short.append(position)
        self._by_token = dict(by_token)
        self._by_trigram = dict(by_trigram)

    def top(self, text: str, limit: int = MEMORY_EDGES_PER_CARD) -> list[str]:
        """The best-scoring names for ``text`` (title + "\\n" + body), best first."""
        text = text.lower()
        scores: Counter[int] = Counter()
        by_token = self._by_token
        for token in tokens(text):
            hits = by_token.get(token)
            if hits:
                scores.update(hits)  # counted in C; each name holds a token once
        # a name can only occur in the text where its first three characters do
        candidates = set(self._short)
        by_trigram = self._by_trigram
        if len(by_trigram) < len(text):
            for trigram, hits in by_trigram.items():
                if trigram in text:
                    candidates.update(hits)
        else:
            for start in range(len(text) - 2):
                hits = by_trigram.get(text[start : start + 3])
                if hits:
                    candidates.update(hits)
        lowered = self._lowered
        for position in candidates:
            if lowered[position] in text:
                scores[position] += NAME_HIT_SCORE
        names = self.names
        if limit <= 0:
            return []
        if len(scores) > limit:
            # only scores at or above the limit-th best can make it: find that score
            # from the counts of each score, then sort just those
            levels = Counter(scores.values())
            kept = 0
            for threshold in sorted(levels, reverse=True):
                kept += levels[threshold]
                if kept >= limit:
                    break
            best = [(-score, names[position]) for position, score in scores.items() if score >= threshold]
        else:
            best = [(-score, names[position]) for position, score in scores.items()]
        # many names can tie at the threshold (hundreds share one token with the text):
        # pick the few best without sorting them all
        from heapq import nsmallest  # here: a graph build's imports are part of its start

        return [name for _score, name in nsmallest(limit, best)]


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
