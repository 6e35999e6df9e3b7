"""The ``serve --stdio`` watcher sees SKILL.md edits at any depth below ``skills/``:
``<category>/<skill>/SKILL.md`` and skills nested in skills, edited in place (which
changes no folder), added or removed; never the archive or a skill's support folders."""

from __future__ import annotations

import os
import time

import pytest
from test_serve import _expect_event

from hermes_memory.remote.client import EngineClient
from hermes_memory.remote.watch import HomeWatcher

pytestmark = pytest.mark.timeout(240)

CATEGORY_SKILL = "skills/database/index-advisor/SKILL.md"


def edit_in_place(path, text="\nOne more step.\n"):
    """Append to the file itself, as an editor saving in place does: its folder's mtime
    stays as it was."""
    folder = os.stat(path.parent).st_mtime_ns
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
    assert os.stat(path.parent).st_mtime_ns == folder


def make_skill(folder, name):
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n# {name}\n")


def test_in_place_edits_at_every_depth_are_reported(remote_home):
    nested = remote_home.skills_dir / "database" / "index-advisor" / "variants" / "partial-index"
    make_skill(nested, "partial-index")
    watcher = HomeWatcher(remote_home, lambda event: None)
    assert watcher.poll(deep=True) is None
    edit_in_place(remote_home.path / CATEGORY_SKILL)
    edit_in_place(nested / "SKILL.md")
    event = watcher.poll(deep=True)
    assert event["what"] == ["skills"]
    assert event["paths"] == [CATEGORY_SKILL, "skills/database/index-advisor/variants/partial-index/SKILL.md"]
    assert watcher.poll(deep=True) is None  # reported once


def test_added_and_removed_skills_are_reported_but_not_archive_or_support_files(remote_home):
    watcher = HomeWatcher(remote_home, lambda event: None)
    make_skill(remote_home.skills_dir / "database" / "new-one", "new-one")
    (remote_home.path / CATEGORY_SKILL).unlink()
    make_skill(remote_home.skills_dir / ".archive" / "old-one", "old-one")
    make_skill(remote_home.skills_dir / "research" / "web-search" / "references" / "ref", "ref")
    event = watcher.poll(deep=True)
    assert "skills" in event["what"]
    skill_paths = [p for p in event["paths"] if p.endswith("SKILL.md")]
    assert skill_paths == [CATEGORY_SKILL, "skills/database/new-one/SKILL.md"]


def test_a_nested_skill_edit_arrives_over_the_json_lines_stream(remote_home):
    nested = remote_home.skills_dir / "database" / "postgres-slow-query" / "deep" / "explain-plans"
    make_skill(nested, "explain-plans")
    with EngineClient.local(remote_home.path, timeout=30) as client:
        assert client.call("ping") == {"pong": True}
        time.sleep(1)  # the watcher's first look has the new skill in it
        while not client.events.empty():
            client.events.get_nowait()
        edit_in_place(nested / "SKILL.md")
        event = _expect_event(client, "skills")
        assert event["paths"] == ["skills/database/postgres-slow-query/deep/explain-plans/SKILL.md"]
        edit_in_place(remote_home.path / CATEGORY_SKILL)
        assert _expect_event(client, "skills")["paths"] == [CATEGORY_SKILL]
