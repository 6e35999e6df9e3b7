"""Consolidation: near-duplicate and overlapping entries in MEMORY.md and USER.md.

Finding groups (:func:`find_groups`) compares every pair of entries of both stores, which
is cheap because a full pair of stores holds a few dozen entries (a few hundred at most).
Each entry becomes a set of content words (case-folded, stop words dropped, a plural
``s`` trimmed) and a set of word pairs (shingles). For a pair:

* ``jaccard``: shared words / all words; ``containment``: shared words / the smaller set;
  ``shingles``: Jaccard of the word pairs (word order);
* a pair with ``jaccard`` >= :data:`DUPLICATE_JACCARD` is a ``duplicate``; one with
  ``shingles`` >= :data:`OVERLAP_SHINGLES` is an ``overlap``, and so is one with at least
  :data:`MIN_SHARED_WORDS` shared words and ``containment`` >= :data:`OVERLAP_CONTAINMENT`
  or ``jaccard`` >= :data:`OVERLAP_JACCARD` is an ``overlap``, confirmed by difflib's
  ratio on the normalised text (at least :data:`OVERLAP_RATIO`) so that two entries that
  merely share a vocabulary ("the project uses ...") are not grouped; so is a short
  entry (two words or more) whose content words open a longer one ("User works from
  Berlin." and "User works from Berlin, UTC+1, ...");
* never when both entries name versions, hosts, paths or ids (words with a digit, ``.``,
  ``/``, ``@``, ``:``, ``_`` or ``-``) and share none of them: "Staging API URL is
  https://api.staging.acme.dev" and "Production API URL is https://api.acme.dev" are two
  facts;
* connected pairs form a group; its ``score`` is the best pair's similarity.

The characters a merge would save are estimated as if the longest entry were kept and
only the words of the others it lacks were added to it; a proposal (:func:`propose`)
replaces that estimate with the real count of the merged text.

Stale entries are flagged too (:func:`stale_entries`):

* ``superseded``: a later entry of the same store says the earlier one no longer holds:
  it negates a word the earlier one states ("not npm", "no longer uses npm", "instead
  of npm", "rather than npm", "switched from npm", "replaced npm", "moved from npm",
  "dropped npm");
* ``unreferenced`` (only with ``state.db``): the history reaches back at least
  :data:`UNREFERENCED_DAYS` days, the entry was not written in that window, and no
  message of that window mentions its key words (its two longest content words).
"""

from __future__ import annotations

import difflib
import hashlib
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .entries import FILE_NAMES, TARGETS, char_count, fingerprint, preview
from .store import MemoryStore, StoreReadError

DUPLICATE_JACCARD = 0.6
OVERLAP_SHINGLES = 0.5
OVERLAP_CONTAINMENT = 0.6
OVERLAP_JACCARD = 0.4
OVERLAP_RATIO = 0.35
MIN_SHARED_WORDS = 3
UNREFERENCED_DAYS = 90
_DELIMITER_CHARS = 3  # "\n§\n"

_WORD = re.compile(r"[a-z0-9][a-z0-9_+#.\-]*[a-z0-9+#]|[a-z0-9]")
STOP_WORDS = frozenset(
    """a an the and or but if then so of to in on at by for with from into onto as is are was
    were be been being it its this that these those there here i me my we our you your he she
    they them their his her user user's users has have had do does did can could should would
    will shall may might must not no yes all any some each every more most very also just only
    than too about over under after before when where which who what how why via per use uses
    used using always never prefers prefer likes like wants want""".split()
)
_NAME_LIKE = re.compile(r"[0-9./@:_\-]")
_NEGATED = re.compile(
    r"\b(?:not|never|no longer(?: uses?| using)?|instead of|rather than|switched from|"
    r"replaced|moved (?:away )?from|dropped|stopped using)\s+([a-z0-9][a-z0-9_+#.\-]*)"
)
# What an earlier entry already rules out ("fish over bash"): a later "not bash" agrees.
_RULED_OUT = re.compile(
    r"\b(?:not|never|no longer(?: uses?| using)?|instead of|rather than|switched from|"
    r"replaced|moved (?:away )?from|dropped|stopped using|over|without|avoids?|vs\.?)\s+"
    r"([a-z0-9][a-z0-9_+#.\-]*)"
)


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(slots=True)
class Entry:
    target: str
    index: int  # position in its store
    text: str
    words: frozenset[str] = field(default_factory=frozenset)
    shingles: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    flat: str = ""  # the content words in order, for difflib
    names: frozenset[str] = field(default_factory=frozenset)  # versions, hosts, paths, ids

    @property
    def id(self) -> str:
        return fingerprint(self.text)

    def as_dict(self) -> dict[str, Any]:
        return {
            "target": self.target, "file": FILE_NAMES[self.target], "index": self.index,
            "fingerprint": self.id, "text": self.text, "chars": len(self.text),
        }


def make_entry(target: str, index: int, text: str) -> Entry:
    tokens = [_stem(w) for w in _WORD.findall(normalise(text))]
    content = [w for w in tokens if w not in STOP_WORDS]
    return Entry(
        target, index, text, frozenset(content), frozenset(zip(content, content[1:], strict=False)),
        " ".join(content), frozenset(w for w in content if _NAME_LIKE.search(w)),
    )


@dataclass(frozen=True, slots=True)
class PairScore:
    kind: str | None  # "duplicate", "overlap" or None
    score: float
    jaccard: float
    containment: float
    shingles: float


_NO_MATCH = PairScore(None, 0.0, 0.0, 0.0, 0.0)


def compare(a: Entry, b: Entry) -> PairScore:
    """How alike two entries are (see the module docstring)."""
    # Most pairs of a store share no content word: answer those with one set operation.
    shared = len(a.words & b.words)
    if not shared or (a.names and b.names and a.names.isdisjoint(b.names)):
        return _NO_MATCH  # (names: the same sentence about another version, host or id)
    small = min(len(a.words), len(b.words))
    jaccard = shared / (len(a.words) + len(b.words) - shared)
    containment = shared / small
    common_pairs = len(a.shingles & b.shingles)
    union = len(a.shingles) + len(b.shingles) - common_pairs
    shingles = common_pairs / union if union else 0.0
    kind = None
    score = max(jaccard, shingles)
    if jaccard >= DUPLICATE_JACCARD:
        kind = "duplicate"
    elif shingles >= OVERLAP_SHINGLES:
        kind = "overlap"  # long runs of the same words, one entry longer than the other
    elif shared >= MIN_SHARED_WORDS and (containment >= OVERLAP_CONTAINMENT or jaccard >= OVERLAP_JACCARD):
        ratio = difflib.SequenceMatcher(None, a.flat, b.flat, autojunk=False).ratio()
        if ratio >= OVERLAP_RATIO:
            kind = "overlap"
            score = max(score, (jaccard + containment + ratio) / 3)
    elif shared >= 2 and containment == 1.0 and _inside(a.flat, b.flat):
        kind = "overlap"  # a short entry repeated word for word at the start of a longer one
        score = max(score, (jaccard + containment) / 2)
    if kind is None:
        return _NO_MATCH
    return PairScore(kind, round(score, 3), round(jaccard, 3), round(containment, 3), round(shingles, 3))


def _inside(a: str, b: str) -> bool:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long.startswith(short + " ")


def is_near_duplicate(a: str, b: str) -> bool:
    """True when two entry texts would be grouped (the labelled-set tests use this)."""
    return compare(make_entry("memory", 0, a), make_entry("memory", 1, b)).kind is not None


# --- reading the stores ---------------------------------------------------------------
@dataclass
class Stores:
    entries: dict[str, list[str]]
    limits: dict[str, int]
    errors: dict[str, str]


def read_stores(home) -> Stores:
    store = MemoryStore(home)
    entries: dict[str, list[str]] = {}
    errors: dict[str, str] = {}
    for target in TARGETS:
        try:
            entries[target] = store.read_entries(target)
        except StoreReadError as exc:
            entries[target] = []
            errors[target] = str(exc)
    return Stores(entries, {t: store.limit(t) for t in TARGETS}, errors)


# --- groups ---------------------------------------------------------------------------
def _merge_estimate(
    members: Sequence[Entry], outdated: set[tuple[str, int]]
) -> tuple[Entry, dict[str, int]]:
    """The entry to keep (the longest one no later entry contradicts) and the characters
    each store would save by a merge."""
    keeper = max(members, key=lambda e: ((e.target, e.index) not in outdated, len(e.text), -e.index))
    saved = dict.fromkeys(TARGETS, 0)
    known = set(keeper.words)
    for other in members:
        if other is keeper:
            continue
        saved[other.target] += len(other.text) + _DELIMITER_CHARS
        novel = other.words - known
        known |= novel
        saved[keeper.target] -= sum(len(w) + 1 for w in novel)
    return keeper, saved


def _group_id(members: Sequence[Entry]) -> str:
    joined = "|".join(sorted(f"{e.target}:{e.id}" for e in members))
    return "g" + hashlib.sha256(joined.encode()).hexdigest()[:10]


def meter_text(used: int, after: int, limit: int) -> str:
    return f"{used:,} → {after:,} / {limit:,}"


def find_groups(
    entries: dict[str, list[str]], limits: dict[str, int], outdated: set[tuple[str, int]] = frozenset()
) -> dict[str, Any]:
    """Groups of alike entries over both stores, with scores and projected meters.
    ``outdated``: ``(target, index)`` of superseded entries, never chosen as the one to keep."""
    items = [make_entry(t, i, text) for t in TARGETS for i, text in enumerate(entries.get(t, []))]
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    pairs = []
    for i, a in enumerate(items):
        for j in range(i + 1, len(items)):
            result = compare(a, items[j])
            if result.kind is not None:
                pairs.append((i, j, result))
                parent[root(j)] = root(i)
    members: dict[int, list[int]] = {}
    for i in range(len(items)):
        members.setdefault(root(i), []).append(i)
    by_root: dict[int, list[tuple[int, int, PairScore]]] = {}
    for pair in pairs:
        by_root.setdefault(root(pair[0]), []).append(pair)
    used = {t: char_count(entries.get(t, [])) for t in TARGETS}
    total_saved = dict.fromkeys(TARGETS, 0)
    groups = []
    for indices in members.values():
        if len(indices) < 2:
            continue
        group = [items[i] for i in indices]
        inside = by_root[root(indices[0])]
        keeper, saved = _merge_estimate(group, outdated)
        for target in TARGETS:
            total_saved[target] += saved[target]
        kind = "duplicate" if all(r.kind == "duplicate" for *_, r in inside) else "overlap"
        groups.append({
            "id": _group_id(group),
            "kind": kind,
            "score": max(r.score for *_, r in inside),
            "entries": [e.as_dict() for e in group],
            "keep": keeper.id,
            "pairs": [
                {"a": items[i].id, "b": items[j].id, "kind": r.kind, "score": r.score,
                 "jaccard": r.jaccard, "containment": r.containment, "shingles": r.shingles}
                for i, j, r in inside
            ],
            "saves": sum(saved.values()),
            "saves_by_store": {t: saved[t] for t in TARGETS if saved[t]},
            "meters": {
                t: meter_text(used[t], used[t] - saved[t], limits[t])
                for t in TARGETS if any(e.target == t for e in group)
            },
        })
    groups.sort(key=lambda g: (-g["saves"], -g["score"]))
    return {
        "groups": groups,
        "count": len(groups),
        "saves": sum(total_saved.values()),
        "meters": {
            t: {"used": used[t], "after": used[t] - total_saved[t], "limit": limits[t],
                "text": meter_text(used[t], used[t] - total_saved[t], limits[t])}
            for t in TARGETS
        },
    }


# --- stale entries --------------------------------------------------------------------
def superseded(entries: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Earlier entries a later entry of the same store contradicts (see the docstring)."""
    found = []
    for target in TARGETS:
        items = [make_entry(target, i, text) for i, text in enumerate(entries.get(target, []))]
        negations = [_negated_words(_NEGATED, e.text) for e in items]
        ruled_out = [_negated_words(_RULED_OUT, e.text) for e in items]
        for later_index, later in enumerate(items):
            for word in negations[later_index]:
                if word in STOP_WORDS:
                    continue
                for earlier in items[:later_index]:
                    if word in earlier.words and word not in ruled_out[earlier.index]:
                        found.append({
                            "reason": "superseded",
                            "entry": earlier.as_dict(),
                            "by": later.as_dict(),
                            "word": word,
                            "message": (
                                f"A later entry says '{word}' no longer holds: "
                                f"'{preview(later.text, 60)}'."
                            ),
                        })
    return found


def _negated_words(pattern: re.Pattern[str], text: str) -> set[str]:
    return {_stem(w.rstrip(".,;:")) for w in pattern.findall(normalise(text))}


def _key_words(entry: Entry) -> list[str]:
    return sorted(entry.words, key=lambda w: (-len(w), w))[:2]


def unreferenced(home, entries: dict[str, list[str]], *, now: float | None = None) -> list[dict[str, Any]]:
    """Entries no session of the last :data:`UNREFERENCED_DAYS` days wrote or mentions."""
    if not home.state_db.is_file():
        return []
    from ..sessions.errors import SessionStoreError
    from ..sessions.provenance import memory_provenance
    from ..sessions.store import SessionStore

    now = time.time() if now is None else now
    since = now - UNREFERENCED_DAYS * 86_400
    texts = [text for t in TARGETS for text in entries.get(t, [])]
    found = []
    try:
        with SessionStore(home.state_db) as store:
            oldest = store.query_one("SELECT MIN(timestamp) AS t FROM messages")
            if oldest is None or oldest["t"] is None or oldest["t"] > since:
                return []  # the history is too short to say "not for months"
            provenance = memory_provenance(store, texts)
            for target in TARGETS:
                for index, text in enumerate(entries.get(target, [])):
                    written = provenance.get(text)
                    if written is not None and (written.last_changed or 0) >= since:
                        continue
                    entry = make_entry(target, index, text)
                    words = _key_words(entry)
                    if not words:
                        continue
                    clause = " AND ".join("lower(content) LIKE ? ESCAPE '\\'" for _ in words)
                    params = [f"%{_like(w)}%" for w in words]
                    hit = store.query_one(
                        f"SELECT 1 FROM messages WHERE timestamp >= ? AND {clause} LIMIT 1",  # noqa: S608
                        [since, *params],
                    )
                    if hit is None:
                        found.append({
                            "reason": "unreferenced", "entry": entry.as_dict(), "words": words,
                            "message": (
                                f"No session in the last {UNREFERENCED_DAYS} days wrote it or "
                                f"mentioned {' and '.join(repr(w) for w in words)}."
                            ),
                        })
    except SessionStoreError:
        return []
    return found


def _like(word: str) -> str:
    return word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def consolidation_report(home) -> dict[str, Any]:
    """Groups, stale entries and read errors for a home (the CLI and the api use this)."""
    stores = read_stores(home)
    replaced = superseded(stores.entries)
    outdated = {(s["entry"]["target"], s["entry"]["index"]) for s in replaced}
    report = find_groups(stores.entries, stores.limits, outdated)
    report["stale"] = replaced + unreferenced(home, stores.entries)
    report["errors"] = stores.errors
    report["thresholds"] = {"unreferenced_days": UNREFERENCED_DAYS}
    return report
