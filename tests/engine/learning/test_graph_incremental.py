"""Rebuilds with a kept GraphBuilder: they re-read only what changed and always equal a
fresh build, whether every file is checked or a watcher names the changed paths."""

from __future__ import annotations

import json
import os

import pytest
from hermes_test_home_builder import SETTLED_NS, skill_text

from hermes_memory.learning.edges import density_stats, skill_edges
from hermes_memory.learning.graph import GraphBuilder, build_learning_graph, skill_node
from hermes_memory.skills.usage import read_usage


def _later(step: int, *paths) -> None:
    """Give the paths an mtime after every earlier one (as a real clock would)."""
    stamp = SETTLED_NS + step * 10_000_000_000
    for path in paths:
        if os.path.exists(path):
            os.utime(path, ns=(stamp, stamp))


def _edit_usage(hb, change) -> None:
    data = json.loads(hb.home.skills_usage_file.read_text())
    change(data)
    hb.usage(data)


def _steps(hb):
    """(description, function returning the changed paths) pairs, applied in order."""
    d = hb.home.skills_dir

    def edit_description():
        path = d / "devops/docker-logs/SKILL.md"
        path.write_text(path.read_text().replace("Read and filter", "Read, filter and tail"))
        return [path]

    def bump_usage():
        _edit_usage(hb, lambda data: data["k8s-basics"].update(use_count=4, created_by="agent"))
        return [hb.home.skills_usage_file]

    def becomes_learned():
        _edit_usage(hb, lambda data: data["arxiv-digest"].update(created_by="agent"))
        return [hb.home.skills_usage_file]

    def change_category():
        (d / "flat-notes/SKILL.md").write_text(skill_text("flat-notes", category="writing"))
        return [d / "flat-notes/SKILL.md"]

    def rename():
        (d / "misc/old-dir-name/SKILL.md").write_text(skill_text("newer-name"))
        return [d / "misc/old-dir-name/SKILL.md"]

    def change_related():
        path = d / "devops/k8s-basics/SKILL.md"
        path.write_text(skill_text("k8s-basics", category="cloud", related=["flat-notes"]))
        return [path]

    def add_skill():
        directory = hb.skill("devops/helm-charts", related=["k8s-basics"])
        _edit_usage(hb, lambda data: data.update({"helm-charts": {"created_by": "agent"}}))
        return [directory, hb.home.skills_usage_file]

    def delete_skill():
        (d / "win/bom-crlf/SKILL.md").unlink()
        (d / "win/bom-crlf").rmdir()
        return [d / "win/bom-crlf"]

    def pin():
        _edit_usage(hb, lambda data: data["hub-skill"].update(pinned=True))
        return [hb.home.skills_usage_file]

    def memory():
        hb.memory("memory", ["helm-charts are kept in the infra repo.", "k8s basics"])
        return [hb.home.memory_file]

    return [
        edit_description, bump_usage, becomes_learned, change_category, rename,
        change_related, add_skill, delete_skill, pin, memory,
    ]


@pytest.mark.parametrize("settled", [True, False], ids=["settled", "just-written"])
def test_every_rebuild_equals_a_fresh_build(learning_home, settled):
    hb = learning_home
    checked = GraphBuilder(hb.home)
    hinted = GraphBuilder(hb.home)
    checked_all = GraphBuilder(hb.home)
    checked.build()
    hinted.build()
    checked_all.build(include_all=True)
    for step, change in enumerate(_steps(hb), start=1):
        paths = change()
        if settled:
            touched = set(paths)
            for path in paths:
                touched.add(os.path.dirname(path))
            _later(step, *touched)
        fresh = build_learning_graph(hb.home)
        assert checked.build() == fresh, change.__name__
        assert hinted.build(changed=paths) == fresh, change.__name__
        assert checked_all.build(include_all=True) == build_learning_graph(hb.home, include_all=True)
    final = build_learning_graph(hb.home)
    # the renamed skill lost its usage record (keyed by name), so it is no longer learned
    assert "newer-name" not in {node["id"] for node in final["nodes"]}
    assert "newer-name" in {node["id"] for node in build_learning_graph(hb.home, include_all=True)["nodes"]}
    assert {"source": "flat-notes", "target": "k8s-basics"} in final["edges"]
    assert {"source": "helm-charts", "target": "k8s-basics"} in final["edges"]


def test_a_rebuild_after_one_edit_reads_one_file(learning_home):
    hb = learning_home
    builder = GraphBuilder(hb.home)
    builder.build()
    assert builder.index.files_parsed == 11  # every readable SKILL.md in every root
    builder.build()
    assert builder.index.files_parsed == 0
    path = hb.home.skills_dir / "devops/k8s-basics/SKILL.md"
    path.write_text(path.read_text() + "\nMore steps.\n")
    _later(1, path)
    builder.build()
    assert builder.index.files_parsed == 1
    path.write_text(path.read_text() + "\nEven more.\n")
    _later(2, path)
    builder.build(changed=[path])
    assert builder.index.files_parsed == 1


def test_builder_stats_match_density_stats(learning_home):
    payload = GraphBuilder(learning_home.home).build(include_all=True)
    builder = GraphBuilder(learning_home.home)
    builder.build()
    scan = builder.index.scan()
    usage = read_usage(learning_home.home)
    nodes = [skill_node(skill, usage.record(skill.name)) for skill in scan.skills]
    shown = [node for node in nodes if node.learned]
    expected = density_stats(shown, skill_edges(shown))
    stats = builder.build()["stats"]
    assert {key: stats[key] for key in expected} == expected
    assert payload["stats"]["nodes"] == 11
