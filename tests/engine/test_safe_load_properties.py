"""Properties of :func:`hermes_memory.safe_load.check_structure`: it refuses exactly the
data a naive walk would find too deep or too big, shared nodes (YAML aliases) included."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_memory.safe_load import Limits, UnsafeDocument, check_structure, load_yaml

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
trees = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=3), children, max_size=4),
    ),
    max_leaves=40,
)


def naive(data, depth=1):
    """(expanded node count, depth) by walking everything, aliases expanded."""
    if isinstance(data, dict):
        members = [item for pair in data.items() for item in pair]
    elif isinstance(data, list):
        members = data
    else:
        return 1, 0
    nodes, deepest = 1, depth
    for member in members:
        count, below = naive(member, depth + 1)
        nodes += count
        deepest = max(deepest, below)
    return nodes, deepest


def verdict(data, limits):
    try:
        check_structure(data, limits)
    except UnsafeDocument:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(trees, st.integers(1, 6), st.integers(1, 60))
def test_the_check_agrees_with_a_naive_walk_on_trees(data, max_depth, max_nodes):
    limits = Limits(max_bytes=1, max_depth=max_depth, max_nodes=max_nodes)
    nodes, depth = naive(data)
    assert verdict(data, limits) == (nodes <= max_nodes and depth <= max_depth)


@settings(max_examples=200, deadline=None)
@given(trees, st.integers(1, 5), st.integers(1, 6), st.integers(1, 400))
def test_the_check_agrees_with_a_naive_walk_when_nodes_are_shared(leaf, width, levels, max_nodes):
    shared = [leaf]
    for _ in range(levels):  # each level repeats the one below `width` times
        shared = [shared] * width
    limits = Limits(max_bytes=1, max_depth=64, max_nodes=max_nodes)
    nodes, depth = naive(shared)
    assert verdict(shared, limits) == (nodes <= max_nodes and depth <= 64)


@pytest.mark.timeout(10)
def test_a_billion_laughs_is_refused_without_expanding_it():
    lines = ['l0: &l0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 60)]
    with pytest.raises(UnsafeDocument, match="billion laughs"):
        load_yaml("\n".join(lines) + "\n")
