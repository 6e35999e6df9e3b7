"""Archive and restore are crash-consistent (issue 10, integrity).

A real ``hermes-memory`` process is killed (SIGKILL, through ``$HERMES_MEMORY_CRASH_AT``)
at every step between the folder move and the ``.usage.json`` record. Whatever step it
dies at, the next command leaves a consistent home: the skill in exactly one place,
its record saying where, no intent left over, and a later restore puts it back in its
category folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hermes_test_home_builder import tree

from hermes_memory.skills.moves import CRASH_ENV, INTENT_FILE

ENGINE = Path(__file__).resolve().parents[3] / "engine"
LIVE = "devops/docker-logs"


def hermes(home, *args: str, crash_at: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ENGINE)}
    env.pop(CRASH_ENV, None)
    if crash_at:
        env[CRASH_ENV] = crash_at
    return subprocess.run(
        [sys.executable, "-m", "hermes_memory.cli", "--home", str(home.path), *args],
        env=env, capture_output=True, text=True, timeout=60,
    )


@pytest.fixture
def crash_home(hb):
    hb.skill(LIVE, related=["k8s"])
    (hb.home.skills_dir / LIVE / "references").mkdir()
    (hb.home.skills_dir / LIVE / "references" / "notes.md").write_text("notes\n")
    hb.skill("flat-note")
    hb.usage({"docker-logs": {"created_by": "agent", "use_count": 3, "state": "active", "pinned": False}})
    return hb


def record(home) -> dict:
    return json.loads(home.skills_usage_file.read_text())["docker-logs"]


def where(home) -> str:
    """``live`` or ``archived``, checking the folder and the record agree."""
    live = home.skills_dir / LIVE
    archived = [p.parent for p in home.skills_archive_dir.rglob("SKILL.md")] if home.skills_archive_dir.exists() else []
    archived = [p for p in archived if "docker-logs" in p.name]
    assert live.is_dir() + len(archived) == 1, tree(home.skills_dir)
    assert not (home.skills_dir / INTENT_FILE).exists()
    state = record(home).get("state")
    if live.is_dir():
        assert state == "active" and record(home).get("archived_at") is None
        assert (live / "references" / "notes.md").read_text() == "notes\n"
        return "live"
    assert state == "archived" and record(home)["archived_from"] == LIVE
    return "archived"


@pytest.mark.parametrize(
    "step, then",
    [("archive:intent", "live"), ("archive:moved", "archived"), ("archive:recorded", "archived")],
)
@pytest.mark.parametrize("next_command", [["skills", "list", "--all"], ["node", "pin", "flat-note"]])
def test_a_kill_during_archive_is_repaired_by_the_next_command(crash_home, step, then, next_command):
    home = crash_home.home
    killed = hermes(home, "node", "delete", "docker-logs", crash_at=step)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert (home.skills_dir / INTENT_FILE).exists()  # it died mid-move
    done = hermes(home, *next_command)
    assert done.returncode == 0, done.stderr
    assert where(home) == then
    # and the skill comes back into its category, not flattened
    if then == "archived":
        restored = hermes(home, "node", "restore", "docker-logs")
        assert restored.returncode == 0, restored.stderr
    assert where(home) == "live"
    assert record(home)["use_count"] == 3


@pytest.mark.parametrize(
    "step, then",
    [("restore:intent", "archived"), ("restore:moved", "live"), ("restore:recorded", "live")],
)
def test_a_kill_during_restore_is_repaired_by_the_next_command(crash_home, step, then):
    home = crash_home.home
    (home.skills_dir / "devops" / "other").mkdir()  # keeps the category folder alive
    assert hermes(home, "node", "delete", "docker-logs").returncode == 0
    (home.skills_dir / "devops" / "other").rmdir()
    (home.skills_dir / "devops").rmdir()  # the restore has to recreate the category
    killed = hermes(home, "node", "restore", "docker-logs", crash_at=step)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    done = hermes(home, "skills", "list", "--all")
    assert done.returncode == 0, done.stderr
    assert where(home) == then
    if then == "archived":
        assert not (home.skills_dir / "devops").exists()  # the category it made is undone
        assert hermes(home, "node", "restore", "docker-logs").returncode == 0
    assert where(home) == "live"


def test_a_kill_while_archiving_in_the_desktop_flow_is_repaired_by_a_plain_read(crash_home):
    """The app reads usage before anything else; that read finishes the move."""
    from hermes_memory.skills import read_usage

    home = crash_home.home
    assert hermes(home, "node", "delete", "docker-logs", crash_at="archive:moved").returncode == -9
    snapshot = read_usage(home)
    assert any("finished an interrupted archive of 'docker-logs'" in w for w in snapshot.warnings)
    assert snapshot.record("docker-logs")["state"] == "archived"
    assert where(home) == "archived"


def test_an_unreadable_intent_is_left_for_a_person_and_blocks_only_moves(crash_home):
    home = crash_home.home
    (home.skills_dir / INTENT_FILE).write_text("{not json")
    before = home.skills_usage_file.read_bytes()
    result = hermes(home, "node", "delete", "docker-logs")
    assert result.returncode == 1 and INTENT_FILE in result.stderr
    assert (home.skills_dir / LIVE).is_dir() and home.skills_usage_file.read_bytes() == before
    assert hermes(home, "skills", "list").returncode == 0


def test_readers_racing_live_moves_never_see_or_finish_them_as_interrupted(crash_home):
    """A reader (the app's graph worker) and a writer (its action thread) in one
    process: the intent of a move in progress is never mistaken for a crashed one."""
    import threading

    from hermes_memory.skills import archive_skill, read_usage, restore_skill

    home = crash_home.home
    notes: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            notes.extend(read_usage(home).warnings)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for _ in range(15):
            assert archive_skill(home, "docker-logs").ok
            assert restore_skill(home, "docker-logs").ok
    finally:
        stop.set()
        thread.join()
    assert not [note for note in notes if "interrupted" in note]
    assert where(home) == "live"
