"""fileio: bounded regular-file reads, the symlink policy and stale temp files."""

from __future__ import annotations

import os
import time

import pytest

from hermes_memory import fileio
from hermes_memory.home import HermesHome


def test_read_regular_bytes_stops_at_the_limit_and_refuses_special_files(tmp_path):
    path = tmp_path / "data"
    path.write_bytes(b"x" * 100)
    assert fileio.read_regular_bytes(path, 100) == b"x" * 100
    with pytest.raises(fileio.FileTooLarge, match="over 99 bytes"):
        fileio.read_regular_bytes(path, 99)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for special in (fifo, tmp_path, "/dev/zero"):
        with pytest.raises(fileio.UnsafeFileError, match="not a regular file"):
            fileio.read_regular_bytes(special, 1 << 20)


def test_writes_through_an_in_home_link_and_refuse_one_that_leaves(tmp_path):
    home = HermesHome.resolve(tmp_path / "home")
    home.path.mkdir()
    (home.path / "real.txt").write_text("old", encoding="utf-8")
    link = home.path / "link.txt"
    link.symlink_to("real.txt")
    fileio.atomic_write_text(link, "new")
    assert link.is_symlink() and (home.path / "real.txt").read_text(encoding="utf-8") == "new"
    outside = tmp_path / "outside.txt"
    away = home.path / "away.txt"
    away.symlink_to(outside)
    for write in (fileio.atomic_write_text, fileio.append_text):
        with pytest.raises(fileio.UnsafeFileError, match="outside the Hermes home"):
            write(away, "x")
    assert not outside.exists() and away.is_symlink()


def test_paths_outside_every_home_are_written_through_their_links(tmp_path):
    (tmp_path / "target.txt").write_text("a", encoding="utf-8")
    (tmp_path / "plain-link.txt").symlink_to(tmp_path / "target.txt")
    fileio.atomic_write_text(tmp_path / "plain-link.txt", "b")
    assert (tmp_path / "plain-link.txt").is_symlink()
    assert (tmp_path / "target.txt").read_text(encoding="utf-8") == "b"


def test_append_text_refuses_a_fifo_without_blocking(tmp_path):
    fifo = tmp_path / "log.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        fileio.append_text(fifo, "line\n")
    plain = tmp_path / "plain.jsonl"
    fileio.append_text(plain, "one\n")
    fileio.append_text(plain, "two\n")
    assert plain.read_text(encoding="utf-8") == "one\ntwo\n"


def test_text_with_a_lone_surrogate_is_refused_with_a_message(tmp_path):
    with pytest.raises(fileio.UnsafeFileError, match="lone surrogate"):
        fileio.atomic_write_text(tmp_path / "f.txt", "caf\udce9")
    assert list(tmp_path.iterdir()) == []


def test_atomic_writes_remove_stale_temp_files_in_their_folder_too(tmp_path):
    stale = tmp_path / ".SKILL.md.k2j4h6g8.tmp"
    fresh = tmp_path / ".SKILL.md.a1b2c3d4.tmp"
    for path in (stale, fresh):
        path.write_text("copy", encoding="utf-8")
    old = time.time() - fileio.STALE_TEMP_SECONDS - 1
    os.utime(stale, (old, old))
    fileio.atomic_write_text(tmp_path / "SKILL.md", "text")
    assert not stale.exists() and fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".SKILL.md.a1b2c3d4.tmp", "SKILL.md"]
