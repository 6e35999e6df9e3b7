"""``read_usage_shared``: one read of ``.usage.json`` serves the readers that follow while
the file is unchanged, and any change (even one that keeps its size and puts its old
modification time back) means a fresh read."""

from __future__ import annotations

import json
import os

import pytest

from hermes_memory import fileio
from hermes_memory.skills.usage import MOVE_INTENT_FILE, read_usage_shared


def write_usage(home, records: dict) -> None:
    home.skills_dir.mkdir(parents=True, exist_ok=True)
    home.skills_usage_file.write_text(json.dumps(records), encoding="utf-8")


@pytest.fixture
def settled(monkeypatch):
    """The file counts as settled at once (else the 2 s racy window makes tests wait)."""
    monkeypatch.setattr(fileio, "RACY_NS", -10**12)


def test_an_unchanged_file_is_read_once(home, settled):
    write_usage(home, {"deploy": {"use_count": 3}})
    first = read_usage_shared(home)
    assert first.record("deploy")["use_count"] == 3
    assert read_usage_shared(home) is first


def test_a_same_size_change_with_the_old_mtime_put_back_is_read_again(home, settled):
    write_usage(home, {"deploy": {"use_count": 3}})
    first = read_usage_shared(home)
    before = os.stat(home.skills_usage_file)
    write_usage(home, {"deploy": {"use_count": 4}})
    os.utime(home.skills_usage_file, ns=(before.st_atime_ns, before.st_mtime_ns))
    again = read_usage_shared(home)
    assert again is not first and again.record("deploy")["use_count"] == 4


def test_a_file_written_just_now_is_not_kept(home):
    write_usage(home, {"deploy": {"use_count": 3}})  # within the racy window
    assert read_usage_shared(home) is not read_usage_shared(home)


def test_a_half_done_move_is_finished_first(home, settled):
    write_usage(home, {"deploy": {"use_count": 3}})
    kept = read_usage_shared(home)
    (home.skills_dir / MOVE_INTENT_FILE).write_text("{}", encoding="utf-8")  # (read_usage reconciles it)
    assert read_usage_shared(home) is not kept


def test_a_missing_or_broken_file_is_never_kept(home, settled):
    assert not read_usage_shared(home).exists
    home.skills_dir.mkdir(parents=True, exist_ok=True)
    home.skills_usage_file.write_text("{not json", encoding="utf-8")
    broken = read_usage_shared(home)
    assert broken.error
    assert read_usage_shared(home) is not broken
