"""The learning-graph payload (spec §2.9), field by field, on a realistic home."""

from __future__ import annotations

import json
import os

from hermes_test_home_builder import MEMORY_MTIME, SKILL_MTIME, USER_MTIME

from hermes_memory.learning.graph import build_learning_graph
from hermes_memory.learning.memory_cards import card_title

UPSTREAM_SKILL_KEYS = [
    "id", "label", "kind", "timestamp", "category", "useCount", "state", "createdBy", "pinned",
]
EXTRA_SKILL_KEYS = [
    "source", "provenance", "learned", "directory", "description", "tags", "related",
    "viewCount", "patchCount", "lastUsedAt", "lastViewedAt", "lastPatchedAt", "createdAt",
    "healthCount", "healthCodes",
]
UPSTREAM_MEMORY_KEYS = [
    "id", "label", "kind", "memorySource", "timestamp", "category", "useCount", "state",
    "createdBy", "pinned",
]
JUNE_1_10AM = 1780308000  # 2026-06-01T10:00:00Z


def skill(payload, name):
    return next(node for node in payload["nodes"] if node["id"] == name)


def test_top_level_keys(learning_home):
    payload = build_learning_graph(learning_home.home)
    assert list(payload) == ["nodes", "edges", "clusters", "memory", "stats", "warnings"]
    json.dumps(payload)  # plain JSON all the way down


def test_learned_filter_and_node_order(learning_home):
    payload = build_learning_graph(learning_home.home)
    # skills first (scan order: profile paths sorted), then memory cards in card order;
    # base, external, the seeded bundled "plan" and the unused arxiv-digest are left out
    assert [node["id"] for node in payload["nodes"]] == [
        "docker-logs", "k8s-basics", "flat-notes", "new-name", "yaml-broken", "hub-skill",
        "bom-crlf",
        "memory:memory:0:1e1e0ecb0923", "memory:memory:1:b569259b1a10",
        "memory:memory:2:b6c8bd052975", "memory:profile:3:bae7278d43be",
        "memory:profile:4:6fae46c15b97",
    ]


def test_skill_node_fields(learning_home):
    skills_dir = learning_home.home.skills_dir
    node = skill(build_learning_graph(learning_home.home), "docker-logs")
    assert list(node) == UPSTREAM_SKILL_KEYS + EXTRA_SKILL_KEYS
    assert node == {
        "id": "docker-logs",
        "label": "docker-logs",
        "kind": "skill",
        "timestamp": JUNE_1_10AM,  # last_used_at: the first present field, not the latest
        "category": "devops",
        "useCount": 3,
        "state": "active",
        "createdBy": "agent",
        "pinned": True,
        "source": "profile",
        "provenance": "local",
        "learned": True,
        "directory": str(skills_dir / "devops" / "docker-logs"),
        "description": "Read and filter container logs",
        "tags": ["docker", "logs"],
        "related": ["k8s-basics", "base-tool", "missing-skill", "docker-logs"],
        "viewCount": 7,
        "patchCount": 2,
        "lastUsedAt": JUNE_1_10AM,
        "lastViewedAt": JUNE_1_10AM + 86400,
        "lastPatchedAt": None,
        "createdAt": JUNE_1_10AM - 31 * 86400 - 36000,
        "healthCount": 1,
        "healthCodes": ["related-unknown"],  # missing-skill
    }


def test_fields_of_the_other_learned_skills(learning_home):
    payload = build_learning_graph(learning_home.home)
    summary = {
        node["id"]: (
            node["timestamp"], node["category"], node["useCount"], node["state"],
            node["createdBy"], node["pinned"], node["provenance"],
        )
        for node in payload["nodes"]
        if node["kind"] == "skill"
    }
    assert summary == {
        "docker-logs": (JUNE_1_10AM, "devops", 3, "active", "agent", True, "local"),
        "k8s-basics": (SKILL_MTIME, "cloud", 1, "stale", None, False, "local"),
        "flat-notes": (1777000000, "general", 0, "active", "learn", False, "local"),
        "new-name": (SKILL_MTIME, "misc", 0, "active", "agent", False, "local"),
        "yaml-broken": (SKILL_MTIME, "ops", 0, "active", "agent", False, "local"),
        "hub-skill": (SKILL_MTIME, "tools", 2, "active", None, False, "hub"),
        "bom-crlf": (SKILL_MTIME, "win", 0, "active", "agent", False, "local"),  # 0 = missing
    }
    assert skill(payload, "yaml-broken")["description"] == "Use when: it breaks"
    assert skill(payload, "bom-crlf")["description"] == "Saved on Windows"


def test_flat_layout_profile_skill_gets_category_general_not_skills(learning_home):
    """Upstream took the third-from-last path part, "skills", for a flat skill."""
    assert skill(build_learning_graph(learning_home.home), "flat-notes")["category"] == "general"


def test_memory_nodes_and_cards(learning_home):
    payload = build_learning_graph(learning_home.home)
    memory_nodes = [node for node in payload["nodes"] if node["kind"] == "memory"]
    assert [list(node) for node in memory_nodes] == [UPSTREAM_MEMORY_KEYS + ["fingerprint", "file"]] * 5
    assert memory_nodes[0] == {
        "id": "memory:memory:0:1e1e0ecb0923",
        "label": "Docker logs",
        "kind": "memory",
        "memorySource": "memory",
        "timestamp": MEMORY_MTIME,
        "category": "memory",
        "useCount": 1,  # its memory->skill edges
        "state": "active",
        "createdBy": "memory",
        "pinned": False,
        "fingerprint": "1e1e0ecb0923",
        "file": "MEMORY.md",
    }
    assert [(n["timestamp"], n["useCount"], n["memorySource"]) for n in memory_nodes] == [
        (MEMORY_MTIME, 1, "memory"),
        (MEMORY_MTIME + 1, 1, "memory"),
        (MEMORY_MTIME + 2, 0, "memory"),
        (USER_MTIME, 1, "profile"),
        (USER_MTIME + 1, 1, "profile"),
    ]
    assert payload["memory"][0] == {
        "source": "memory",
        "timestamp": MEMORY_MTIME,
        "title": "Docker logs",
        "body": "# Docker logs\nUse docker-logs with --since to keep output short.",
        "fingerprint": "1e1e0ecb0923",
        "id": "memory:memory:0:1e1e0ecb0923",
    }
    assert [card["source"] for card in payload["memory"]] == ["memory"] * 3 + ["profile"] * 2


def test_both_edge_kinds(learning_home):
    edges = build_learning_graph(learning_home.home)["edges"]
    assert edges == [
        # related_skills among learned skills only, undirected (min, max), deduplicated
        {"source": "docker-logs", "target": "k8s-basics"},
        {"source": "docker-logs", "target": "yaml-broken"},
        {"source": "k8s-basics", "target": "yaml-broken"},
        # memory -> skill: +6 for the whole name in the text, +1 per shared token
        {"source": "memory:memory:0:1e1e0ecb0923", "target": "docker-logs"},
        {"source": "memory:memory:1:b569259b1a10", "target": "k8s-basics"},
        {"source": "memory:profile:3:bae7278d43be", "target": "flat-notes"},
        {"source": "memory:profile:4:6fae46c15b97", "target": "new-name"},
    ]


def test_clusters_and_stats(learning_home):
    payload = build_learning_graph(learning_home.home)
    assert payload["clusters"] == [
        {"category": "memory", "count": 5},
        *({"category": c, "count": 1} for c in ("devops", "cloud", "general", "misc", "ops", "tools", "win")),
    ]
    assert payload["stats"] == {
        "nodes": 7,
        "related_edges": 3,
        "edges_per_node": 0.429,
        "linked_nodes": 3,
        "isolated_pct": 57.1,
        "categories": 7,
        "agent_created": 4,
        "used": 3,
        "top_categories": [[c, 1] for c in ("devops", "cloud", "general", "misc", "ops", "tools", "win")],
        "memory_nodes": 5,
        "memory_skill_edges": 4,
        "learned_skills": 7,
    }


def test_non_utf8_skill_is_skipped_and_reported_instead_of_failing_the_graph(learning_home):
    """Upstream let one bad byte raise UnicodeDecodeError and fail the whole graph."""
    payload = build_learning_graph(learning_home.home)
    path = learning_home.home.skills_dir / "bad" / "latin" / "SKILL.md"
    assert payload["warnings"] == [
        f"{path} is not UTF-8 text (bad byte at offset 32); skipped. Re-save it as UTF-8."
    ]
    assert "latin" not in {node["id"] for node in payload["nodes"]}
    assert payload["stats"]["learned_skills"] == 7


def test_unreadable_memory_file_skips_its_cards_with_a_warning(learning_home):
    learning_home.home.memory_file.write_bytes(b"caf\xe9 notes\n\xc2\xa7\nmore")
    payload = build_learning_graph(learning_home.home)
    assert [node["id"] for node in payload["nodes"] if node["kind"] == "memory"] == [
        "memory:profile:0:bae7278d43be", "memory:profile:1:6fae46c15b97",
    ]
    assert payload["warnings"][-1] == (
        "MEMORY.md is not valid UTF-8 (bad byte at offset 3). It was not loaded and will "
        "not be written; re-save it as UTF-8. Its memory cards are not shown."
    )
    assert payload["stats"]["learned_skills"] == 7


def test_include_all_shows_every_skill_with_its_source(learning_home):
    payload = build_learning_graph(learning_home.home, include_all=True)
    skills = {node["id"]: (node["source"], node["learned"]) for node in payload["nodes"] if node["kind"] == "skill"}
    assert skills == {
        "base-tool": ("base", False),
        "docker-logs": ("profile", True),
        "k8s-basics": ("profile", True),
        "flat-notes": ("profile", True),
        "new-name": ("profile", True),
        "yaml-broken": ("profile", True),
        "plan": ("base", False),
        "arxiv-digest": ("profile", False),
        "hub-skill": ("profile", True),
        "bom-crlf": ("profile", True),
        "ext-skill": ("external", False),
    }
    related = [edge for edge in payload["edges"] if not edge["source"].startswith("memory:")]
    assert {"source": "base-tool", "target": "docker-logs"} in related
    assert payload["stats"]["nodes"] == 11
    assert payload["stats"]["learned_skills"] == 7


def test_memory_timestamps_from_history_replace_file_times(learning_home):
    stamps = {"1e1e0ecb0923": "2026-01-01T00:00:00Z", "bae7278d43be": 1700000000}
    payload = build_learning_graph(learning_home.home, memory_timestamps=stamps)
    times = [card["timestamp"] for card in payload["memory"]]
    assert times == [1767225600, MEMORY_MTIME + 1, MEMORY_MTIME + 2, 1700000000, USER_MTIME + 1]


def test_empty_home(hb):
    payload = build_learning_graph(hb.home)
    assert payload == {
        "nodes": [],
        "edges": [],
        "clusters": [],
        "memory": [],
        "stats": {
            "nodes": 0, "related_edges": 0, "edges_per_node": 0.0, "linked_nodes": 0,
            "isolated_pct": 100.0, "categories": 0, "agent_created": 0, "used": 0,
            "top_categories": [], "memory_nodes": 0, "memory_skill_edges": 0,
            "learned_skills": 0,
        },
        "warnings": [],
    }


def test_a_corrupt_usage_file_is_reported_and_skills_show_without_usage(learning_home):
    learning_home.home.skills_usage_file.write_text("{oops")
    payload = build_learning_graph(learning_home.home)
    assert payload["warnings"][-1].startswith(f"{learning_home.home.skills_usage_file} is not valid JSON")
    assert payload["warnings"][-1].endswith("Skill usage is shown as empty.")
    assert [n["id"] for n in payload["nodes"] if n["kind"] == "skill"] == []  # nothing is learned


def test_card_titles():
    assert card_title("## Heading  \nbody") == "Heading"
    assert card_title("x" * 81) == "x" * 80 + "…"
    assert card_title("x" * 80) == "x" * 80
    assert card_title("  #  spaced") == "spaced"


def test_payload_is_stable_across_builds(learning_home):
    first = build_learning_graph(learning_home.home)
    os.utime(learning_home.home.skills_dir, None)
    assert build_learning_graph(learning_home.home) == first


def test_skill_node_related_is_a_list_as_upstream(learning_home):
    """Issue 11 §4: upstream's ``SkillNode.related`` is ``list[str]``."""
    import time

    from hermes_memory.learning.graph import skill_node, skill_payload
    from hermes_memory.skills import SkillIndex
    from hermes_memory.skills.health import NodeHealth

    scan = SkillIndex(learning_home.home).scan()
    skill = scan.get("docker-logs")
    node = skill_node(skill, {})
    assert type(node.related) is list
    assert node.related == ["k8s-basics", "base-tool", "missing-skill", "docker-logs"]
    payload = skill_payload(skill, {}, NodeHealth(scan, time.time()))
    assert type(payload["related"]) is list and payload["related"] == node.related
