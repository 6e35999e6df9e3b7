"""SKILL.md frontmatter: the ``---`` fenced YAML block at the top of a skill file.

Behaviour matches the agent's ``parse_frontmatter`` (one leading BOM stripped, the
closing fence found with ``\\n---\\s*\\n``, safe YAML, a naive ``key: value`` fallback
when the YAML does not parse, ``{}`` for anything that is not a mapping).

Most frontmatter is a handful of ``key: value`` lines, so a small reader for that
subset runs first; anything it is not certain to read exactly as YAML would (anchors,
block scalars, numbers, booleans, dates, comments after values, ...) goes to PyYAML's C
loader instead. Tests check the two agree.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_CLOSING_FENCE = re.compile(r"\n---\s*\n")
_LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
# The loaders' own table of implicit types (bool, int, float, null, timestamp, ...),
# keyed by first character; a plain scalar that matches one is not a string.
_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers
# First characters that make a plain scalar something else in YAML.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """``(yaml_text, body)``; ``yaml_text`` is None when there is no closed frontmatter."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.startswith("---"):
        return None, text
    match = _CLOSING_FENCE.search(text, 3)
    if match is None:
        return None, text
    return text[3 : match.start()], text[match.end() :]


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """``(frontmatter, body)`` as the agent reads them; never raises."""
    yaml_text, body = split_frontmatter(text)
    if yaml_text is None:
        return {}, body
    return load_frontmatter_mapping(yaml_text), body


def load_frontmatter_mapping(yaml_text: str) -> dict[str, Any]:
    fast = _read_simple_mapping(yaml_text)
    if fast is not None:
        return fast
    try:
        parsed = yaml.load(yaml_text, Loader=_LOADER)  # noqa: S506 - a safe loader
    except Exception:  # the agent falls back on any error, not only YAMLError
        return naive_key_values(yaml_text)
    return parsed if isinstance(parsed, dict) else {}


def naive_key_values(yaml_text: str) -> dict[str, str]:
    """The agent's fallback for malformed YAML: split each line on its first colon."""
    result: dict[str, str] = {}
    for line in yaml_text.strip().split("\n"):
        if ":" in line:
            key, value = line.split(":", 1)
            result[key.strip()] = value.strip()
    return result


# --- the fast reader --------------------------------------------------------------------
class _NotSimple(Exception):
    """The text uses YAML the fast reader does not handle; use the real loader."""


# One line of the subset: "key:", "key: value", "- item", a comment, or blank.
_LINE = re.compile(
    r"^( *)(?:([A-Za-z_][A-Za-z0-9_.\-]*):(?: +([^\n]*[^\n ]))?|- ([^\n]*[^\n ])|#[^\n]*|) *$",
    re.M,
)
# Plain scalars starting with a letter resolve to something else only for these words
# (YAML 1.1 booleans and nulls, as PyYAML's resolver table has them); tests check the
# table still says so.
RESERVED_WORDS = frozenset(
    "yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF "
    "null Null NULL".split()
)


def _implicit_type(value: str) -> bool:
    """True when YAML would read the plain scalar as something other than a string."""
    first = value[0]
    if first.isalpha():
        return value in RESERVED_WORDS
    for _tag, pattern in _IMPLICIT.get(first, ()):
        if pattern.match(value):
            return True
    return False


_KNOWN_SCALARS: dict[str, str] = {}  # values already checked (names, tags, authors recur)


def _scalar(value: str) -> str:
    known = _KNOWN_SCALARS.get(value)
    if known is not None:
        return known
    result = _check_scalar(value)
    if len(_KNOWN_SCALARS) >= 100_000:
        _KNOWN_SCALARS.clear()
    _KNOWN_SCALARS[value] = result
    return result


def _check_scalar(value: str) -> str:
    first = value[0]
    if first == '"' or first == "'":
        if len(value) < 2 or value[-1] != first:
            raise _NotSimple
        inner = value[1:-1]
        if first in inner or "\\" in inner or not inner.isprintable():
            raise _NotSimple
        return inner
    if (
        first in _INDICATORS
        or ": " in value
        or " #" in value
        or value[-1] == ":"
        or not value.isprintable()
        or (first in _IMPLICIT and _implicit_type(value))
    ):
        raise _NotSimple
    return value


def _flow_sequence(value: str) -> list[str]:
    inner = value[1:-1]
    if "[" in inner or "]" in inner or "{" in inner or "}" in inner or "#" in inner:
        raise _NotSimple
    if not inner.strip():
        return []
    items = []
    for raw in inner.split(","):
        item = raw.strip()
        if not item or ":" in item:  # flow scalars and colons: leave it to YAML
            raise _NotSimple
        items.append(_scalar(item))
    return items


def _value(value: str) -> Any:
    if value[0] == "[":
        if value[-1] != "]":
            raise _NotSimple
        return _flow_sequence(value)
    return _scalar(value)


def _read_simple_mapping(yaml_text: str) -> dict[str, Any] | None:
    try:
        return _simple_mapping(yaml_text)
    except _NotSimple:
        return None


def _simple_mapping(yaml_text: str) -> dict[str, Any]:
    if "\t" in yaml_text:
        raise _NotSimple
    if "\r" in yaml_text:
        yaml_text = yaml_text.replace("\r\n", "\n")
        if "\r" in yaml_text:
            raise _NotSimple
    lines = _LINE.findall(yaml_text)
    # every line must be one of the shapes, and the fence line must hold nothing else
    if len(lines) != yaml_text.count("\n") + 1 or lines[0][1] or lines[0][3]:
        raise _NotSimple
    root: dict[str, Any] = {}
    container: Any = root  # the innermost open block
    level = 0  # its indentation
    stack: list[tuple[int, Any]] = []  # the blocks enclosing it
    pending: str | None = None  # a "key:" whose block may follow
    pending_indent = 0
    for indent_text, key, value, item in lines:
        if not key and not item:
            continue  # blank or comment
        indent = len(indent_text)
        if pending is not None:
            if indent > pending_indent:
                block: Any = [] if item else {}
                container[pending] = block
                stack.append((level, container))
                container, level = block, indent
            else:
                container[pending] = None
            pending = None
        while indent < level:
            level, container = stack.pop()
        if indent != level:
            raise _NotSimple
        if item:
            if container.__class__ is not list or item[-1] == ":" or ": " in item:
                raise _NotSimple
            container.append(_value(item))
            continue
        if container.__class__ is not dict or key in RESERVED_WORDS:
            raise _NotSimple
        if value:
            container[key] = _value(value)
        else:
            pending, pending_indent = key, indent
    if pending is not None:
        container[pending] = None
    return root
