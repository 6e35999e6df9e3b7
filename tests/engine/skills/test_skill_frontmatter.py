"""SKILL.md frontmatter parsing (spec §5.2) and the fast reader's agreement with PyYAML."""

from __future__ import annotations

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_memory.skills import frontmatter
from hermes_memory.skills.frontmatter import (
    naive_key_values,
    parse_frontmatter,
    split_frontmatter,
)

TYPICAL = """---
name: docker-compose-debugging
description: Find why a compose service will not start
version: 1.2.0
author: Hermes
license: MIT
platforms: [linux, macos]
metadata:
  hermes:
    tags: [docker, "compose", 'containers']
    related_skills: [docker-logs, k8s-basics]
    category: devops
---
# Docker compose debugging

Body text.
"""


def test_typical_frontmatter_is_read_by_the_fast_reader_exactly_as_yaml_reads_it():
    yaml_text, body = split_frontmatter(TYPICAL)
    fast = frontmatter._read_simple_mapping(yaml_text)
    assert fast is not None
    assert fast == yaml.safe_load(yaml_text)
    assert fast == {
        "name": "docker-compose-debugging",
        "description": "Find why a compose service will not start",
        "version": "1.2.0",
        "author": "Hermes",
        "license": "MIT",
        "platforms": ["linux", "macos"],
        "metadata": {
            "hermes": {
                "tags": ["docker", "compose", "containers"],
                "related_skills": ["docker-logs", "k8s-basics"],
                "category": "devops",
            }
        },
    }
    assert body == "# Docker compose debugging\n\nBody text.\n"


def test_one_leading_bom_is_stripped_but_not_two():
    fm, _ = parse_frontmatter("\ufeff---\nname: a\ndescription: b\n---\nbody\n")
    assert fm == {"name": "a", "description": "b"}
    fm, body = parse_frontmatter("\ufeff\ufeff---\nname: a\n---\nbody\n")
    assert fm == {}
    assert body == "\ufeff---\nname: a\n---\nbody\n"


def test_crlf_frontmatter_parses():
    text = "---\r\nname: win-skill\r\ndescription: Saved by Notepad\r\n---\r\n# Body\r\n"
    fm, body = parse_frontmatter(text)
    assert fm == {"name": "win-skill", "description": "Saved by Notepad"}
    assert body == "# Body\r\n"


@pytest.mark.parametrize(
    "text",
    ["no frontmatter\n", "---\nname: unclosed\ndescription: x\n", "--- \nname: x", ""],
)
def test_missing_or_unclosed_frontmatter_gives_an_empty_mapping(text):
    assert parse_frontmatter(text) == ({}, text)


def test_malformed_yaml_falls_back_to_naive_string_values():
    text = "---\nname: broken\ndescription: Use when: things break\nrelated_skills: [a, b\n---\nbody\n"
    fm, body = parse_frontmatter(text)
    assert fm == {
        "name": "broken",
        "description": "Use when: things break",
        "related_skills": "[a, b",
    }
    assert body == "body\n"


def test_yaml_that_is_not_a_mapping_gives_an_empty_mapping():
    assert parse_frontmatter("---\n- a\n- b\n---\nbody\n")[0] == {}
    assert parse_frontmatter("---\njust a string\n---\nbody\n")[0] == {}


def test_the_closing_fence_may_carry_trailing_whitespace_and_blank_lines():
    fm, body = parse_frontmatter("---\nname: x\n---   \n\nbody\n")
    assert fm == {"name": "x"}
    assert body == "body\n"


def test_naive_fallback_splits_on_the_first_colon_only():
    assert naive_key_values("\na: b: c\nno colon here\n d :e \n") == {"a": "b: c", "d": "e"}


@pytest.mark.parametrize(
    "yaml_text, expected",
    [
        ("\nversion: 1.0\n", {"version": 1.0}),
        ("\nenabled: yes\n", {"enabled": True}),
        ("\ncreated: 2026-01-02\n", {"created": datetime.date(2026, 1, 2)}),
        ("\ndesc: |\n  line one\n  line two\n", {"desc": "line one\nline two\n"}),
        ("\nname: x # a comment\n", {"name": "x"}),
        ("\na: &anchor v\nb: *anchor\n", {"a": "v", "b": "v"}),
        ("\ntags:\n- a\n- b\n", {"tags": ["a", "b"]}),
        ("\ndescription: first\n  continued\n", {"description": "first continued"}),
        ("\nempty:\nnext: 1\n", {"empty": None, "next": 1}),
        ("\non: x\n", {True: "x"}),
        ('\nd: "escaped \\" quote"\n', {"d": 'escaped " quote'}),
    ],
)
def test_anything_beyond_the_simple_subset_goes_to_yaml(yaml_text, expected):
    assert frontmatter._read_simple_mapping(yaml_text) is None
    assert frontmatter.load_frontmatter_mapping(yaml_text) == expected


@pytest.mark.parametrize(
    "yaml_text, expected",
    [
        ("\nempty:\n", {"empty": None}),
        ("\nlist:\n  - one\n  - two words\n", {"list": ["one", "two words"]}),
        ("\nurl: https://example.com/a\n", {"url": "https://example.com/a"}),
        ("\nd: Don't panic, it's fine\n", {"d": "Don't panic, it's fine"}),
        ("\nd: 'a #b'\n", {"d": "a #b"}),
        ("\nnested:\n  a:\n    b: c\n  d: e\nf: g\n", {"nested": {"a": {"b": "c"}, "d": "e"}, "f": "g"}),
        ("\n# comment line\nname: x\n\n", {"name": "x"}),
        ("\nlist: []\n", {"list": []}),
        ("\nname: x\nname: y\n", {"name": "y"}),
    ],
)
def test_the_simple_subset_matches_yaml(yaml_text, expected):
    assert frontmatter._read_simple_mapping(yaml_text) == expected
    assert yaml.safe_load(yaml_text) == expected


# Generated documents drawn from pieces that are easy to get subtly wrong.
_KEYS = st.sampled_from(["name", "description", "on", "yes", "tags", "a.b", "x-y", "null", "_k"])
_SCALARS = st.sampled_from(
    [
        "plain", "two words", "1.0", "1.0.0", "12", "0x1F", "true", "No", "~", "null", "-x", "x:",
        "a: b", "a #b", "C#", "'q'", '"q"', "'it''s'", '"a\\n"', "[a, b]", "[1, 2]", "[a, 'b']",
        "[]", "{a: b}", "&x v", "*x", "!tag v", "|", ">", "%x", "@x", "`x`", "2026-01-01",
        "é ü", "http://x/y", "a,b", "=", "<<", ".inf", "+1", "a\tb", "' '",
    ]
)


@st.composite
def _documents(draw):
    lines = [""]
    for _ in range(draw(st.integers(1, 6))):
        key = draw(_KEYS)
        shape = draw(st.integers(0, 3))
        if shape == 0:
            lines.append(f"{key}: {draw(_SCALARS)}")
        elif shape == 1:
            lines.append(f"{key}:")
        elif shape == 2:
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(1, 3))):
                lines.append(f"  - {draw(_SCALARS)}")
        else:
            lines.append(f"{key}:")
            lines.append(f"  {draw(_KEYS)}: {draw(_SCALARS)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_documents())
def test_whenever_the_fast_reader_answers_it_agrees_with_yaml(yaml_text):
    fast = frontmatter._read_simple_mapping(yaml_text)
    if fast is None:
        return
    assert fast == yaml.safe_load(yaml_text)
