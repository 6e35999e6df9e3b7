"""Where history lives and how it is written: an append-only event log and a blob pack.

``<home>/.memory-studio/history/`` (our own folder: never under ``memories/`` or
``skills/``, which the agent scans) holds:

* ``events.jsonl``: one JSON object per line, one line per recorded version or change;
* ``blobs.jsonl``: ``{"h": <hash>, "t": <text>}`` lines, each text once (memory entries,
  raw files that do not round-trip, SKILL.md texts), so versions share their content;
* ``events.jsonl.lock``: the lock every writer holds while appending (a process writing
  memory holds the store's own lock first, so the order of versions is the order of writes).

Appends are small ``O_APPEND`` writes under the lock. A line cut short by a crash, a
malformed line, or a hostile one is skipped and reported when reading; it is never
rewritten (only ``forget`` rewrites the log). Links are refused: the folder and its files
must be plain, so nothing can be redirected into a file elsewhere.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fileio import DEFAULT_LOCK_TIMEOUT, LockTimeout, atomic_write_text, file_lock
from ..home import HermesHome

HISTORY_DIR = Path(".memory-studio") / "history"
EVENTS = "events.jsonl"
BLOBS = "blobs.jsonl"
#: Kinds of history: the two memory stores and skills.
KINDS = ("memory", "user", "skill")
#: A history file larger than this is not read (a year of an active agent is ~1 MB).
MAX_FILE_BYTES = 512 * 1024 * 1024
#: One event line larger than this is hostile or damaged and is skipped.
MAX_EVENT_LINE = 1024 * 1024
_TAIL_CHUNK = 64 * 1024


class HistoryError(RuntimeError):
    """History cannot be read or written; the message says what happened and what to do."""


@functools.lru_cache(maxsize=65536)
def content_hash(text: str) -> str:
    """The blob name of a text: 20 hex digits of SHA-256 (its first 12 are the entry's
    graph fingerprint, since entries are stored stripped)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def history_dir(home: HermesHome) -> Path:
    return home.path / HISTORY_DIR


@dataclass
class EventLog:
    """The events read from the log, in the order they were recorded, and what was skipped."""

    events: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _check_plain(path: Path) -> None:
    """Refuse a link or a non-regular file where history expects its own files."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise HistoryError(f"{path} is a symbolic link; history refuses to follow it. Remove the link.")
    if path.name.endswith(".jsonl") and not stat.S_ISREG(info.st_mode):
        raise HistoryError(f"{path} is not a regular file; move it aside.")


def _valid_event(event: Any) -> str | None:
    """Why ``event`` is not a usable history event, or ``None``."""
    if not isinstance(event, dict):
        return "not a JSON object"
    if not isinstance(event.get("id"), str) or not event["id"]:
        return "no id"
    ts = event.get("ts")
    if isinstance(ts, bool) or not isinstance(ts, int | float) or not 0 <= ts < 1e11:
        return "no usable time"
    kind = event.get("kind")
    if kind not in KINDS:
        return f"unknown kind {kind!r}"
    if kind == "skill":
        if not isinstance(event.get("skill"), str) or not event["skill"]:
            return "skill event without a skill name"
        if event.get("md") is not None and not isinstance(event["md"], str):
            return "bad SKILL.md hash"
    else:
        entries = event.get("entries")
        if not isinstance(entries, list) or not all(isinstance(h, str) for h in entries):
            return "memory event without its entry list"
    for key in ("origin", "session", "action"):
        if event.get(key) is not None and not isinstance(event[key], str):
            return f"bad {key}"
    return None


class HistoryStore:
    """The history folder of one home. Cheap to create; every call re-reads the disk."""

    def __init__(self, home: HermesHome, *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT):
        self.home = home
        self.dir = history_dir(home)
        self.events_path = self.dir / EVENTS
        self.blobs_path = self.dir / BLOBS
        self.lock_timeout = lock_timeout

    # --- writing --------------------------------------------------------------------
    def _prepare(self) -> None:
        for path in (self.dir.parent, self.dir, self.events_path, self.blobs_path):
            _check_plain(path)
        if not self.home.path.is_dir():
            raise HistoryError(f"No Hermes home at {self.home.path}; no history was written.")
        self.dir.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the history lock (appends and rewrites happen only under it)."""
        self._prepare()
        try:
            with file_lock(self.events_path, self.lock_timeout):
                yield
        except LockTimeout as exc:
            raise HistoryError(str(exc)) from None

    @staticmethod
    def _append_lines(path: Path, lines: Iterable[str]) -> None:
        data = "".join(line + "\n" for line in lines)
        if not data:
            return
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o600)
        try:
            size = os.fstat(fd).st_size
            if size:  # a line cut short by a crash must not swallow ours
                with open(path, "rb") as reader:
                    reader.seek(size - 1)
                    if reader.read(1) != b"\n":
                        data = "\n" + data
            os.write(fd, data.encode("utf-8", "surrogatepass"))
        finally:
            os.close(fd)

    def append(self, events: list[dict[str, Any]], blobs: dict[str, str] | None = None) -> None:
        """Append blobs then events; call with :meth:`locked` held."""
        try:
            if blobs:
                self._append_lines(
                    self.blobs_path,
                    (json.dumps({"h": h, "t": t}, ensure_ascii=False) for h, t in blobs.items()),
                )
            self._append_lines(
                self.events_path,
                (json.dumps(event, ensure_ascii=False, separators=(",", ":")) for event in events),
            )
        except OSError as exc:
            raise HistoryError(f"Could not write history in {self.dir}: {exc.strerror or exc}") from None

    # --- reading --------------------------------------------------------------------
    def _read_bytes(self, path: Path) -> bytes:
        _check_plain(path)
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise HistoryError(
                    f"{path} is {size:,} bytes, far more than any history; it was not read. "
                    "Move it aside (or run 'history forget') to start afresh."
                )
            return path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise HistoryError(f"Could not read {path}: {exc.strerror or exc}") from None

    def read_events(self) -> EventLog:
        """Every usable event, oldest recorded first; bad lines are listed in ``problems``."""
        data = self._read_bytes(self.events_path)
        log = EventLog()
        if not data:
            return log
        text = data.decode("utf-8", "replace")
        lines = text.split("\n")
        # Fast path: the whole log decoded at once; per line only when something is off.
        try:
            decoded = json.loads("[" + ",".join(line for line in lines if line.strip()) + "]")
        except ValueError:
            decoded = None
        if decoded is not None and all(_valid_event(e) is None for e in decoded):
            log.events = decoded
            return log
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            if len(line) > MAX_EVENT_LINE:
                log.problems.append(f"{EVENTS} line {number}: longer than any event, skipped")
                continue
            try:
                event = json.loads(line)
            except ValueError:
                log.problems.append(f"{EVENTS} line {number}: not JSON (cut short?), skipped")
                continue
            why = _valid_event(event)
            if why:
                log.problems.append(f"{EVENTS} line {number}: {why}, skipped")
                continue
            log.events.append(event)
        return log

    def last_event(self, match: dict[str, Any]) -> dict[str, Any] | None:
        """The newest recorded event whose fields equal ``match``, read from the end of the
        log backwards (the write path uses this, so it never parses the whole log)."""
        _check_plain(self.events_path)
        try:
            handle = open(self.events_path, "rb")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise HistoryError(f"Could not read {self.events_path}: {exc.strerror or exc}") from None
        needles = [json.dumps({k: v}, ensure_ascii=False, separators=(",", ":"))[1:-1].encode()
                   for k, v in match.items()]  # fmt: skip
        with handle:
            end = handle.seek(0, os.SEEK_END)
            carry = b""
            while end > 0:
                start = max(0, end - _TAIL_CHUNK)
                handle.seek(start)
                chunk = handle.read(end - start) + carry
                lines = chunk.split(b"\n")
                carry = lines.pop(0) if start > 0 else b""
                for line in reversed(lines):
                    if not all(needle in line for needle in needles):
                        continue
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    if _valid_event(event) is None and all(event.get(k) == v for k, v in match.items()):
                        return event
                end = start
        return None

    def read_blobs(self, wanted: set[str] | None = None) -> dict[str, str]:
        """``hash -> text`` (only ``wanted`` ones when given); a damaged line is skipped."""
        data = self._read_bytes(self.blobs_path)
        blobs: dict[str, str] = {}
        for line in data.decode("utf-8", "replace").split("\n"):
            if not line.strip():
                continue
            if wanted is not None and line[7:27] not in wanted:  # {"h": "<20 hex>", ...
                continue
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and isinstance(item.get("h"), str) and isinstance(item.get("t"), str):
                if content_hash(item["t"]) == item["h"]:  # a tampered blob is not trusted
                    blobs[item["h"]] = item["t"]
        return blobs

    # --- forgetting -----------------------------------------------------------------
    def forget(self, before: float | None = None) -> dict[str, Any]:
        """Erase all history, or every event recorded before ``before`` (epoch seconds)
        together with the content only those events referred to."""
        if before is None:
            if not self.dir.exists():
                return {"ok": True, "removed_events": 0, "kept_events": 0}
            with self.locked():
                count = len(self.read_events().events)
                for path in (self.events_path, self.blobs_path):
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()
            with contextlib.suppress(OSError):
                shutil.rmtree(self.dir)
            return {"ok": True, "removed_events": count, "kept_events": 0}
        with self.locked():
            log = self.read_events()
            kept = [e for e in log.events if e["ts"] >= before]
            used = {h for e in kept for h in _event_hashes(e)}
            blobs = {h: t for h, t in self.read_blobs().items() if h in used}
            try:
                atomic_write_text(
                    self.blobs_path,
                    "".join(json.dumps({"h": h, "t": t}, ensure_ascii=False) + "\n" for h, t in blobs.items()),
                    ".history_",
                )
                atomic_write_text(
                    self.events_path,
                    "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in kept),
                    ".history_",
                )
            except OSError as exc:
                raise HistoryError(f"Could not rewrite {self.dir}: {exc.strerror or exc}") from None
        return {"ok": True, "removed_events": len(log.events) - len(kept), "kept_events": len(kept)}

    def size_bytes(self) -> int:
        total = 0
        for path in (self.events_path, self.blobs_path):
            with contextlib.suppress(OSError):
                total += path.stat().st_size
        return total


def _event_hashes(event: dict[str, Any]) -> list[str]:
    hashes = list(event.get("entries") or [])
    for key in ("raw", "md"):
        if isinstance(event.get(key), str):
            hashes.append(event[key])
    return hashes
