"""A cold build finds, reads and links the skills exactly as a plain, independent
reference does: ``os.walk`` over the skills folder, every SKILL.md read whole and parsed
with PyYAML (else the agent's naive split), the nodes, declared edges, clusters and
counts worked out from that, in the most obvious way. Nothing of the index, its walk,
its caches or its fast reader is used by the reference, so a shortcut that loses, adds,
reorders or misreads a skill shows here."""

from __future__ import annotations

import os
import random
import re
import shutil
import stat
from collections import Counter
from typing import Any

import yaml
from frontmatter_shapes import COMMON_SHAPES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory.learning.graph import GraphBuilder

EXCLUDED = {".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules", "site-packages",
            "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache"}  # fmt: skip
SUPPORT = {"references", "templates", "scripts", "assets"}

_SHAPES = COMMON_SHAPES + [
    "---\nname: {n}\ndescription: Summarise the papers\nmetadata:\n  hermes:\n    tags: [papers]\n"
    "    related_skills: [{r}, {n}]\n    category: research\n---\n",
    "---\nname: twin\ndescription: one of two skills with one name\n---\n",
]


# --- the reference ------------------------------------------------------------------------
def _mapping(yaml_text: str) -> dict[str, Any]:
    try:
        parsed = yaml.safe_load(yaml_text)
    except Exception:  # the agent's fallback: split each line at its first colon
        parsed = {}
        for line in yaml_text.strip().split("\n"):
            if ":" in line:
                key, value = line.split(":", 1)
                parsed[key.strip()] = value.strip()
    return parsed if isinstance(parsed, dict) else {}


def _text(value: Any) -> str:
    return "" if value is None or isinstance(value, dict | list) else str(value).strip()


def _names(value: Any) -> list[str]:
    if isinstance(value, list):
        return [text for text in (str(item).strip() for item in value if item is not None) if text]
    if isinstance(value, str):
        items = (item.strip().strip("'\"").strip() for item in value.strip().strip("[]").split(","))
        return [item for item in items if item]
    return []


def _read(path: str) -> str | None:
    """The first 4,000 characters, or None for what the agent cannot read as a skill."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8")[:4000]
    except (OSError, UnicodeDecodeError):
        return None


def _reference_skills(top: str) -> list[dict[str, Any]]:
    real_top = os.path.realpath(top)
    found = []
    for directory, subdirs, files in os.walk(top, followlinks=True):
        rel = os.path.relpath(directory, top)
        parts = () if rel == "." else tuple(rel.split(os.sep))
        has_skill = "SKILL.md" in files
        subdirs[:] = [
            name for name in subdirs
            if name not in EXCLUDED and not (has_skill and name in SUPPORT)
            and os.path.realpath(os.path.join(directory, name)).startswith(real_top + os.sep)
        ]  # fmt: skip
        path = os.path.join(directory, "SKILL.md")
        if not has_skill or not os.path.realpath(path).startswith(real_top + os.sep):
            continue
        text = _read(path)
        if text is None:
            continue
        body = text[1:] if text.startswith("\ufeff") else text
        fence = re.compile(r"\n---\s*\n").search(body, 3) if body.startswith("---") else None
        fm = _mapping(body[3 : fence.start()]) if fence else {}  # the agent's own fence rule
        metadata = fm.get("metadata")
        hermes = metadata.get("hermes") if isinstance(metadata, dict) else None
        hermes = hermes if isinstance(hermes, dict) else {}
        category = _text(fm.get("category")) or _text(hermes.get("category"))
        found.append({
            "parts": parts,
            "id": _text(fm.get("name")) or parts[-1],
            "category": category or (parts[-2] if len(parts) >= 2 else "general"),
            "description": _text(fm.get("description")),
            "tags": _names(hermes.get("tags") or fm.get("tags")),
            "related": _names(fm.get("related_skills") or hermes.get("related_skills")),
            "directory": directory,
        })
    found.sort(key=lambda skill: skill["parts"])
    first: dict[str, dict[str, Any]] = {}
    for skill in found:
        first.setdefault(skill["id"], skill)
    return list(first.values())


def _reference_graph(top: str) -> dict[str, Any]:
    skills = _reference_skills(top)
    names = {skill["id"] for skill in skills}
    edges: list[tuple[str, str]] = []
    for skill in skills:
        for other in skill["related"]:
            pair = tuple(sorted((skill["id"], other)))
            if other in names and other != skill["id"] and pair not in edges:
                edges.append(pair)
    counts = Counter(skill["category"] for skill in skills)
    return {
        "nodes": [{key: skill[key] for key in ("id", "category", "description", "tags", "related", "directory")}
                  for skill in skills],  # fmt: skip
        "edges": [{"source": a, "target": b} for a, b in edges],
        "clusters": sorted(({"category": c, "count": n} for c, n in counts.items()), key=lambda c: -c["count"]),
        "linked": len({name for edge in edges for name in edge}),
    }


# --- the comparison -------------------------------------------------------------------------
def _built(home) -> dict[str, Any]:
    payload = GraphBuilder(home).build(include_all=True)
    skills = [node for node in payload["nodes"] if node["kind"] == "skill"]
    return {
        "nodes": [{key: node[key] for key in ("id", "category", "description", "tags", "related", "directory")}
                  for node in skills],  # fmt: skip
        "edges": [edge for edge in payload["edges"] if edge["source"] in {n["id"] for n in skills}],
        "clusters": payload["clusters"],
        "linked": payload["stats"]["linked_nodes"],
    }


def _home(hb, tmp_path, shapes: list[int], seed: int) -> None:
    rng = random.Random(seed)
    names = [f"{rng.choice(['audit', 'deploy', 'test'])}-{rng.choice(['dns', 'k8s', 'api'])}-{i}"
             for i in range(len(shapes))]  # fmt: skip
    folders = [f"cat-{rng.randint(0, 3)}/{name}" if rng.random() < 0.7 else name for name in names]
    for i in rng.sample(range(len(shapes)), len(shapes)):  # written in no particular order
        text = _SHAPES[shapes[i]].format(n=names[i], r=rng.choice(names))
        directory = hb.skill(folders[i], text=text)
        if rng.random() < 0.3:
            support = rng.choice(sorted(SUPPORT))
            (directory / support).mkdir(exist_ok=True)
            (directory / support / "SKILL.md").write_text("---\nname: not-a-skill\n---\n", encoding="utf-8")
        if rng.random() < 0.15:  # a nested skill inside a skill
            hb.skill(f"{folders[i]}/inner-{i}")
    hb.usage({name: {"created_by": "agent", "use_count": 1} for name in names})


def _hostile_extras(hb, tmp_path) -> None:
    skills = hb.home.skills_dir
    hb.skill("odd/not-utf8", raw=b"---\nname: bad\xff\n---\n")
    os.mkfifo(skills / "odd" / "fifo-skill")
    (skills / "odd" / "pipe").mkdir()
    os.mkfifo(skills / "odd" / "pipe" / "SKILL.md")
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "SKILL.md").write_text("---\nname: outsider\n---\n", encoding="utf-8")
    (skills / "odd" / "link-out").symlink_to(outside, target_is_directory=True)
    (skills / "odd" / "nested").mkdir()
    (skills / "odd" / "nested" / "SKILL.md").symlink_to(outside / "SKILL.md")
    (skills / ".archive" / "gone").mkdir(parents=True)
    (skills / ".archive" / "gone" / "SKILL.md").write_text("---\nname: gone\n---\n", encoding="utf-8")


def test_a_mixed_and_hostile_home_builds_as_the_reference_says(hb, tmp_path):
    _home(hb, tmp_path, [i % len(_SHAPES) for i in range(4 * len(_SHAPES))], seed=1)
    _hostile_extras(hb, tmp_path)
    built = _built(hb.home)
    assert built == _reference_graph(str(hb.home.skills_dir))
    ids = [node["id"] for node in built["nodes"]]
    assert "outsider" not in ids and "bad" not in ids and "gone" not in ids and "not-a-skill" not in ids
    assert ids.count("twin") == 1 and len(built["edges"]) > 10


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, len(_SHAPES) - 1), min_size=1, max_size=30), st.integers(0, 1000))
def test_any_home_builds_as_the_reference_says(hb, tmp_path_factory, shapes, seed):
    for child in list(hb.home.skills_dir.iterdir()):
        if child.is_dir():
            shutil.rmtree(child)
    _home(hb, tmp_path_factory.mktemp("x"), shapes, seed)
    assert _built(hb.home) == _reference_graph(str(hb.home.skills_dir))
