"""Search and filters on the demo home's payload (no Qt): exact counts."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from graph_helpers import DEMO_MEMORY_CARDS, DEMO_NODES

from hermes_memory.learning import build_learning_graph
from hermes_studio.graph.filters import FilterState, growth_histogram, search_mask, visible_mask
from hermes_studio.graph.model import graph_from_payload


@pytest.fixture
def data(demo_home):
    return graph_from_payload(build_learning_graph(demo_home))


@pytest.fixture
def all_data(demo_home):
    return graph_from_payload(build_learning_graph(demo_home, include_all=True))


def shown(data, **state) -> int:
    return int(visible_mask(data, FilterState(**state)).sum())


def test_default_shows_every_node_of_the_payload(data):
    assert data.size == DEMO_NODES
    assert shown(data) == DEMO_NODES


@pytest.mark.parametrize(
    ("query", "count"),
    [("postgres", 10), ("docker", 4), ("docker postgres", 3), ("DOCKER  Postgres", 3),
     ("lisbon", 2), ("kubectl", 2), ("zzz", 0), ("", DEMO_NODES)],
)
def test_search_requires_every_term(data, query, count):
    assert shown(data, query=query) == count


def test_search_reads_the_full_memory_text(data):
    # "ledger_entries" appears only in the body of the July incident memory, not its title
    mask = search_mask(data, "ledger_entries idle-in-transaction")
    hits = [data.ids[i] for i in np.flatnonzero(mask)]
    assert len(hits) == 1 and hits[0].startswith("memory:memory:")


def test_kind_pinned_category_and_date_filters(data):
    assert shown(data, kind="skill") == 48
    assert shown(data, kind="memory") == DEMO_MEMORY_CARDS
    assert shown(data, pinned_only=True) == 2
    assert shown(data, categories=frozenset({"security"})) == 3
    assert shown(data, categories=frozenset({"security", "memory"})) == 3 + DEMO_MEMORY_CARDS
    july = datetime(2026, 7, 1, tzinfo=UTC).timestamp()
    august_end = datetime(2026, 8, 31, 23, 59, 59, tzinfo=UTC).timestamp()
    # 11 skills learned in July and August, and 4 memories the agent wrote then
    assert shown(data, date_from=july, date_to=august_end) == 15
    assert shown(data, date_from=july) + shown(data, date_to=july - 1) == DEMO_NODES
    assert shown(data, kind="skill", pinned_only=True, query="alembic") == 1


def test_source_filter_on_the_whole_home(all_data):
    assert all_data.size == DEMO_NODES + 4
    assert shown(all_data, source="learned") == DEMO_NODES
    assert shown(all_data, source="base") == 4
    assert shown(all_data, source="all") == DEMO_NODES + 4


def test_playhead_reveals_growth(data):
    start, end = data.time_range()
    assert shown(data, reveal_until=start) == 1  # docker-compose-dev-db on 20 April
    assert shown(data, reveal_until=end) == DEMO_NODES
    skills, memories, span = growth_histogram(data)
    assert span == (start, end)
    assert int(skills.sum()) == 48 and int(memories.sum()) == DEMO_MEMORY_CARDS
