"""``build_learning_graph``: what the agent has learned, as the upstream JSON payload.

The payload matches spec §2.9 key for key, so anything written for upstream reads it::

    {"nodes": [...skills, ...memory cards], "edges": [...skill-skill, ...memory-skill],
     "clusters": [{"category", "count"}], "memory": [cards], "stats": {...}}

and adds, without changing any upstream key:

* ``warnings``: files that could not be read and were skipped (upstream failed whole);
* per skill node: ``source``, ``provenance``, ``learned``, ``directory``,
  ``description``, ``tags``, ``related``, ``viewCount``, ``patchCount``,
  ``lastUsedAt``, ``lastViewedAt``, ``lastPatchedAt``, ``createdAt`` (epoch seconds),
  ``healthCount`` and ``healthCodes`` (see :mod:`hermes_memory.skills.health`);
* per memory node: ``fingerprint``, ``file``; per card in ``memory``: ``id``.

``include_all=True`` shows every skill (base, external, unused) instead of the learned
ones; edges, clusters and density stats then cover every shown skill, and
``stats.learned_skills`` still counts the learned ones.

Two small departures from upstream, both display-only: the "memory" cluster adds the
card count to any skill category that happens to be named "memory" instead of replacing
it, and memory card times may come from session history (``memory_timestamps``).

:class:`GraphBuilder` keeps what it read, so rebuilding after one file changed re-reads
that file only (pass ``changed=`` from a folder watcher to skip even the ``stat`` calls);
:func:`build_learning_graph` is the one-shot form.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from itertools import chain, compress, count
from operator import is_not
from typing import Any

from ..history.provenance import GraphProvenance
from ..home import HermesHome
from ..pausing import gc_paused, pause_point
from ..skills.health import NodeHealth
from ..skills.index import Skill, SkillIndex, SkillScan
from ..skills.roots import PROFILE
from ..skills.usage import (
    _EPOCH_CACHE,
    LEARNED_CREATORS,
    UsageSnapshot,
    count_value,
    has_learning_signal,
    read_usage,
    record_timestamp,
    to_epoch,
)
from .edges import SkillMatcher, skill_edges
from .memory_cards import MemoryCard, memory_cards
from .memory_dates import history_key, memory_dates

_NOT_LEARNED = ("base", "external")  # sources has_learning_signal rules out


@dataclass(slots=True)
class SkillNode:
    """The spec's ``SkillNode`` plus the skill and usage record it came from."""

    name: str
    category: str
    source: str
    timestamp: int | None
    use_count: int
    state: str
    created_by: Any
    pinned: bool
    related: list[str]  # a list, as upstream's SkillNode
    skill: Skill
    record: dict[str, Any]
    learned: bool  # upstream's ``_has_learning_signal``: not base/external, made or used


def skill_node(skill: Skill, record: dict[str, Any]) -> SkillNode:
    state = record.get("state")
    return SkillNode(
        name=skill.name,
        category=skill.category,
        source=skill.source,
        timestamp=record_timestamp(record) or skill.mtime,
        use_count=count_value(record.get("use_count")),
        state=state if isinstance(state, str) and state else "active",
        created_by=record.get("created_by"),
        pinned=bool(record.get("pinned")),
        related=list(skill.related),
        skill=skill,
        record=record,
        learned=has_learning_signal(skill.source, record),
    )


def skill_node_json(node: SkillNode) -> dict[str, Any]:
    record = node.record
    skill = node.skill
    return {
        "id": node.name,
        "label": node.name,
        "kind": "skill",
        "timestamp": node.timestamp,
        "category": node.category,
        "useCount": node.use_count,
        "state": node.state,
        "createdBy": node.created_by,
        "pinned": node.pinned,
        # --- beyond upstream
        "source": node.source,
        "provenance": skill.provenance,
        "learned": node.learned,
        "directory": skill.directory,
        "description": skill.description,
        "tags": list(skill.tags),
        "related": list(skill.related),
        "viewCount": count_value(record.get("view_count")),
        "patchCount": count_value(record.get("patch_count")),
        "lastUsedAt": to_epoch(record.get("last_used_at")),
        "lastViewedAt": to_epoch(record.get("last_viewed_at")),
        "lastPatchedAt": to_epoch(record.get("last_patched_at")),
        "createdAt": to_epoch(record.get("created_at")),
    }


# A skill node's keys in payload order; each node is a copy of this, filled in (copying a
# dict of known keys is cheaper than building one from a literal).
_SKILL_PAYLOAD = dict.fromkeys((
    "id", "label", "kind", "timestamp", "category", "useCount", "state", "createdBy", "pinned",
    "source", "provenance", "learned", "directory", "description", "tags", "related",
    "viewCount", "patchCount", "lastUsedAt", "lastViewedAt", "lastPatchedAt", "createdAt",
    "healthCount", "healthCodes",
))  # fmt: skip
_SEP = os.sep


def skill_payload(skill: Skill, record: dict[str, Any], health: NodeHealth) -> dict[str, Any]:
    """``skill_node_json(skill_node(skill, record))`` with the health badges
    (``healthCount``, ``healthCodes``: the rules of :meth:`NodeHealth.codes`), computed
    in one pass. Written for speed, as a build makes one per skill: each record value is
    read once, the usual timestamps and counts are answered inline (from
    :func:`to_epoch`'s cache; plain ints) and the health rules are applied to the values
    already at hand."""
    get = record.get
    epochs = _EPOCH_CACHE
    raw_state = get("state")
    state = raw_state if isinstance(raw_state, str) and raw_state else "active"
    created_by = get("created_by")
    use_count = get("use_count")
    if use_count.__class__ is not int:
        use_count = count_value(use_count)
    source = skill.source
    learned = source not in _NOT_LEARNED and (created_by in LEARNED_CREATORS or use_count > 0)
    value = get("last_used_at")
    last_used = value if value is None else epochs[value] if value.__class__ is str and value in epochs else to_epoch(value)
    value = get("last_viewed_at")
    last_viewed = value if value is None else epochs[value] if value.__class__ is str and value in epochs else to_epoch(value)
    value = get("last_patched_at")
    last_patched = value if value is None else epochs[value] if value.__class__ is str and value in epochs else to_epoch(value)
    value = get("created_at")
    created = value if value is None else epochs[value] if value.__class__ is str and value in epochs else to_epoch(value)
    value = get("last_activity_at")
    activity = value if value is None else epochs[value] if value.__class__ is str and value in epochs else to_epoch(value)
    pinned = get("pinned")
    name = skill.name
    directory = skill.directory
    description = skill.description
    related = skill.related
    mtime = skill.mtime_ns // 1_000_000_000

    # the health codes, as NodeHealth.codes works them out
    if (
        skill.frontmatter_check is None
        and description
        and directory.endswith(name)  # name == skill.dir_name, without a basename() call
        and directory[-len(name) - 1] == _SEP
        and _SEP not in name
    ):
        codes = []  # the usual case
    else:
        codes = health.frontmatter_codes(skill)
    if related and not health.names.issuperset(related):
        codes.append("related-unknown")
    size = skill.size
    if size > health.size_limit:
        codes.append(health.size_code(size))
    if source == PROFILE and not pinned and raw_state != "archived":
        last = last_used or None  # the latest truthy one of these three
        if last_viewed and (last is None or last_viewed > last):
            last = last_viewed
        if activity and (last is None or activity > last):
            last = activity
        if last is not None:
            if last < health.cutoff:
                codes.append("stale")
        elif use_count == 0:
            when = created or mtime
            if when and when < health.cutoff:
                codes.append("never-used")

    payload = _SKILL_PAYLOAD.copy()
    payload["id"] = name
    payload["label"] = name
    payload["kind"] = "skill"
    # record_timestamp: the first usable one in priority order, 0 counting as missing
    payload["timestamp"] = activity or last_used or last_viewed or last_patched or created or mtime
    payload["category"] = skill.category
    payload["useCount"] = use_count
    payload["state"] = state
    payload["createdBy"] = created_by
    payload["pinned"] = bool(pinned)
    # --- beyond upstream
    payload["source"] = source
    payload["provenance"] = skill.provenance
    payload["learned"] = learned
    payload["directory"] = directory
    payload["description"] = description
    payload["tags"] = list(skill.tags)
    payload["related"] = list(related)
    value = get("view_count")
    payload["viewCount"] = value if value.__class__ is int else count_value(value)
    value = get("patch_count")
    payload["patchCount"] = value if value.__class__ is int else count_value(value)
    payload["lastUsedAt"] = last_used
    payload["lastViewedAt"] = last_viewed
    payload["lastPatchedAt"] = last_patched
    payload["createdAt"] = created
    payload["healthCount"] = len(codes)
    payload["healthCodes"] = codes
    return payload


def memory_node_json(card: MemoryCard, edge_count: int) -> dict[str, Any]:
    return {
        "id": card.id,
        "label": card.title,
        "kind": "memory",
        "memorySource": card.source,
        "timestamp": card.timestamp,
        "category": "memory",
        "useCount": edge_count,
        "state": "active",
        "createdBy": "memory",
        "pinned": False,
        # --- beyond upstream
        "fingerprint": card.fingerprint,
        "file": card.file_name,
    }


def memory_card_json(card: MemoryCard) -> dict[str, Any]:
    return {
        "source": card.source,
        "timestamp": card.timestamp,
        "title": card.title,
        "body": card.body,
        "fingerprint": card.fingerprint,
        "id": card.id,  # beyond upstream
    }


@dataclass
class _SkillPart:
    """The skill half of a build, kept so that the next build can patch it."""

    include_all: bool
    usage: UsageSnapshot
    health: NodeHealth
    skills: list[Skill]  # every skill of the scan, in order
    records: list[dict[str, Any]]  # their usage records
    payloads: list[dict[str, Any]]  # their nodes
    shown_at: dict[int, int]  # position in ``skills`` -> position among the shown
    shown_skills: list[Skill]
    shown_payloads: list[dict[str, Any]]
    learned: int
    categories: Counter[str]
    agent_created: int
    used: int
    relations: list[tuple[str, str]]
    relation_dicts: list[dict[str, str]]
    linked: int
    #: the shown nodes made by the build that made this part, when it patched the
    #: previous part (the other shown nodes are that part's); None: all may be new
    fresh: list[dict[str, Any]] | None = None


#: Above this many changed skills a rebuild recomputes everything instead of patching.
PATCH_LIMIT = 256


class GraphBuilder:
    """Builds the payload for one home, reusing what the previous build computed.

    A rebuild re-reads only changed files (see :class:`SkillIndex`) and, when only a
    few skills or usage records changed, patches the previous result instead of
    recomputing it. The node and edge dicts are shared between the payloads of
    successive builds: treat a payload as read-only (copy what you need to change).
    Safe to call from a worker thread; builds are serialised.
    """

    def __init__(self, home: HermesHome, index: SkillIndex | None = None) -> None:
        self.home = home
        self.index = index or SkillIndex(home)
        self._lock = threading.Lock()
        self._usage_key: tuple[int, int] | None = None
        self._usage = UsageSnapshot()
        self._part: _SkillPart | None = None
        self._matcher: SkillMatcher | None = None
        self._card_edges: dict[str, list[str]] = {}
        self._dates_key: tuple | None = None
        self._dates: Mapping[str, float] = {}
        self._history = GraphProvenance(home)  # the "history" key of nodes
        self._attached: _SkillPart | None = None  # the part of the last payload given history keys

    def build(
        self,
        *,
        include_all: bool = False,
        memory_timestamps: Mapping[str, object] | None = None,
        changed: Iterable[str | os.PathLike[str]] | None = None,
    ) -> dict[str, Any]:
        """The payload. ``changed`` lists the paths a folder watcher saw change since the
        last build: everything else is taken from the cache without touching the disk
        (see :meth:`SkillIndex.scan`). Leave it out to check every file."""
        with self._lock, gc_paused():
            if memory_timestamps is None:
                memory_timestamps = self._history_dates()
            before = self._part
            payload, new_nodes = self._build(include_all, memory_timestamps, changed)
            if before is not self._attached:
                new_nodes = None  # the part patched was never given history keys
            self._history.attach(payload, new_nodes)
            self._attached = self._part
            return payload

    def _history_dates(self) -> Mapping[str, float]:
        """Card dates from session history, re-read only when it or a memory file changed."""
        key = history_key(self.home)
        if key != self._dates_key:
            self._dates = memory_dates(self.home)
            self._dates_key = key
        return self._dates

    # --- inputs -------------------------------------------------------------------------
    def _read_usage(self) -> UsageSnapshot:
        path = self.home.skills_usage_file
        try:
            st = os.stat(path)
            key = (st.st_mtime_ns, st.st_size)
        except OSError:
            key = None
        racy = key is not None and time.time_ns() - key[0] < 2_000_000_000
        if key is None or key != self._usage_key or racy:
            self._usage = read_usage(self.home)
            self._usage_key = key
        return self._usage

    # --- the skill half -----------------------------------------------------------------
    def _skill_part(self, scan: SkillScan, usage: UsageSnapshot, include_all: bool) -> _SkillPart:
        skills = scan.skills
        prev = self._part
        health = NodeHealth(scan, time.time(), prev.health if prev is not None else None)
        if (
            prev is not None
            and prev.include_all == include_all
            and len(prev.skills) == len(skills)
            and health.same_as(prev.health)
        ):
            if prev.usage is usage:
                records = prev.records
                changed = list(compress(count(), map(is_not, skills, prev.skills)))
            else:
                empty: dict[str, Any] = {}
                records = [usage.records.get(skill.name, empty) for skill in skills]
                changed = list(
                    compress(count(), map(_differs, skills, prev.skills, records, prev.records))
                )
            if len(changed) <= PATCH_LIMIT:
                part = self._patch(prev, skills, records, usage, health, changed)
                if part is not None:
                    return part
        return self._full(skills, usage, include_all, health)

    def _full(
        self, skills: list[Skill], usage: UsageSnapshot, include_all: bool, health: NodeHealth
    ) -> _SkillPart:
        empty: dict[str, Any] = {}
        get_record = usage.records.get
        prev = self._part
        known: dict[int, int] | None = None
        if prev is not None and health.same_as(prev.health):
            # reuse the nodes of skills whose file and record are unchanged
            known = {id(skill): position for position, skill in enumerate(prev.skills)}
            old_skills, old_records, old_payloads = prev.skills, prev.records, prev.payloads
        # one pass over the skills for everything per skill: at ten thousand skills each
        # further pass over them and their records costs as much as its work
        records: list[dict[str, Any]] = []
        payloads: list[dict[str, Any]] = []
        shown_positions: list[int] = []
        shown_skills: list[Skill] = []
        shown_payloads: list[dict[str, Any]] = []
        categories: list[str] = []
        learned = agent_created = used = 0
        for position, skill in enumerate(skills):
            if not position & 63:
                pause_point()  # (see hermes_memory.pausing)
            record = get_record(skill.name, empty)
            payload = None
            if known is not None:
                old = known.get(id(skill))
                if old is not None and old_skills[old] is skill and old_records[old] == record:
                    payload = old_payloads[old]
            if payload is None:
                payload = skill_payload(skill, record, health)
            records.append(record)
            payloads.append(payload)
            is_learned = payload["learned"]
            if is_learned:
                learned += 1
            elif not include_all:
                continue
            shown_positions.append(position)
            shown_skills.append(skill)
            shown_payloads.append(payload)
            categories.append(skill.category)
            if payload["createdBy"] == "agent":
                agent_created += 1
            if payload["useCount"] > 0:
                used += 1
        # every skill shown: their names are those health has (duplicates share them)
        relations, relation_dicts, linked = _relations(shown_skills, health.names if len(shown_skills) == len(skills) else None)
        part = _SkillPart(
            include_all=include_all,
            usage=usage,
            health=health,
            skills=skills,
            records=records,
            payloads=payloads,
            shown_at={position: index for index, position in enumerate(shown_positions)},
            shown_skills=shown_skills,
            shown_payloads=shown_payloads,
            learned=learned,
            categories=Counter(categories),
            agent_created=agent_created,
            used=used,
            relations=relations,
            relation_dicts=relation_dicts,
            linked=linked,
        )
        self._part = part
        return part

    def _patch(
        self,
        prev: _SkillPart,
        skills: list[Skill],
        records: list[dict[str, Any]],
        usage: UsageSnapshot,
        health: NodeHealth,
        changed: list[int],
    ) -> _SkillPart | None:
        """``prev`` with the changed positions rebuilt, or None when the change moves
        something that ordering depends on (a name, a category, the learned flag)."""
        payloads = list(prev.payloads)
        shown_skills, shown_payloads = list(prev.shown_skills), list(prev.shown_payloads)
        agent_created, used = prev.agent_created, prev.used
        relations_moved = False
        fresh = []
        for position in changed:
            old = prev.payloads[position]
            skill = skills[position]
            payload = skill_payload(skill, records[position], health)
            if (payload["id"], payload["category"], payload["learned"]) != (old["id"], old["category"], old["learned"]):
                return None
            relations_moved |= payload["related"] != old["related"]
            payloads[position] = payload
            shown = prev.shown_at.get(position)
            if shown is not None:
                shown_skills[shown], shown_payloads[shown] = skill, payload
                fresh.append(payload)
                agent_created += (payload["createdBy"] == "agent") - (old["createdBy"] == "agent")
                used += (payload["useCount"] > 0) - (old["useCount"] > 0)
        if relations_moved:
            relations, relation_dicts, linked = _relations(shown_skills)
        else:
            relations, relation_dicts, linked = prev.relations, prev.relation_dicts, prev.linked
        part = dataclasses.replace(
            prev, usage=usage, health=health, skills=skills, records=records, payloads=payloads,
            shown_skills=shown_skills, shown_payloads=shown_payloads, agent_created=agent_created,
            used=used, relations=relations, relation_dicts=relation_dicts, linked=linked, fresh=fresh,
        )  # fmt: skip
        self._part = part
        return part

    # --- the memory half ----------------------------------------------------------------
    def _memory_edges(self, cards: list[MemoryCard], part: _SkillPart, renamed: bool) -> list[list[str]]:
        if self._matcher is None or renamed:
            names = tuple(skill.name for skill in part.shown_skills)
            if self._matcher is None or self._matcher.names != names:
                self._matcher = SkillMatcher(names)
                self._card_edges = {}
        matcher = self._matcher
        known = self._card_edges
        texts = [card.title + "\n" + card.body for card in cards]
        matcher.prepare(text for text in texts if text not in known)
        result = []
        fresh = {}
        for text in texts:
            hit = known.get(text)
            if hit is None:
                hit = matcher.top(text)
            fresh[text] = hit
            result.append(hit)
        self._card_edges = fresh
        return result

    # --- the payload --------------------------------------------------------------------
    def _build(
        self,
        include_all: bool,
        memory_timestamps: Mapping[str, object] | None,
        changed: Iterable[str | os.PathLike[str]] | None,
    ) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
        """The payload, and its nodes that the previous payload did not hold (None: all
        may be new)."""
        scan = self.index.scan(changed)
        warnings = list(scan.warnings)
        pause_point()
        usage = self._read_usage()
        if usage.error:
            warnings.append(f"{usage.error} Skill usage is shown as empty.")
        warnings.extend(usage.warnings)  # values left out of the records as unusable
        before = self._part
        part = self._skill_part(scan, usage, include_all)
        # names of the shown skills change only when the part was rebuilt in full
        renamed = before is None or part.shown_at is not before.shown_at

        pause_point()
        cards, card_warnings = memory_cards(self.home, memory_timestamps)
        warnings.extend(card_warnings)
        pause_point()
        card_targets = self._memory_edges(cards, part, renamed)
        pause_point()

        memory_edges = [
            {"source": card.id, "target": name}
            for card, targets in zip(cards, card_targets, strict=True)
            for name in targets
        ]
        counts = Counter(part.categories)
        if cards:
            counts["memory"] += len(cards)
        clusters = [
            {"category": category, "count": n}
            for category, n in sorted(counts.items(), key=lambda item: -item[1])
            if n > 0
        ]
        shown = len(part.shown_payloads)
        denominator = max(shown, 1)
        stats = {
            "nodes": shown,
            "related_edges": len(part.relations),
            "edges_per_node": round(len(part.relations) / denominator, 3),
            "linked_nodes": part.linked,
            "isolated_pct": round(100 * (denominator - part.linked) / denominator, 1),
            "categories": sum(1 for n in part.categories.values() if n > 0),
            "agent_created": part.agent_created,
            "used": part.used,
            "top_categories": [[name, n] for name, n in part.categories.most_common(8) if n > 0],
            "memory_nodes": len(cards),
            "memory_skill_edges": len(memory_edges),
            "learned_skills": part.learned,
        }
        memory_nodes = [memory_node_json(card, len(t)) for card, t in zip(cards, card_targets, strict=True)]
        payload = {
            "nodes": part.shown_payloads + memory_nodes,
            "edges": part.relation_dicts + memory_edges,
            "clusters": clusters,
            "memory": [memory_card_json(card) for card in cards],
            "stats": stats,
            "warnings": warnings,
        }
        return payload, None if part.fresh is None else part.fresh + memory_nodes


def _relations(
    shown: list[Skill], names: Collection[str] | None = None
) -> tuple[list[tuple[str, str]], list[dict[str, str]], int]:
    """The declared skill-skill edges, as pairs and as payload dicts, and how many skills
    they touch. ``names``: the names of ``shown``, when at hand."""
    relations = skill_edges(shown, names)
    dicts = [{"source": a, "target": b} for a, b in relations]
    return relations, dicts, len(set(chain.from_iterable(relations)))


def _differs(skill: Skill, old_skill: Skill, record: dict[str, Any], old_record: dict[str, Any]) -> bool:
    return skill is not old_skill or (record is not old_record and record != old_record)


def build_learning_graph(
    home: HermesHome,
    *,
    include_all: bool = False,
    memory_timestamps: Mapping[str, object] | None = None,
    builder: GraphBuilder | None = None,
) -> dict[str, Any]:
    """The payload for ``home``. Pass a kept :class:`GraphBuilder` to rebuild cheaply."""
    builder = builder or GraphBuilder(home)
    return builder.build(include_all=include_all, memory_timestamps=memory_timestamps)
