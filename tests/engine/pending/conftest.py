"""Fixtures for the staged-write queue: a home with memories, skills and a usage record."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from pending_helpers import MEMORY, USER, skill_text, snapshot  # noqa: E402

from hermes_memory.memory.entries import ENTRY_DELIMITER  # noqa: E402


@pytest.fixture
def queue_home(home):
    home.memory_file.write_text(ENTRY_DELIMITER.join(MEMORY), encoding="utf-8")
    home.user_file.write_text(ENTRY_DELIMITER.join(USER), encoding="utf-8")
    skill = home.skills_dir / "devops" / "docker-logs"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(skill_text("docker-logs"), encoding="utf-8")
    (skill / "references").mkdir()
    (skill / "references" / "flags.md").write_text("--since, --tail\n", encoding="utf-8")
    usage = {"docker-logs": {"created_by": "agent", "state": "active", "pinned": False}}
    home.skills_usage_file.write_text(json.dumps(usage), encoding="utf-8")
    return home


@pytest.fixture
def snap():
    return snapshot
