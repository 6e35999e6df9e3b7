"""The learning graph's fast paths give exactly what the plain definitions give."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_memory.learning.edges import (
    SkillMatcher,
    _name_tokens,
    memory_skill_edges_naive,
    tokens,
)
from hermes_memory.learning.graph import skill_node, skill_node_and_json, skill_node_json
from hermes_memory.skills.index import Skill
from hermes_memory.skills.roots import SkillRoot


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab-_.\n é1Z", max_size=12), max_size=8))
def test_names_are_tokenised_as_one_by_one(names):
    lowered = [name.lower() for name in names]
    assert _name_tokens(lowered) == [tokens(name) for name in lowered]


def test_name_tokens_of_a_typical_home():
    lowered = ["audit-dns-12", "deploy_k8s.api", "x", "", "résumé-writer", "two\nlines"]
    assert _name_tokens(lowered) == [tokens(name) for name in lowered]
    assert _name_tokens(lowered[:3]) == [{"audit", "dns"}, {"deploy", "k8s", "api"}, set()]


_VERBS = ["audit", "deploy", "test", "plan", "sync"]
_NOUNS = ["dns", "k8s", "logs", "api", "db", "go"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.builds(lambda v, n, i: f"{v}-{n}-{i}" if i else f"{v}-{n}",
                  st.sampled_from(_VERBS), st.sampled_from(_NOUNS), st.integers(0, 30)),
        min_size=0, max_size=120, unique=True,
    ),
    st.lists(
        st.builds(" ".join, st.lists(st.sampled_from(
            [*_VERBS, *_NOUNS, "audit-dns", "deploy-k8s-3", "the", "and", "-", "\n", "AUDIT"]
        ), max_size=25)),
        min_size=1, max_size=4,
    ),
)
def test_matcher_with_many_tied_scores_equals_the_naive_algorithm(names, texts):
    matcher = SkillMatcher(names)
    assert [matcher.top(text) for text in texts] == memory_skill_edges_naive(texts, names)
    for limit in (1, 10):
        assert [matcher.top(text, limit) for text in texts] == [
            _naive_top(text, names, limit) for text in texts
        ]


def _naive_top(text: str, names: list[str], limit: int) -> list[str]:
    lowered, words = text.lower(), tokens(text.lower())
    scored = sorted(
        (-score, name)
        for name in names
        if (score := (6 if name.lower() in lowered else 0) + len(tokens(name.lower()) & words))
    )
    return [name for _score, name in scored[:limit]]


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 50), st.floats(-2.5, 1e10, allow_nan=False),
    st.sampled_from(
        ["", " ", "0", "3", "12.5", "abc", "2026-06-01T10:00:00+00:00", "2026-06-01T10:00:00Z",
         "2026-06-01", "1780308000", "agent", "learn", "user", "active", "stale", "archived"]
    ),
    st.just([]), st.just({}), st.just(["agent"]),
)
_FIELDS = [
    "created_by", "use_count", "view_count", "patch_count", "state", "pinned", "last_used_at",
    "last_viewed_at", "last_patched_at", "created_at", "last_activity_at",
]


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.sampled_from(_FIELDS), _VALUES),
    st.sampled_from(["profile", "base", "external"]),
    st.integers(0, 2_000_000_000_000_000_000),
)
def test_node_and_payload_together_equal_the_separate_functions(record, source, mtime_ns):
    skill = Skill(
        name="audit-dns", source=source, provenance="local",
        root=SkillRoot("profile", Path("/tmp/skills")), directory="/tmp/skills/audit-dns",
        rel_dir="audit-dns", category="ops", description="Audit dns", tags=("dns",),
        related=("deploy-k8s",), frontmatter_text="\nname: audit-dns\n", mtime_ns=mtime_ns,
        size=10,
    )
    try:
        expected_node = skill_node(skill, record)
    except TypeError:  # an unhashable created_by: both fail alike
        try:
            skill_node_and_json(skill, record)
        except TypeError:
            return
        raise AssertionError("skill_node_and_json accepted what skill_node rejects") from None
    node, payload = skill_node_and_json(skill, record)
    assert node == expected_node
    expected_payload = skill_node_json(expected_node)
    assert payload == expected_payload
    assert list(payload) == list(expected_payload)
    assert [type(value) for value in payload.values()] == [
        type(value) for value in expected_payload.values()
    ]
