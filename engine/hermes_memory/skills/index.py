"""Finding and reading every skill in a home: :class:`SkillIndex` and :class:`Skill`.

A scan walks each root with ``os.scandir``, skips the excluded and support directories,
never follows a link out of its root, and reads only the first 4,000 characters of each
``SKILL.md`` (all the agent reads for its index). A skill is named by its frontmatter
``name`` (else its directory name); the first skill seen with a name wins, roots in the
order base, profile, external, and paths sorted within a root.

The index keeps what it read between scans, keyed by file identity: a directory listing
is reused while the directory's mtime is unchanged, a parsed ``SKILL.md`` while its
``(path, mtime_ns, size)`` is, so a rescan after one edit re-reads one file. Entries whose
mtime is within :data:`RACY_SECONDS` of the scan are re-checked next time, because two
writes inside one filesystem timestamp tick would otherwise look like none.

A directory whose link count says it has no subdirectories, or just one that a
``stat`` shows is a support folder (``references/`` and the like), is not listed: its SKILL.md
is opened directly, refusing links and special files (those, and a missing SKILL.md,
send it back to an ordinary listing). So a first scan costs one ``stat`` and one read
per skill (open, ``fstat``, read, close: five system calls in all, the least that tells
a folder's subfolders, the file's type and its version) and is dominated by reading and
parsing the files; a rescan costs two
``stat`` calls per skill (its directory and its SKILL.md). A caller that watches the
folders can pass the changed paths (``scan(changed=...)``) and skip those calls for
everything else.
"""

from __future__ import annotations

import codecs
import itertools
import operator
import os
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, InitVar, dataclass, field
from pathlib import Path
from typing import Any

from ..home import HermesHome
from ..pausing import gc_paused, pause_point
from .frontmatter import (
    frontmatter_text,
    head_entries,
    load_frontmatter_diagnosed,
    load_frontmatter_mapping,
    value_items,
)
from .roots import (
    BASE,
    EXCLUDED_DIRS,
    EXTERNAL,
    MAX_WALK_DEPTH,
    MAX_WALK_DIRS,
    PROFILE,
    SUPPORT_DIRS,
    HubLock,
    SkillRoot,
    is_strictly_inside,
    read_bundled_manifest,
    read_hub_lock,
    skill_roots_checked,
)

#: Characters of SKILL.md the index reads, as the agent does.
HEAD_CHARS = 4000
RACY_SECONDS = 2.0
_RACY_NS = int(RACY_SECONDS * 1e9)
_SKILL_MD_SUFFIX = os.sep + "SKILL.md"
# (getattr: Windows has none of these but O_RDONLY; there the leaf shortcut never runs,
# as directories report one link)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_READ_NO_LINK_FLAGS = _READ_FLAGS | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
# A walk keeps each listed folder open while its subfolders are looked at, and stats and
# opens them relative to it: the kernel then resolves two path steps instead of the
# whole path (a quarter of the system time of a cold scan). Where the platform cannot,
# whole paths are used.
_RELATIVE = (
    {os.open, os.stat} <= os.supports_dir_fd
    and os.stat in os.supports_follow_symlinks
    and hasattr(os, "O_DIRECTORY")
)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)

# provenance values (who owns the skill)
LOCAL = "local"  # made by the agent or the person in this profile
BUNDLED = "bundled"
HUB = "hub"


@dataclass(slots=True, eq=False)
class Skill:
    """One skill as found on disk; treat it as read-only (scans share these objects).

    Paths are strings and the frontmatter is parsed again only when asked for: a home
    can hold ten thousand of these, and the fewer objects each keeps alive the less the
    garbage collector has to walk.
    """

    name: str
    source: str  # upstream label: "base", "profile" or "external"
    provenance: str  # LOCAL, BUNDLED, HUB or "external"
    root: SkillRoot
    directory: str
    rel_dir: str  # POSIX path of the directory relative to its root
    category: str
    description: str
    tags: tuple[str, ...]
    related: tuple[str, ...]
    frontmatter_text: str | None = field(repr=False)  # the YAML between the fences
    mtime_ns: int = 0
    size: int = 0
    # what was wrong with the frontmatter when it was parsed (None: nothing), for health
    frontmatter_check: FrontmatterCheck | None = field(default=None, repr=False)

    @property
    def frontmatter(self) -> dict[str, Any]:
        """The whole frontmatter mapping, parsed again on each call."""
        if self.frontmatter_text is None:
            return {}
        return load_frontmatter_mapping(self.frontmatter_text)

    @property
    def path(self) -> Path:
        return Path(self.directory)

    @property
    def skill_md(self) -> Path:
        return Path(self.directory) / "SKILL.md"

    @property
    def dir_name(self) -> str:
        return os.path.basename(self.directory)

    @property
    def mtime(self) -> int:
        return self.mtime_ns // 1_000_000_000

    @property
    def read_only_reason(self) -> str | None:
        """Why a person's edit or archive must not touch this skill, or None."""
        if self.provenance == EXTERNAL:
            return (
                f"skill '{self.name}' lives in skills.external_dirs; external skills are "
                "read-only"
            )
        if self.provenance == HUB:
            return f"skill '{self.name}' is hub-installed; update it through the hub instead"
        if self.root.label == BASE:
            return (
                f"skill '{self.name}' is part of the agent's bundled skills in "
                f"{self.root.path}; it is read-only here"
            )
        return None


@dataclass(frozen=True, slots=True)
class FrontmatterCheck:
    """What parsing a SKILL.md head found wrong with its frontmatter, kept so that skill
    health never reads or parses the file again. A skill whose frontmatter is a closed
    YAML mapping with a ``name`` has none (``Skill.frontmatter_check`` is None)."""

    fence: str | None = None  # MISSING_FENCE or UNCLOSED_FENCE: no closed frontmatter
    fault: str | None = None  # why the YAML did not load as a mapping (frontmatter.NOT_A_MAPPING, ...)
    declared_name: str | None = None  # the frontmatter's ``name`` as text; None if missing or blank


MISSING_FENCE, UNCLOSED_FENCE = "missing", "unclosed"
_NO_FRONTMATTER = FrontmatterCheck(fence=MISSING_FENCE)
_BLANK_NAME = FrontmatterCheck()  # a name that is blank text
_UNCLOSED_FRONTMATTER = FrontmatterCheck(fence=UNCLOSED_FENCE)


_serials = itertools.count()


@dataclass
class SkillScan:
    """The result of one scan."""

    skills: list[Skill]
    duplicates: list[Skill]  # hidden because an earlier skill has the same name
    warnings: list[str]
    roots: list[SkillRoot]
    config: dict[str, Any]
    bundled: frozenset[str]
    hub: HubLock
    _: KW_ONLY  # the rest by name only
    #: the :attr:`serial` of the scan this one patches: that scan with each ``(old, new)``
    #: skill of ``replaced`` swapped (same names, same places) and nothing else changed,
    #: so that what was built from it can be patched in proportion to the change
    base: int | None = None
    replaced: tuple[tuple[Skill, Skill], ...] = ()
    serial: int = field(init=False, default_factory=_serials.__next__)  # unique per scan
    by_name: dict[str, Skill] = field(init=False)
    # the same mapping, when the caller already made it (a cold scan of a big home
    # would otherwise make it twice)
    known_by_name: InitVar[dict[str, Skill] | None] = None

    def __post_init__(self, known_by_name: dict[str, Skill] | None) -> None:
        self.by_name = {skill.name: skill for skill in self.skills} if known_by_name is None else known_by_name

    def get(self, name: str) -> Skill | None:
        return self.by_name.get(name)


# --- parsing one file ------------------------------------------------------------------
class SkillReadError(Exception):
    """A SKILL.md that cannot be read as UTF-8 text; the message is for a person."""


@dataclass(slots=True)
class _Parsed:
    """What a SKILL.md head says, independent of ownership; and, once the index keeps it
    (as its ``_FileEntry``), the file's stat and the last :class:`Skill` built from it:
    one record per file instead of two, as a cold scan makes ten thousand. Two compare
    equal when the file says the same (the stat is left out)."""

    name: str
    category: str
    description: str
    tags: tuple[str, ...]
    related: tuple[str, ...]
    frontmatter_text: str | None
    problem: str | None = None  # frontmatter over a safety limit, read naively
    check: FrontmatterCheck | None = None
    # --- set by the index
    mtime_ns: int = field(default=0, compare=False)
    size: int = field(default=0, compare=False)
    trusted: bool = field(default=False, compare=False)
    skill: Skill | None = field(default=None, compare=False, repr=False)


#: The index's entry for one SKILL.md: its parse, with the stat filled in.
_FileEntry = _Parsed


def read_head(
    path: str, *, follow_links: bool = True, at: tuple[int, str] | None = None
) -> tuple[str, os.stat_result]:
    """The first :data:`HEAD_CHARS` characters of a file, and its stat, in one open.

    With ``follow_links=False`` the file must be a regular file reached without a link
    (:class:`NotARegularFile` otherwise); it is opened non-blocking, so a FIFO cannot
    hang the scan. ``at`` is ``(directory fd, path relative to it)`` for the same file,
    which the kernel resolves with fewer steps than the whole path.
    """
    flags = _READ_FLAGS if follow_links else _READ_NO_LINK_FLAGS
    fd = os.open(path, flags) if at is None else os.open(at[1], flags, dir_fd=at[0])
    try:
        st = os.fstat(fd)
        if not follow_links and not stat.S_ISREG(st.st_mode):
            raise NotARegularFile(path)
        data = os.read(fd, HEAD_CHARS)
        # 4,000 bytes may hold fewer than 4,000 characters; read on only when the head
        # might cut the frontmatter short (at most 4 bytes per character).
        if len(data) == HEAD_CHARS and st.st_size > HEAD_CHARS and data.find(b"\n---", 3) < 0:
            data += os.read(fd, HEAD_CHARS * 3)
    finally:
        os.close(fd)
    try:
        text, _ = codecs.utf_8_decode(data, "strict", len(data) >= st.st_size)
    except UnicodeDecodeError as exc:
        raise SkillReadError(
            f"{path} is not UTF-8 text (bad byte at offset {exc.start}); skipped. Re-save "
            "it as UTF-8."
        ) from None
    return text[:HEAD_CHARS], st


class NotARegularFile(OSError):
    """``read_head(..., follow_links=False)`` met a link, a FIFO or another special file."""


def _text(value: Any) -> str:
    if value.__class__ is str:
        return value.strip()
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value).strip()


_string_list = value_items  # (the full reading shares it)


def _hermes_meta(frontmatter: dict[str, Any]) -> dict[str, Any]:
    metadata = frontmatter.get("metadata")
    hermes = metadata.get("hermes") if isinstance(metadata, dict) else None
    return hermes if isinstance(hermes, dict) else {}


_EMPTY: dict[str, Any] = {}


def parse_head(text: str, dir_name: str, rel_parts: tuple[str, ...]) -> _Parsed:
    yaml_text = frontmatter_text(text)
    if yaml_text is not None:
        fields = head_entries(yaml_text)
        if fields is not None:
            # What _parse_head_fully gives for a simple, valid frontmatter, from the line
            # entries of its fields, which hold each value as a text field and as a list
            declared, description, category, related, tags, _, _, hermes_category, hermes_related, hermes_tags = fields
            if declared[2].__class__ is str:
                name = declared[4]
                check = None if name else _BLANK_NAME
            else:
                name, check = _odd_name(declared[2])
            return _Parsed(
                name or dir_name.strip(),
                # <category>/<skill>/SKILL.md; a flat skill is "general" (upstream said "skills")
                category[4] or hermes_category[4] or (rel_parts[-2] if len(rel_parts) >= 2 else "general"),
                description[4],
                (hermes_tags if hermes_tags[2] else tags)[5],
                (related if related[2] else hermes_related)[5],
                yaml_text, None, check,
            )  # fmt: skip
    return _parse_head_fully(text, yaml_text, dir_name, rel_parts)


def _odd_name(declared: Any) -> tuple[str, FrontmatterCheck | None]:
    """The name, and what health reports, for a ``name`` that is null or a flow list."""
    if declared.__class__ is tuple:
        declared = list(declared)
    name = _text(declared)
    shown = None if declared is None else str(declared).strip() or None
    return name, FrontmatterCheck(None, None, shown) if shown != name else None


def _parse_head_fully(text: str, yaml_text: str | None, dir_name: str, rel_parts: tuple[str, ...]) -> _Parsed:
    problem = fault = None
    if yaml_text is None:
        frontmatter = _EMPTY
    else:
        frontmatter, problem, fault = load_frontmatter_diagnosed(yaml_text)
    get = frontmatter.get
    hermes = _hermes_meta(frontmatter)
    declared = get("name")
    name = _text(declared)
    check = None
    if yaml_text is None:
        check = _UNCLOSED_FRONTMATTER if text.lstrip("\ufeff").startswith("---") else _NO_FRONTMATTER
    elif fault is not None or not name or declared.__class__ is not str:
        # the rare case: keep what health reports (str() of a non-text name, as upstream shows it)
        shown = None if declared is None else str(declared).strip() or None
        if fault is not None or shown != name:
            check = FrontmatterCheck(None, fault, shown)
    name = name or dir_name.strip()
    category = _text(get("category")) or _text(hermes.get("category"))
    if not category:
        # <category>/<skill>/SKILL.md; a flat skill is "general" (upstream said "skills")
        category = rel_parts[-2] if len(rel_parts) >= 2 else "general"
    related = get("related_skills")
    if not related:
        related = hermes.get("related_skills")
    tags = hermes.get("tags")
    if not tags:
        tags = get("tags")
    return _Parsed(
        name, category, _text(get("description")), _string_list(tags), _string_list(related),
        yaml_text, problem, check,
    )


# --- the index ---------------------------------------------------------------------------
@dataclass(slots=True)
class _DirListing:
    mtime_ns: int
    trusted: bool
    skill_md: str | None  # path of a usable SKILL.md in this directory (or _LEAF)
    subdirs: Sequence[tuple[str, str, bool]]  # (name, path, is_link), excluded ones dropped
    notes: Sequence[str]


#: ``_DirListing.skill_md`` of a directory whose link count says it has no subdirectories
#: but perhaps one support folder (``references/`` and the like, which a skill's walk
#: skips anyway), not listed yet: its SKILL.md is opened directly (no path is empty)
_LEAF = ""


# the order support folders are looked for in a skill folder with one subdirectory
_SUPPORT_ORDER = ("references", *sorted(SUPPORT_DIRS - {"references"}))


# One skill found by a walk: (rel_parts, directory, skill_md, what reading it gave).
_Found = tuple[tuple[str, ...], str, str, "_FileEntry | str | None"]


_found_order = operator.itemgetter(0)  # a _Found's rel_parts: skills sort by path within a root


class _OpenFolder:
    """A listed folder kept open while its subfolders are looked at (see _RELATIVE)."""

    __slots__ = ("fd", "left")

    def __init__(self, fd: int, left: int) -> None:
        self.fd = fd
        self.left = left  # subfolders not yet looked at; closed when none are left

    @classmethod
    def of(cls, directory: str, subfolders: int) -> _OpenFolder | None:
        if not _RELATIVE:
            return None
        try:
            return cls(os.open(directory, _DIR_FLAGS), subfolders)
        except OSError:
            return None  # whole paths, then

    def release(self) -> None:
        self.left -= 1
        if self.left == 0:
            self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@dataclass(slots=True)
class _Pass:
    """The state of one scan."""

    now_ns: int
    warnings: list[str]
    trust: bool = False  # reuse cached entries without a stat unless they are dirty
    dirty: frozenset[str] = frozenset()
    dirty_dirs: frozenset[str] = frozenset()
    dirty_prefixes: tuple[str, ...] = ()
    seen_dirs: set[str] = field(default_factory=set)
    seen_files: set[str] = field(default_factory=set)

    def is_dirty_dir(self, path: str) -> bool:
        return path in self.dirty_dirs or path.startswith(self.dirty_prefixes)

    def is_dirty_file(self, path: str) -> bool:
        return path in self.dirty or path.startswith(self.dirty_prefixes)


class SkillIndex:
    """Scans one home's skill roots, reusing what earlier scans read.

    ``scan()`` checks every cached directory and file against the disk (one ``stat``
    each). ``scan(changed=paths)`` trusts the cache for everything except the given
    paths (and what is below them): for a caller that watches the folders and knows
    what changed. Safe to share between threads (scans are serialised). Never trusted
    for writes: mutations look skills up in a fresh scan and re-check paths themselves.
    """

    def __init__(self, home: HermesHome) -> None:
        self.home = home
        self._lock = threading.Lock()
        self._dirs: dict[str, _DirListing] = {}
        self._files: dict[str, _FileEntry] = {}
        self._racy_dirs: set[str] = set()  # entries whose mtime was too recent to trust
        self._racy_files: set[str] = set()
        self._config_key: tuple[int, int] | None = None
        self._config: tuple[dict[str, Any], tuple[str, ...]] = ({}, ())
        self._config_loaded = False
        self._roots: tuple[int, list[SkillRoot]] | None = None
        self._root_warnings: list[str] = []  # configured roots refused as too broad
        self._last: SkillScan | None = None
        self._last_found: list[tuple[SkillRoot, list[_Found]]] = []
        # SKILL.md path -> (root, rel_parts, place in the last scan's skills or None), for
        # the files the last walk found; made when a patch first needs it
        self._where: dict[str, tuple[SkillRoot, tuple[str, ...], int | None]] | None = None
        self.files_parsed = 0  # SKILL.md files read by the last scan (for tests and benches)

    # config.yaml goes through ruamel, which is slow; reload it only when it changes.
    def _load_config(self) -> tuple[dict[str, Any], tuple[str, ...]]:
        try:
            st = os.stat(self.home.config_file)
            key = (st.st_mtime_ns, st.st_size)
        except OSError:
            key = None
        if (
            not self._config_loaded
            or key != self._config_key
            or (key is not None and _is_racy(key[0], time.time_ns()))
        ):
            from ..config import load_config  # ruamel loads only when there is a config to read

            loaded = load_config(self.home)
            self._config = (loaded.data, loaded.warnings)
            self._config_key = key
            self._config_loaded = True
        return self._config

    def _skill_roots(self, config: dict[str, Any]) -> list[SkillRoot]:
        # the same root objects while the config is unchanged, so identity checks work
        if self._roots is None or self._roots[0] != id(config):
            roots, self._root_warnings = skill_roots_checked(self.home, config)
            self._roots = (id(config), roots)
        return self._roots[1]

    def scan(self, changed: Iterable[str | os.PathLike[str]] | None = None) -> SkillScan:
        with self._lock, gc_paused():
            return self._scan(changed)

    def _scan(self, changed: Iterable[str | os.PathLike[str]] | None) -> SkillScan:
        run = _Pass(time.time_ns(), [])
        config, config_warnings = self._load_config()
        roots = self._skill_roots(config)
        config_warnings = (*config_warnings, *self._root_warnings)
        bundled = read_bundled_manifest(self.home)
        hub = read_hub_lock(self.home)
        self.files_parsed = 0
        last = self._last
        if changed is not None and last is not None:
            dirty = frozenset(os.path.normpath(os.path.abspath(p)) for p in changed)
            run.trust = True
            run.dirty = dirty
            run.dirty_dirs = dirty | {os.path.dirname(path) for path in dirty}
            run.dirty_prefixes = tuple(path + os.sep for path in dirty)
            if last.roots is roots and last.bundled == bundled and last.hub == hub:
                patched = self._patch(last, run, config_warnings)
                if patched is not None:
                    self._last = patched
                    return patched
                run.warnings.clear()  # the walk below reports everything again
        run.warnings.extend(config_warnings)
        root_paths = {os.path.normpath(root.path) for root in roots}
        walked = []
        for root in roots:
            found = self._walk(root, root_paths, run)
            found.sort(key=_found_order)  # (quick: the walk goes in order, see _list)
            walked.append((root, found))
        scan = self._assemble(walked, run, config, roots, bundled, hub)
        # forget what no longer exists so the caches do not grow without bound
        for cache, racy, keep in (
            (self._dirs, self._racy_dirs, run.seen_dirs),
            (self._files, self._racy_files, run.seen_files),
        ):
            if len(cache) != len(keep):
                for stale in [path for path in cache if path not in keep]:
                    del cache[stale]
                    racy.discard(stale)
        self._last, self._last_found, self._where = scan, walked, None
        return scan

    def _assemble(self, walked, run: _Pass, config, roots, bundled, hub) -> SkillScan:
        skills: list[Skill] = []
        duplicates: list[Skill] = []
        by_name: dict[str, Skill] = {}
        for root, found in walked:
            for rel_parts, directory, skill_md, entry in found:
                if entry.__class__ is not _FileEntry:
                    if entry is not None:
                        run.warnings.append(entry)  # why the file was skipped
                    continue
                if entry.problem is not None:  # a YAML bomb and the like
                    run.warnings.append(
                        f"{skill_md}: {entry.problem} Only its plain 'key: value' "
                        "lines were read."
                    )
                skill = self._skill(root, directory, rel_parts, entry, bundled, hub)
                if not skill.name:
                    continue
                first = by_name.get(skill.name)
                if first is None:
                    by_name[skill.name] = skill
                    skills.append(skill)
                    continue
                duplicates.append(skill)
                if first.root is skill.root:
                    run.warnings.append(
                        f"Two skills are named '{skill.name}': {first.directory} and "
                        f"{skill.directory}; only the first is used."
                    )
        return SkillScan(skills, duplicates, run.warnings, roots, config, bundled, hub, known_by_name=by_name)

    def _patch(self, last: SkillScan, run: _Pass, config_warnings) -> SkillScan | None:
        """The last scan with the changed SKILL.md files re-read, when nothing else moved.

        Returns None (do a walk instead) unless every changed path is a known SKILL.md
        that still exists and keeps its name, and no cached entry needs re-checking.
        The work is in proportion to the changed files, not to the skills.
        """
        files = self._files
        if any(path not in files or os.path.basename(path) != "SKILL.md" for path in run.dirty):
            return None
        if self._racy_dirs:  # a directory written moments ago may still be changing
            return None
        where = self._where
        if where is None:
            where = self._where = self._locations(last)
        skills = duplicates = by_name = None
        replaced: list[tuple[Skill, Skill]] = []
        # files written moments ago are read again too: a second write in the same
        # timestamp tick would not show in their mtime
        for path in run.dirty | self._racy_files:
            old = files[path].skill
            found = where.get(path)
            if old is None or found is None:
                return None
            root, rel_parts, place = found
            files[path].trusted = False  # make _file look at the disk
            entry = self._file(path, rel_parts, run)
            if entry.__class__ is not _FileEntry:
                return None
            skill = self._skill(root, old.directory, rel_parts, entry, last.bundled, last.hub)
            if skill.name != old.name:
                return None
            if skill is old:
                continue
            replaced.append((old, skill))
            if place is not None and last.skills[place] is old:
                if skills is None:
                    skills, by_name = last.skills.copy(), last.by_name.copy()
                skills[place] = skill
                by_name[skill.name] = skill
            else:  # a duplicate, hidden by an earlier skill of its name
                hidden = last.duplicates if duplicates is None else duplicates
                if not any(other is old for other in hidden):
                    return None  # not in the last scan at all (a nameless skill): walk
                duplicates = [skill if other is old else other for other in hidden]
        warnings = [*config_warnings, *run.warnings]
        # the scan-level warnings (links, duplicates, unreadable files) are unchanged
        warnings.extend(w for w in last.warnings if w not in warnings)
        return SkillScan(
            last.skills if skills is None else skills,
            last.duplicates if duplicates is None else duplicates,
            warnings, last.roots, last.config, last.bundled, last.hub,
            known_by_name=last.by_name if by_name is None else by_name, base=last.serial,
            replaced=tuple(replaced),
        )  # fmt: skip

    def _locations(self, last: SkillScan) -> dict[str, tuple[SkillRoot, tuple[str, ...], int | None]]:
        """Where each SKILL.md of the last walk is (see ``_where``)."""
        places = {id(skill): place for place, skill in enumerate(last.skills)}
        where = {}
        for root, found in self._last_found:
            for rel_parts, _directory, path, entry in found:
                skill = entry.skill if entry.__class__ is _FileEntry else None
                where[path] = (root, rel_parts, None if skill is None else places.get(id(skill)))
        return where

    def _walk(self, root: SkillRoot, root_paths: set[str], run: _Pass) -> list[_Found]:
        """Every skill directory under a root, with what reading its SKILL.md gave."""
        top = os.path.normpath(root.path)
        if not os.path.isdir(top):
            return []
        real_top = os.path.realpath(top)
        others = root_paths - {top}
        found: list[_Found] = []
        # (directory, its parts below the root, its parent folder kept open or None)
        stack: list[tuple[str, tuple[str, ...], _OpenFolder | None]] = [(top, (), None)]
        opened: list[_OpenFolder] = []
        followed_links: set[str] = set()
        seen_dirs = run.seen_dirs
        seen_files = run.seen_files
        warnings = run.warnings
        dirs, files, racy_dirs, racy_files = self._dirs, self._files, self._racy_dirs, self._racy_files
        now_ns = run.now_ns
        budget = MAX_WALK_DIRS  # bounds, so a root set too wide cannot crawl the disk
        too_deep = False
        parsed = 0  # files read in line below (added to files_parsed at the end)
        try:
            while stack:
                pause_point()  # (one folder is a short step: see hermes_memory.pausing)
                budget -= 1
                if budget < 0:
                    warnings.append(
                        f"Stopped scanning {top} after {MAX_WALK_DIRS:,} folders; skills beyond "
                        "them are not shown. Is this root set to a folder of skills?"
                    )
                    break
                directory, rel, parent = stack.pop()
                known_st = None  # the directory's stat, when the in-line read below took it
                support = None  # its support folder as a listing's subdirs, when looked for
                if parent is not None and directory not in dirs:
                    # A folder not seen before (a cold scan: nearly every folder). The
                    # usual skill folder, one with no subfolders but perhaps a support
                    # folder, is read here in line, as the general path below would read
                    # it: one stat relative to the open parent (and one for the support
                    # folder), then SKILL.md opened without a link. Anything else (a read
                    # that fails, other subfolders) takes the general path, given the stat.
                    dir_name = rel[-1]
                    fd = parent.fd
                    try:
                        known_st = st = os.stat(dir_name, dir_fd=fd)
                    except OSError:
                        parent.release()
                        continue  # gone (as _listing finds it)
                    links = st.st_nlink
                    if links == 3:
                        support = _support_folder(directory, (fd, dir_name))
                    elif links == 2:
                        support = ()
                    probe = directory + _SKILL_MD_SUFFIX
                    if support is not None and probe not in files:
                        try:
                            text, file_st = read_head(probe, follow_links=False, at=(fd, dir_name + _SKILL_MD_SUFFIX))
                        except (OSError, SkillReadError):
                            text = None
                        if text is not None:
                            parent.release()
                            parsed += 1
                            entry = parse_head(text, dir_name, rel)
                            entry.mtime_ns = mtime_ns = file_st.st_mtime_ns
                            entry.size = file_st.st_size
                            # (neither is in the cache, so neither is in its racy sets)
                            if now_ns - mtime_ns >= _RACY_NS:
                                entry.trusted = True
                            else:
                                racy_files.add(probe)
                            files[probe] = entry
                            mtime_ns = st.st_mtime_ns
                            trusted = now_ns - mtime_ns >= _RACY_NS
                            dirs[directory] = _DirListing(mtime_ns, trusted, probe, support, ())
                            if not trusted:
                                racy_dirs.add(directory)
                            seen_dirs.add(directory)
                            seen_files.add(probe)
                            found.append((rel, directory, probe, entry))
                            continue
                try:
                    at = None if parent is None else (parent.fd, rel[-1])
                    listing = self._listing(
                        directory, real_top, run, at, is_root=not rel, st=known_st, support=support
                    )
                    if listing is not None and listing.skill_md is _LEAF:
                        # No subdirectories, so SKILL.md is all there is to find: open it
                        # directly (no link, regular file) instead of listing the directory.
                        probe = directory + _SKILL_MD_SUFFIX
                        probe_at = None if at is None else (at[0], at[1] + _SKILL_MD_SUFFIX)
                        entry = self._file(probe, rel, run, False, probe_at)
                        if entry.__class__ is _FileEntry:
                            seen_dirs.add(directory)
                            listing.skill_md = probe
                            self._store_dir(directory, listing)
                            seen_files.add(probe)
                            found.append((rel, directory, probe, entry))
                            continue
                finally:
                    if parent is not None:
                        parent.release()
                if listing is None:
                    continue
                seen_dirs.add(directory)
                if listing.skill_md is _LEAF:
                    # a link, something odd, or no SKILL.md (and perhaps a link count
                    # that is not real): list the directory after all
                    listing = self._list(directory, real_top, listing.mtime_ns, listing.trusted, is_root=False)
                if listing.notes:
                    warnings.extend(listing.notes)
                skill_md = listing.skill_md
                if skill_md is not None:
                    seen_files.add(skill_md)
                    found.append((rel, directory, skill_md, self._file(skill_md, rel, run)))
                below, deeper = folders_below(listing.subdirs, skill_md is not None, directory, rel,
                                              others, followed_links)  # fmt: skip
                too_deep = too_deep or deeper
                if below:
                    folder = _OpenFolder.of(directory, len(below))
                    if folder is not None:
                        opened.append(folder)
                    # (in reverse: the stack then gives them back in order of name, so
                    # that the walk finds skills already sorted by path)
                    stack.extend([(path, parts, folder) for path, parts in reversed(below)])
        finally:
            self.files_parsed += parsed
            for folder in opened:
                folder.close()
        if too_deep:
            warnings.append(
                f"Folders more than {MAX_WALK_DEPTH} levels below {top} were not scanned for skills."
            )
        return found

    def _listing(
        self,
        directory: str,
        real_top: str,
        run: _Pass,
        at: tuple[int, str] | None,
        *,
        is_root: bool,
        st: os.stat_result | None = None,
        support: tuple[tuple[str, str, bool], ...] | None = None,
    ) -> _DirListing | None:
        """``at``: (the parent folder's fd, the directory's name), to stat relative to it;
        ``st``: the directory's stat, if the caller just took it (then it is not cached),
        and ``support`` what :func:`_support_folder` found in it then (the caller looks
        when the stat shows one subdirectory)."""
        looked = st is not None
        cached = self._dirs.get(directory)
        if cached is not None and cached.trusted and run.trust and not run.is_dirty_dir(directory):
            return cached
        if st is None:
            try:
                st = os.stat(directory) if at is None else os.stat(at[1], dir_fd=at[0])
            except OSError:
                return None
        mtime_ns = st.st_mtime_ns
        if cached is not None and cached.trusted and cached.mtime_ns == mtime_ns:
            return cached
        trusted = run.now_ns - mtime_ns >= _RACY_NS  # not _is_racy(), inline: once per folder
        if not is_root:
            # POSIX filesystems count subdirectories in a directory's link count
            links = st.st_nlink
            if links == 2:
                return _DirListing(mtime_ns, trusted, _LEAF, (), ())
            if links == 3:  # one subdirectory: a skill's support folder needs no listing
                if not looked:
                    support = _support_folder(directory, at)
                if support is not None:
                    return _DirListing(mtime_ns, trusted, _LEAF, support, ())
        return self._list(directory, real_top, mtime_ns, trusted, is_root=is_root)

    def _list(
        self, directory: str, real_top: str, mtime_ns: int, trusted: bool, *, is_root: bool
    ) -> _DirListing | None:
        try:
            skill_md, subdirs, notes = list_folder(directory, real_top)
        except OSError as exc:
            if is_root:
                return None
            skill_md, subdirs = None, []
            notes = [f"Could not list {directory}: {exc.strerror}; its skills are skipped."]
        listing = _DirListing(mtime_ns, trusted, skill_md, subdirs, notes)
        self._store_dir(directory, listing)
        return listing

    def _store_dir(self, directory: str, listing: _DirListing) -> None:
        self._dirs[directory] = listing
        if listing.trusted:
            self._racy_dirs.discard(directory)
        else:
            self._racy_dirs.add(directory)

    def _store_file(self, path: str, entry: _FileEntry | None) -> None:
        if entry is None:
            self._files.pop(path, None)
            self._racy_files.discard(path)
            return
        self._files[path] = entry
        if entry.trusted:
            self._racy_files.discard(path)
        else:
            self._racy_files.add(path)

    def _file(
        self,
        path: str,
        rel_parts: tuple[str, ...],
        run: _Pass,
        follow_links: bool = True,
        at: tuple[int, str] | None = None,
    ) -> _FileEntry | str | None:
        """The parsed SKILL.md; else a warning for a file that cannot be read, or None
        for one that is gone. ``follow_links=False`` and ``at``: see :func:`read_head`."""
        cached = self._files.get(path)
        if cached is not None:
            if cached.trusted and run.trust and not run.is_dirty_file(path):
                return cached
            try:
                if at is not None:
                    st = os.stat(at[1], dir_fd=at[0], follow_symlinks=follow_links)
                else:
                    st = os.stat(path) if follow_links else os.lstat(path)
            except OSError:
                self._store_file(path, None)
                return None
            if cached.trusted and cached.mtime_ns == st.st_mtime_ns and cached.size == st.st_size:
                return cached
        try:
            text, st = read_head(path, follow_links=follow_links, at=at)
        except SkillReadError as exc:
            self._store_file(path, None)
            return str(exc)
        except OSError as exc:
            self._store_file(path, None)
            if not follow_links:
                return None
            return f"Could not read {path}: {exc.strerror}; skipped."
        self.files_parsed += 1
        dir_name = rel_parts[-1] if rel_parts else os.path.basename(os.path.dirname(path))
        parsed = parse_head(text, dir_name, rel_parts)
        mtime_ns = st.st_mtime_ns
        trusted = run.now_ns - mtime_ns >= _RACY_NS  # not _is_racy(), inline: once per file
        if cached is not None:
            if cached == parsed and cached.mtime_ns == mtime_ns and cached.size == st.st_size:
                cached.trusted = trusted  # unchanged after all: keep the objects built from it
                self._store_file(path, cached)
                return cached
        parsed.mtime_ns = mtime_ns
        parsed.size = st.st_size
        parsed.trusted = trusted
        if cached is None and trusted:  # the usual new entry: _store_file, inline
            self._files[path] = parsed
            return parsed
        self._store_file(path, parsed)
        return parsed

    def _skill(
        self,
        root: SkillRoot,
        directory: str,
        rel_parts: tuple[str, ...],
        entry: _FileEntry,
        bundled: frozenset[str],
        hub: HubLock,
    ) -> Skill:
        parsed = entry
        name = parsed.name
        if root.label == BASE:
            source, provenance = BASE, BUNDLED
        elif root.label == EXTERNAL:
            source, provenance = EXTERNAL, EXTERNAL
        elif directory in hub.install_dirs or name in hub.names:
            source, provenance = PROFILE, HUB
        elif name in bundled:
            source, provenance = BASE, BUNDLED  # a bundled skill the agent seeded here
        else:
            source, provenance = PROFILE, LOCAL
        cached = entry.skill
        if (
            cached is not None
            and cached.root is root
            and cached.source == source
            and cached.provenance == provenance
            and cached.mtime_ns == entry.mtime_ns
            and cached.size == entry.size
        ):
            return cached
        skill = Skill(  # positional: ten thousand of these are made in a cold scan
            name, source, provenance, root, directory, "/".join(rel_parts), parsed.category,
            parsed.description, parsed.tags, parsed.related, parsed.frontmatter_text,
            entry.mtime_ns, entry.size, parsed.check,
        )
        entry.skill = skill
        return skill


def _support_folder(directory: str, at: tuple[int, str] | None) -> tuple[tuple[str, str, bool]] | None:
    """A folder's one subdirectory as its listing's subdirs, if it is a support folder
    (``references/`` and the like; not a link); None if none is."""
    for name in _SUPPORT_ORDER:
        try:
            if at is None:
                mode = os.lstat(directory + os.sep + name).st_mode
            else:
                mode = os.stat(at[1] + os.sep + name, dir_fd=at[0], follow_symlinks=False).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            return ((name, directory + os.sep + name, False),)
    return None


def _is_racy(mtime_ns: int, now_ns: int) -> bool:
    return now_ns - mtime_ns < _RACY_NS


def list_folder(directory: str, real_top: str) -> tuple[str | None, list[tuple[str, str, bool]], list[str]]:
    """``(SKILL.md path or None, subfolders as (name, path, is_link) sorted by name,
    notes)`` of one folder: links out of ``real_top`` are skipped with a note, excluded
    folders left out. OSError when the folder cannot be listed."""
    skill_md = None
    subdirs = []
    notes = []
    with os.scandir(directory) as entries:
        for entry in entries:
            name = entry.name
            try:
                if name == "SKILL.md":
                    if entry.is_file() and (not entry.is_symlink() or _inside(entry.path, real_top)):
                        skill_md = entry.path
                    elif entry.is_symlink():
                        notes.append(f"Skipped {entry.path}: it links outside {real_top}.")
                elif name not in EXCLUDED_DIRS and entry.is_dir():
                    if entry.is_symlink() and not _inside(entry.path, real_top):
                        notes.append(f"Skipped {entry.path}: it links outside {real_top}.")
                        continue
                    subdirs.append((name, entry.path, entry.is_symlink()))
            except OSError:
                continue
    subdirs.sort()  # by name (see _walk)
    return skill_md, subdirs, notes


def folders_below(
    subdirs: list[tuple[str, str, bool]], has_skill: bool, directory: str, rel: tuple[str, ...],
    others: set[str], followed_links: set[str],
) -> tuple[list[tuple[str, tuple[str, ...]]], bool]:
    """The subfolders of ``directory`` (``(name, path, is_link)``, sorted) that the walk
    goes into, as ``(path, rel)``, and whether some were left out for being too deep:
    not a support folder of a skill, not another root nested in this one (it scans
    itself), a link only the first time and never into its own ancestors."""
    below = []
    too_deep = False
    for name, path, is_link in subdirs:
        if has_skill and name in SUPPORT_DIRS:
            continue
        if path in others:
            continue
        if is_link and not _link_is_new(path, directory, followed_links):
            continue
        if len(rel) >= MAX_WALK_DEPTH:
            too_deep = True
            continue
        below.append((path, (*rel, name)))
    return below, too_deep


def _link_is_new(link: str, parent: str, followed: set[str]) -> bool:
    """Follow a directory link once, and never into one of its own ancestors (a loop)."""
    target = os.path.realpath(link)
    real_parent = os.path.realpath(parent)
    if target in followed or real_parent == target or real_parent.startswith(target + os.sep):
        return False
    followed.add(target)
    return True


def _inside(path: str, real_top: str) -> bool:
    return is_strictly_inside(os.path.realpath(path), real_top)


def scan_skills(home: HermesHome) -> SkillScan:
    """A one-off scan with no cache kept."""
    return SkillIndex(home).scan()


def read_one_skill(
    home: HermesHome,
    root: SkillRoot,
    directory: str,
    rel_parts: tuple[str, ...],
    bundled: frozenset[str],
    hub: HubLock,
    *,
    follow_links: bool = True,
) -> Skill | str | None:
    """The :class:`Skill` a scan makes of ``directory``'s SKILL.md (found under ``root``
    at ``rel_parts``), for a caller that found the folder without a scan
    (:mod:`.locate`); else the scan's warning for a file it cannot read, or None for one
    that is gone. ``follow_links=False``: as the scan reads a folder without subfolders."""
    index = SkillIndex(home)
    skill_md = directory + _SKILL_MD_SUFFIX
    entry = index._file(skill_md, rel_parts, _Pass(time.time_ns(), []), follow_links)
    if entry.__class__ is not _FileEntry:
        return entry
    return index._skill(root, directory, rel_parts, entry, bundled, hub)
