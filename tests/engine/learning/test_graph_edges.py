"""Edges, density statistics and memory node ids."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_memory.learning.edges import (
    SkillMatcher,
    density_stats,
    memory_skill_edges_naive,
    skill_edges,
)
from hermes_memory.learning.memory_cards import parse_memory_id


@dataclass
class Node:
    name: str
    category: str = "general"
    created_by: object = None
    use_count: int = 0
    related: tuple = field(default_factory=tuple)


def test_skill_edges_are_undirected_deduplicated_and_inside_the_set():
    nodes = [
        Node("b", related=("a", "b", "zz")),
        Node("a", related=("b", "c")),
        Node("c", related=("a",)),
    ]
    assert skill_edges(nodes) == [("a", "b"), ("a", "c")]


def test_density_stats():
    nodes = [
        Node("a", "dev", "agent", 2, ("b",)),
        Node("b", "dev", None, 0),
        Node("c", "ops", "learn", 1),
        Node("d", "web", "agent", 0),
    ]
    assert density_stats(nodes, skill_edges(nodes)) == {
        "nodes": 4,
        "related_edges": 1,
        "edges_per_node": 0.25,
        "linked_nodes": 2,
        "isolated_pct": 50.0,
        "categories": 3,
        "agent_created": 2,
        "used": 2,
        "top_categories": [["dev", 2], ["ops", 1], ["web", 1]],
    }


def test_top_categories_stop_at_eight():
    nodes = [Node(str(i), f"c{i % 10}") for i in range(30)]
    assert [name for name, _ in density_stats(nodes, [])["top_categories"]] == [
        f"c{i}" for i in range(8)
    ]


def test_matcher_scores_like_upstream():
    names = ["docker-logs", "docker", "logs-archive", "k8s", "go", "a"]
    text = "Docker Logs\nuse docker-logs and the logs, not k8s; go fast"
    assert SkillMatcher(names).top(text) == ["docker-logs", "docker", "k8s", "a"]
    assert SkillMatcher(names).top(text) == memory_skill_edges_naive([text], names)[0]


_WORDS = st.sampled_from(
    ["docker", "logs", "k8s", "go", "a", "db", "postgres", "backup", "x1", "Docker", "LOGS", "deploy"]
)
_NAMES = st.lists(
    st.builds(lambda parts, sep: sep.join(parts), st.lists(_WORDS, min_size=1, max_size=3), st.sampled_from(["-", "_", ".", ""])),
    min_size=0, max_size=25, unique=True,
)
_TEXTS = st.lists(
    st.builds(" ".join, st.lists(st.one_of(_WORDS, st.sampled_from(["docker-logs", "-", "\n", "go-db", "é"])), max_size=30)),
    min_size=1, max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(_NAMES, _TEXTS)
def test_matcher_equals_the_naive_algorithm(names, texts):
    matcher = SkillMatcher(names)
    assert [matcher.top(text) for text in texts] == memory_skill_edges_naive(texts, names)


@pytest.mark.parametrize(
    "node_id, parsed",
    [
        ("memory:memory:0:abcdef012345", ("memory", 0, "abcdef012345")),
        ("memory:profile:12:000000000000", ("profile", 12, "000000000000")),
        ("memory:memory:3", ("memory", 3, None)),
    ],
)
def test_memory_ids(node_id, parsed):
    result = parse_memory_id(node_id)
    assert (result.source, result.index, result.fingerprint) == parsed


@pytest.mark.parametrize(
    "node_id",
    [
        "memory:memory", "memory:user:0:abcdef012345", "memory:memory:-1", "memory:memory:x",
        "memory:memory:0:ABCDEF012345", "memory:memory:0:abc", "memory:memory:0:abcdef012345:x",
        "skill:memory:0", "memory:memory:²", "",
    ],
)
def test_bad_memory_ids(node_id):
    with pytest.raises(ValueError, match="bad memory node id"):
        parse_memory_id(node_id)
