"""Cross-process file locking, bounded reads and crash-safe writes shared by every store.

The lock lives in a separate ``<file>.lock`` so the data file itself can be replaced
atomically (a lock on the data file would be lost on ``os.replace``). This matches the
Hermes agent, so our writes and a live agent's writes exclude each other.

Hostile or broken homes are met here, once, for every writer:

- **Only regular files are read or written.** A FIFO, a device or a folder where a file
  should be is refused (opened non-blocking, checked with ``fstat``), and reads stop at a
  size limit, so ``/dev/zero`` or a FIFO as MEMORY.md can neither hang a command nor fill
  the memory.
- **Symbolic links: one policy.** A link that resolves inside the Hermes home is
  followed, and a write goes *through* it to the file it names: the link stays a link.
  A write whose path (the file itself or any folder on the way) resolves outside the home
  is refused. Reads follow links like the agent does, but still only read regular files.
  "The home" is the root of every :class:`~hermes_memory.home.HermesHome` created in this
  process (a profile may link into its root home); paths outside every home are written
  through their links without confinement.
- **Leftover temp files** of killed writers (each a full copy of the file it was
  replacing) are removed by the next writer that takes the lock or writes in that folder,
  once they are older than any live writer's temp file can be.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None
try:  # Windows
    import msvcrt
except ImportError:
    msvcrt = None

#: How long a mutation waits for another process's lock before giving up.
DEFAULT_LOCK_TIMEOUT = 10.0
_POLL_SECONDS = 0.01

#: The most read from a settings or records file (config.yaml, .usage.json): far more
#: than any real one, little enough that a hostile one cannot exhaust the memory.
MAX_SETTINGS_BYTES = 4 * 1024 * 1024

#: A temp file untouched for this long belongs to a writer that died: a live writer
#: creates, fills, fsyncs and renames its temp file within one lock hold (seconds).
STALE_TEMP_SECONDS = 15 * 60
#: Temp names of every atomic writer that uses a data file's folder: ours and the agent's
#: (``.mem_<random>.tmp``, ``.<stem>_<random>.tmp``). Nothing else is ever removed.
_TEMP_NAME = re.compile(
    r"^\.(?:(?:mem|usage|config|proposal|review|curator_suppressed|tmp)_|SKILL\.md\.)"
    r"[A-Za-z0-9_]{8}\.tmp$"  # 8 random characters, as tempfile and _create_temp make
)

_NONBLOCKING_READ = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LockTimeout(RuntimeError):
    """Another process held the lock for longer than we were willing to wait."""


class UnsafeFileError(OSError):
    """A path the engine will not read or write: not a regular file, too large, a link
    leading out of the home, or text that cannot be saved. ``str()`` is the message."""

    def __init__(self, message: str):
        super().__init__(errno.EPERM, message)

    def __str__(self) -> str:
        return self.strerror


class FileTooLarge(UnsafeFileError):
    def __init__(self, message: str, size: int):
        super().__init__(message)
        self.size = size


# --- where a home ends ----------------------------------------------------------------------
_home_roots: set[str] = set()


#: A file changed less than this long before a read may change again within the same
#: timestamp tick, size unchanged, and look untouched: what was read from it is not reused.
RACY_NS = 2_000_000_000


def file_version(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """What tells one version of a file from another: device, inode, size, mtime, ctime
    (ctime cannot be set back, so a rewrite that restores the old mtime still shows)."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def settled(info: os.stat_result, read_at_ns: int) -> bool:
    """Whether the file had last changed long enough before ``read_at_ns`` for what was
    read from it to be kept for as long as :func:`file_version` stays the same."""
    return max(info.st_mtime_ns, info.st_ctime_ns) < read_at_ns - RACY_NS


def register_home(root: os.PathLike[str] | str) -> None:
    """Confine writes under ``root`` to ``root``'s real location (see the module notes)."""
    _home_roots.add(os.path.abspath(root))


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def home_root_of(path: os.PathLike[str] | str) -> str | None:
    """The innermost registered home root that the (lexical) ``path`` lies in."""
    lexical = os.path.abspath(path)
    roots = [root for root in _home_roots if _within(lexical, root)]
    return max(roots, key=len) if roots else None


def describe_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def resolve_write_target(path: os.PathLike[str] | str) -> Path:
    """The real file a write to ``path`` must replace, after the link policy.

    Links are resolved; the result must stay inside the home ``path`` belongs to, and, if
    it exists, be a regular file. Raises :class:`UnsafeFileError` otherwise.
    """
    lexical = os.path.abspath(path)
    real = os.path.realpath(lexical)
    root = home_root_of(lexical)
    if root is not None and not _within(real, os.path.realpath(root)):
        raise UnsafeFileError(
            f"{path} is reached through a symbolic link that leads outside the Hermes home "
            f"(to {real}); nothing was written. Writes follow links only within {root}: "
            "replace the link with the file itself, or link to a place inside the home."
        )
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return Path(real)
    if not stat.S_ISREG(mode):
        raise UnsafeFileError(
            f"{path} is {describe_kind(mode)}, not a regular file; nothing was written. "
            "Move it aside so the file can be recreated."
        )
    return Path(real)


# --- reading --------------------------------------------------------------------------------
def read_regular_bytes(path: os.PathLike[str] | str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Never blocks on a FIFO or a device and never reads more than ``limit + 1`` bytes.
    ``FileNotFoundError`` (and other ``OSError``) propagate; anything that is not a regular
    file raises :class:`UnsafeFileError`, a larger file :class:`FileTooLarge`.
    """
    name = Path(path).name
    fd = os.open(path, _NONBLOCKING_READ)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(
                f"{path} is {describe_kind(info.st_mode)}, not a regular file; it was not read."
            )
        if info.st_size > limit:
            raise FileTooLarge(_too_large(name, info.st_size, limit), info.st_size)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew while we read
            raise FileTooLarge(_too_large(name, total, limit), total)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _too_large(name: str, size: int, limit: int) -> str:
    return f"{name} is over {limit:,} bytes ({size:,} bytes); it was not read."


# --- locking --------------------------------------------------------------------------------
def lock_path_for(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _try_lock(handle) -> bool:
    if fcntl is not None:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
    if msvcrt is not None:  # pragma: no cover - Windows
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    return True  # no locking primitive: behave like upstream (a no-op lock)


def _unlock(handle) -> None:
    with contextlib.suppress(OSError):
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        elif msvcrt is not None:  # pragma: no cover - Windows
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)


def _open_lock_file(lock_file: Path):
    """Open (creating) the lock file without following a link out of the home, without
    blocking, and only if it is a regular file."""
    target = resolve_write_target(lock_file)
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | _NOFOLLOW
    flags |= getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(target, flags, 0o644)  # O_APPEND, never truncating: as upstream's "a+"
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFileError(
                f"{lock_file} is {describe_kind(mode)}, not a lock file; nothing was written. "
                "Move it aside."
            )
        return os.fdopen(fd, "a+")
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the exclusive ``<path>.lock`` lock, waiting at most ``timeout`` seconds.

    Upstream blocks forever; a desktop app must not, so we poll and raise
    :class:`LockTimeout` with a message a person can act on. A ``path`` that could not be
    written anyway (a link out of the home, a FIFO) is refused before the lock file is
    created. Once held, stale temp files next to ``path`` are removed (see
    :func:`remove_stale_temp_files`).
    """
    path = Path(path)
    resolve_write_target(path)  # refuse before creating anything when it cannot be written
    with _open_lock_file(lock_path_for(path)) as handle:
        deadline = time.monotonic() + timeout
        while not _try_lock(handle):
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"{path.name} is locked by another process (waited {timeout:g} s). "
                    "If a Hermes agent is busy writing memory, try again in a moment."
                )
            time.sleep(_POLL_SECONDS)
        try:
            _remove_stale_temps_near(path)
            yield
        finally:
            _unlock(handle)


def _remove_stale_temps_near(path: Path) -> None:
    folders = {os.path.realpath(path.parent)}
    with contextlib.suppress(OSError):
        folders.add(str(resolve_write_target(path).parent))
    for folder in folders:
        root = home_root_of(path)
        if root is None or _within(folder, os.path.realpath(root)):  # never clean outside
            remove_stale_temp_files(Path(folder))


def remove_stale_temp_files(folder: Path, max_age: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Remove atomic writers' temp files in ``folder`` not modified for ``max_age`` seconds.

    Only names an atomic writer of a Hermes home creates are considered, only regular
    files (never through a link), and any error leaves the file alone.
    """
    removed = []
    cutoff = time.time() - max_age
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not _TEMP_NAME.match(entry.name):
            continue
        with contextlib.suppress(OSError):
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


# --- writing --------------------------------------------------------------------------------
def encode_text(text: str, path: os.PathLike[str] | str) -> bytes:
    """``text`` as UTF-8, or :class:`UnsafeFileError` naming the first unsavable character."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UnsafeFileError(
            f"The text for {Path(path).name} contains a character that cannot be saved as "
            f"UTF-8 (U+{ord(text[exc.start]):04X}, a lone surrogate, at offset {exc.start}); "
            "nothing was written."
        ) from None


def atomic_write_text(path: Path, text: str, temp_prefix: str = ".tmp_") -> None:
    """Write ``text`` as UTF-8 to ``path`` via temp file + fsync + ``os.replace``.

    Readers see either the old or the new file, never a torn one. The temp file is
    removed if anything fails, and the error is re-raised as ``OSError``.
    """
    atomic_write_bytes(path, encode_text(text, path), temp_prefix)


def atomic_write_bytes(path: Path, data: bytes, temp_prefix: str = ".tmp_") -> None:
    """:func:`atomic_write_text` for bytes. A link is written through (see the module
    notes), so the link itself is never replaced by a regular file."""
    target = resolve_write_target(path)
    try:
        mode = os.stat(target).st_mode & 0o777
    except FileNotFoundError:
        mode = None
    temp_name = None
    try:
        fd, temp_name = _create_temp(target.parent, temp_prefix)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:  # keep the permissions of the file we replace (temp is 0600)
            with contextlib.suppress(AttributeError, OSError):
                os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        if temp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
        raise
    _fsync_directory(target.parent)
    remove_stale_temp_files(target.parent)  # writers that never lock (SKILL.md edits) too


def append_text(path: Path, text: str) -> None:
    """Append ``text`` (UTF-8) to a log-like file, creating it, under the same link and
    file-type policy as the atomic writers."""
    data = encode_text(text, path)
    target = resolve_write_target(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(target, flags | getattr(os, "O_BINARY", 0), 0o644)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFileError(f"{path} is {describe_kind(mode)}; nothing was written.")
        remaining = memoryview(data)
        while remaining:
            remaining = remaining[os.write(fd, remaining) :]
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _create_temp(folder: Path, prefix: str) -> tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{secrets.token_hex(4)}.tmp")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"No free temp file name in {folder}")


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX only; a no-op elsewhere)."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
