"""Ranking facts (spec §10, "Search" and "Retrieval actions").

``search`` is hybrid: full-text candidates, re-ranked by FTS rank, token overlap and
(with NumPy) HRR similarity, then weighted by trust and optional age decay. The entity
actions use the HRR algebra and fall back to keyword search without NumPy.

One deliberate fix over upstream: ``probe`` and ``reason`` there compare the residual
of unbinding the entity key against the fact's content part. With phase bundling that
residual is uncorrelated with the content part whether or not the entity is in the
fact, so those scores were noise and the ranking came down to trust. Here the residual
is compared with the identity (zero phase), which is the same as comparing the fact
vector with the entity key: facts that hold the entity score about 0.6, others about 0.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any

from . import hrr
from .store import FactStore

CATEGORIES = ("user_pref", "project", "tool", "general")
CONTRADICTION_THRESHOLD = 0.3
MAX_CONTRADICT_FACTS = 500
_VECTOR_COLUMNS = (
    "fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, "
    "created_at, updated_at, hrr_vector"
)

# Function words with no retrieval signal; left in, they only add noise to the OR query.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing don down during each
    few for from further had has have having he her here hers herself him himself his how i
    if in into is it its itself just me more most my myself no nor not now of off on once
    only or other our ours ourselves out over own same she should so some such than that
    the their theirs them themselves then there these they this those through to too under
    until up very was we were what when where which while who whom why will with would you
    your yours yourself yourselves""".split()
)
_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))
_JACCARD_PUNCTUATION = ".,;:!?\"'()[]{}#@<>"


def is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def cjk_runs(text: str) -> list[str]:
    runs, current = [], []
    for ch in text:
        if is_cjk(ch):
            current.append(ch)
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return runs


def fts_match_expression(query: str) -> str:
    """A safe FTS5 MATCH string: significant tokens, each quoted, OR-joined.

    FTS5 AND-joins bare words, which kills recall on natural-language questions, and
    some punctuation is FTS5 syntax. CJK runs of three or more characters become
    overlapping 3-character shingles. ``""`` when nothing significant is left.
    """
    lowered = (query or "").lower()
    terms: list[str] = []
    for run in cjk_runs(lowered):
        terms += [run[i : i + 3] for i in range(len(run) - 2)]
    latin = "".join(" " if is_cjk(ch) else ch for ch in lowered)
    for token in re.sub(r"[^\w\s]|_", " ", latin).split():
        if len(token) >= 2 and token not in STOPWORDS:
            terms.append(token)
    unique = list(dict.fromkeys(terms))
    return " OR ".join(f'"{term}"' for term in unique)


def tokenize(text: str) -> set[str]:
    """Tokens for overlap scoring: lower-cased words without edge punctuation, CJK bigrams."""
    tokens: set[str] = set()
    for word in (text or "").lower().split():
        cleaned = word.strip(_JACCARD_PUNCTUATION)
        if not cleaned:
            continue
        latin = "".join(ch for ch in cleaned if not is_cjk(ch))
        tokens.update(part for part in latin.replace("/", " ").replace("=", " ").split() if part)
        cjk = "".join(ch for ch in cleaned if is_cjk(ch))
        if len(cjk) == 1:
            tokens.add(cjk)
        else:
            tokens.update(cjk[i : i + 2] for i in range(len(cjk) - 1))
    return tokens


def jaccard(a: set[str], b: set[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def _age_days(timestamp: str | None) -> float:
    if not timestamp:
        return 0.0
    try:
        moment = datetime.fromisoformat(str(timestamp))
    except ValueError:
        return 0.0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # SQLite's CURRENT_TIMESTAMP is UTC
    return max(0.0, (datetime.now(UTC) - moment).total_seconds() / 86400.0)


class FactRetriever:
    """Trust-weighted retrieval over a :class:`FactStore`."""

    def __init__(
        self,
        store: FactStore,
        temporal_decay_half_life: float = 0,
        fts_weight: float = 0.4,
        jaccard_weight: float = 0.3,
        hrr_weight: float = 0.3,
        hrr_dim: int = 1024,
    ) -> None:
        self.store = store
        self.half_life = temporal_decay_half_life
        self.hrr_dim = hrr_dim
        self.configured_weights = (fts_weight, jaccard_weight, hrr_weight)

    @property
    def vectors_enabled(self) -> bool:
        return self.store.vectors_enabled

    @property
    def weights(self) -> tuple[float, float, float]:
        """(fts, overlap, vector) weights; without vectors the vector share is redistributed."""
        fts_weight, jaccard_weight, hrr_weight = self.configured_weights
        if hrr_weight > 0 and not self.vectors_enabled:
            return 0.6, 0.4, 0.0
        return fts_weight, jaccard_weight, hrr_weight

    # --- search ---------------------------------------------------------------------------
    def search(
        self, query: str, category: str | None = None, min_trust: float = 0.3, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Facts for ``query``, best first, each with ``fts_rank`` and ``score``."""
        candidates = self._candidates(query, category, min_trust, limit * 3)
        if not candidates:
            return []
        fts_weight, jaccard_weight, hrr_weight = self.weights
        query_tokens = tokenize(query)
        query_vector = None
        for fact in candidates:
            overlap = jaccard(
                query_tokens, tokenize(fact["content"]) | tokenize(fact.get("tags") or "")
            )
            blob = fact.pop("hrr_vector", None)
            if hrr_weight > 0 and blob:
                if query_vector is None:
                    query_vector = hrr.encode_text(query, self.hrr_dim)
                vector_similarity = (
                    hrr.similarity(query_vector, hrr.bytes_to_phases(blob, self.hrr_dim)) + 1
                ) / 2
            else:
                vector_similarity = 0.5  # neutral for facts without a vector
            relevance = (
                fts_weight * fact["fts_rank"]
                + jaccard_weight * overlap
                + hrr_weight * vector_similarity
            )
            fact["score"] = relevance * fact["trust_score"] * self._decay(fact)
        candidates.sort(key=lambda fact: fact["score"], reverse=True)
        return candidates[:limit]

    def _decay(self, fact: dict[str, Any]) -> float:
        if not self.half_life or self.half_life <= 0:
            return 1.0
        return 0.5 ** (_age_days(fact.get("updated_at") or fact.get("created_at")) / self.half_life)

    def _candidates(
        self, query: str, category: str | None, min_trust: float, limit: int
    ) -> list[dict[str, Any]]:
        conn = self.store.connection
        rows: list[dict[str, Any]] = []
        match = fts_match_expression(query)
        if match:
            sql = (
                "SELECT f.*, facts_fts.rank AS raw_rank FROM facts_fts "
                "JOIN facts f ON f.fact_id = facts_fts.rowid "
                "WHERE facts_fts MATCH ? AND f.trust_score >= ?"
            )
            params: list[Any] = [match, min_trust]
            if category:
                sql += " AND f.category = ?"
                params.append(category)
            sql += " ORDER BY facts_fts.rank LIMIT ?"
            params.append(limit)
            with self.store.lock:
                rows = [dict(row) for row in conn.execute(sql, params)]
        if rows:
            top = max(max(abs(row["raw_rank"]) for row in rows), 1e-6)
            for row in rows:
                row["fts_rank"] = abs(row.pop("raw_rank")) / top
        # The default tokenizer keeps a CJK run as one token, so short CJK queries rarely
        # match through FTS: add substring hits for each run.
        runs = [run for run in cjk_runs(query or "") if len(run) >= 2][:4]
        if runs:
            seen = {row["fact_id"] for row in rows}
            like_score = 0.5 if rows else 1.0
            for row in self._substring_hits(runs, category, min_trust, limit):
                if row["fact_id"] not in seen:
                    row["fts_rank"] = like_score
                    rows.append(row)
                    seen.add(row["fact_id"])
        return rows

    def _substring_hits(
        self, runs: list[str], category: str | None, min_trust: float, limit: int
    ) -> list[dict[str, Any]]:
        hits = []
        for run in runs:
            sql = "SELECT * FROM facts WHERE (content LIKE ? OR tags LIKE ?) AND trust_score >= ?"
            params: list[Any] = [f"%{run}%", f"%{run}%", min_trust]
            if category:
                sql += " AND category = ?"
                params.append(category)
            sql += " ORDER BY updated_at DESC LIMIT ?"
            params.append(max(limit, 10))
            with self.store.lock:
                hits += [dict(row) for row in self.store.connection.execute(sql, params)]
        return hits

    # --- entity actions ----------------------------------------------------------------------
    def _facts_with_vectors(self, category: str | None) -> list[dict[str, Any]]:
        sql = f"SELECT {_VECTOR_COLUMNS} FROM facts WHERE hrr_vector IS NOT NULL"
        params: list[Any] = []
        if category:
            sql += " AND category = ?"
            params.append(category)
        with self.store.lock:
            rows = [dict(row) for row in self.store.connection.execute(sql, params)]
        for row in rows:
            row["vector"] = hrr.bytes_to_phases(row.pop("hrr_vector"), self.hrr_dim)
        return rows

    @staticmethod
    def _ranked(facts: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
        for fact in facts:
            fact.pop("vector", None)
        facts.sort(key=lambda fact: (-fact["score"], fact["fact_id"]))
        return facts[:limit]

    def probe(
        self, entity: str, category: str | None = None, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Facts in which ``entity`` is bound in the entity role, best first."""
        if not self.vectors_enabled:
            return self.search(entity, category=category, limit=limit)
        facts = self._facts_with_vectors(category)
        if not facts:
            return self.search(entity, category=category, limit=limit)
        key = hrr.entity_key(entity, self.hrr_dim)
        for fact in facts:
            presence = hrr.similarity(fact["vector"], key)  # == residual of unbinding vs identity
            fact["score"] = (presence + 1) / 2 * fact["trust_score"]
        return self._ranked(facts, limit)

    def related(
        self, entity: str, category: str | None = None, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Facts where ``entity`` appears in any role (entity or content), best first."""
        if not self.vectors_enabled:
            return self.search(entity, category=category, limit=limit)
        facts = self._facts_with_vectors(category)
        if not facts:
            return self.search(entity, category=category, limit=limit)
        atom = hrr.encode_atom(entity.lower(), self.hrr_dim)
        roles = (
            hrr.encode_atom(hrr.ROLE_ENTITY, self.hrr_dim),
            hrr.encode_atom(hrr.ROLE_CONTENT, self.hrr_dim),
        )
        for fact in facts:
            residual = hrr.unbind(fact["vector"], atom)
            best = max(hrr.similarity(residual, role) for role in roles)
            fact["score"] = (best + 1) / 2 * fact["trust_score"]
        return self._ranked(facts, limit)

    def reason(
        self, entities: list[str], category: str | None = None, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Facts that hold ALL of ``entities`` (AND via the weakest entity's presence)."""
        if not self.vectors_enabled or not entities:
            return self.search(" ".join(entities), category=category, limit=limit)
        facts = self._facts_with_vectors(category)
        if not facts:
            return self.search(" ".join(entities), category=category, limit=limit)
        keys = [hrr.entity_key(entity, self.hrr_dim) for entity in entities]
        for fact in facts:
            weakest = min(hrr.similarity(fact["vector"], key) for key in keys)
            fact["score"] = (weakest + 1) / 2 * fact["trust_score"]
        return self._ranked(facts, limit)

    def contradict(
        self,
        category: str | None = None,
        threshold: float = CONTRADICTION_THRESHOLD,
        limit: int = 10,
    ) -> list[dict[str, Any]]:
        """Pairs about the same entities whose content diverges; ``[]`` without NumPy."""
        if not self.vectors_enabled:
            return []
        facts = self._facts_with_vectors(category)
        if len(facts) < 2:
            return []
        if len(facts) > MAX_CONTRADICT_FACTS:  # pairs grow quadratically: keep the newest
            facts.sort(key=lambda f: f["updated_at"] or f["created_at"] or "", reverse=True)
            facts = facts[:MAX_CONTRADICT_FACTS]
        names = {
            fact["fact_id"]: {
                name.lower() for name in self.store.fact_entity_names(fact["fact_id"])
            }
            for fact in facts
        }
        pairs = []
        for i, first in enumerate(facts):
            for second in facts[i + 1 :]:
                a, b = names[first["fact_id"]], names[second["fact_id"]]
                if not a or not b:
                    continue
                overlap = len(a & b) / len(a | b)
                if overlap < 0.3:
                    continue
                content_similarity = hrr.similarity(first["vector"], second["vector"])
                score = overlap * (1 - (content_similarity + 1) / 2)
                if score >= threshold:
                    pairs.append(
                        {
                            "fact_a": _public(first),
                            "fact_b": _public(second),
                            "entity_overlap": round(overlap, 3),
                            "content_similarity": round(content_similarity, 3),
                            "contradiction_score": round(score, 3),
                            "shared_entities": sorted(a & b),
                        }
                    )
        pairs.sort(key=lambda pair: pair["contradiction_score"], reverse=True)
        return pairs[:limit]


def _public(fact: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value for key, value in fact.items() if key not in ("vector", "hrr_vector", "score")
    }


def half_life_days(value: Any) -> float:
    try:
        days = float(value)
    except (TypeError, ValueError):
        return 0.0
    return days if math.isfinite(days) and days > 0 else 0.0
