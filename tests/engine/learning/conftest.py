"""Fixtures for the learning-graph tests; the home builder is shared with tests/engine/skills."""

import importlib.util
import os
import sys
from pathlib import Path

import pytest


def _load_builder():
    name = "hermes_test_home_builder"
    if name not in sys.modules:
        path = Path(__file__).parent.parent / "skills" / "home_builder.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


builder_module = _load_builder()

MEMORY_MTIME = builder_module.MEMORY_MTIME
USER_MTIME = builder_module.USER_MTIME
SKILL_MTIME = builder_module.SKILL_MTIME


@pytest.fixture
def hb(home):
    return builder_module.HomeBuilder(home)


@pytest.fixture
def learning_home(hb, tmp_path):
    """A realistic home: every root and layout, usage records, memories, bad files."""
    base = tmp_path / "agent-repo" / "skills"
    external = tmp_path / "team-skills"
    hb.config(f"skills:\n  base_dir: {base}\n  external_dirs:\n    - {external}\n")
    hb.skill("core/base-tool", root=base, related=["docker-logs"])
    hb.skill("shared/ext-skill", root=external)
    hb.skill(
        "devops/docker-logs",
        description="Read and filter container logs",
        related=["k8s-basics", "base-tool", "missing-skill", "docker-logs"],
        tags=["docker", "logs"],
    )
    hb.skill("devops/k8s-basics", category="cloud", extra="related_skills: [docker-logs]")
    hb.skill("flat-notes", description="Keep running notes")
    hb.skill("research/papers/arxiv-digest")
    hb.skill("misc/old-dir-name", name="new-name")
    hb.skill("plan")
    hb.manifest("plan")
    hb.skill("tools/hub-skill")
    hb.hub({"hub-skill": {"install_path": "tools/hub-skill"}})
    hb.skill(
        "win/bom-crlf",
        raw=b"\xef\xbb\xbf---\r\nname: bom-crlf\r\ndescription: Saved on Windows\r\n---\r\nbody\r\n",
    )
    hb.skill(
        "ops/broken",
        text="---\nname: yaml-broken\ndescription: Use when: it breaks\n"
        "related_skills: [docker-logs, k8s-basics\n---\nbody\n",
    )
    hb.skill("bad/latin", raw=b"---\nname: latin\ndescription: caf\xe9\n---\nbody\n")
    hb.skill("old-skill", root=hb.home.skills_archive_dir)
    hb.usage(
        {
            "docker-logs": {
                "created_by": "agent", "use_count": 3, "view_count": 7, "patch_count": 2,
                "last_used_at": "2026-06-01T10:00:00+00:00",
                "last_viewed_at": "2026-06-02T10:00:00Z",
                "last_patched_at": None, "created_at": "2026-05-01T00:00:00+00:00",
                "state": "active", "pinned": True,
            },
            "k8s-basics": {"created_by": None, "use_count": 1, "state": "stale"},
            "flat-notes": {"created_by": "learn", "use_count": 0, "created_at": 1777000000},
            "new-name": {"created_by": "agent"},
            "plan": {"use_count": 9},
            "hub-skill": {"use_count": 2},
            "ext-skill": {"use_count": 5},
            "bom-crlf": {"created_by": "agent", "last_used_at": 0},
            "yaml-broken": {"agent_created": True, "use_count": 0, "created_by": "agent"},
            "arxiv-digest": {"created_by": None, "use_count": 0},
            "old-skill": {"state": "archived", "created_by": "agent"},
        }
    )
    hb.memory(
        "memory",
        [
            "# Docker logs\nUse docker-logs with --since to keep output short.",
            "The k8s cluster is called basics-prod; kubectl context is set.",
            "Unrelated: the office wifi password rotates monthly.",
        ],
    )
    hb.memory("user", ["Prefers notes in flat files.", "Name: Dana."])
    hb.settle(hb.home.path, base, external)
    for path in [*hb.home.skills_dir.rglob("SKILL.md"), *base.rglob("SKILL.md"), *external.rglob("SKILL.md")]:
        os.utime(path, (SKILL_MTIME, SKILL_MTIME))
    os.utime(hb.home.memory_file, (MEMORY_MTIME, MEMORY_MTIME))
    os.utime(hb.home.user_file, (USER_MTIME, USER_MTIME))
    return hb
