"""Skill health: what is wrong with each skill of a home, and what to do about it.

Everything comes from one :class:`~.index.SkillIndex` scan and one ``.usage.json`` read;
nothing here reads or parses a SKILL.md: the index records what its one parse found
wrong (``Skill.frontmatter_check``). A finding has a stable ``code``, a
``severity`` (``error``: the agent mis-reads the skill; ``warning``: it works but
misleads; ``info``: worth a look) and a ``fix`` hint.

=====================  ========  ==========================================================
code                   severity  rule
=====================  ========  ==========================================================
frontmatter-unclosed   error     starts with ``---`` but no closing ``---`` line (the agent
                                 then shows the frontmatter as the body)
frontmatter-missing    error     no ``---`` frontmatter at all
frontmatter-invalid    error     the YAML does not parse (the agent falls back on splitting
                                 lines at colons) or is not a mapping
name-missing           warning   no ``name`` (the folder name is used)
description-missing    warning   no ``description`` (the agent's index shows nothing)
name-mismatch          warning   ``name`` differs from the folder name
related-unknown        warning   ``related_skills`` names a skill that is not in the home
over-limit             error     SKILL.md over 100,000 characters (the agent refuses edits)
oversized              warning   SKILL.md over :data:`OVERSIZED_CAP` bytes, or an outlier:
                                 over :data:`OUTLIER_FLOOR` bytes and over
                                 :data:`OUTLIER_FACTOR` × the median SKILL.md size of the
                                 home (the median, because the outliers themselves would
                                 stretch a spread-based rule such as Q3 + 3 × IQR)
never-used             info      a skill of this profile, unpinned, never used, and created
                                 at least :data:`STALE_DAYS` days ago
stale                  info      a skill of this profile, unpinned, last used or viewed more
                                 than :data:`STALE_DAYS` days ago (upstream's curator marks
                                 skills stale after 30 days without activity)
=====================  ========  ==========================================================

The graph badges its nodes with the codes alone (:class:`NodeHealth`), worked out while
it builds each node from the values it has already read from the usage record, and
kept with the node between rebuilds while the skill's file and record, the day, the
size threshold and the set of names are unchanged.
"""

from __future__ import annotations

import bisect
import os
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..home import HermesHome
from .frontmatter import NOT_A_MAPPING
from .index import MISSING_FENCE, UNCLOSED_FENCE, Skill, SkillIndex, SkillScan
from .roots import PROFILE
from .usage import _EPOCH_CACHE, UsageSnapshot, count_value, read_usage, to_epoch
from .validation import MAX_SKILL_CHARS

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}

STALE_DAYS = 30
OVERSIZED_CAP = 50_000  # bytes: half the agent's write limit
OUTLIER_FLOOR = 8_000  # bytes: below this nothing is "far larger"
OUTLIER_FACTOR = 5
OUTLIER_MIN_SKILLS = 5  # fewer skills make no distribution
_DAY = 86_400


@dataclass(frozen=True, slots=True)
class Finding:
    skill: str
    code: str
    severity: str
    message: str
    fix: str
    directory: str = ""

    def as_dict(self) -> dict[str, str]:
        return {
            "skill": self.skill, "code": self.code, "severity": self.severity,
            "message": self.message, "fix": self.fix, "directory": self.directory,
        }


# --- checks on one skill alone ------------------------------------------------------------
def _frontmatter_findings(skill: Skill) -> list[tuple[str, str, str, str]]:
    """``(code, severity, message, fix)`` for the frontmatter and its name/description,
    from what the index recorded when it parsed the file (nothing is read again)."""
    check = skill.frontmatter_check
    found = []
    if check is None:
        declared: str | None = skill.name
    else:
        if check.fence == UNCLOSED_FENCE:
            return [(
                "frontmatter-unclosed", ERROR,
                "The frontmatter has no closing '---' line (in the first 4,000 characters, all the "
                "agent's index reads), so the agent reads it as body text.",
                "Add a line with only '---' after the last frontmatter field.",
            )]
        if check.fence == MISSING_FENCE:
            return [(
                "frontmatter-missing", ERROR, "SKILL.md has no '---' frontmatter.",
                "Start the file with '---', 'name: ...', 'description: ...', '---'.",
            )]
        if check.fault == NOT_A_MAPPING:
            found.append((
                "frontmatter-invalid", ERROR, "The frontmatter is not a mapping of key: value lines.",
                "Write the frontmatter as 'key: value' lines.",
            ))
        elif check.fault is not None:
            found.append((
                "frontmatter-invalid", ERROR,
                f"The frontmatter is not valid YAML ({check.fault}); the agent falls back on "
                "splitting lines at colons.",
                "Quote values that contain ': ' or start with a special character.",
            ))
        declared = check.declared_name
    if declared is None:
        found.append((
            "name-missing", WARNING, f"No 'name' in the frontmatter; the folder name '{skill.dir_name}' is used.",
            f"Add 'name: {skill.dir_name}' to the frontmatter.",
        ))
    elif declared != skill.dir_name:
        found.append((
            "name-mismatch", WARNING,
            f"The name '{declared}' differs from its folder '{skill.dir_name}'.",
            "Rename the folder or change 'name' so the two agree.",
        ))
    if not skill.description:
        found.append((
            "description-missing", WARNING, "No 'description': the agent's skill index shows nothing for it.",
            "Add a one-line 'description:' saying when to use the skill.",
        ))
    return found


# --- checks against the rest of the home -------------------------------------------------
def outlier_threshold(sizes: Iterable[int]) -> float | None:
    """The size above which a SKILL.md is far larger than the rest (None: too few)."""
    values = list(sizes)
    if len(values) < OUTLIER_MIN_SKILLS:
        return None
    return max(OUTLIER_FLOOR, OUTLIER_FACTOR * statistics.median(values))


def _size_finding(skill: Skill, threshold: float | None) -> tuple[str, str, str, str] | None:
    size = skill.size
    if size > MAX_SKILL_CHARS:
        return (
            "over-limit", ERROR,
            f"SKILL.md is {size:,} bytes, over the agent's {MAX_SKILL_CHARS:,}-character limit.",
            "Move long material into references/ or templates/ files beside it.",
        )
    if size > OVERSIZED_CAP or (threshold is not None and size > threshold):
        return (
            "oversized", WARNING,
            f"SKILL.md is {size:,} bytes, far larger than the rest of this home's skills.",
            "Split it, or move reference material into references/ so the agent loads less.",
        )
    return None


_ACTIVITY_KEYS = ("last_used_at", "last_viewed_at", "last_activity_at")


def _usage_state(skill: Skill, record: dict[str, Any], now: float) -> tuple[str, int] | None:
    """``("never-used", created)`` or ``("stale", last activity)`` in epoch seconds, or
    None. Written for speed (a graph build asks it of every skill): the usual
    timestamps are looked up in :func:`to_epoch`'s cache inline."""
    get = record.get
    if get("pinned") or get("state") == "archived":
        return None
    last = None
    for key in _ACTIVITY_KEYS:
        value = get(key)
        if value is not None:
            epoch = _EPOCH_CACHE[value] if value.__class__ is str and value in _EPOCH_CACHE else to_epoch(value)
            if epoch and (last is None or epoch > last):
                last = epoch
    cutoff = now - STALE_DAYS * _DAY
    if last is not None:
        return ("stale", last) if last < cutoff else None
    use_count = get("use_count")
    if (use_count if use_count.__class__ is int else count_value(use_count)) != 0:
        return None
    created = to_epoch(get("created_at")) or skill.mtime
    return ("never-used", created) if created and created < cutoff else None


def _usage_finding(skill: Skill, record: dict[str, Any], now: float) -> tuple[str, str, str, str] | None:
    if skill.source != PROFILE:
        return None
    state = _usage_state(skill, record, now)
    if state is None:
        return None
    code, when = state
    days = int((now - when) // _DAY)
    if code == "never-used":
        return (
            "never-used", INFO, f"Never used since it was made {days} days ago.",
            "Archive it if it is not needed, or make its description say when to use it.",
        )
    return (
        "stale", INFO, f"Last used {days} days ago (over {STALE_DAYS}).",
        "Archive it if it is no longer needed, or pin it to keep it.",
    )


def skill_findings(
    scan: SkillScan,
    usage: UsageSnapshot,
    *,
    now: float | None = None,
    archived: Iterable[str] = (),
    only: Iterable[Skill] | None = None,
) -> dict[str, list[Finding]]:
    """The findings of every skill (or of ``only`` those) with at least one, by name."""
    now = time.time() if now is None else now
    threshold = outlier_threshold(skill.size for skill in scan.skills)
    known = set(scan.by_name)
    known.update(skill.name for skill in scan.duplicates)
    archived = set(archived)
    result: dict[str, list[Finding]] = {}
    for skill in scan.skills if only is None else only:
        raw = list(_frontmatter_findings(skill))
        missing = [name for name in skill.related if name not in known]
        if missing:
            gone = ", ".join(f"'{name}'" + (" (archived)" if name in archived else "") for name in missing)
            raw.append((
                "related-unknown", WARNING, f"related_skills names no skill in this home: {gone}.",
                "Remove the name from related_skills, or restore or create that skill.",
            ))
        for extra in (_size_finding(skill, threshold), _usage_finding(skill, usage.record(skill.name), now)):
            if extra is not None:
                raw.append(extra)
        if raw:
            result[skill.name] = [Finding(skill.name, *item, skill.directory) for item in raw]
    return result


_EMPTY_RECORD: dict[str, Any] = {}


class NodeHealth:
    """The graph's badge codes (``healthCodes``) for one scan at one moment: the same
    rules as :func:`skill_findings`, without building the messages.

    Built once per graph build. The graph applies the rules of :meth:`codes` inline to
    the values it has already worked out from each usage record (see
    ``learning.graph.skill_payload``), so nothing is looked up twice; the two are tested
    to agree. ``key`` says what, beyond a skill's own file and record, the codes depend on
    (the day, the size threshold, the set of names): while it is unchanged, codes worked
    out by an earlier build still hold.
    """

    __slots__ = ("names", "sizes", "serial", "threshold", "size_limit", "now", "cutoff", "key")

    def __init__(self, scan: SkillScan, now: float, previous: NodeHealth | None = None) -> None:
        if previous is not None and scan.base is not None and scan.base == previous.serial:
            # a few files of the scan the previous health was made for, re-read (same
            # names): update what depends on them instead of going over every skill
            names = previous.names
            sizes = previous.sizes
            by_name = scan.by_name
            for old, new in scan.replaced:
                if old.size != new.size and by_name.get(new.name) is new:
                    if sizes is previous.sizes:
                        sizes = sizes.copy()
                    del sizes[bisect.bisect_left(sizes, old.size)]
                    bisect.insort(sizes, new.size)
        else:
            names = frozenset(scan.by_name)
            if scan.duplicates:
                names = names.union(skill.name for skill in scan.duplicates)
            if previous is not None and previous.names == names:
                names = previous.names  # the same object, so keys compare by identity
            sizes = sorted([skill.size for skill in scan.skills])
        self.names = names
        self.sizes = sizes  # of the scan's skills, sorted
        self.serial = scan.serial
        self.threshold = threshold = outlier_threshold(sizes)
        #: a SKILL.md over this many bytes is oversized (or over the limit)
        self.size_limit = OVERSIZED_CAP if threshold is None else min(OVERSIZED_CAP, threshold)
        self.now = now
        self.cutoff = now - STALE_DAYS * _DAY
        self.key = (int(now // _DAY), self.threshold, names)

    def same_as(self, other: NodeHealth | None) -> bool:
        if other is None:
            return False
        day, threshold, names = self.key
        other_day, other_threshold, other_names = other.key
        return day == other_day and threshold == other_threshold and names is other_names

    def codes(
        self,
        skill: Skill,
        record: dict[str, Any],
        use_count: int,
        last_used: int | None,
        last_viewed: int | None,
        last_activity: int | None,
        created: int | None,
    ) -> list[str]:
        """``use_count`` and the epochs are the record's, as :func:`count_value` and
        :func:`to_epoch` read them."""
        name, directory = skill.name, skill.directory
        if (
            skill.frontmatter_check is None
            and skill.description
            and directory.endswith(name)  # name == skill.dir_name, without a basename() call
            and directory[-len(name) - 1] == os.sep
            and os.sep not in name
        ):
            codes = []  # the usual case
        else:
            codes = self.frontmatter_codes(skill)
        related = skill.related
        if related and not self.names.issuperset(related):
            codes.append("related-unknown")
        if skill.size > self.size_limit:
            codes.append(self.size_code(skill.size))
        if skill.source != PROFILE:
            return codes
        # _usage_state, from the values already read
        get = record.get
        if get("pinned") or get("state") == "archived":
            return codes
        last = None
        for epoch in (last_used, last_viewed, last_activity):
            if epoch and (last is None or epoch > last):
                last = epoch
        cutoff = self.cutoff
        if last is not None:
            if last < cutoff:
                codes.append("stale")
        elif use_count == 0:
            when = created or skill.mtime
            if when and when < cutoff:
                codes.append("never-used")
        return codes

    @staticmethod
    def frontmatter_codes(skill: Skill) -> list[str]:
        """The codes of what is wrong with the frontmatter, its name or description."""
        return [item[0] for item in _frontmatter_findings(skill)]

    @staticmethod
    def size_code(size: int) -> str:
        """The code for a SKILL.md of ``size`` bytes, over :attr:`size_limit`."""
        return "over-limit" if size > MAX_SKILL_CHARS else "oversized"

    def codes_from_record(self, skill: Skill, record: dict[str, Any]) -> list[str]:
        get = record.get
        return self.codes(
            skill, record, count_value(get("use_count")), to_epoch(get("last_used_at")),
            to_epoch(get("last_viewed_at")), to_epoch(get("last_activity_at")),
            to_epoch(get("created_at")),
        )  # fmt: skip


def annotate_nodes(
    payloads: list[dict[str, Any]], scan: SkillScan, usage: UsageSnapshot, *, now: float | None = None
) -> None:
    """Add ``healthCount`` and ``healthCodes`` to graph skill-node payloads (in place):
    the codes :func:`skill_findings` gives. (The graph itself works them out while it
    builds its nodes, with :class:`NodeHealth`.)"""
    health = NodeHealth(scan, time.time() if now is None else now)
    by_name = scan.by_name
    records = usage.records
    for payload in payloads:
        skill = by_name.get(payload["id"])
        codes = [] if skill is None else health.codes_from_record(skill, records.get(skill.name) or _EMPTY_RECORD)
        payload["healthCount"] = len(codes)
        payload["healthCodes"] = codes


def check_skills(home: HermesHome) -> dict[str, Any]:
    """``{"findings": [...], "count", "skills_checked", "by_severity", "warnings", "thresholds"}``,
    findings sorted by severity then skill name."""
    from .lifecycle import list_archived

    scan = SkillIndex(home).scan()
    usage = read_usage(home)
    archived = [item.name for item in list_archived(home)]
    by_skill = skill_findings(scan, usage, archived=archived)
    findings = sorted(
        (f for found in by_skill.values() for f in found),
        key=lambda f: (SEVERITY_ORDER[f.severity], f.skill, f.code),
    )
    counts = {level: sum(1 for f in findings if f.severity == level) for level in SEVERITY_ORDER}
    warnings = list(scan.warnings) + ([usage.error] if usage.error else [])
    return {
        "findings": [f.as_dict() for f in findings],
        "count": len(findings),
        "skills_checked": len(scan.skills),
        "skills_with_problems": len(by_skill),
        "by_severity": counts,
        "warnings": warnings,
        "thresholds": {
            "stale_days": STALE_DAYS,
            "oversized_bytes": OVERSIZED_CAP,
            "outlier_bytes": outlier_threshold(skill.size for skill in scan.skills),
            "limit_chars": MAX_SKILL_CHARS,
        },
    }
