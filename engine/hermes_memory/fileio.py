"""Cross-process file locking and crash-safe writes shared by every store.

The lock lives in a separate ``<file>.lock`` so the data file itself can be replaced
atomically (a lock on the data file would be lost on ``os.replace``). This matches the
Hermes agent, so our writes and a live agent's writes exclude each other.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
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


class LockTimeout(RuntimeError):
    """Another process held the lock for longer than we were willing to wait."""


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


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the exclusive ``<path>.lock`` lock, waiting at most ``timeout`` seconds.

    Upstream blocks forever; a desktop app must not, so we poll and raise
    :class:`LockTimeout` with a message a person can act on.
    """
    lock_file = lock_path_for(path)
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_file, "a+") as handle:  # "a+" never truncates, as upstream
        deadline = time.monotonic() + timeout
        while not _try_lock(handle):
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"{path.name} is locked by another process (waited {timeout:g} s). "
                    "If a Hermes agent is busy writing memory, try again in a moment."
                )
            time.sleep(_POLL_SECONDS)
        try:
            yield
        finally:
            _unlock(handle)


def atomic_write_text(path: Path, text: str, temp_prefix: str = ".tmp_") -> None:
    """Write ``text`` as UTF-8 to ``path`` via temp file + fsync + ``os.replace``.

    Readers see either the old or the new file, never a torn one. The temp file is
    removed if anything fails, and the error is re-raised as ``OSError``.
    """
    fd, temp_name = tempfile.mkstemp(prefix=temp_prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(AttributeError, OSError):
            # Keep the permissions of the file we replace (tempfile creates 0600).
            os.chmod(temp_name, Path(path).stat().st_mode & 0o777)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    _fsync_directory(path.parent)


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
