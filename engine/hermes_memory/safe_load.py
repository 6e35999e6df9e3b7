"""Bounded reading of the YAML and JSON files the engine reads (config.yaml, SKILL.md
frontmatter, ``.usage.json``, ``plugin.yaml``, the hub lock, and anything else that
wants it: pending records, history files).

A hostile or broken file must not hang or crash a command. Three things can:

* size: a file is read only when it is a regular file no larger than its limit (a FIFO
  or a device would block or never end);
* alias expansion ("billion laughs"): YAML loaders share aliased nodes, so loading is
  quick, but anything that walks the result (``str()``, ``json.dumps``, a list copy)
  expands every alias; :func:`check_structure` counts the nodes as a walk would see
  them, visiting each shared node once, and refuses past a limit;
* nesting depth, which makes loaders and walkers recurse until they fail.

Everything refused raises :class:`UnsafeDocument`, whose message says what is wrong
and what to do. Per-key validation of values (``.inf``, ``.nan``, huge numbers) is the
caller's job; :func:`finite_number` and :func:`describe` help with it.
"""

from __future__ import annotations

import json
import math
import os
import re
import reprlib
from dataclasses import dataclass
from typing import Any

from .fileio import UnsafeFileError, read_regular_bytes

#: Longest digit run read as a number (Python refuses ints over 4,300 digits anyway).
MAX_NUMBER_DIGITS = 100


class UnsafeDocument(ValueError):
    """A file or text over a limit, or not loadable; ``str()`` is for a person."""


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    max_depth: int = 32
    max_nodes: int = 100_000  # as a walk sees them: aliases counted each time


CONFIG_LIMITS = Limits(max_bytes=512 * 1024, max_depth=32, max_nodes=100_000)
FRONTMATTER_LIMITS = Limits(max_bytes=256 * 1024, max_depth=32, max_nodes=20_000)
PLUGIN_LIMITS = Limits(max_bytes=256 * 1024, max_depth=32, max_nodes=20_000)
#: ``.usage.json``: about 300 bytes a skill, so 8 MiB holds some 25,000 skills.
USAGE_LIMITS = Limits(max_bytes=8 * 1024 * 1024, max_depth=16, max_nodes=5_000_000)
#: A pending record, a history entry, a small state file.
RECORD_LIMITS = Limits(max_bytes=4 * 1024 * 1024, max_depth=64, max_nodes=500_000)


def read_bounded(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (:func:`fileio.read_regular_bytes`).

    ``FileNotFoundError`` and other ``OSError`` pass through; a special file or one over
    the limit raises :class:`UnsafeDocument` without reading it (a FIFO cannot hang it).
    """
    try:
        return read_regular_bytes(path, max_bytes)
    except UnsafeFileError as exc:
        raise UnsafeDocument(str(exc)) from None


def _too_big(path: Any, size: int, limit: int) -> str:
    return (
        f"{path} is {size:,} bytes, over the {limit:,}-byte limit for this file; it is not "
        "read. Trim it or move it aside."
    )


_CONTAINERS = (dict, list, tuple, set, frozenset)
_SCALARS = frozenset({str, int, float, bool, type(None)})


def check_structure(data: Any, limits: Limits, what: str = "the document") -> None:
    """Refuse ``data`` nested deeper than ``limits.max_depth``, holding more than
    ``limits.max_nodes`` nodes once aliases are expanded, or referring to itself.

    Linear in the size of the loaded data: a plain tree (all JSON, most YAML) is walked
    once; data with shared nodes (YAML aliases) is measured with each shared node
    counted once and its expanded size reused.
    """
    if not isinstance(data, _CONTAINERS):
        return
    max_depth, max_nodes = limits.max_depth, limits.max_nodes
    visited: set[int] = {id(data)}
    stack: list[tuple[Any, int]] = [(data, 1)]
    nodes = 1
    while stack:
        container, depth = stack.pop()
        if isinstance(container, dict):
            nodes += 2 * len(container)
            # keys of a plain dict (JSON, PyYAML's safe loader) are scalars; a
            # round-trip YAML mapping may have sequence or mapping keys
            members = container.values() if container.__class__ is dict else _children(container)
            children = [
                child
                for child in members
                if child.__class__ not in _SCALARS and isinstance(child, _CONTAINERS)
            ]
        else:
            nodes += len(container)
            children = [
                child
                for child in container
                if child.__class__ not in _SCALARS and isinstance(child, _CONTAINERS)
            ]
        if nodes > max_nodes:
            raise UnsafeDocument(_too_many(what, limits))
        if children:
            if depth >= max_depth:
                raise UnsafeDocument(
                    f"{what} is nested more than {max_depth} levels deep; it is not used."
                )
            for child in children:
                if id(child) in visited:  # shared (an alias): measure the expansion
                    _check_shared(data, limits, what)
                    return
                visited.add(id(child))
                stack.append((child, depth + 1))


def _check_shared(data: Any, limits: Limits, what: str) -> None:
    """:func:`check_structure` for data with shared nodes: expanded sizes memoised by
    identity, so a "billion laughs" is refused after one pass over its distinct nodes."""
    measured: dict[int, int] = {}  # id -> expanded node count; -1 while being measured
    keep: list[Any] = []  # keep measured containers alive so their ids stay unique
    # each frame: [container, iterator over its children, nodes so far]
    stack: list[list[Any]] = [[data, _children(data), 1]]
    measured[id(data)] = -1
    total_cap = limits.max_nodes
    while stack:
        frame = stack[-1]
        child = next(frame[1], _END)
        if child is _END:
            stack.pop()
            size = frame[2]
            measured[id(frame[0])] = size
            keep.append(frame[0])
            if stack:
                stack[-1][2] += size
                if stack[-1][2] > total_cap:
                    raise UnsafeDocument(_too_many(what, limits))
            continue
        if not isinstance(child, _CONTAINERS):
            frame[2] += 1
            if frame[2] > total_cap:
                raise UnsafeDocument(_too_many(what, limits))
            continue
        known = measured.get(id(child))
        if known == -1:
            raise UnsafeDocument(f"{what} refers to itself (a recursive alias); it is not used.")
        if known is not None:
            frame[2] += known
            if frame[2] > total_cap:
                raise UnsafeDocument(_too_many(what, limits))
            continue
        if len(stack) >= limits.max_depth:
            raise UnsafeDocument(
                f"{what} is nested more than {limits.max_depth} levels deep; it is not used."
            )
        measured[id(child)] = -1
        stack.append([child, _children(child), 1])


_END = object()


def _children(container: Any):
    if isinstance(container, dict):
        for key, value in container.items():
            yield key
            yield value
    else:
        yield from container


def _too_many(what: str, limits: Limits) -> str:
    return (
        f"{what} expands to more than {limits.max_nodes:,} values (YAML aliases repeated "
        "over and over, a \"billion laughs\"); it is not used."
    )


# --- YAML ------------------------------------------------------------------------------
def load_yaml(text: str, limits: Limits = CONFIG_LIMITS, what: str = "the YAML", *, loader: Any = None) -> Any:
    """PyYAML's safe loader, bounded. ``yaml.YAMLError`` passes through for syntax
    errors; everything else refused raises :class:`UnsafeDocument`."""
    if len(text) > limits.max_bytes:
        raise UnsafeDocument(_too_big(what, len(text), limits.max_bytes))
    import yaml  # on first use: most reads are JSON or simple frontmatter, and PyYAML is slow to import

    try:
        data = yaml.load(text, Loader=loader or getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        raise
    except RecursionError:
        raise UnsafeDocument(f"{what} is nested too deeply to read; it is not used.") from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a 5,000-digit number
        raise UnsafeDocument(f"{what} holds a value that cannot be read ({_short(exc)}).") from None
    check_structure(data, limits, what)
    return data


def load_yaml_file(path: str | os.PathLike[str], limits: Limits, *, loader: Any = None) -> Any:
    """``load_yaml`` of a file read with :func:`read_bounded`; ``OSError`` passes through,
    and a file that is not UTF-8 raises :class:`UnsafeDocument`."""
    raw = read_bounded(path, limits.max_bytes)
    return load_yaml(_utf8(raw, path), limits, str(path), loader=loader)


# --- JSON ------------------------------------------------------------------------------
def load_json(
    text: str | bytes,
    limits: Limits = RECORD_LIMITS,
    what: str = "the JSON",
    *,
    overlong_numbers: bool = True,
    check: bool = True,
) -> Any:
    """``json.loads``, bounded; any failure raises :class:`UnsafeDocument`.

    Integers too long for Python to read (over 4,300 digits) become ``inf``, so one bad
    counter does not make the whole file unreadable (validate values per key); with
    ``overlong_numbers=False`` they are refused instead, for a caller that will write
    the data back and must not change them. ``NaN`` and ``Infinity`` are accepted as
    Python writes them; check them per key too. ``check=False`` leaves
    :func:`check_structure` to a caller that can tell more cheaply that the shape is
    plain (JSON has no aliases, so the size limit already bounds the node count).
    """
    if isinstance(text, bytes):
        text = _utf8(text, what)
    if len(text) > limits.max_bytes:
        raise UnsafeDocument(_too_big(what, len(text), limits.max_bytes))
    try:
        try:
            data = json.loads(text)
        except ValueError as exc:
            if isinstance(exc, json.JSONDecodeError) or "digits" not in str(exc):
                raise
            if not overlong_numbers:
                raise UnsafeDocument(
                    f"{what} holds a number too long to read (thousands of digits), "
                    "which cannot be written back as it is."
                ) from None
            data = json.loads(text, parse_int=_bounded_int)
    except UnsafeDocument:
        raise
    except json.JSONDecodeError as exc:
        raise UnsafeDocument(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    except RecursionError:
        raise UnsafeDocument(f"{what} is nested too deeply to read; it is not used.") from None
    except ValueError as exc:
        raise UnsafeDocument(f"{what} holds a value that cannot be read ({_short(exc)}).") from None
    if check:
        check_structure(data, limits, what)
    return data


def load_json_file(path: str | os.PathLike[str], limits: Limits = RECORD_LIMITS) -> Any:
    """``load_json`` of a file read with :func:`read_bounded`; ``OSError`` passes through."""
    return load_json(read_bounded(path, limits.max_bytes), limits, str(path))


def _bounded_int(digits: str) -> int | float:
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        return -math.inf if digits.startswith("-") else math.inf
    return int(digits)


def _utf8(raw: bytes, what: Any) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnsafeDocument(
            f"{what} is not UTF-8 text (bad byte at offset {exc.start}); re-save it as UTF-8."
        ) from None


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 120 else text[:117] + "..."


# --- per-key helpers -------------------------------------------------------------------
_LONG_DIGITS = re.compile(rf"\d{{{MAX_NUMBER_DIGITS + 1},}}")
_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlevel = 2
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 4


def describe(value: Any) -> str:
    """A short, bounded ``repr`` of a value for a warning (never expands a big one)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    try:
        text = _REPR.repr(value)
    except Exception:  # a repr that fails is itself a sign of a hostile value
        return f"a {type(value).__name__}"
    return _LONG_DIGITS.sub(lambda m: m.group()[:8] + "…", text)


def finite_number(value: Any, low: float, high: float) -> bool:
    """True for an int or float (not a bool) that is finite and within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return low <= value <= high

