"""The history log without replaying history: a summary index beside the event log.

``history log`` lists one summary per version (who, when, what, how big). Working that
out from the logs means decoding every event and replaying the stored edits; for ten
thousand versions that is slower than a person should wait. So the summaries are kept in
``log-index.json`` in the history folder, a cache derived from the logs and nothing else:

* it records which bytes of ``events.jsonl`` it covers (file identity, byte offset and
  line count) and the identity of ``imported.jsonl`` and of the curator ledger;
* when only ``events.jsonl`` grew (the usual case: the engine appends), the new lines
  alone are decoded and summarised, continuing from the chain heads the index keeps;
* anything else (a rewrite by ``history forget``, new imports, a ledger change, a line
  older than the newest summary, an index that does not read) rebuilds it from the logs.

Deleting the file is always safe; a history folder without one reads as before. Rows are
compact lists (see :func:`_to_summary`); the summaries are the ones
:meth:`~.timeline.Timeline.summary` gives.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
from collections.abc import Callable
from typing import Any

from ..home import HermesHome
from . import storage
from .ledger import ledger_path, read_ledger
from .recording import ORIGIN_LABELS, SUMMARY_EXTRAS
from .storage import (
    LOG_INDEX,
    HistoryError,
    HistoryStore,
    _check_plain,
    apply_delta,
    materialise,
    parse_log,
)

INDEX = LOG_INDEX
VERSION = 3  # 2: the summaries show who approved a staged write; 3: support-file changes
_SUMMARY_EXTRAS = SUMMARY_EXTRAS
_MEMORY_KINDS = ("memory", "user")
_EVENTS_FILE = 1  # Timeline's file numbers: 0 the import log, 1 the event log, None the ledger


def index_path(store: HistoryStore):
    return store.dir / INDEX


# --- identities ----------------------------------------------------------------------------
def _identity(path) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_ino, info.st_size, info.st_mtime_ns]


# --- summarising -------------------------------------------------------------------------
class _Summariser:
    """Turns events, in the order the log lists them, into rows; keeps the head of each
    chain so that the next appended events can be summarised alone."""

    def __init__(self, memory_heads: dict[str, Any] | None = None, delta_base: dict[str, Any] | None = None):
        self.memory_heads: dict[str, list[Any]] = dict(memory_heads or {})  # kind -> [hashes, file]
        self.delta_base: dict[str, list[str] | None] = dict(delta_base or {})  # events.jsonl, file order
        self.skill_heads: dict[str, tuple[str | None, bool, str]] = {}  # skill -> (md, pinned, state)

    def row(self, event: dict[str, Any], hashes: list[str] | None, file: int | None) -> list[Any]:
        get = event.get
        session = get("session")
        sessions = get("sessions") or None
        extras = {key: get(key) for key in _SUMMARY_EXTRAS if get(key)} or None
        row = [event["id"], event["ts"], event["kind"], get("action") or "write", get("origin") or "unknown",
               session, sessions, extras]  # fmt: skip
        if event["kind"] == "skill":
            name = event["skill"]
            head = self.skill_heads.get(name)
            before_md, before_pinned = (head[0], head[1]) if head else (None, False)
            pinned = bool(event["pinned"]) if "pinned" in event else before_pinned
            if "md" in event:
                md, state = get("md"), get("state") or "active"
            else:  # a ledger line on support files only: SKILL.md and state as before
                md = before_md
                state = get("state") or (head[2] if head else "active")
            changed = (before_md or "")[:20] != (md or "")[:20]  # a ledger line holds a sha256
            self.skill_heads[name] = (md, pinned, state)
            row += [name, md, pinned, state, changed]
            return row
        head = self.memory_heads.get(event["kind"])
        first_in_file = head is None or head[1] != file
        if "added" in event and not (first_in_file and head is not None):
            added, removed = event["added"], event["removed"]  # as stored
        else:
            old, new = set(head[0] if head else ()), set(hashes or ())
            added, removed = len(new - old), len(old - new)
        self.memory_heads[event["kind"]] = [hashes or [], file]
        row += [added, removed, get("n", len(hashes or ()))]
        return row

    def skill_heads_from(self, rows: list[list[Any]], names: set[str]) -> None:
        """Recover the heads of the named skills from the rows (newest row wins)."""
        missing = set(names) - set(self.skill_heads)
        for row in reversed(rows):
            if not missing:
                break
            if row[2] == "skill" and row[8] in missing:
                self.skill_heads[row[8]] = (row[9], row[10], row[11])
                missing.discard(row[8])


def _to_summaries(rows: list[list[Any]]) -> list[dict[str, Any]]:
    """Rows as :meth:`Timeline.summary` gives them. A row is
    ``[id, ts, kind, action, origin, session, sessions|None, extras|None, ...]`` then
    ``added, removed, entry_count`` (memory) or ``skill, md, pinned, state, text_changed``.
    One loop with everything local: the log of a busy home turns ten thousand of these."""
    labels = ORIGIN_LABELS
    result = []
    append = result.append
    for row in rows:
        origin, session, sessions = row[4], row[5], row[6]
        item = {
            "id": row[0], "ts": row[1], "kind": row[2], "action": row[3], "origin": origin,
            "origin_label": labels.get(origin, origin),
            "session": session, "sessions": sessions or ([session] if session else []),
        }  # fmt: skip
        extras = row[7]
        if extras:
            item.update((key, extras[key]) for key in _SUMMARY_EXTRAS if key in extras)
        if row[2] == "skill":
            item["skill"], item["text_changed"], item["state"], item["pinned"] = row[8], row[12], row[11], row[10]
        else:
            item["added"], item["removed"], item["entry_count"] = row[8], row[9], row[10]
        append(item)
    return result


# --- reading and writing the index ---------------------------------------------------------
#: The index last read or written per index file, with that file's identity: a process
#: that lists the log again (the app on each file event) skips decoding it. A kept index
#: is never changed in place (extending makes a new one), so threads can share it; and
#: one that is stale in some unforeseen way is still checked against the logs like any.
_KEPT: dict[str, tuple[list[int], dict[str, Any]]] = {}
_KEPT_HOMES = 8


def _keep(path, identity: list[int], index: dict[str, Any]) -> None:
    if len(_KEPT) >= _KEPT_HOMES and str(path) not in _KEPT:
        _KEPT.clear()
    _KEPT[str(path)] = (identity, index)


def _read_index(path) -> dict[str, Any] | None:
    kept = _KEPT.get(str(path))
    if kept is not None:
        try:
            info = os.lstat(path)  # a link put in its place is not the file kept
        except OSError:
            info = None
        if info is not None and kept[0] == [info.st_ino, info.st_size, info.st_mtime_ns]:
            return kept[1]
    try:
        _check_plain(path)
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > storage.MAX_FILE_BYTES:
                return None
            index = _decode(handle.read())
    except (OSError, ValueError, HistoryError):
        return None
    if type(index) is not dict or index.get("v") != VERSION or type(index.get("rows")) is not list:
        return None
    if type(index.get("problems")) is not list or type(index.get("memory_heads")) is not dict:
        return None
    _keep(path, [info.st_ino, info.st_size, info.st_mtime_ns], index)
    return index


#: Every digit as "0", so runs of 19 digits are found by a plain ``find`` (a regular
#: expression over the whole index held the interpreter for 50-70 ms at 10,000 versions).
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_RUN = b"0" * 19
#: What may come before a number (``-`` aside): where a JSON value can start.
_BEFORE_A_NUMBER = frozenset(b"[,: \t\n\r\x0b\x0c")


def _has_long_number(data: bytes) -> bool:
    """Whether a whole number of 19 digits or more could start in ``data`` (after a
    bracket, comma, colon or space, or at the start; not inside a word or an id)."""
    flat = data.translate(_DIGITS_AS_ZERO)
    at = flat.find(_RUN)
    while at >= 0:
        start = at - 1 if at > 0 and data[at - 1] == ord("-") else at
        if start == 0 or data[start - 1] in _BEFORE_A_NUMBER:
            return True
        end = at  # past this run of digits
        while end < len(flat) and flat[end] == ord("0"):
            end += 1
        at = flat.find(_RUN, end)
    return False


#: The rows, as the index is written: its last key.
_ROWS_KEY = b',"rows":['
#: Rows are decoded and encoded this many bytes (or rows) at a time: one call over the
#: rows of 10,000 versions held Python's interpreter for 30-60 ms, every other thread
#: (the window's) waiting for it.
PIECE_BYTES = 128 * 1024
ROWS_PER_PIECE = 1000


def _decode(data: bytes) -> Any:
    # orjson: half the time json takes. json where the two could differ: what orjson
    # refuses (a lone surrogate written with "surrogatepass", NaN) and a whole number past
    # 64 bits, which orjson reads as a float (any 19 digits after a bracket, comma, colon
    # or space).
    import orjson

    if not _has_long_number(data):
        with contextlib.suppress(orjson.JSONDecodeError):
            pieces = _decode_in_pieces(data)
            return pieces if pieces is not None else orjson.loads(data)
    return json.loads(data)


def _decode_in_pieces(data: bytes) -> dict[str, Any] | None:
    """An index as :func:`_encode` writes it (``rows`` last, no spaces), its rows decoded
    a piece of them at a time; None for any other shape. A piece cut inside a string is
    never valid JSON (its quote is left open), so such a cut raises and the caller decodes
    the whole instead."""
    import orjson

    start = data.find(_ROWS_KEY)
    if start < 0 or not data.endswith(b"]}"):
        return None
    index = orjson.loads(data[:start] + b"}")
    if type(index) is not dict:
        return None
    body = data[start + len(_ROWS_KEY) : -2]  # the rows' items, without the list's brackets
    rows: list[Any] = []
    begin = 0
    while begin < len(body):
        cut = body.find(b"],[", begin + PIECE_BYTES)
        end = len(body) if cut < 0 else cut + 1
        rows += orjson.loads(b"[" + body[begin:end] + b"]")
        begin = end + 1
    index["rows"] = rows
    return index


def _encode(index: dict[str, Any]) -> bytes:
    """The index as JSON with ``rows`` last, its rows encoded a piece at a time."""
    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    rest = {key: value for key, value in index.items() if key != "rows"}
    rows = index.get("rows") or []
    items = ",".join(dumps(rows[at : at + ROWS_PER_PIECE])[1:-1] for at in range(0, len(rows), ROWS_PER_PIECE))
    head = dumps(rest)[:-1] + ("," if rest else "")
    return (head + '"rows":[' + items + "]}").encode("utf-8", "surrogatepass")


def _write_index(store: HistoryStore, index: dict[str, Any]) -> None:
    """Replace the index (a cache: no fsync; a torn file only means a rebuild)."""
    path = index_path(store)
    temp = store.dir / f".{INDEX}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        _check_plain(path)
        data = _encode(index)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, data)
            info = os.fstat(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
        _keep(path, [info.st_ino, info.st_size, info.st_mtime_ns], index)
    except (OSError, HistoryError):  # no history folder (only the ledger), read-only home, ...
        with contextlib.suppress(OSError):
            os.unlink(temp)


def forget_index(store: HistoryStore) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(index_path(store))


def _read_events(store: HistoryStore, offset: int = 0) -> tuple[bytes | None, list[int] | None, str | None]:
    """The complete lines of ``events.jsonl`` from byte ``offset`` on, the log's
    ``[inode, bytes covered, lines covered]`` (lines: from ``offset``) and a problem for a
    last line still without its line end (cut short, or being written). The bytes are
    None when the byte before ``offset`` is not a line end (the log was rewritten)."""
    path = store.events_path
    _check_plain(path)
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return b"", None, None
    except OSError as exc:
        raise HistoryError(f"Could not read {path}: {exc.strerror or exc}") from None
    with handle:
        info = os.fstat(handle.fileno())
        if info.st_size > storage.MAX_FILE_BYTES:
            raise HistoryError(
                f"{path} is {info.st_size:,} bytes, far more than any history; it was not read. "
                "Move it aside (or run 'history forget') to start afresh."
            )
        if offset > info.st_size:
            return None, [info.st_ino, info.st_size, 0], None
        if offset:
            handle.seek(offset - 1)
            if handle.read(1) != b"\n":
                return None, [info.st_ino, info.st_size, 0], None
        data = handle.read()
    end = data.rfind(b"\n") + 1
    problem = None
    if end < len(data) and data[end:].strip():
        problem = f"{path.name}: its last line is incomplete (cut short?), skipped"
    return data[:end], [info.st_ino, offset + end, data.count(b"\n", 0, end)], problem


def _rebuild(store: HistoryStore, home: HermesHome) -> tuple[dict[str, Any], list[str]]:
    """The index from the logs themselves, and the problems not to keep in it."""
    imported_key = _identity(store.imports_path)
    ledger_key = _identity(ledger_path(home))
    imported = store.read_events(imported=True)  # entries in full; broken chains dropped
    data, events_key, partial = _read_events(store)
    log = parse_log(data or b"", store.events_path.name)
    log.problems += materialise(log.events)
    delta_base: dict[str, list[str] | None] = {}
    for event in log.events:
        if event["kind"] in _MEMORY_KINDS:
            delta_base[event["kind"]] = None if event.get("_broken") else event["entries"]
    log.events = [event for event in log.events if not event.get("_broken")]
    ledger, ledger_problems = read_ledger(home)
    files = [(event, 0) for event in imported.events] + [(event, _EVENTS_FILE) for event in log.events]
    files += [(event, None) for event in ledger]
    files.sort(key=lambda pair: pair[0]["ts"])  # stable: ties keep file order, as the Timeline's
    summariser = _Summariser(delta_base=delta_base)
    rows = [summariser.row(event, event.get("entries"), file) for event, file in files]
    index = {
        "v": VERSION,
        "events": events_key, "imported": imported_key, "ledger": ledger_key,
        "problems": imported.problems + log.problems + ledger_problems,
        "memory_heads": summariser.memory_heads, "delta_base": summariser.delta_base,
        "rows": rows,
    }  # fmt: skip
    return index, [partial] if partial else []


def _extend(store: HistoryStore, index: dict[str, Any]) -> tuple[dict[str, Any], list[str]] | None:
    """The index with the lines appended to ``events.jsonl`` since it was made, or None
    when that cannot be done by appending (rebuild instead)."""
    inode, offset, lines = index["events"] or (None, 0, 0)
    data, events_key, partial = _read_events(store, offset)
    if events_key is None:  # no event log (yet)
        return None if inode is not None else (index, [])
    if data is None or (inode is not None and events_key[0] != inode):
        return None  # rewritten (by 'history forget') or replaced
    events_key[2] += lines
    if not data:
        return index, [partial] if partial else []
    log = parse_log(data, store.events_path.name, first_line=lines + 1)
    rows = index["rows"]
    problems = list(index["problems"])
    last_ts = rows[-1][1] if rows else float("-inf")
    summariser = _Summariser(index["memory_heads"], index["delta_base"])
    summariser.skill_heads_from(rows, {e["skill"] for e in log.events if e["kind"] == "skill"})
    new_rows = []
    for event in log.events:
        if event["ts"] < last_ts:
            return None  # out of order: its place among the rows needs the whole picture
        last_ts = event["ts"]
        hashes = None
        kind = event["kind"]
        if kind in _MEMORY_KINDS:
            if "entries" in event:
                hashes = event["entries"]
            else:
                base = summariser.delta_base.get(kind)
                hashes = apply_delta(base, event["delta"]) if base is not None else None
                if hashes is None:
                    problems.append(
                        f"version {event['id']}: the version it edits is missing or damaged, skipped"
                    )
                    summariser.delta_base[kind] = None
                    continue
            summariser.delta_base[kind] = hashes
        new_rows.append(summariser.row(event, hashes, _EVENTS_FILE))
    extended = {**index, "events": events_key, "rows": rows + new_rows, "problems": problems + log.problems,
                "memory_heads": summariser.memory_heads, "delta_base": summariser.delta_base}  # fmt: skip
    return extended, [partial] if partial else []


def summary_rows(home: HermesHome) -> tuple[list[list[Any]], list[str]]:
    """Every version's summary row, in the log's order (oldest first), and the problems
    met reading history; the index is brought up to date on the way."""
    store = HistoryStore(home)
    index = _read_index(index_path(store))
    result = None
    if (
        index is not None
        and index.get("imported") == _identity(store.imports_path)
        and index.get("ledger") == _identity(ledger_path(home))
    ):
        before = index["events"]
        try:
            result = _extend(store, index)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            result = None  # an index that does not hold together: rebuild it
        if result is not None and result[0]["events"] == before:
            return result[0]["rows"], list(result[0]["problems"]) + result[1]  # nothing new
    if result is None:
        result = _rebuild(store, home)
    _write_index(store, result[0])
    return result[0]["rows"], list(result[0]["problems"]) + result[1]


def log_summaries(
    home: HermesHome, kind: str | None, skill: str | None, since: float | None, limit: int | None,
    shape: Callable[[list[list[Any]]], list[Any]] | None = None,
) -> tuple[list[Any], int, list[str]]:
    """``(summaries newest first, how many match, problems)`` for ``history log``.

    ``shape`` turns the chosen index rows into what is returned instead of summary dicts
    (the CLI's text lines: making ten thousand dicts only to print them was half its time).
    Rows that do not fit (a damaged index that still reads as JSON) mean a fresh summary."""
    shape = shape or _to_summaries
    rows, problems = summary_rows(home)
    try:
        chosen, total = _select(rows, kind, skill, since, limit)
        return shape(chosen), total, problems
    except (IndexError, TypeError, KeyError, AttributeError, ValueError):
        index, transient = _rebuild(HistoryStore(home), home)
        _write_index(HistoryStore(home), index)
        chosen, total = _select(index["rows"], kind, skill, since, limit)
        return shape(chosen), total, index["problems"] + transient


def _select(rows: list[list[Any]], kind: str | None, skill: str | None, since: float | None,
            limit: int | None) -> tuple[list[list[Any]], int]:  # fmt: skip
    if kind == "skill" and skill:
        rows = [row for row in rows if row[2] == "skill" and row[8] == skill]
    elif kind:
        rows = [row for row in rows if row[2] == kind]
    if since is not None:
        rows = [row for row in rows if row[1] >= since]
    newest = rows[::-1][:limit] if limit else rows[::-1]
    return newest, len(rows)
