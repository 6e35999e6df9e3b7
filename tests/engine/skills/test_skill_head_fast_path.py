"""The fast reading of a SKILL.md head gives exactly what the full YAML parser gives.

``parse_head`` reads the fields the index and the learning graph use (name, category,
description, tags, related_skills and their ``metadata.hermes`` forms) through the fast
reader for simple frontmatter; these tests compare it, on generated frontmatter full of
YAML that is easy to get wrong, with the same fields taken from PyYAML's own reading.
"""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_memory.skills import frontmatter
from hermes_memory.skills.frontmatter import frontmatter_text, naive_key_values, split_frontmatter
from hermes_memory.skills.index import parse_head

_LOADER = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


def _full_mapping(yaml_text: str) -> dict[str, Any]:
    """What the agent's parser gives, without the fast reader: YAML, else the naive split."""
    try:
        parsed = yaml.load(yaml_text, Loader=_LOADER)  # noqa: S506 - a safe loader
    except Exception:
        return naive_key_values(yaml_text)
    return parsed if isinstance(parsed, dict) else {}


def _text(value: Any) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value).strip()


def _string_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(text for text in (str(item).strip() for item in value if item is not None) if text)
    if isinstance(value, str):
        items = (item.strip().strip("'\"").strip() for item in value.strip().strip("[]").split(","))
        return tuple(item for item in items if item)
    return ()


def _reference_fields(text: str, dir_name: str, rel_parts: tuple[str, ...]) -> tuple:
    """The fields as the index derived them before the fast path, from the full parser."""
    yaml_text, _body = split_frontmatter(text)
    fm = _full_mapping(yaml_text) if yaml_text is not None else {}
    metadata = fm.get("metadata")
    hermes = metadata.get("hermes") if isinstance(metadata, dict) else None
    hermes = hermes if isinstance(hermes, dict) else {}
    name = _text(fm.get("name")) or dir_name.strip()
    category = _text(fm.get("category")) or _text(hermes.get("category"))
    if not category:
        category = rel_parts[-2] if len(rel_parts) >= 2 else "general"
    related = fm.get("related_skills") or hermes.get("related_skills")
    tags = hermes.get("tags") or fm.get("tags")
    return (
        name, category, _text(fm.get("description")), _string_list(tags),
        _string_list(related), yaml_text,
    )


def _fields(text: str, dir_name: str, rel_parts: tuple[str, ...]) -> tuple:
    parsed = parse_head(text, dir_name, rel_parts)
    return (
        parsed.name, parsed.category, parsed.description, parsed.tags, parsed.related,
        parsed.frontmatter_text,
    )


_KEYS = st.sampled_from(
    ["name", "description", "category", "tags", "related_skills", "version", "author",
     "metadata", "hermes", "yes", "null", "on", "a.b", "x-y", "_k", "Name"]
)
_SCALARS = st.sampled_from(
    [
        "plain", "two words", "docker-logs", "k8s", "Debug docker the reliable way",
        "1.0", "1.0.0", "12", "0x1F", "1e3", ".5", "-1", "+1", "0o17", "1_000", "1:20",
        "true", "True", "No", "no", "yes", "off", "On", "~", "null", "Null", "NULL", "y", "n",
        "-x", "x:", "a: b", "a #b", "a # comment", "C#", "a#b", "'q'", '"q"', "'it''s'",
        '"a\\n"', '"a # b"', "'a: b'", "' padded '", "''", '""', "Don't panic, it's fine",
        "[a, b]", "[1, 2]", "[a, 'b']", "[yes, no]", "[a,b]", "[ a , b ]", "[]", "[a, [b]]",
        "[a: b]", "[a, ]", "{a: b}", "{}", "&x v", "*x", "!tag v", "!!str 1", "|", ">",
        "%x", "@x", "`x`", "2026-01-01", "2026-13-45", "2026-01-01 10:00:00", "é ü",
        "naïve café", "http://x/y", "a,b", "=", "<<", ".inf", ".NaN", "a\tb", "(x) / y",
        "a  b", "e.g. this", "- x", "? x", "x y: z", "caf\u00e9", "a\u00a0b", "a\u2028b",
    ]
)
_INDENTS = st.sampled_from(["", " ", "  ", "    "])
# Mostly what the fast reader takes, with the tricky values mixed in now and then.
_MOSTLY_SIMPLE = st.one_of(
    st.sampled_from(
        ["plain", "two words", "docker-logs", "k8s", "Debug docker the reliable way", "1.0.0",
         "[a, b]", "[docker-logs, k8s]", "[]", "'quoted'", "it's", "e.g. this (x)", "MIT"]
    ),
    st.sampled_from(["[yes, b]", "No", "null", "12", "a #b", "[a, 1]", "[a,b]", "'a: b'"]),
    _SCALARS,
)


@st.composite
def _frontmatter(draw, scalars=_SCALARS):
    _SCALARS = scalars  # noqa: N806 - the scalars this document draws from
    lines = [draw(st.sampled_from(["", "", " ", " # fence comment", "x"]))]
    for _ in range(draw(st.integers(0, 7))):
        key = draw(_KEYS)
        shape = draw(st.integers(0, 7))
        if shape <= 1:
            lines.append(f"{key}: {draw(_SCALARS)}{draw(st.sampled_from(['', ' ', '  # c']))}")
        elif shape == 2:
            lines.append(f"{key}:")
        elif shape == 3:  # a block list
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["", "  ", "    "]))
            for _ in range(draw(st.integers(1, 3))):
                lines.append(f"{indent}{draw(st.sampled_from(['- ', '-  ', '- ']))}{draw(_SCALARS)}")
        elif shape == 4:  # nested metadata.hermes, as the agent writes it
            lines.append("metadata:")
            lines.append("  hermes:")
            for _ in range(draw(st.integers(0, 3))):
                inner = draw(st.sampled_from(["tags", "related_skills", "category", "other"]))
                lines.append(f"    {inner}: {draw(_SCALARS)}")
        elif shape == 5:  # nested, with a block list inside
            lines.append("metadata:")
            lines.append(f"{draw(_INDENTS)}hermes:")
            lines.append(f"{draw(_INDENTS)}{draw(_KEYS)}:")
            lines.append(f"{draw(_INDENTS)}- {draw(_SCALARS)}")
        elif shape == 6:
            lines.append(draw(st.sampled_from(["# a comment", "", "   ", "  # indented comment"])))
        else:
            lines.append(f"{draw(_INDENTS)}{key}: {draw(_SCALARS)}")
    closing = draw(st.sampled_from(["---", "---  ", "--- x", "----"]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "", "\ufeff"]))
    body = draw(st.sampled_from(["# Title\n\nBody.\n", "", "---\nmore\n---\n"]))
    return bom + "---" + newline.join(lines) + newline + closing + newline + body


@settings(max_examples=600, deadline=None)
@given(_frontmatter(), st.sampled_from([("skill",), ("devops", "skill"), ()]))
def test_parse_head_fields_equal_the_full_parsers(text, rel_parts):
    dir_name = rel_parts[-1] if rel_parts else "dir"
    assert _fields(text, dir_name, rel_parts) == _reference_fields(text, dir_name, rel_parts)


@st.composite
def _agent_shaped(draw):
    """Frontmatter laid out as the agent writes it, values mostly simple."""
    keys = ["name", "description", "version", "author", "category", "tags", "related_skills"]
    lines = [""]
    for key in draw(st.lists(st.sampled_from(keys), max_size=6)):
        lines.append(f"{key}: {draw(_MOSTLY_SIMPLE)}")
    if draw(st.booleans()):
        lines.append(f"{draw(st.sampled_from(keys))}:")
        for _ in range(draw(st.integers(0, 3))):
            lines.append(f"{draw(st.sampled_from(['', '  ']))}- {draw(_MOSTLY_SIMPLE)}")
    if draw(st.booleans()):
        lines += ["metadata:", "  hermes:"]
        for key in draw(st.lists(st.sampled_from(["tags", "related_skills", "category", "x"]), max_size=4)):
            lines.append(f"    {key}: {draw(_MOSTLY_SIMPLE)}")
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["# comment", "", "license: MIT", "name: again"])))
    return "---" + "\n".join(lines) + "\n---\n# Body\n"


@settings(max_examples=600, deadline=None)
@given(_agent_shaped(), st.sampled_from([("skill",), ("devops", "skill")]))
def test_parse_head_fields_equal_the_full_parsers_on_agent_shaped_frontmatter(text, rel_parts):
    assert _fields(text, rel_parts[-1], rel_parts) == _reference_fields(text, rel_parts[-1], rel_parts)
    yaml_text = frontmatter_text(text)
    fast = frontmatter._read_simple_mapping(yaml_text)
    if fast is not None:
        assert fast == (yaml.safe_load(yaml_text) or {})  # "" is None to YAML, {} to us


@settings(max_examples=600, deadline=None)
@given(_frontmatter(_MOSTLY_SIMPLE), st.sampled_from([("skill",), ("devops", "skill"), ()]))
def test_parse_head_fields_equal_the_full_parsers_on_mostly_simple_frontmatter(text, rel_parts):
    dir_name = rel_parts[-1] if rel_parts else "dir"
    assert _fields(text, dir_name, rel_parts) == _reference_fields(text, dir_name, rel_parts)


@settings(max_examples=600, deadline=None)
@given(st.one_of(_frontmatter(), _frontmatter(_MOSTLY_SIMPLE)))
def test_whenever_the_fast_reader_answers_it_agrees_with_yaml(text):
    yaml_text, _body = split_frontmatter(text)
    if yaml_text is None:
        return
    fast = frontmatter._read_simple_mapping(yaml_text)
    if fast is not None:
        expected = yaml.safe_load(yaml_text.replace("\r\n", "\n"))
        assert fast == (expected if expected is not None else {})  # blank: nothing at all
    # a second reading (now from the cache of known lines) gives the same answer
    assert frontmatter._read_simple_mapping(yaml_text) == fast
    assert frontmatter.load_frontmatter_mapping(yaml_text) == _full_mapping(yaml_text)


def test_typical_agent_frontmatter_takes_the_fast_path():
    text = (
        "---\nname: audit-dns-1\ndescription: Audit dns the reliable way\nversion: 1.2.3\n"
        "author: Hermes\nlicense: MIT\nmetadata:\n  hermes:\n    tags: [dns, logs]\n"
        "    related_skills: [deploy-k8s-2, test-api-3]\n    category: ops\n---\n# Body\n"
    )
    yaml_text = frontmatter_text(text)
    assert frontmatter._read_simple_mapping(yaml_text) == yaml.safe_load(yaml_text)
    assert _fields(text, "audit-dns-1", ("audit-dns-1",)) == (
        "audit-dns-1", "ops", "Audit dns the reliable way", ("dns", "logs"),
        ("deploy-k8s-2", "test-api-3"), yaml_text,
    )


def test_a_block_list_item_with_extra_spaces_is_left_to_yaml():
    yaml_text = "\ntags:\n-  padded\n- plain\n"
    assert frontmatter._read_simple_mapping(yaml_text) is None
    assert frontmatter.load_frontmatter_mapping(yaml_text) == {"tags": ["padded", "plain"]}


def test_unicode_line_breaks_are_left_to_yaml():
    yaml_text = "\n# note\u2028name: hidden\ndescription: d\n"
    assert frontmatter._read_simple_mapping(yaml_text) is None
    assert frontmatter.load_frontmatter_mapping(yaml_text) == _full_mapping(yaml_text)


_PIECES = st.sampled_from(
    ["---", "\n", "\r\n", " ", "\t", "\x0c", "\x1c", "\x85", "\u2028", "\ufeff", "name: x", "---\n", "\n---",
     "\n----", "body", "-"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_frontmatter_text_is_the_yaml_half_of_split_frontmatter(text):
    assert frontmatter_text(text) == split_frontmatter(text)[0]


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(_frontmatter(), _frontmatter(_MOSTLY_SIMPLE), _agent_shaped()),
    st.sampled_from([("skill",), ("devops", "skill"), ()]),
)
def test_reading_the_fields_from_line_shapes_equals_the_full_reading(text, rel_parts):
    """Everything parse_head gives (the health check included) is the same whether the
    fields come from the shapes of known lines or from the whole mapping."""
    from hermes_memory.skills.index import _parse_head_fully

    dir_name = rel_parts[-1] if rel_parts else "dir"
    full = _parse_head_fully(text, frontmatter_text(text), dir_name, rel_parts)
    assert parse_head(text, dir_name, rel_parts) == full
    assert parse_head(text, dir_name, rel_parts) == full  # again, from the remembered plans


_LINE_VALUES = st.one_of(
    _SCALARS, _MOSTLY_SIMPLE, st.text(st.sampled_from("aZ09 _.,'()/-:#[]yesno"), min_size=0, max_size=12)
)


@settings(max_examples=800, deadline=None)
@given(
    _INDENTS, st.one_of(_KEYS, st.text(st.sampled_from("aZ9_.-: "), min_size=1, max_size=6)),
    st.sampled_from([": ", ":  ", ":", " : "]), _LINE_VALUES, st.sampled_from(["", " ", "  "]),
)
def test_the_one_match_reading_of_a_common_line_is_the_step_by_step_reading(indent, key, colon, value, end):
    """A line not read before goes through one regular expression when it can
    (``_common_line``); whatever it answers is what the general reading gives."""
    line = f"{indent}{key}{colon}{value}{end}"
    fast = frontmatter._common_line(line)
    if fast is None:
        return
    indent_width, parsed_key, parsed_value = frontmatter._line(line)
    kind = "=" if parsed_value is not None else ":"
    shape = f"{indent_width}{kind}{parsed_key}"
    assert fast[:4] == (indent_width, parsed_key, parsed_value, shape)
    # and the value as a text field and as a list, as the index reads them
    assert fast == frontmatter._entry(indent_width, parsed_key, parsed_value, shape)
    if parsed_key in ("name", "description", "category"):
        assert fast[4] == (parsed_value.strip() if isinstance(parsed_value, str) else "")
    if parsed_key in ("tags", "related_skills"):
        assert fast[5] == _string_list(list(parsed_value) if isinstance(parsed_value, tuple) else parsed_value)


def test_typical_new_lines_take_the_one_match_reading():
    for line in ("name: audit-dns-7838", "description: Backup notebooks the reliable way",
                 "    tags: [terraform, postgres, css]", "    related_skills: [review-tickets-1452]"):
        assert frontmatter._common_line(line) is not None, line
    for line in ("name: yes", "tags: [a, no]", "a: b #c", "a: b:", "- item", "key:"):
        assert frontmatter._common_line(line) is None, line
