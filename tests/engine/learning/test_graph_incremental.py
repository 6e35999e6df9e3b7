"""Rebuilds with a kept GraphBuilder: they re-read only what changed and always equal a
fresh build, whether every file is checked or a watcher names the changed paths."""

from __future__ import annotations

import json
import os

import pytest
from hermes_test_home_builder import SETTLED_NS, skill_text

from hermes_memory.history.capture import capture
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


def test_a_hinted_rebuild_shows_history_recorded_since_on_nodes_it_kept(learning_home):
    hb = learning_home
    hb.settle()  # folders written moments ago would make each rebuild walk them again
    builder = GraphBuilder(hb.home)
    assert not any("history" in node for node in builder.build()["nodes"])
    capture(hb.home)  # every skill gets its first version: nodes the next build keeps too
    path = hb.home.skills_dir / "devops/docker-logs/SKILL.md"
    for step, text in enumerate(["Read, filter and tail", "Read and filter"], start=1):
        path.write_text(path.read_text().replace("Read and filter", text).replace("Read, filter and tail", text))
        _later(step, path)
        payload = builder.build(changed=[path])
        assert payload == build_learning_graph(hb.home)
        nodes = {node["id"]: node for node in payload["nodes"]}
        assert nodes["k8s-basics"]["history"]["versions"] == 1  # kept from the build before
        assert nodes["docker-logs"]["history"]["versions"] == 1  # rebuilt: given the key again


def test_hinted_rebuilds_follow_the_size_threshold(hb):
    """Health's outlier threshold (five times the median SKILL.md size) moves with
    edits a hinted rebuild patches in."""
    names = [f"tool-{n}" for n in range(7)]
    for name in names:
        hb.skill(f"tools/{name}", body="x" * 1500)
    hb.usage({name: {"created_by": "agent", "use_count": 1} for name in names})
    hb.settle()  # folders written moments ago would make each rebuild walk them again
    builder = GraphBuilder(hb.home)
    builder.build()

    def oversized(payload):
        return sorted(n["id"] for n in payload["nodes"] if "oversized" in n.get("healthCodes", ()))

    edits = [("tool-0", 9_000), ("tool-1", 2_500), ("tool-2", 2_500), ("tool-3", 2_500), ("tool-0", 1_500)]
    seen = []
    for step, (name, size) in enumerate(edits, start=1):
        path = hb.home.skills_dir / "tools" / name / "SKILL.md"
        path.write_text(skill_text(name, body="x" * size))
        _later(step, path)
        payload = builder.build(changed=[path])
        assert payload == build_learning_graph(hb.home), (name, size)
        seen.append(oversized(payload))
    # 9,000 bytes is over 5 x the median at first, and no longer once the median has grown
    assert seen == [["tool-0"], ["tool-0"], ["tool-0"], [], []]


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
