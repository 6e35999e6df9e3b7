"""SKILL.md frontmatter: the ``---`` fenced YAML block at the top of a skill file.

Behaviour matches the agent's ``parse_frontmatter`` (one leading BOM stripped, the
closing fence found with ``\\n---\\s*\\n``, safe YAML, a naive ``key: value`` fallback
when the YAML does not parse, ``{}`` for anything that is not a mapping).

Most frontmatter is a handful of ``key: value`` lines, so a small reader for that
subset runs first; anything it is not certain to read exactly as YAML would (anchors,
block scalars, numbers, booleans, dates, comments after values, ...) goes to PyYAML's C
loader instead. Tests check the two agree. The reader goes line by line and remembers
the lines it has read (``author: ...``, ``metadata:``, tag lists recur from skill to
skill), so only lines it has not seen before are checked character by character.
"""

from __future__ import annotations

import functools
import operator
import re
import sys
from typing import Any

_CLOSING_FENCE = re.compile(r"\n---\s*\n")
_FENCE_END = re.compile(r"\s*\n")  # _CLOSING_FENCE after its "\n---"


# PyYAML is imported on first need, not with the engine: most frontmatter never needs it.
@functools.cache
def _yaml_loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


@functools.cache
def _implicit_resolvers() -> dict[str, list]:
    """The loaders' own table of implicit types (bool, int, float, null, timestamp, ...),
    keyed by first character; a plain scalar that matches one is not a string."""
    import yaml

    return yaml.resolver.Resolver.yaml_implicit_resolvers
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


def frontmatter_text(text: str) -> str | None:
    """``split_frontmatter(text)[0]``, without copying the body (and finding the fence
    with ``str.find``, which is a few times quicker than the regular expression's search)."""
    if text.startswith("---"):
        start = 3
    elif text.startswith("\ufeff---"):
        start = 4
    else:
        return None
    find = text.find
    end = find("\n---", start)
    while end >= 0:
        # the closing fence: "\n---", then white space up to a line end (_CLOSING_FENCE)
        if text.startswith("\n", end + 4) or _FENCE_END.match(text, end + 4) is not None:
            return text[start:end]
        end = find("\n---", end + 1)
    return None


def parse_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """``(frontmatter, body)`` as the agent reads them; never raises."""
    yaml_text, body = split_frontmatter(text)
    if yaml_text is None:
        return {}, body
    return load_frontmatter_mapping(yaml_text), body


def load_frontmatter_mapping(yaml_text: str) -> dict[str, Any]:
    return load_frontmatter_checked(yaml_text)[0]


def load_frontmatter_checked(yaml_text: str) -> tuple[dict[str, Any], str | None]:
    """``(mapping, problem)``: ``problem`` says why YAML over a safety limit (alias
    expansion, depth, size; see :mod:`hermes_memory.safe_load`) was read with the naive
    fallback instead; None otherwise."""
    mapping, problem, _fault = load_frontmatter_diagnosed(yaml_text)
    return mapping, problem


#: ``load_frontmatter_diagnosed``'s fault for YAML that loads but is not a mapping.
NOT_A_MAPPING = "not a mapping"


def load_frontmatter_diagnosed(yaml_text: str) -> tuple[dict[str, Any], str | None, str | None]:
    """``(mapping, problem, fault)``: ``problem`` as :func:`load_frontmatter_checked`;
    ``fault`` says why the text was not read as a YAML mapping: the loader's error (one
    line, the naive fallback was read instead) or :data:`NOT_A_MAPPING`; None when it was.
    Skill health reports the fault, so it never parses a frontmatter a second time."""
    try:
        return _simple_mapping(yaml_text), None, None
    except _NotSimple:
        pass
    from ..safe_load import FRONTMATTER_LIMITS, UnsafeDocument, load_yaml  # imports PyYAML

    try:
        parsed = load_yaml(yaml_text, FRONTMATTER_LIMITS, "its frontmatter", loader=_yaml_loader())
    except UnsafeDocument as exc:
        return naive_key_values(yaml_text), str(exc), _one_line(exc)
    except Exception as exc:  # the agent falls back on any error, not only YAMLError
        return naive_key_values(yaml_text), None, _one_line(exc)
    if isinstance(parsed, dict):
        return parsed, None, None
    return {}, None, NOT_A_MAPPING


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200] or exc.__class__.__name__


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


# One line of the subset: "key:", "key: value", "- item", a comment, or blank; keys are
# ``[A-Za-z_][A-Za-z0-9_.\-]*`` (see _line).
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
# Line breaks for YAML that are not line breaks for str.split("\n").
_OTHER_BREAKS = ("\x85", "\u2028", "\u2029")
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
    for _tag, pattern in _implicit_resolvers().get(first, ()):
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
        or _implicit_type(value)
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


_SKIP = None  # a blank or comment line (see _line)


# Shapes common enough to read without the general checks: a plain scalar of letters,
# digits and a little punctuation (never "#", ":" or an indicator, and starting with a
# letter it can only be a reserved word if it is not a string), and a flow list of such
# names separated by ", ".
_PLAIN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9 _.,'()/\-]*")
_NAME_LIST = re.compile(r"\[[A-Za-z][A-Za-z0-9_.\-]*(?:, [A-Za-z][A-Za-z0-9_.\-]*)*\]")
_GOOD_KEYS: set[str] = set()  # keys already checked against _KEY


def _line_value(text: str) -> Any:
    """The value of a ``key: value`` or ``- item`` line; flow lists as tuples."""
    if _PLAIN_TEXT.fullmatch(text) is not None and text not in RESERVED_WORDS:
        return text
    if _NAME_LIST.fullmatch(text) is not None:
        items = text[1:-1].split(", ")
        if RESERVED_WORDS.isdisjoint(items):
            return tuple(items)
    value = _value(text)
    return tuple(value) if value.__class__ is list else value


def _line(line: str) -> tuple[int, str | None, Any] | None:
    """``(indent, key, value)`` for one line (``key`` None for a ``- item``; ``value``
    None for a ``key:`` whose block may follow; flow lists as tuples), or _SKIP."""
    text = line.lstrip(" ")
    if not text or text[0] == "#":
        return _SKIP
    indent = len(line) - len(text)
    if text[0] == "-" and text[1:2] == " ":
        item = text[2:].rstrip(" ")
        # "-  x": YAML drops the extra spaces; leave such lines to it
        if not item or item[0] == " " or item[-1] == ":" or ": " in item:
            raise _NotSimple
        return indent, None, _line_value(item)
    key, colon, rest = text.partition(":")
    if not colon:
        raise _NotSimple
    if key not in _GOOD_KEYS:
        if key in RESERVED_WORDS or _KEY.fullmatch(key) is None:
            raise _NotSimple
        if len(_GOOD_KEYS) < 10_000:
            _GOOD_KEYS.add(key)
    rest = rest.rstrip(" ")
    if not rest:
        return indent, key, None
    if rest[0] != " ":
        raise _NotSimple
    return indent, key, _line_value(rest.lstrip(" "))


# Lines already read: most lines of most SKILL.md files ("author: ...", "metadata:",
# "  hermes:", tag lists) recur across a home's skills. Each is kept as
# ``(indent, key, value, shape, text, items)``; ``shape`` names what the line does to the
# structure (its indent, its key, and whether it is an item, opens a block or holds a
# value), so that the structure of a whole frontmatter is known from the shapes of its
# lines alone. ``text`` and ``items`` are the value as a skill index reads a text field
# (name, description, category: :func:`value_text`) and a list field (tags,
# related_skills: :func:`value_items`), worked out once per line, for those keys only.
_LineEntry = tuple[int, "str | None", Any, str, str, tuple]
_KNOWN_LINES: dict[str, _LineEntry] = {}
_BLANK: _LineEntry = (-1, None, None, "", "", ())  # a blank or comment line
_MISSING = object()
_TEXT_KEYS = frozenset({"name", "description", "category"})
_LIST_KEYS = frozenset({"tags", "related_skills"})


def value_text(value: Any) -> str:
    """A text field (a skill's name, description, category) from a line's value: the
    text stripped; "" for a list or null."""
    return value.strip() if value.__class__ is str else ""


def value_items(value: Any) -> tuple[str, ...]:
    """A list field (tags, related skills) from its value: a list (or the tuple the fast
    reader gives for a flow list) as strings with blanks dropped; text as the agent's
    naive fallback gives ``"[a, b]"``, split on commas; () for anything else."""
    if isinstance(value, (list, tuple)):
        for item in value:
            if item.__class__ is not str or not item or item != item.strip():
                break
        else:
            return tuple(value)  # the usual list of tags or names, nothing to drop
        return tuple(text for text in (str(item).strip() for item in value if item is not None) if text)
    if isinstance(value, str):  # also drop the quotes YAML would have removed
        items = (item.strip().strip("'\"").strip() for item in value.strip().strip("[]").split(","))
        return tuple(item for item in items if item)
    return ()


def _entry(indent: int, key: str | None, value: Any, shape: str) -> _LineEntry:
    if key in _TEXT_KEYS:
        return (indent, key, value, shape, value_text(value), ())
    if key in _LIST_KEYS:
        return (indent, key, value, shape, "", value_items(value))
    return (indent, key, value, shape, "", ())


# The most common line not read before, "key: value" with a value of the shapes
# _line_value reads first (_PLAIN_TEXT, _NAME_LIST), in one match: what _line gives for
# it, but without its several steps (a first build of 10,000 skills meets 24,000 such
# lines: a name, a description, tags, related skills). The value has no space at its ends.
_COMMON_LINE = re.compile(
    r"( *)([A-Za-z_][A-Za-z0-9_.\-]*): +"
    r"([A-Za-z](?:[A-Za-z0-9 _.,'()/\-]*[A-Za-z0-9_.,'()/\-])?"
    r"|\[[A-Za-z][A-Za-z0-9_.\-]*(?:, [A-Za-z][A-Za-z0-9_.\-]*)*\]) *"
)


@functools.lru_cache(maxsize=1024)
def _shape_of(indent: int, key: str) -> str:
    """The shape of a "key: value" line (see _LineEntry)."""
    return sys.intern(f"{indent}={key}")


def _common_line(line: str) -> _LineEntry | None:
    """The entry of a :data:`_COMMON_LINE` (as :func:`_known_line` makes it), else None."""
    match = _COMMON_LINE.fullmatch(line)
    if match is None:
        return None
    spaces, key, value = match.groups()
    if key in RESERVED_WORDS or value in RESERVED_WORDS:
        return None
    indent = len(spaces)
    if value[0] == "[":
        items = value[1:-1].split(", ")
        if not RESERVED_WORDS.isdisjoint(items):
            return None
        value = tuple(map(sys.intern, items))
        # (as _entry makes it: the items are names, so the list needs no cleaning)
        return (indent, key, value, _shape_of(indent, key), "", value if key in _LIST_KEYS else ())
    if key in _TEXT_KEYS:  # (the value has no space at its ends)
        if key == "name":
            value = sys.intern(value)
        return (indent, key, value, _shape_of(indent, key), value, ())
    return _entry(indent, key, value, _shape_of(indent, key))


def _known_line(line: str) -> _LineEntry:
    """The entry of a line not read before (raises :class:`_NotSimple`); remembered."""
    entry = _common_line(line)
    if entry is not None:
        known = _KNOWN_LINES
        if len(known) >= 100_000:
            known.clear()
        known[line] = entry
        return entry
    parsed = _line(line)
    if parsed is None:
        entry = _BLANK
    else:
        indent, key, value = parsed
        kind = "-" if key is None else ":" if value is None else "="
        # names one skill declares and names others list as related become one string
        # object, so the graph's look-ups of one by the other compare by identity
        if value.__class__ is tuple:
            value = tuple(map(sys.intern, value))
        elif value.__class__ is str and (key is None or key == "name"):
            value = sys.intern(value)
        entry = _entry(indent, key, value, sys.intern(f"{indent}{kind}{key or ''}"))
    known = _KNOWN_LINES
    if len(known) >= 100_000:
        known.clear()
    known[line] = entry
    return entry


def _simple_mapping(yaml_text: str) -> dict[str, Any]:
    if "\t" in yaml_text:
        raise _NotSimple
    if "\r" in yaml_text:
        yaml_text = yaml_text.replace("\r\n", "\n")
        if "\r" in yaml_text:
            raise _NotSimple
    if not yaml_text.isascii() and any(brk in yaml_text for brk in _OTHER_BREAKS):
        raise _NotSimple
    lines = yaml_text.split("\n")
    # the fence line may hold a comment and nothing else
    first = lines[0].lstrip(" ")
    if first and first[0] != "#":
        raise _NotSimple
    known = _KNOWN_LINES
    root: dict[str, Any] = {}
    container: Any = root  # the innermost open block
    level = 0  # its indentation
    stack: list[tuple[int, Any]] = []  # the blocks enclosing it
    pending: str | None = None  # a "key:" whose block may follow
    pending_indent = 0
    lines_after = iter(lines)
    next(lines_after)
    for line in lines_after:
        parsed = known.get(line, _MISSING)
        if parsed is _MISSING:
            parsed = _known_line(line)
        if parsed is _BLANK:
            continue  # blank or comment
        indent, key, value = parsed[0], parsed[1], parsed[2]
        if pending is not None:
            if indent > pending_indent:
                block: Any = [] if key is None else {}
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
        if value.__class__ is tuple:
            value = list(value)
        if key is None:
            if container.__class__ is not list:
                raise _NotSimple
            container.append(value)
            continue
        if container.__class__ is not dict:
            raise _NotSimple
        if value is None:
            pending, pending_indent = key, indent
        else:
            container[key] = value
    if pending is not None:
        container[pending] = None
    return root


# --- the fields a skill index needs, read from the shapes of the lines -------------------
#: ``head_entries`` gives these, top level first, then ``metadata.hermes``.
HEAD_FIELDS = ("name", "description", "category", "related_skills", "tags")
_FieldSource = "int | tuple[int, ...] | None"  # a line's value, a block list's items, absent
# frontmatter shape (the shapes of its lines) -> where each field's value comes from, or
# None when the fast reader cannot take it (the structure is not simple, or a field is
# a block mapping); filled as shapes are met
_PLANS: dict[tuple[str, ...], tuple | None] = {}


def head_entries(yaml_text: str) -> tuple[_LineEntry, ...] | None:
    """The line entries (see :data:`_LineEntry`) holding :data:`HEAD_FIELDS` at the top
    level and then in ``metadata.hermes``, exactly as ``load_frontmatter_diagnosed(
    yaml_text)`` would give their values when it reads the text as a simple, valid
    mapping; None when it would not, or when this shortcut cannot tell. An absent or
    null field is :data:`_ABSENT`; a block list, an entry made for it.

    Lines seen before cost one dictionary look-up each, and the structure of a
    frontmatter laid out like one seen before costs one more; no mapping is built.
    """
    if "\t" in yaml_text or "\r" in yaml_text:
        return None
    if not yaml_text.isascii() and any(brk in yaml_text for brk in _OTHER_BREAKS):
        return None
    lines = yaml_text.split("\n")
    if lines[0]:
        return None  # something after the opening fence: leave it to the full reader
    entries = list(map(_KNOWN_LINES.get, lines))
    try:
        shape = tuple(map(_SHAPE, entries))
    except TypeError:  # (None is not subscriptable) lines not read before
        try:
            entries = [entry or _known_line(line) for entry, line in zip(entries, lines, strict=True)]
        except _NotSimple:
            return None
        shape = tuple(map(_SHAPE, entries))
    plan = _PLANS.get(shape, _MISSING)
    if plan is _MISSING:
        plan = _plan(shape)
        if len(_PLANS) >= 10_000:
            _PLANS.clear()
        _PLANS[shape] = plan
    if plan is None:
        return None
    entries.append(_ABSENT)
    if plan.__class__ is operator.itemgetter:  # every field a line's value, or absent
        return plan(entries)
    fields = []
    for key, source in zip(_PLANNED_KEYS, plan, strict=True):
        if source.__class__ is int:
            fields.append(entries[source])
        else:  # a block list
            fields.append(_entry(-1, key, [_list_value(entries[index][2]) for index in source], ""))
    return tuple(fields)


def _list_value(value: Any) -> Any:
    return list(value) if value.__class__ is tuple else value


_SHAPE = operator.itemgetter(3)
_ABSENT: _LineEntry = (-1, None, None, "", "", ())  # what a plan points at for an absent field
_PLANNED_KEYS = HEAD_FIELDS * 2  # the keys of a plan's fields, in order


class _Block(dict):
    """A block mapping while a shape is planned (values: line numbers or blocks)."""


def _plan(shape: tuple[str, ...]) -> tuple | None:
    """Where :func:`head_fields` finds each field in frontmatter of this shape: the
    reading of :func:`_simple_mapping`, done with line numbers instead of values."""
    root: dict[str, Any] = _Block()
    container: Any = root
    level = 0
    stack: list[tuple[int, Any]] = []
    pending: str | None = None
    pending_indent = 0
    for number, line_shape in enumerate(shape):
        if not line_shape:
            continue  # blank or comment
        digits = len(line_shape) - len(line_shape.lstrip("0123456789"))
        indent, kind, key = int(line_shape[:digits]), line_shape[digits], line_shape[digits + 1 :]
        if pending is not None:
            if indent > pending_indent:
                block: Any = [] if kind == "-" else _Block()
                container[pending] = block
                stack.append((level, container))
                container, level = block, indent
            else:
                container[pending] = None
            pending = None
        while indent < level:
            level, container = stack.pop()
        if indent != level:
            return None
        if kind == "-":
            if container.__class__ is not list:
                return None
            container.append(number)
        elif container.__class__ is not _Block:
            return None
        elif kind == ":":
            pending, pending_indent = key, indent
        else:
            container[key] = number
    if pending is not None:
        container[pending] = None
    metadata = root.get("metadata")
    hermes = metadata.get("hermes") if metadata.__class__ is _Block else None
    if hermes.__class__ is not _Block:
        hermes = {}
    absent = len(shape)  # head_fields appends _ABSENT to the entries
    plan: list[Any] = []
    for mapping in (root, hermes):
        for field in HEAD_FIELDS:
            source = mapping.get(field)
            if source is None:
                source = absent
            elif source.__class__ is list:
                if field in ("name", "description", "category"):
                    return None  # a list where text belongs: rare, leave it to the full reader
                if any(item.__class__ is not int for item in source):
                    return None  # nested blocks
                source = tuple(source)
            elif source.__class__ is _Block:
                return None
            plan.append(source)
    if all(source.__class__ is int for source in plan):
        return operator.itemgetter(*plan)
    return tuple(plan)
