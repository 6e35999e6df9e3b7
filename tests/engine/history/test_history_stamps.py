"""A capture reads only the SKILL.md files that changed since it last read them, and
still records every change (same size, the old modification time put back, a damaged
stamps file)."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest
from history_helpers import events, write_skill

from hermes_memory import fileio
from hermes_memory.history.capture import capture
from hermes_memory.history.stamps import STAMPS
from hermes_memory.history.storage import HistoryStore
from hermes_memory.skills.shared_index import shared_index


def age(*paths) -> None:
    """Date files an hour back (the skill index re-reads files younger than 2 s)."""
    past = time.time() - 3600
    for path in paths:
        os.utime(path, (past, past))


@pytest.fixture
def skills(home):
    files = [write_skill(home, f"skill-{n}") / "SKILL.md" for n in range(5)]
    age(*files, *(path.parent for path in files), home.skills_dir)
    return files


@pytest.fixture
def settled(monkeypatch):
    """Files written by the test count as settled: the racy window (2 s, for filesystems
    with coarse timestamps) would otherwise make every test wait."""
    monkeypatch.setattr(fileio, "RACY_NS", 0)


class OpenCounter:
    """Counts the opens of SKILL.md files (through an audit hook: every open is seen)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.on = False
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple) -> None:
        if self.on and event == "open" and str(args[0]).endswith("SKILL.md"):
            self.paths.append(str(args[0]))


_COUNTER = OpenCounter()  # (audit hooks cannot be removed: one for the module)


def opened_during(function) -> list[str]:
    _COUNTER.paths.clear()
    _COUNTER.on = True
    try:
        function()
    finally:
        _COUNTER.on = False
    return list(_COUNTER.paths)


def stamp_file(home):
    return HistoryStore(home).dir / STAMPS


def test_a_second_capture_reads_no_unchanged_skill(home, skills, settled):
    index = shared_index(home)  # held, as the open graph holds it
    assert capture(home)["recorded"] == 5
    assert stamp_file(home).is_file()
    opened = opened_during(lambda: capture(home))
    assert opened == []
    assert index is shared_index(home)


def test_only_the_changed_skill_is_read_and_recorded(home, skills, settled):
    _index = shared_index(home)
    capture(home)
    skills[2].write_text(skills[2].read_text(encoding="utf-8") + "More.\n", encoding="utf-8")
    age(skills[2])
    result = {}
    opened = opened_during(lambda: result.update(capture(home)))
    assert result["recorded"] == 1
    assert {os.path.basename(os.path.dirname(path)) for path in opened} == {"skill-2"}
    assert events(home)[-1]["skill"] == "skill-2"


def test_a_same_size_edit_with_its_old_mtime_put_back_is_still_recorded(home, skills, settled):
    capture(home)
    before = os.stat(skills[1])
    text = skills[1].read_text(encoding="utf-8")
    skills[1].write_text(text.replace("Use it well.", "Use it WELL."), encoding="utf-8")
    os.utime(skills[1], ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(skills[1])
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert capture(home)["recorded"] == 1  # its change time moved: it was read again
    assert events(home)[-1]["skill"] == "skill-1"


def test_a_file_changed_just_before_the_capture_is_not_stamped(home, skills):
    _index = shared_index(home)
    capture(home)  # every file changed moments ago (its change time), within the racy window
    stamped = json.loads(stamp_file(home).read_text(encoding="utf-8"))["files"] if stamp_file(home).exists() else {}
    assert not any(path.endswith("SKILL.md") for path in stamped)
    opened = opened_during(lambda: capture(home))
    assert len(opened) == 5  # so the next capture reads them again


@pytest.mark.parametrize("damage", [b"not json", b'{"v": 1, "files": {"x": [1, 2]}}', b"[]", b'{"v": 99}'])
def test_a_damaged_stamps_file_only_means_reading_everything(home, skills, settled, damage):
    _index = shared_index(home)
    capture(home)
    stamp_file(home).write_bytes(damage)
    skills[0].write_text("---\nname: skill-0\ndescription: changed\n---\nNew body.\n", encoding="utf-8")
    age(skills[0])
    result = {}
    opened = opened_during(lambda: result.update(capture(home)))
    assert result["ok"] and result["recorded"] == 1
    assert sorted(set(opened)) == sorted(map(str, skills))
    assert len(json.loads(stamp_file(home).read_text(encoding="utf-8"))["files"]) == 5  # written afresh


def test_a_stamped_skill_whose_pin_changed_is_recorded_with_its_text(home, skills, settled):
    from hermes_memory.history.timeline import Timeline
    from hermes_memory.skills.usage import update_usage

    capture(home)
    update_usage(home, lambda data: data.setdefault("skill-3", {}).update(pinned=True))  # another tool
    assert capture(home)["recorded"] == 1
    event = events(home)[-1]
    assert (event["skill"], event["pinned"]) == ("skill-3", True)
    assert Timeline(home).text(event["md"]) == skills[3].read_text(encoding="utf-8")


def test_erasing_history_removes_the_stamps(home, skills, settled):
    capture(home)
    assert stamp_file(home).exists()
    HistoryStore(home).forget()
    assert not stamp_file(home).exists()


def test_a_capture_trusts_a_scan_made_after_the_time_it_is_given(home, skills, settled):
    import time as clock

    opened = clock.time_ns()
    index = shared_index(home)
    index.scan()  # the graph's scan, after the app opened the home
    late = write_skill(home, "made-after-the-scan") / "SKILL.md"
    age(late, late.parent, home.skills_dir)
    opened_files = opened_during(lambda: capture(home, scanned_after_ns=opened))
    assert "made-after-the-scan" not in {e.get("skill") for e in events(home)}  # the watch reports it
    assert str(late) not in opened_files
    # a capture without that promise checks every folder, and so does one given a later time
    assert capture(home, scanned_after_ns=clock.time_ns())["recorded"] == 1
    assert events(home)[-1]["skill"] == "made-after-the-scan"
