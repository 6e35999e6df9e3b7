"""``skills/.usage.json``: the agent's per-skill telemetry and provenance sidecar.

A JSON object keyed by frontmatter name. Writes happen under ``.usage.json.lock`` (the
agent's lock), re-read the file under it, keep every field and record we do not know,
and go through temp file + ``os.replace`` with ``indent=2, sort_keys=True``, exactly as
the agent writes it. A file that does not parse is reported and never overwritten: the
agent's own loader would silently treat it as empty and lose everything in it.

Reads are bounded (:data:`~hermes_memory.safe_load.USAGE_LIMITS`), and a value of a
known field that no reader can use (``Infinity``, ``NaN``, a huge or overlong number,
a list where a count belongs) is left out of what :func:`read_usage` returns, with a
warning; it stays in the file untouched.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from ..fileio import (
    DEFAULT_LOCK_TIMEOUT,
    atomic_write_text,
    file_lock,
    file_version,
    settled,
)
from ..home import HermesHome
from ..safe_load import (
    USAGE_LIMITS,
    UnsafeDocument,
    check_structure,
    describe,
    finite_number,
    load_json,
    read_bounded,
)

T = TypeVar("T")

#: Where an archive or restore records its intent (see :mod:`.moves`).
MOVE_INTENT_FILE = ".skill_move.json"

STATE_ACTIVE = "active"
STATE_STALE = "stale"
STATE_ARCHIVED = "archived"

#: Timestamp fields in the order the learning graph picks a skill's time from.
TIMESTAMP_PRIORITY = (
    "last_activity_at", "last_used_at", "last_viewed_at", "last_patched_at", "created_at",
)


class UsageError(RuntimeError):
    """``.usage.json`` cannot be read or updated safely; the message says what to do."""


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def empty_record(now: str | None = None) -> dict[str, Any]:
    """A fresh record, as the agent creates one on first touch."""
    return {
        "created_by": None,
        "use_count": 0,
        "view_count": 0,
        "last_used_at": None,
        "last_viewed_at": None,
        "patch_count": 0,
        "last_patched_at": None,
        "created_at": now or now_iso(),
        "state": STATE_ACTIVE,
        "pinned": False,
        "archived_at": None,
    }


_EPOCH_CACHE: dict[str, int | None] = {}
_NOT_CACHED = object()


def to_epoch(value: Any) -> int | None:
    """Epoch seconds from a number, a numeric string or an ISO-8601 string; else None."""
    if isinstance(value, str):
        # the same few thousand timestamps come back on every graph build
        result = _EPOCH_CACHE.get(value, _NOT_CACHED)
        if result is not _NOT_CACHED:
            return result
        result = _string_to_epoch(value)
        if len(_EPOCH_CACHE) >= 50_000:
            _EPOCH_CACHE.clear()
        _EPOCH_CACHE[value] = result
        return result
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        try:
            return int(value)
        except (OverflowError, ValueError):  # inf, nan
            return None
    return None


def _string_to_epoch(value: str) -> int | None:
    """A number of seconds, else an ISO-8601 time. A date ("2026-05-12...") is tried as
    one first: no number has a "-" fifth but one with an exponent ("1.0e-5"), which is
    no date, and a failed ``float()`` would cost as much again (a first build of a real
    home meets tens of thousands of distinct timestamps)."""
    text = value.strip()
    if not text:
        return None
    if text[4:5] == "-":
        epoch = _iso_epoch(text)
        return epoch if epoch is not None else _number_epoch(text)
    epoch = _number_epoch(text)
    return epoch if epoch is not None else _iso_epoch(text)


def _number_epoch(text: str) -> int | None:
    try:
        return int(float(text))
    except (ValueError, OverflowError):
        return None


def _iso_epoch(text: str) -> int | None:
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp())


def count_value(value: Any) -> int:
    """A counter field as an int; anything unusable counts as 0."""
    if isinstance(value, bool):
        return int(value)
    try:
        return int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0


#: ``created_by`` values that mark a skill as learned (``learn`` is the /learn marker).
LEARNED_CREATORS = frozenset({"agent", "learn"})


def has_learning_signal(source: str, record: dict[str, Any]) -> bool:
    """The graph's "learned" rule: not a base or external skill, and made or used."""
    return source not in ("base", "external") and (
        record.get("created_by") in LEARNED_CREATORS or count_value(record.get("use_count")) > 0
    )


def record_timestamp(record: dict[str, Any]) -> int | None:
    """The first usable timestamp in priority order (not the latest), as upstream."""
    for key in TIMESTAMP_PRIORITY:
        value = to_epoch(record.get(key))
        if value:  # upstream treats 0 like "missing"
            return value
    return None


def is_curator_managed(record: Any) -> bool:
    return isinstance(record, dict) and (
        record.get("created_by") == "agent" or record.get("agent_created") is True
    )


@dataclass(frozen=True)
class UsageSnapshot:
    """One read of the file. ``records`` holds only the dict-valued entries."""

    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    exists: bool = False
    error: str | None = None
    warnings: tuple[str, ...] = ()  # values left out because no reader can use them

    def record(self, name: str) -> dict[str, Any]:
        return self.records.get(name) or {}


def _decode(home: HermesHome, raw: bytes, *, for_writing: bool = False) -> dict[str, Any]:
    """The parsed file, bounded (its depth checked only when the text is not plainly a
    mapping of flat records: walking 10,000 records would cost more than parsing them)."""
    return _decode_checked(home, raw, for_writing=for_writing)[0]


def _decode_checked(home: HermesHome, raw: bytes, *, for_writing: bool = False) -> tuple[dict[str, Any], bool]:
    """``(_decode(...), whether it is plainly fine)``: the check is a walk over every
    record, so a reader that needs its answer too should not walk twice."""
    path = home.skills_usage_file
    try:
        if not raw.strip():
            return {}, True
        data = load_json(raw, USAGE_LIMITS, str(path), overlong_numbers=not for_writing, check=False)
        if not isinstance(data, dict):
            raise UsageError(f"{path} does not hold a JSON object; fix or move it aside.")
        plain = _plainly_fine(data)
        if not plain:
            check_structure(data, USAGE_LIMITS, str(path))
    except UnsafeDocument as exc:
        raise UsageError(f"{exc} Fix or move it aside; nothing was changed.") from None
    return data, plain


def _read_raw(path: Any) -> bytes:
    try:
        return read_bounded(path, USAGE_LIMITS.max_bytes)
    except UnsafeDocument as exc:
        raise UsageError(f"{exc} Nothing was changed.") from None


def read_usage(home: HermesHome) -> UsageSnapshot:
    """The current records; a missing file is empty, a broken one gives ``error``.

    An archive or restore an earlier process left half done is finished first (see
    :mod:`.moves`); what that did is among the ``warnings``.
    """
    notes: list[str] = []
    if os.path.lexists(home.skills_dir / MOVE_INTENT_FILE):
        from .moves import reconcile_moves  # moves writes through this module

        notes = [f"skills: {note}." for note in reconcile_moves(home)]
    snapshot = _read_usage(home)
    if notes:
        snapshot = UsageSnapshot(snapshot.records, snapshot.exists, snapshot.error, (*notes, *snapshot.warnings))
    return snapshot


_shared: dict[str, tuple[tuple[int, ...], UsageSnapshot]] = {}
_shared_lock = threading.Lock()


def _stat(path: Any) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def read_usage_shared(home: HermesHome) -> UsageSnapshot:
    """:func:`read_usage` for callers that only look: the snapshot read last in this
    process while the file is unchanged since (device, inode, size, modification and
    change times), else a fresh read. Treat it as read-only: other callers get the same
    records. (A history capture and the Changes feed each read ``.usage.json`` moments
    apart at open: at 10,000 skills 0.2 s each time.)"""
    path = home.skills_usage_file
    if os.path.lexists(home.skills_dir / MOVE_INTENT_FILE):
        return read_usage(home)  # a move to finish first: read_usage does
    started = time.time_ns()
    before = _stat(path)
    if before is not None:
        with _shared_lock:
            kept = _shared.get(str(path))
        if kept is not None and kept[0] == file_version(before):
            return kept[1]
    snapshot = read_usage(home)
    after = _stat(path)
    if (after is not None and before is not None and file_version(after) == file_version(before)
            and settled(after, started) and not snapshot.error):  # fmt: skip
        with _shared_lock:
            _shared[str(path)] = (file_version(after), snapshot)
    return snapshot


def _read_usage(home: HermesHome) -> UsageSnapshot:
    try:
        raw = _read_raw(home.skills_usage_file)
    except FileNotFoundError:
        return UsageSnapshot()
    except UsageError as exc:
        return UsageSnapshot(exists=True, error=str(exc))
    except OSError as exc:
        return UsageSnapshot(exists=True, error=f"Could not read {home.skills_usage_file}: {exc.strerror}")
    data = _plain_file(raw)
    if data is not None:  # the usual file: every value a record of plain values
        return UsageSnapshot(records=data, exists=True)
    try:
        data, plain = _decode_checked(home, raw)
    except UsageError as exc:
        return UsageSnapshot(exists=True, error=str(exc))
    records = {str(key): value for key, value in data.items() if isinstance(value, dict)}
    if plain:
        return UsageSnapshot(records=records, exists=True)
    problems: list[str] = []
    records = {name: _usable(name, record, problems) for name, record in records.items()}
    warnings = ()
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        warnings = (
            f"{home.skills_usage_file}: ignored {len(problems)} unusable value(s) ({shown}). "
            "They are left in the file; fix them by hand.",
        )
    return UsageSnapshot(records=records, exists=True, warnings=warnings)


def _plain_file(raw: bytes) -> dict[str, Any] | None:
    """The usual file, parsed with orjson (a few times faster than json for ten
    thousand records), when it is a JSON object of plainly fine records and nothing
    else; None for anything else, which the bounded reader then parses and explains. For
    such data the two parsers agree (text, flags, nulls and small whole numbers only)."""
    import orjson  # only the read path needs it

    try:
        data = _loads_in_pieces(raw, orjson.loads)
    except orjson.JSONDecodeError:
        return None
    return data if data.__class__ is dict and _plainly_fine(data, records_only=True) else None


#: A bigger file is parsed a piece of about this size at a time (see _loads_in_pieces).
PIECE_BYTES = 128 * 1024
#: Where a member of the top-level object starts in the file as written (``indent=2``).
_MEMBER_BREAK = b',\n  "'


def _loads_in_pieces(raw: bytes, loads: Callable[[bytes], Any]) -> Any:
    """``loads(raw)``, made of short calls when ``raw`` is a big object written with
    ``indent=2`` (as Hermes and this engine write it).

    One parse of 10,000 records holds Python's interpreter for 60-90 ms, during which no
    other thread runs (the app's window among them). So the object's text is cut before
    members of the top-level object and each piece parsed as an object of its own. Strings
    cannot hold a raw line break, so a cut lands between members, or inside a nested value,
    which leaves that piece unbalanced and unparsable: then the whole text is parsed in
    one call, as it would have been. Pieces that all parse make up the same object, in the
    same order, a repeated name keeping its last value.
    """
    text = raw.strip(b" \t\n\r")  # (JSON's own white space only)
    if len(text) <= PIECE_BYTES or text[:1] != b"{" or text[-1:] != b"}":
        return loads(raw)
    body, data, start = text[1:-1], {}, 0
    try:
        while start < len(body):
            cut = body.find(_MEMBER_BREAK, start + PIECE_BYTES)
            end = len(body) if cut < 0 else cut
            data.update(loads(b"{" + body[start:end] + b"}"))
            start = end + 1
    except ValueError:  # (orjson's and json's decode errors are ValueErrors) not cut between members
        return loads(raw)
    return data


# --- per-key checks of what read_usage returns ------------------------------------------
_MAX_COUNT = 10**12
_MAX_EPOCH = 10**11  # seconds: the year 5138


def _count_ok(value: Any) -> bool:
    return value is None or finite_number(value, 0, _MAX_COUNT) or (
        isinstance(value, str) and len(value) <= 256
    )


def _time_ok(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, str) and len(value) <= 256)
        or finite_number(value, -_MAX_EPOCH, _MAX_EPOCH)
    )


def _short_text_ok(value: Any) -> bool:
    return value is None or (isinstance(value, str) and len(value) <= 256)


def _flag_ok(value: Any) -> bool:
    return (
        value is None
        or isinstance(value, bool)
        or (isinstance(value, int) and value in (0, 1))
        or (isinstance(value, str) and len(value) <= 16)
    )


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "use_count": _count_ok,
    "view_count": _count_ok,
    "patch_count": _count_ok,
    **{key: _time_ok for key in (*TIMESTAMP_PRIORITY, "archived_at")},
    "state": _short_text_ok,
    "created_by": _short_text_ok,
    "agent_created": _flag_ok,
    "pinned": _flag_ok,
    "archived_from": lambda value: value is None or (isinstance(value, str) and len(value) <= 4096),
}
_PLAIN_SCALARS = (str, bool, type(None))


def _plainly_fine(data: dict[str, Any], records_only: bool = False) -> bool:
    """True when every record holds only short text, flags, nulls and small whole
    numbers (nothing nested): the usual file, which needs no further checks. With
    ``records_only``, also only when every value is a record."""
    for record in data.values():
        if record.__class__ is not dict:
            if records_only or isinstance(record, dict | list):
                return False
            continue
        for value in record.values():
            cls = value.__class__
            if cls is str:
                if len(value) > 256:
                    return False
            elif cls is int:
                if not 0 <= value <= _MAX_COUNT:
                    return False
            elif cls is not bool and value is not None:
                return False
    return True


def _usable(name: str, record: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    bad = [key for key, value in record.items() if key in _CHECKS and not _CHECKS[key](value)]
    if not bad:
        return record
    problems.extend(f"{key} of '{name[:60]}' is {describe(record[key])}" for key in bad)
    return {key: value for key, value in record.items() if key not in bad}


def serialise(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False)


def update_usage(
    home: HermesHome,
    mutate: Callable[[dict[str, Any]], T],
    *,
    timeout: float = DEFAULT_LOCK_TIMEOUT,
    after_write: Callable[[], None] | None = None,
) -> T:
    """Run ``mutate(data)`` on the whole file under the lock and write it back if changed.

    Raises :class:`UsageError` (nothing written) when the file is broken, and whatever
    ``mutate`` raises. The file is only rewritten when its content actually changed.
    ``after_write`` runs once the file is written (or found unchanged), still under
    the lock. One call is one read, one serialisation and at most one write, however
    many records ``mutate`` changes: batch changes into one call.
    """
    path = home.skills_usage_file
    with file_lock(path, timeout=timeout):
        try:
            raw = _read_raw(path)
        except FileNotFoundError:
            raw = b""
        except OSError as exc:
            raise UsageError(f"Could not read {path}: {exc.strerror}") from None
        data, plain = _decode_checked(home, raw, for_writing=True)
        before = _snapshot(data) if plain else serialise(data)
        result = mutate(data)
        after = _changed_text(before, data, raw if plain else None, str(path))
        if after is not None:
            atomic_write_text(path, after, temp_prefix=".usage_")
            _WRITTEN[str(path)] = _digest(after.encode("utf-8"))
        if after_write is not None:
            after_write()
        return result


#: Per file, the digest of the text this process last wrote there. A file whose bytes
#: still hash to it is exactly our serialisation of what it holds, so its unchanged
#: records can be copied as text instead of serialised again (see :func:`_spliced`).
_WRITTEN: dict[str, bytes] = {}


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _snapshot(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of a plain file's records (flat, so one level deep is a full copy): far
    cheaper than serialising 10,000 records only to learn later whether one changed."""
    return {key: value.copy() if value.__class__ is dict else value for key, value in data.items()}


def _changed_text(
    before: dict[str, Any] | str, data: dict[str, Any], raw: bytes | None = None, path: str = ""
) -> str | None:
    """The text to write, or None when ``data`` says what ``before`` said."""
    if isinstance(before, str):
        after = serialise(data)
        return None if after == before else after
    if before == data:
        # equal values can still differ in type (1 and True): only the texts can tell
        after = serialise(data)
        return None if after == serialise(before) else after
    if raw is not None and _WRITTEN.get(path) == _digest(raw):
        spliced = _spliced(raw.decode("utf-8"), before, data)
        if spliced is not None:
            return spliced
    return serialise(data)


def _same_record(old: Any, new: Any) -> bool:
    """True when ``new`` still holds the very values of ``old`` (identity, so 1 -> True
    counts as a change), in the same order."""
    if old.__class__ is not dict or new.__class__ is not dict:
        return old is new
    is_ = operator.is_  # keys (the decoder's own objects) and values, position by position
    return len(old) == len(new) and all(map(is_, old, new)) and all(map(is_, old.values(), new.values()))


_TOP_LEVEL = re.compile(r'\n  "')  # a literal to search for: far quicker than ^ in MULTILINE


def _spliced(text: str, before: dict[str, Any], data: dict[str, Any]) -> str | None:
    """:func:`serialise` of ``data``, given ``text`` = ``serialise(before)``: records
    that did not change are copied from ``text``. In that format every top-level record
    starts a line with exactly two spaces and a quote (JSON strings hold no newline, and
    a record's fields sit four deep), in sorted key order. None if ``text`` does not
    look like that after all."""
    keys = sorted(before)
    starts = [match.start() + 1 for match in _TOP_LEVEL.finditer(text)]
    if not keys or len(starts) != len(keys) or not text.startswith("{\n") or not text.endswith("\n}"):
        return None
    ends = [start - 2 for start in starts[1:]] + [len(text) - 2]  # before ",\n" or "\n}"
    old_text = {key: text[start:end] for key, start, end in zip(keys, starts, ends, strict=True)}
    parts = []
    for key in sorted(data):
        value = data[key]
        if key in old_text and _same_record(before[key], value):
            parts.append(old_text[key])
        else:
            parts.append(serialise({key: value})[2:-2])  # "{\n" + entry + "\n}"
    return "{\n" + ",\n".join(parts) + "\n}" if parts else "{}"


def mutate_record(
    home: HermesHome, name: str, change: Callable[[dict[str, Any]], None], **kwargs: Any
) -> dict[str, Any]:
    """Apply ``change`` to ``name``'s record (created fresh when missing); return a copy."""

    def apply(data: dict[str, Any]) -> dict[str, Any]:
        record = data.get(name)
        if not isinstance(record, dict):
            record = empty_record()
        change(record)
        data[name] = record
        return dict(record)

    return update_usage(home, apply, **kwargs)


def written_digest(path: str | os.PathLike[str]) -> bytes | None:
    """The digest of the text this process last wrote at ``path`` (see ``_WRITTEN``)."""
    return _WRITTEN.get(str(path))


def adopt_written_digest(path: str | os.PathLike[str], digest: bytes) -> None:
    """Take ``digest`` as that of a text this engine wrote at ``path`` (kept by a caller
    from an earlier process): while the file's bytes still hash to it, the next
    :func:`update_usage` copies its unchanged records instead of serialising them."""
    _WRITTEN.setdefault(str(path), digest)
