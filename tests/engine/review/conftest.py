"""Fixtures for the background-review tests: a realistic home, a recorded session in its
state.db, and the scripted OpenAI-compatible server the review talks to."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
for _path in (_HERE, _HERE.parents[1]):  # this folder (helpers) and tests/ (llm_server)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from review_helpers import (  # noqa: E402
    MEMORY_ENTRIES,
    SESSION_ID,
    USER_ENTRIES,
    record_session,
    snapshot,
    write_skill,
)

from hermes_memory.memory.entries import ENTRY_DELIMITER  # noqa: E402
from hermes_memory.sessions import SessionStore  # noqa: E402
from llm_server import llm_server  # noqa: E402,F401  (the fixture, re-exported here)


@pytest.fixture
def review_home(home, tmp_path, llm_server):  # noqa: F811
    """A home whose config points the review at the scripted server, with memories,
    skills of every ownership kind, and one recorded session."""
    external = tmp_path / "team-skills"
    home.config_file.write_text(
        "auxiliary:\n"
        "  background_review:\n"
        "    provider: custom\n"
        "    model: test-model\n"
        f"    base_url: {llm_server.base_url}\n"
        "    api_key: test\n"
        "    timeout: 10\n"
        "skills:\n"
        "  external_dirs:\n"
        f"    - {external}\n",
        encoding="utf-8",
    )
    home.memory_file.write_text(ENTRY_DELIMITER.join(MEMORY_ENTRIES), encoding="utf-8")
    home.user_file.write_text(ENTRY_DELIMITER.join(USER_ENTRIES), encoding="utf-8")
    skills = home.skills_dir
    write_skill(skills, "devops/docker-logs", "docker-logs")
    write_skill(skills, "notes/pinned-notes", "pinned-notes", description="Keep notes")
    write_skill(skills, "git-basics", "git-basics", description="Bundled git help")
    write_skill(skills, "hub-tool", "hub-tool", description="Installed from the hub")
    write_skill(skills, "my-recipes", "my-recipes", description="The user's own recipes")
    write_skill(external, "team/team-style", "team-style", description="Shared team style")
    (skills / ".bundled_manifest").write_text("git-basics:0123abcd\n", encoding="utf-8")
    (skills / ".hub").mkdir()
    (skills / ".hub" / "lock.json").write_text(
        json.dumps({"installed": {"hub-tool": {"install_path": "hub-tool"}}}), encoding="utf-8"
    )
    agent = {"created_by": "agent", "use_count": 3, "state": "active", "pinned": False}
    usage = {
        "docker-logs": agent,
        "pinned-notes": {**agent, "pinned": True},
        "my-recipes": {"created_by": "user", "use_count": 1, "state": "active", "pinned": False},
    }
    home.skills_usage_file.write_text(json.dumps(usage, indent=2, sort_keys=True), encoding="utf-8")
    record_session(home.state_db)
    # Reading a WAL database read-only leaves its -wal/-shm files behind (SQLite cannot
    # remove them without write access). Read once here, as the studio's session list
    # would before anyone starts a review, so the snapshots compare what the review does.
    with SessionStore(home.state_db) as store:
        assert len(store.get_messages(SESSION_ID)) == 12
    return home


@pytest.fixture
def snap():
    return snapshot
