"""The learning graph's fast paths give exactly what the plain definitions give."""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_memory.learning.edges import (
    SkillMatcher,
    _name_tokens,
    memory_skill_edges_naive,
    tokens,
)
from hermes_memory.learning.graph import skill_node, skill_node_json, skill_payload
from hermes_memory.skills.health import NodeHealth, skill_findings
from hermes_memory.skills.index import Skill, SkillScan
from hermes_memory.skills.roots import HubLock, SkillRoot
from hermes_memory.skills.usage import UsageSnapshot


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
    st.sampled_from(["audit-dns", "other-name"]),
    st.sampled_from(["Audit dns", ""]),
    st.sampled_from([10, 60_000, 200_000]),
    st.sampled_from([(), ("deploy-k8s",), ("ghost",)]),
)
def test_one_pass_payload_equals_the_plain_node_and_the_health_check(
    record, source, mtime_ns, name, description, size, related
):
    skill = Skill(
        name=name, source=source, provenance="local",
        root=SkillRoot("profile", Path("/tmp/skills")), directory="/tmp/skills/audit-dns",
        rel_dir="audit-dns", category="ops", description=description, tags=("dns",),
        related=related, frontmatter_text="\nname: audit-dns\n", mtime_ns=mtime_ns,
        size=size,
    )  # fmt: skip
    others = [
        Skill(f"deploy-k8s{i}" if i else "deploy-k8s", "profile", "local", skill.root, f"/tmp/skills/d{i}",
              f"d{i}", "ops", "d", (), (), None, 0, 100)
        for i in range(5)
    ]  # fmt: skip
    scan = SkillScan([skill, *others], [], [], [], {}, frozenset(), HubLock(frozenset(), frozenset()))
    usage = UsageSnapshot(records={name: record}, exists=True)
    now = time.time()
    try:
        expected_node = skill_node(skill, record)
    except TypeError:  # an unhashable created_by: both fail alike
        try:
            skill_payload(skill, record, NodeHealth(scan, now))
        except TypeError:
            return
        raise AssertionError("skill_payload accepted what skill_node rejects") from None
    payload = skill_payload(skill, record, NodeHealth(scan, now))
    expected = skill_node_json(expected_node)
    findings = skill_findings(scan, usage, now=now, only=[skill]).get(name, [])
    expected["healthCount"] = len(findings)
    expected["healthCodes"] = [finding.code for finding in findings]
    assert payload == expected
    assert list(payload) == list(expected)
    assert [type(value) for value in payload.values()] == [type(value) for value in expected.values()]


_NAME_PIECES = ["audit", "dns", "api", "k8s", "db", "x", "AUDIT", "Api", "-", "_", ".", "2", "123", "é", "ß", "日本"]


@settings(max_examples=200, deadline=None)
@given(
    # (skills without a name are never shown, so no name is empty)
    st.lists(st.lists(st.sampled_from(_NAME_PIECES), min_size=1, max_size=6).map("".join), max_size=40, unique=True),
    st.lists(st.lists(st.sampled_from([*_NAME_PIECES, " ", "\n", "the"]), max_size=30).map("".join),
             min_size=1, max_size=3),
)
@example(["api-api", "api-dns"], ["api dns"])  # a token twice in a name still counts once
def test_matcher_on_names_with_repeated_short_and_non_ascii_tokens_equals_the_naive_algorithm(names, texts):
    """Names such as "api-api-2", "x", "Api", "" or "résumé-db" index their tokens like any."""
    matcher = SkillMatcher(names)
    assert [matcher.top(text) for text in texts] == memory_skill_edges_naive(texts, names)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from([*_NAME_PIECES, "\x00", "\n", "docker"]), min_size=1, max_size=5).map("".join),
             max_size=30, unique=True),
    st.lists(st.lists(st.sampled_from([*_NAME_PIECES, " ", "\n", "docker", "\x00"]), max_size=30).map("".join),
             min_size=1, max_size=4),
    st.integers(0, 4),
)
@example(["Docker", "docker", "docker-api"], ["docker api", "DOCKER"], 1)  # names the same lower-cased
def test_matcher_indexing_what_some_texts_need_first_equals_the_naive_algorithm(names, texts, prepared):
    """The tokens of names are indexed as texts need them: after :meth:`prepare` on some
    texts, the others still score every name (NULs and line breaks in names included)."""
    matcher = SkillMatcher(names)
    matcher.prepare(texts[:prepared])
    assert [matcher.top(text) for text in texts] == memory_skill_edges_naive(texts, names)
    for limit in (0, 1, 10):
        assert [matcher.top(text, limit) for text in texts] == [_naive_top(text, names, limit) for text in texts]
