"""Errors a person can meet when reading a session database, each with a clear message.

Every sqlite3 failure is translated at the boundary (:func:`translate_sqlite_errors`) so
callers see one family of exceptions that say what happened and what to do.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path


class SessionStoreError(RuntimeError):
    """The session database cannot be used; the message is meant for a person."""


class SessionDBMissing(SessionStoreError):
    """There is no ``state.db`` at the expected place."""


class SessionDBInvalid(SessionStoreError):
    """The file exists but is not SQLite, or not a Hermes session store."""


class SessionDBLocked(SessionStoreError):
    """Another process kept the database locked for longer than our busy timeout."""


class SessionDBCorrupt(SessionStoreError):
    """SQLite reports the file as damaged."""


def describe_sqlite_error(path: Path, exc: sqlite3.Error, busy_timeout: float) -> SessionStoreError:
    text = str(exc)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return SessionDBLocked(
            f"{path} is locked by another process (probably the agent) and stayed locked for "
            f"{busy_timeout:g} s. Try again in a moment."
        )
    if "not a database" in lowered or "file is encrypted" in lowered:
        return SessionDBInvalid(f"{path} is not an SQLite database, so it holds no session history.")
    if "malformed" in lowered or "corrupt" in lowered:
        return SessionDBCorrupt(
            f"{path} is damaged ({text}). Nothing was changed; the agent's own recovery or "
            "`sqlite3 state.db .recover` can rescue it."
        )
    if "unable to open" in lowered:
        return SessionDBMissing(f"Could not open {path} ({text}). Check that it exists and is readable.")
    if "readonly" in lowered or "read-only" in lowered:
        return SessionStoreError(
            f"{path} needs recovery that only a writer can do ({text}). Start the agent once, "
            "then try again."
        )
    return SessionStoreError(f"Reading {path} failed: {text}")


@contextlib.contextmanager
def translate_sqlite_errors(path: Path, busy_timeout: float) -> Iterator[None]:
    """Re-raise any sqlite3 error as a :class:`SessionStoreError` with a readable message."""
    try:
        yield
    except sqlite3.Error as exc:
        raise describe_sqlite_error(path, exc, busy_timeout) from exc
