"""A cold build gives byte for byte the nodes and edges that the plain, slow way gives:
every frontmatter through the full parser (YAML, else the naive split), and every folder
stat'ed and opened by its whole path. The home mixes the common shapes with the odd ones
the fast paths must hand on (quotes, block lists, anchors, numbers, CRLF, a BOM, a YAML
bomb, non-UTF-8 bytes, a FIFO, links out of the home)."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from frontmatter_shapes import COMMON_SHAPES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory.learning.graph import GraphBuilder
from hermes_memory.skills import index as index_module
from hermes_memory.skills.frontmatter import frontmatter_text

_SHAPES = COMMON_SHAPES + [
    "---\nname: {n}\nbase: &b [x, x, x]\nl1: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "l2: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\nl3: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n---\n",
    "no frontmatter at all\n",
    "---\n- a list, not a mapping\n---\n",
]


def _full_parse_head(text, dir_name, rel_parts):
    return index_module._parse_head_fully(text, frontmatter_text(text), dir_name, rel_parts)


def _nodes_and_edges(home) -> bytes:
    payload = GraphBuilder(home).build(include_all=True)
    return json.dumps([payload["nodes"], payload["edges"], payload["stats"], payload["warnings"]]).encode()


def _slow_way(home, monkeypatch) -> bytes:
    with monkeypatch.context() as patch:
        patch.setattr(index_module, "parse_head", _full_parse_head)
        patch.setattr(index_module, "_RELATIVE", False)
        return _nodes_and_edges(home)


def _varied_home(hb, tmp_path, shapes: list[int]) -> None:
    names = [f"skill-{i}" for i in range(len(shapes))]
    for i, shape in enumerate(shapes):
        related = names[(i + 1) % len(names)]
        rel = f"cat-{i % 3}/{names[i]}" if i % 4 else names[i]
        hb.skill(rel, text=_SHAPES[shape].format(n=names[i], r=related))
        if i % 5 == 0:
            (hb.home.skills_dir / rel / "references").mkdir()
    hb.usage({name: {"created_by": "agent", "use_count": i} for i, name in enumerate(names)})
    hb.memory("memory", [f"Run {names[0]} with docker on Fridays", "Logs go to k8s"])


def test_a_varied_and_hostile_home_builds_as_the_slow_way_does(hb, tmp_path, monkeypatch):
    _varied_home(hb, tmp_path, [i % len(_SHAPES) for i in range(3 * len(_SHAPES))])
    skills = hb.home.skills_dir
    hb.skill("odd/not-utf8", raw=b"---\nname: bad\xff\n---\n")
    os.mkfifo(skills / "odd" / "fifo-skill")  # a FIFO where a folder is expected
    (skills / "odd" / "pipe").mkdir()
    os.mkfifo(skills / "odd" / "pipe" / "SKILL.md")  # and one named SKILL.md
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "SKILL.md").write_text("---\nname: outsider\n---\n", encoding="utf-8")
    (skills / "odd" / "link-out").symlink_to(outside, target_is_directory=True)
    (skills / "odd" / "nested").mkdir()
    (skills / "odd" / "nested" / "SKILL.md").symlink_to(outside / "SKILL.md")
    fast = _nodes_and_edges(hb.home)
    assert fast == _slow_way(hb.home, monkeypatch)
    payload = json.loads(fast)
    names = {node["id"] for node in payload[0]}
    assert "outsider" not in names and "bad" not in names
    assert any("not UTF-8" in warning for warning in payload[3])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, len(_SHAPES) - 1), min_size=1, max_size=12))
def test_any_mix_of_shapes_builds_as_the_slow_way_does(hb, tmp_path_factory, monkeypatch, shapes):
    for child in list(hb.home.skills_dir.iterdir()):
        if child.is_dir():
            shutil.rmtree(child)
    _varied_home(hb, tmp_path_factory.mktemp("x"), shapes)
    assert _nodes_and_edges(hb.home) == _slow_way(hb.home, monkeypatch)
