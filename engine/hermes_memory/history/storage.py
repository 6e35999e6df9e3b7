"""Where history lives and how it is written: an append-only event log and a blob pack.

``<home>/.memory-studio/history/`` (our own folder: never under ``memories/`` or
``skills/``, which the agent scans) holds:

* ``events.jsonl``: one JSON object per line, one line per recorded version or change.
  A memory version holds its entry list as hashes: in full (``entries``) for the first
  version of a store in the file and every 16th, otherwise as the edit from the version
  before it (``delta``: ``[position, removed count, [inserted hashes]]`` items), so a
  version costs a line of about 200 bytes whatever the size of the store;
* ``imported.jsonl``: the same, for the versions ``import-sessions`` rebuilt from
  ``state.db`` (older than anything in ``events.jsonl``, so kept apart from it);
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
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import fileio
from ..fileio import DEFAULT_LOCK_TIMEOUT, atomic_write_text, remove_stale_temp_files
from ..home import HermesHome

HISTORY_DIR = Path(".memory-studio") / "history"
EVENTS = "events.jsonl"
IMPORTS = "imported.jsonl"
BLOBS = "blobs.jsonl"
LOG_INDEX = "log-index.json"  # derived summaries for 'history log' (see log_index.py)
#: A memory version is stored in full this often (else as a delta from the one before).
CHECKPOINT_EVERY = 16
#: Kinds of history: the two memory stores and skills.
KINDS = ("memory", "user", "skill")
#: A history file larger than this is not read (a year of an active agent is ~4 MB).
MAX_FILE_BYTES = 128 * 1024 * 1024
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


def _check_size(path: Path) -> None:
    """Refuse a history file far bigger than any history (``FileNotFoundError`` passes)."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise HistoryError(
            f"{path} is {size:,} bytes, far more than any history; it was not read. "
            "Move it aside (or run 'history forget') to start afresh."
        )


def _valid_delta(delta: Any) -> bool:
    if type(delta) is not list:
        return False
    for op in delta:  # a plain loop: this runs for every event of every read
        if type(op) is not list or len(op) != 3:
            return False
        position, removed, inserted = op
        if type(position) is not int or type(removed) is not int or position < 0 or removed < 0:
            return False
        if type(inserted) is not list or not all(type(h) is str for h in inserted):
            return False
    return True


_TEXT_FIELDS = ("origin", "session", "action")


def _valid_event(event: Any) -> str | None:
    """Why ``event`` is not a usable history event, or ``None``."""
    if type(event) is not dict:
        return "not a JSON object"
    get = event.get
    event_id = get("id")
    if type(event_id) is not str or not event_id:
        return "no id"
    ts = get("ts")
    if type(ts) not in (int, float) or not 0 <= ts < 1e11:
        return "no usable time"
    kind = get("kind")
    if kind == "skill":
        skill = get("skill")
        if type(skill) is not str or not skill:
            return "skill event without a skill name"
        md = get("md")
        if md is not None and type(md) is not str:
            return "bad SKILL.md hash"
    elif kind == "memory" or kind == "user":
        entries = get("entries")
        if entries is not None:
            if type(entries) is not list or not all(type(h) is str for h in entries):
                return "bad entry list"
        elif not _valid_delta(get("delta")):
            return "memory event without its entries"
    else:
        return f"unknown kind {kind!r}"
    for key in _TEXT_FIELDS:
        value = get(key)
        if value is not None and type(value) is not str:
            return f"bad {key}"
    return None


valid_event = _valid_event  # for readers of appended lines elsewhere


def list_delta(old: list[str], new: list[str]) -> list[list[Any]]:
    """The edit from ``old`` to ``new`` as ``[position, removed, inserted]`` items: the
    span between their common start and common end (one item; a memory write changes one
    place, so this is also the smallest edit in practice)."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    if start == len(old) == len(new):
        return []
    return [[start, len(old) - start - end, new[start : len(new) - end]]]


def apply_delta(old: list[str], delta: list[list[Any]]) -> list[str] | None:
    """``old`` edited by ``delta`` (positions refer to ``old``); ``None`` if it does not fit."""
    result = list(old)
    for position, removed, inserted in reversed(delta):
        if position + removed > len(old):
            return None
        result[position : position + removed] = inserted
    return result


def encode_entries(hashes: list[str], parent: list[str] | None, depth: int) -> dict[str, Any]:
    """``{"entries": ...}`` or ``{"delta": ...}``, whichever this version is stored as."""
    if parent is None or depth + 1 >= CHECKPOINT_EVERY:
        return {"entries": hashes}
    delta = list_delta(parent, hashes)
    if sum(len(op[2]) + 1 for op in delta) >= len(hashes):
        return {"entries": hashes}
    return {"delta": delta}


def materialise(events: list[dict[str, Any]]) -> list[str]:
    """Give every memory event of one log (in file order) its full ``entries``; events
    whose chain is broken are marked ``_broken``. Returns the problems found."""
    previous: dict[str, dict[str, Any] | None] = {}
    problems = []
    for event in events:
        kind = event["kind"]
        if kind == "skill":
            continue
        if "entries" not in event:
            base = previous.get(kind)
            rebuilt = apply_delta(base["entries"], event["delta"]) if base is not None else None
            if rebuilt is None:
                event["_broken"] = True
                problems.append(f"version {event['id']}: the version it edits is missing or damaged, skipped")
                previous[kind] = None
                continue
            event["entries"] = rebuilt
            event["_file_parent"] = base
        previous[kind] = event
    return problems


#: The fast path decodes the lines of about this many bytes per call: one call for a log
#: of 10,000 events held Python's interpreter for 30-40 ms, no other thread running.
LINES_PIECE_BYTES = 128 * 1024


def _decode_lines(data: bytes) -> list[Any] | None:
    """Every line of ``data`` (stripped) decoded as one JSON value, or None when any line
    is not (an empty line included), as one orjson call over them all would say: the
    pieces are cut at line breaks, so they hold the same lines."""
    import orjson

    decoded: list[Any] = []
    start = 0
    try:
        while start < len(data):
            cut = data.find(b"\n", start + LINES_PIECE_BYTES)
            end = len(data) if cut < 0 else cut
            decoded += orjson.loads(b"[" + data[start:end].replace(b"\n", b",") + b"]")
            start = end + 1
    except orjson.JSONDecodeError:
        return None
    return decoded


def parse_log(data: bytes, name: str, *, first_line: int = 1) -> EventLog:
    """The usable events of a log's bytes, in order; bad lines are listed in ``problems``
    (numbered from ``first_line``)."""
    log = EventLog()
    if not data:
        return log
    # Fast path: the whole log decoded a piece of lines at a time (orjson: a few times
    # faster than json for ten thousand events); per line only when something is off
    # (anything orjson refuses, such as text that is not UTF-8, goes the careful way below).
    decoded = _decode_lines(data.strip())
    if decoded is not None and all(_valid_event(e) is None for e in decoded):
        log.events = decoded
        return log
    text = data.decode("utf-8", "replace")
    for number, line in enumerate(text.split("\n"), start=first_line):
        if not line.strip():
            continue
        if len(line) > MAX_EVENT_LINE:
            log.problems.append(f"{name} line {number}: longer than any event, skipped")
            continue
        try:
            event = json.loads(line)
        except ValueError:
            log.problems.append(f"{name} line {number}: not JSON (cut short?), skipped")
            continue
        why = _valid_event(event)
        if why:
            log.problems.append(f"{name} line {number}: {why}, skipped")
            continue
        log.events.append(event)
    return log


class _Descriptor:
    """A bare file descriptor with what fileio's lock helpers use of a file object."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def fileno(self) -> int:
        return self.fd

    def seek(self, position: int) -> None:
        os.lseek(self.fd, position, os.SEEK_SET)


class HistoryStore:
    """The history folder of one home. Cheap to create; every call re-reads the disk."""

    def __init__(self, home: HermesHome, *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT):
        self.home = home
        self.dir = history_dir(home)
        self.events_path = self.dir / EVENTS
        self.imports_path = self.dir / IMPORTS
        self.blobs_path = self.dir / BLOBS
        self.lock_timeout = lock_timeout

    # --- writing --------------------------------------------------------------------
    def _prepare(self) -> None:
        for path in (self.dir.parent, self.events_path, self.imports_path, self.blobs_path):
            _check_plain(path)
        try:
            if stat.S_ISDIR(os.lstat(self.dir).st_mode):
                return  # the usual case: nothing to create
        except FileNotFoundError:
            pass
        _check_plain(self.dir)
        if not self.home.path.is_dir():
            raise HistoryError(f"No Hermes home at {self.home.path}; no history was written.")
        self.dir.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the history lock (appends and rewrites happen only under it).

        The lock file is the one :func:`fileio.file_lock` uses for ``events.jsonl``, taken
        more cheaply: every path of the folder was just checked to be no link, so there is
        no link policy to resolve, and appends leave no temp files to sweep."""
        self._prepare()
        lock_file = self.dir / (EVENTS + ".lock")
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
        flags |= getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(lock_file, flags, 0o644)
        except OSError as exc:
            raise HistoryError(f"Could not lock {lock_file}: {exc.strerror or exc}") from None
        handle = _Descriptor(fd)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise HistoryError(f"{lock_file} is not a regular file; move it aside.")
            deadline = time.monotonic() + self.lock_timeout
            while not fileio._try_lock(handle):
                if time.monotonic() >= deadline:
                    raise HistoryError(
                        f"{EVENTS} is locked by another process (waited {self.lock_timeout:g} s). "
                        "If a Hermes agent is busy writing memory, try again in a moment."
                    )
                time.sleep(fileio._POLL_SECONDS)
            try:
                yield
            finally:
                fileio._unlock(handle)
        finally:
            os.close(fd)

    @staticmethod
    def _append_lines(path: Path, lines: Iterable[str]) -> os.stat_result | None:
        """Append the lines; the file's stat after the write (None when nothing was written)."""
        data = "".join(line + "\n" for line in lines)
        if not data:
            return None
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o600)
        try:
            size = os.fstat(fd).st_size
            # a line cut short by a crash must not swallow ours
            if size and os.pread(fd, 1, size - 1) != b"\n":
                data = "\n" + data
            os.write(fd, data.encode("utf-8", "surrogatepass"))
            return os.fstat(fd)
        finally:
            os.close(fd)

    def append(
        self, events: list[dict[str, Any]], blobs: dict[str, str] | None = None, *, imported: bool = False
    ) -> None:
        """Append blobs then events (to the import log with ``imported``); call with
        :meth:`locked` held."""
        try:
            if blobs:
                self._append_lines(
                    self.blobs_path,
                    (json.dumps({"h": h, "t": t}, ensure_ascii=False) for h, t in blobs.items()),
                )
            if imported:
                self._append_lines(self.imports_path, (_event_line(event) for event in events))
                return
            known = self._known_heads()  # before the write: is the cache current?
            after = self._append_lines(self.events_path, (_event_line(event) for event in events))
        except OSError as exc:
            raise HistoryError(f"Could not write history in {self.dir}: {exc.strerror or exc}") from None
        if known is not None and after is not None:
            heads = dict(known)
            for event in events:
                heads = _advance_heads(heads, event)
            _HEADS[str(self.events_path)] = (_file_key(after), heads)
        else:
            _HEADS.pop(str(self.events_path), None)

    def _known_heads(self) -> dict[str, Any] | None:
        """The cached memory heads when they describe ``events.jsonl`` as it is now."""
        cached = _HEADS.get(str(self.events_path))
        if cached is None:
            return None
        try:
            key = _file_key(os.stat(self.events_path))
        except OSError:
            return None
        return cached[1] if cached[0] == key else None

    # --- reading --------------------------------------------------------------------
    def _read_bytes(self, path: Path) -> bytes:
        _check_plain(path)
        try:
            _check_size(path)
            return path.read_bytes()
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise HistoryError(f"Could not read {path}: {exc.strerror or exc}") from None

    def _lines(self, path: Path) -> Iterator[bytes]:
        """The lines of ``path`` one at a time, with :meth:`_read_bytes`'s checks first."""
        _check_plain(path)
        try:
            _check_size(path)
            with open(path, "rb") as file:
                yield from file
        except FileNotFoundError:
            return
        except OSError as exc:
            raise HistoryError(f"Could not read {path}: {exc.strerror or exc}") from None

    def read_events(self, imported: bool = False, *, full: bool = True) -> EventLog:
        """Every usable event of the log (or of the import log), in the order recorded;
        bad lines are listed in ``problems``. With ``full`` memory versions get their
        whole ``entries`` (else call :func:`materialise` when they are needed)."""
        log = self._read_log(self.imports_path if imported else self.events_path)
        if full:
            log.problems += materialise(log.events)
            log.events = [event for event in log.events if not event.get("_broken")]
        return log

    def _read_log(self, path: Path) -> EventLog:
        return parse_log(self._read_bytes(path), path.name)

    @staticmethod
    def _lines_backwards(path: Path) -> Iterator[bytes]:
        """The lines of ``path`` from the last to the first, read in chunks from its end."""
        _check_plain(path)
        try:
            handle = open(path, "rb")
        except FileNotFoundError:
            return
        except OSError as exc:
            raise HistoryError(f"Could not read {path}: {exc.strerror or exc}") from None
        with handle:
            end = handle.seek(0, os.SEEK_END)
            carry = b""
            while end > 0:
                start = max(0, end - _TAIL_CHUNK)
                handle.seek(start)
                chunk = handle.read(end - start) + carry
                lines = chunk.split(b"\n")
                carry = lines.pop(0) if start > 0 else b""
                yield from reversed(lines)
                end = start

    def _backwards(self, match: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The recorded events whose fields equal ``match``, newest first, read from the
        end of the log (the write path uses this, so it never parses the whole log)."""
        needles = [json.dumps({k: v}, ensure_ascii=False, separators=(",", ":"))[1:-1].encode()
                   for k, v in match.items()]  # fmt: skip
        for line in self._lines_backwards(self.events_path):
            if not all(needle in line for needle in needles):
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if _valid_event(event) is None and all(event.get(k) == v for k, v in match.items()):
                yield event

    def last_event(self, match: dict[str, Any]) -> dict[str, Any] | None:
        """The newest recorded event whose fields equal ``match``."""
        return next(self._backwards(match), None)

    def head(self, kind: str) -> tuple[dict[str, Any], list[str], int] | None:
        """The newest version of a memory store in the log: ``(event, entry hashes, how
        many deltas since its last full version)``, or ``None``.

        Remembered per process after each append and each read, while the log's identity
        and size are unchanged, so a write that follows a write reads nothing back."""
        known = self._known_heads()
        if known is not None and kind in known:
            return known[kind]
        try:
            key = _file_key(os.stat(self.events_path))
        except OSError:
            key = None
        head = self._read_head(kind)
        if key is not None:
            cached = _HEADS.get(str(self.events_path))
            heads = dict(cached[1]) if cached is not None and cached[0] == key else {}
            heads[kind] = head
            _HEADS[str(self.events_path)] = (key, heads)
        return head

    def _read_head(self, kind: str) -> tuple[dict[str, Any], list[str], int] | None:
        stack = []
        for event in self._backwards({"kind": kind}):
            stack.append(event)
            if "entries" in event:
                break
        if not stack or "entries" not in stack[-1]:
            return None  # no full version to start from: start afresh
        hashes = stack[-1]["entries"]
        for event in reversed(stack[:-1]):
            hashes = apply_delta(hashes, event["delta"])
            if hashes is None:
                return None
        return stack[0], hashes, len(stack) - 1

    def read_blobs(self, wanted: set[str] | None = None) -> dict[str, str]:
        """``hash -> text`` (only ``wanted`` ones when given); a damaged line is skipped.

        Read line by line: the file holds every text ever recorded (tens of MB at 10,000
        skills), and a whole read decoded and split it into three copies at once. The
        ``wanted`` ones are looked for from the end, where the texts of recent versions
        are, and the read stops once all are found (a feed of the latest changes read a
        megabyte of a 50 MB file instead of all of it)."""
        blobs: dict[str, str] = {}
        if wanted is None:
            lines = self._lines(self.blobs_path)
            missing: set[bytes] | None = None
        else:
            _check_plain(self.blobs_path)
            with contextlib.suppress(FileNotFoundError):
                _check_size(self.blobs_path)
            lines = self._lines_backwards(self.blobs_path)
            missing = {digest.encode("ascii", "replace") for digest in wanted}
        for raw in lines:
            if missing is not None:
                if not missing:
                    break
                if raw[7:27] not in missing:  # {"h": "<20 hex>", ...
                    continue
            line = raw.decode("utf-8", "replace")
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict) and isinstance(item.get("h"), str) and isinstance(item.get("t"), str):
                if content_hash(item["t"]) == item["h"]:  # a tampered blob is not trusted
                    blobs[item["h"]] = item["t"]
                    if missing is not None:
                        missing.discard(raw[7:27])
        return blobs

    # --- forgetting -----------------------------------------------------------------
    def forget(self, before: float | None = None) -> dict[str, Any]:
        """Erase all history, or every event recorded before ``before`` (epoch seconds)
        together with the content only those events referred to."""
        if before is None:
            if not self.dir.exists():
                return {"ok": True, "removed_events": 0, "kept_events": 0}
            with self.locked():
                count = len(self.read_events().events) + len(self.read_events(imported=True).events)
                for path in (self.events_path, self.imports_path, self.blobs_path, self.dir / LOG_INDEX):
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()
            with contextlib.suppress(OSError):
                shutil.rmtree(self.dir)
            return {"ok": True, "removed_events": count, "kept_events": 0}
        with self.locked():
            remove_stale_temp_files(self.dir)  # left by a rewrite that was cut short
            logs = {path: self.read_events(imported=path == self.imports_path)
                    for path in (self.events_path, self.imports_path)}  # fmt: skip
            removed = kept_count = 0
            texts: dict[Path, str] = {}
            used: set[str] = set()
            for path, log in logs.items():
                kept = [e for e in log.events if e["ts"] >= before]
                removed += len(log.events) - len(kept)
                kept_count += len(kept)
                used |= {h for e in kept for h in _event_hashes(e)}
                texts[path] = "".join(
                    json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
                    for e in _reencode(kept)
                )
            blobs = {h: t for h, t in self.read_blobs().items() if h in used}
            try:
                atomic_write_text(
                    self.blobs_path,
                    "".join(json.dumps({"h": h, "t": t}, ensure_ascii=False) + "\n" for h, t in blobs.items()),
                    ".history_",
                )
                for path, text in texts.items():
                    atomic_write_text(path, text, ".history_")
            except OSError as exc:
                raise HistoryError(f"Could not rewrite {self.dir}: {exc.strerror or exc}") from None
            with contextlib.suppress(FileNotFoundError):  # the log's summaries of what is gone
                (self.dir / LOG_INDEX).unlink()
        return {"ok": True, "removed_events": removed, "kept_events": kept_count}

    def size_bytes(self) -> int:
        total = 0
        for path in (self.events_path, self.imports_path, self.blobs_path):
            with contextlib.suppress(OSError):
                total += path.stat().st_size
        return total


# The memory heads of each event log this process wrote or read: path -> (the log's
# (inode, size, mtime), kind -> HistoryStore.head() of it). Appends only ever grow the log
# and a rewrite replaces it, so an unchanged key means unchanged heads.
_HEADS: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def _file_key(info: os.stat_result) -> tuple[int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns


def _event_line(event: dict[str, Any]) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def _advance_heads(heads: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
    """``heads`` after ``event`` was appended (a kind not known stays unknown)."""
    kind = event.get("kind")
    if kind not in ("memory", "user"):
        return heads
    if "entries" in event:
        heads[kind] = (event, list(event["entries"]), 0)
    elif kind in heads and heads[kind] is not None:
        _event, hashes, depth = heads[kind]
        rebuilt = apply_delta(hashes, event["delta"])
        if rebuilt is None:
            del heads[kind]
        else:
            heads[kind] = (event, rebuilt, depth + 1)
    else:
        heads.pop(kind, None)
    return heads


def _event_hashes(event: dict[str, Any]) -> list[str]:
    hashes = list(event.get("entries") or [])
    for key in ("raw", "md"):
        if isinstance(event.get(key), str):
            hashes.append(event[key])
    return hashes


def _reencode(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events (full ``entries`` in memory) as stored: the first of each store in full."""
    previous: dict[str, tuple[list[str], int]] = {}
    stored = []
    for event in events:
        plain = {k: v for k, v in event.items() if not k.startswith("_") and k not in ("entries", "delta")}
        if event["kind"] != "skill":
            parent, depth = previous.get(event["kind"], (None, 0))
            encoded = encode_entries(event["entries"], parent, depth)
            plain.update(encoded)
            previous[event["kind"]] = (event["entries"], 0 if "entries" in encoded else depth + 1)
        stored.append(plain)
    return stored
