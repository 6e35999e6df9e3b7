"""What each SKILL.md held when a capture last read it, so the next one reads only changes.

A capture compares every skill with its newest recorded version, and that meant reading
and hashing every SKILL.md: at 10,000 skills, most of the capture the app runs at open.
``skill-stamps.json`` in the history folder remembers, per SKILL.md, the file's identity
(device, inode, size, and modification and change times in nanoseconds) and the hash of
what it held. While that identity is unchanged the file holds the same bytes: every
write moves both times, and the change time cannot be set back (a tool that restores the
modification time still moves it). A file changed less than :data:`..fileio.RACY_NS` before
it was read is not stamped, since two writes within one timestamp tick would otherwise
look like one (the skill index does the same).

Only a cache, derived from the files: a missing, unreadable or damaged stamps file, or an
entry that does not match, means the file is read and hashed as before. Erasing the
history removes it with the folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
import time
from typing import Any

from ..fileio import file_version, settled
from .storage import HistoryError, HistoryStore, _check_plain

STAMPS = "skill-stamps.json"
VERSION = 1
#: A stamps file bigger than this is not read (a million skills stay well below it).
MAX_BYTES = 64 * 1024 * 1024



class SkillStamps:
    """The stamps of one history folder, for one capture: :meth:`look` before reading a
    SKILL.md, :meth:`remember` what was read, :meth:`save` once the capture is recorded."""

    def __init__(self, store: HistoryStore) -> None:
        self.path = store.dir / STAMPS
        self._started_ns = time.time_ns()
        self._old = _read(self.path)
        self._new: dict[str, list[Any]] = {}

    def look(self, skill_md: str) -> tuple[os.stat_result | None, str | None]:
        """The file's ``stat`` (None if it cannot be read) and, when it is unchanged since
        it was stamped, the hash of what it holds (else None: read it)."""
        try:
            info = os.stat(skill_md)
        except (OSError, ValueError):
            return None, None
        if not stat.S_ISREG(info.st_mode):
            return None, None
        old = self._old.get(skill_md)
        if old is not None and tuple(old[:5]) == file_version(info):
            self._new[skill_md] = old
            return info, old[5]
        return info, None

    def remember(self, skill_md: str, info: os.stat_result, md: str) -> None:
        """``skill_md``, found as ``info`` before it was read, held the text hashing to ``md``."""
        if settled(info, self._started_ns):
            self._new[skill_md] = [*file_version(info), md]

    def save(self) -> None:
        """Write the stamps of this capture's files (only if they differ from the last)."""
        if self._new == self._old:
            return
        temp = self.path.with_name(f".{STAMPS}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            _check_plain(self.path)
            data = json.dumps({"v": VERSION, "files": self._new}, ensure_ascii=False, separators=(",", ":"))
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
            try:
                os.write(fd, data.encode("utf-8", "surrogatepass"))
            finally:
                os.close(fd)
            os.replace(temp, self.path)  # a cache: no fsync, a torn file only means a full read
        except (OSError, HistoryError):  # no history folder yet, a read-only home, ...
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _read(path) -> dict[str, list[Any]]:
    try:
        _check_plain(path)
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                return {}
            data = _decode(handle.read())
    except (OSError, ValueError, HistoryError):
        return {}
    files = data.get("files") if type(data) is dict and data.get("v") == VERSION else None
    if type(files) is not dict:
        return {}
    return {path: entry for path, entry in files.items() if _valid(entry)}


def _decode(data: bytes) -> Any:
    import orjson  # several times faster than json for ten thousand entries

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:  # (paths that are not UTF-8 were written surrogate-escaped)
        return json.loads(data.decode("utf-8", "surrogatepass"))


def _valid(entry: Any) -> bool:
    # (the identity numbers need no check: anything else never equals a file's identity)
    return type(entry) is list and len(entry) == 6 and type(entry[5]) is str
