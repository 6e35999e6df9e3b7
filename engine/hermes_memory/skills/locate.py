"""Finding skills by name without reading every SKILL.md: :class:`SkillLookup`.

A command on one skill (``hermes-memory node show|pin|unpin|delete|restore``, an edit, an
undo step) must resolve a name exactly as the full scan of :class:`~.index.SkillIndex`
does: the first skill of that name in scan order (roots base, profile, external; paths
sorted within a root), whatever its folder is called; a name is free only if no SKILL.md
declares it. Only the names of the files before it can tell that, so the lookup walks
the folders by the scan's rules (the same exclusions, support folders, links, depth and
folder budget), in the scan's order, up to the first file of that name (to the end for
a name no skill has), and takes each file's name from a cache kept between processes,
keyed by the file's identity (device, inode, size, modification and change times: any
write moves the change time). It reads only the files the cache does not know, and the
skill asked for: read afresh when asked, and if its name no longer matches, the full
scan answers instead. The walk costs a ``stat`` of each skill folder and of its SKILL.md.

The cache is derived data in the user's cache folder (``$XDG_CACHE_HOME/hermes-memory``,
else ``~/.cache/hermes-memory``, as ``platformdirs`` gives it on each platform), one file per home,
never inside the Hermes home: a command that changes nothing leaves the home as it was.
Missing, unreadable or damaged, it only means the files are read. A file changed within
:data:`~..fileio.RACY_NS` of the walk is not cached (two writes in one timestamp tick).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..fileio import settled
from ..home import HermesHome
from . import frontmatter as _frontmatter_module
from . import index as _index_module
from .index import Skill, SkillIndex, folders_below, list_folder, read_one_skill
from .roots import (
    MAX_WALK_DIRS,
    SUPPORT_DIRS,
    SkillRoot,
    read_bundled_manifest,
    read_hub_lock,
    skill_roots_checked,
)

CACHE_VERSION = 2
#: A names cache bigger than this is not read (a million skills stay below it).
MAX_CACHE_BYTES = 256 * 1024 * 1024
_SUPPORT_ORDER = ("references", *sorted(SUPPORT_DIRS - {"references"}))  # as the scan looks
_SEP = os.sep
_SKILL_MD = os.sep + "SKILL.md"
_RELATIVE = {os.stat} <= os.supports_dir_fd and os.stat in os.supports_follow_symlinks and hasattr(os, "O_DIRECTORY")
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(slots=True)
class _Found:
    """One SKILL.md the walk found, in scan order."""

    root: SkillRoot
    rel: tuple[str, ...]
    directory: str
    follow: bool  # False: read without following a link (a folder with no subfolders)
    version: list[Any]  # [follow, *file_version] of the SKILL.md as the walk saw it
    name: str = ""  # "" until known; stays "" for a file that is no skill


class SkillLookup:
    """What a one-skill command needs of a :class:`~.index.SkillScan`: :meth:`get` (any
    name, answered exactly as the scan answers it), and the ``config``, ``roots``,
    ``bundled`` and ``hub`` it was made with. It holds no list of every skill: the walk
    goes on, in scan order, only as far as the names asked for need (to the end for a
    name no skill has)."""

    def __init__(self, home: HermesHome) -> None:
        from ..config import load_config  # (as the index: ruamel only when there is a config)

        self.home = home
        self.config: dict[str, Any] = load_config(home).data
        self.roots, _warnings = skill_roots_checked(home, self.config)
        self.bundled = read_bundled_manifest(home)
        self.hub = read_hub_lock(home)
        self.walked = 0  # SKILL.md files the walk has named so far (for tests and benches)
        self.files_read = 0  # of them, read because the names cache did not know them
        self._started_ns = time.time_ns()
        self._cache_path = cache_path(home)
        self._old = _read_cache(self._cache_path) if self._cache_path is not None else {}
        self._new: dict[str, list[Any]] = {}  # the cache entries of the files walked so far
        self._dirty = False  # an entry of the cache is to be added, changed or dropped
        self._walk = _walk_roots(self.roots)
        self._done = False
        self._first: dict[str, _Found] = {}  # each name's first skill, as far as walked
        self._read: dict[str, Skill] = {}  # skills read on the way, by folder

    def winner(self, name: str) -> _Found | None:
        """Where the scan's skill named ``name`` is, or None when no skill has that name."""
        item = self._first.get(name)
        if item is not None or self._done:
            return item
        first = self._first
        for item in self._walk:
            self._name(item)
            if item.name and item.name not in first:
                first[item.name] = item
                if item.name == name:
                    self._save()
                    return item
        self._done = True
        self._save()
        return None

    def get(self, name: str) -> Skill | None:
        item = self.winner(name)
        if item is None:
            return None
        skill = self._read.get(item.directory)
        if skill is None:
            read = read_one_skill(self.home, item.root, item.directory, item.rel, self.bundled, self.hub,
                                  follow_links=item.follow)  # fmt: skip
            if not isinstance(read, Skill) or read.name != name:
                # changed since the walk, or a cache that was wrong: let the scan decide
                return SkillIndex(self.home).scan().get(name)
            skill = self._read[item.directory] = read
        return skill

    def _name(self, item: _Found) -> None:
        self.walked += 1
        kept = self._old.get(item.directory)
        # [name, follow, dev, ino, size, mtime_ns, ctime_ns]; anything else never matches
        if kept.__class__ is list and kept[1:] == item.version and kept[0].__class__ is str:
            item.name = kept[0]
            self._new[item.directory] = kept
            return
        self._dirty = True
        self.files_read += 1
        read = read_one_skill(self.home, item.root, item.directory, item.rel, self.bundled, self.hub,
                              follow_links=item.follow)  # fmt: skip
        if read is None:
            return  # gone since the walk saw it
        if isinstance(read, Skill):
            item.name = read.name
            self._read[item.directory] = read
        # (a file that is no skill, not UTF-8 or unreadable, is kept with no name: a
        # change to it, its mode included, moves its change time)
        skill_md = item.directory + _SKILL_MD
        try:
            info = os.stat(skill_md) if item.follow else os.lstat(skill_md)
        except OSError:
            return
        if _version(item.follow, info) == item.version and settled(info, self._started_ns):
            self._new[item.directory] = [item.name, *item.version]

    def _save(self) -> None:
        """Write the cache if the walk so far changed it: the entries of the files walked,
        and, when the walk stopped early, the old entries of the rest."""
        path = self._cache_path
        if path is None:
            return
        if self._done:
            dirty = self._dirty or len(self._new) != len(self._old)
            files = self._new
        else:
            dirty = self._dirty
            files = {**self._old, **self._new} if dirty else self._old
        if dirty:
            _write_cache(path, files)
            self._old, self._dirty = dict(files), False


def lookup(home: HermesHome) -> SkillLookup:
    """A :class:`SkillLookup` of ``home`` (see the module notes)."""
    return SkillLookup(home)


# --- the walk (SkillIndex._walk's rules, with stat calls instead of reads) ----------------
class _Parent:
    """A listed folder kept open while its subfolders are looked at: a ``stat`` relative
    to it resolves two path steps instead of the whole path (as the index does)."""

    __slots__ = ("fd", "left")

    def __init__(self, directory: str, subfolders: int) -> None:
        self.fd = os.open(directory, _DIR_FLAGS) if _RELATIVE else -1
        self.left = subfolders

    def release(self) -> None:
        self.left -= 1
        if self.left == 0 and self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _walk_roots(roots: list[SkillRoot]) -> Iterator[_Found]:
    """Every SKILL.md of every root, in the scan's order: roots in order, and within a
    root by path (a walk that lists each folder's subfolders by name and goes depth
    first finds them in that order, as the index's walk does)."""
    root_paths = {os.path.normpath(root.path) for root in roots}
    for root in roots:
        yield from _walk(root, root_paths)


def _walk(root: SkillRoot, root_paths: set[str]) -> Iterator[_Found]:
    top = os.path.normpath(root.path)
    if not os.path.isdir(top):
        return
    real_top = os.path.realpath(top)
    others = root_paths - {top}
    stack: list[tuple[str, tuple[str, ...], _Parent | None]] = [(top, (), None)]
    opened: list[_Parent] = []
    followed_links: set[str] = set()
    budget = MAX_WALK_DIRS
    try:
        while stack:
            budget -= 1
            if budget < 0:
                break
            directory, rel, parent = stack.pop()
            if rel:
                leaf = _leaf(root, directory, rel, parent)
                if leaf is not None:
                    if leaf is not _GONE:
                        yield leaf
                    continue
            listing = _list(directory, real_top)
            if listing is None:
                continue
            skill_md, subdirs = listing
            if skill_md is not None:
                try:
                    info = os.stat(skill_md)
                except OSError:
                    info = None
                if info is not None:
                    yield _Found(root, rel, directory, True, _version(True, info))
            below, _too_deep = folders_below(subdirs, skill_md is not None, directory, rel, others, followed_links)
            if below:
                try:
                    folder: _Parent | None = _Parent(directory, len(below))
                    opened.append(folder)
                except OSError:
                    folder = None  # whole paths, then
                stack.extend([(path, parts, folder) for path, parts in reversed(below)])
    finally:
        for folder in opened:
            if folder.fd >= 0:
                os.close(folder.fd)


_GONE = _Found(SkillRoot("", Path()), (), "", False, [])  # a folder that is not there


def _leaf(root: SkillRoot, directory: str, rel: tuple[str, ...], parent: _Parent | None) -> _Found | None:
    """The skill of a folder whose link count says it has no subfolders but perhaps one
    support folder, when its SKILL.md is a regular file reached without a link (the
    scan opens it directly then); :data:`_GONE` for a folder that cannot be looked at;
    else None: the folder is listed."""
    if parent is not None and parent.fd >= 0:
        fd, name = parent.fd, rel[-1]
    else:
        fd, name = None, directory
    try:
        try:
            links = os.stat(name, dir_fd=fd).st_nlink
        except OSError:
            return _GONE
        if links == 3:
            for support in _SUPPORT_ORDER:
                try:
                    if stat.S_ISDIR(os.stat(name + _SEP + support, dir_fd=fd, follow_symlinks=False).st_mode):
                        break
                except OSError:
                    continue
            else:
                return None
        elif links != 2:
            return None
        try:
            info = os.stat(name + _SKILL_MD, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None
    finally:
        if parent is not None:
            parent.release()
    if not stat.S_ISREG(info.st_mode):
        return None
    return _Found(root, rel, directory, False, _version(False, info))


def _version(follow: bool, info: os.stat_result) -> list[Any]:
    # (fileio.file_version, as a list: the cache holds lists)
    return [follow, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _list(directory: str, real_top: str) -> tuple[str | None, list[tuple[str, str, bool]]] | None:
    """``(SKILL.md path or None, sorted subfolders)`` as the scan lists a folder."""
    try:
        skill_md, subdirs, _notes = list_folder(directory, real_top)
    except OSError:
        return None
    return skill_md, subdirs


def cache_folder() -> Path | None:
    """This engine's folder in the user's cache folder, or None where there is none."""
    import platformdirs

    try:
        return Path(platformdirs.user_cache_dir("hermes-memory", appauthor=False))
    except (RuntimeError, KeyError):  # no home folder to be found: no cache
        return None


def home_key(home: HermesHome) -> str:
    """A file name for what is cached about ``home`` (by its real path)."""
    return hashlib.sha256(os.fsencode(os.path.realpath(home.path))).hexdigest()[:32] + ".json"


def cache_path(home: HermesHome) -> Path | None:
    """The names cache of ``home``, or None where the platform gives no cache folder."""
    folder = cache_folder()
    return None if folder is None else folder / "skill-names" / home_key(home)


def _rules() -> str:
    """What the cached names depend on besides the files: the engine's version and the
    modules that read a name (a change to either makes every name read again)."""
    parts = [__version__]
    for module in (_index_module, _frontmatter_module):
        try:
            info = os.stat(module.__file__ or "")
            parts.append(f"{info.st_size}:{info.st_mtime_ns}")
        except (OSError, TypeError):
            parts.append("?")
    return "/".join(parts)


def _read_cache(path: Path) -> dict[str, list[Any]]:
    import orjson

    raw = read_cache_file(path, MAX_CACHE_BYTES)
    try:
        data = orjson.loads(raw) if raw is not None else None
    except ValueError:
        return {}
    if type(data) is not dict or data.get("v") != CACHE_VERSION or data.get("rules") != _rules():
        return {}
    files = data.get("files")
    return files if type(files) is dict else {}  # (entries are checked where they are used)


def _write_cache(path: Path, files: dict[str, list[Any]]) -> None:
    import orjson

    try:
        data = orjson.dumps({"v": CACHE_VERSION, "rules": _rules(), "files": files})
    except TypeError:  # a path that is not UTF-8 (surrogate-escaped): leave those out
        files = {key: entry for key, entry in files.items() if _encodes(key)}
        data = orjson.dumps({"v": CACHE_VERSION, "rules": _rules(), "files": files})
    write_cache_file(path, data)


def write_cache_file(path: Path, data: bytes) -> None:
    """Replace a file of the cache folder; never raises (a cache: a read-only or odd
    folder means none), never through a link, and no fsync (a torn file only means it is
    made again)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with contextlib.suppress(OSError):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(temp, path)
    with contextlib.suppress(OSError):
        os.unlink(temp)


def read_cache_file(path: Path, limit: int) -> bytes | None:
    """A regular file of the cache folder of at most ``limit`` bytes, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
