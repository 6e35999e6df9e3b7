"""Malformed, truncated, huge and hostile records, and ids that try to leave the queue:
a clear message, nothing written, the rest of the queue still usable."""

from __future__ import annotations

import io
import json
import os

import pytest
from pending_helpers import USER, write_upstream

from hermes_memory.cli import main
from hermes_memory.memory.store import MemoryStore
from hermes_memory.pending import PendingError, PendingQueue
from hermes_memory.pending.records import MAX_RECORD_BYTES

GOOD = {"action": "add", "target": "user", "content": "Sails on weekends.", "old_text": None}


def run(home, *argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["--home", str(home.path), *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def hostile_files(home, outside):
    folder = home.path / "pending" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    good = json.dumps({"id": "x", "subsystem": "memory", "payload": GOOD}, indent=2)
    files = {
        "malformed": b"{not json",
        "truncated": good[: len(good) // 2].encode(),
        "notutf8": b'{"payload": "\xff\xfe"}',
        "notobject": b'["a", "list"]',
        "nopayload": b'{"id": "nopayload", "subsystem": "memory"}',
        "deep": b"[" * 100_000 + b"]" * 100_000,
        "wrongsub": json.dumps({"subsystem": "skills", "payload": GOOD}).encode(),
        "unknownact": json.dumps({"payload": {"action": "explode", "target": "memory"}}).encode(),
        "badtarget": json.dumps({"payload": {**GOOD, "target": "../../etc"}}).encode(),
    }
    for name, data in files.items():
        (folder / f"{name}.json").write_bytes(data)
    with open(folder / "huge.json", "wb") as handle:  # sparse: huge on paper, cheap on disk
        handle.truncate(MAX_RECORD_BYTES + 1)
    os.symlink(outside, folder / "linked.json")
    return set(files) | {"huge", "linked"}


@pytest.fixture
def outside(tmp_path):
    path = tmp_path / "secret.json"
    path.write_text(json.dumps({"payload": GOOD}), encoding="utf-8")
    return path


def test_bad_records_are_listed_as_broken_and_the_rest_stays_usable(queue_home, outside, snap):
    names = hostile_files(queue_home, outside)
    write_upstream(queue_home, "memory", "600d0001", GOOD)
    queue = PendingQueue(queue_home)
    listing = queue.list()
    broken = {r.id: r.problem for r in listing.records if r.problem}
    assert set(broken) == names
    assert "not valid JSON" in broken["malformed"] and "not valid JSON" in broken["truncated"]
    assert "not UTF-8" in broken["notutf8"] and "far larger" in broken["huge"]
    assert "symbolic link" in broken["linked"] and "nested too deeply" in broken["deep"]
    assert "Unknown staged action 'explode'" in broken["unknownact"]
    assert "skills" in broken["wrongsub"] and "neither 'memory' nor 'user'" in broken["badtarget"]
    before = snap(queue_home.path)
    for name in sorted(names):
        with pytest.raises(PendingError, match="cannot be approved"):
            queue.approve(name)
    assert snap(queue_home.path) == before  # nothing written
    assert queue.approve("600d0001").ok
    assert MemoryStore(queue_home).read_entries("user") == [*USER, "Sails on weekends."]


def test_approve_all_skips_broken_records_and_list_stays_readable_in_the_cli(queue_home, outside):
    hostile_files(queue_home, outside)
    write_upstream(queue_home, "memory", "600d0002", GOOD)
    code, out, err = run(queue_home, "pending", "list")
    assert code == 0 and "BROKEN: it is not valid JSON" in out and "600d0002" in out
    code, out, err = run(queue_home, "--json", "pending", "approve", "all")
    assert code == 0 and [d["id"] for d in json.loads(out)["decisions"]] == ["600d0002"]


def test_rejecting_a_broken_record_sets_it_aside_and_never_follows_a_link(queue_home, outside):
    hostile_files(queue_home, outside)
    queue = PendingQueue(queue_home)
    for name in ("malformed", "linked"):
        decision = queue.reject(name)
        assert decision.ok and ".rejected" in decision.message
    aside = queue_home.path / "pending" / "memory" / ".rejected"
    assert (aside / "malformed.json").read_bytes() == b"{not json"  # restorable
    assert (aside / "linked.json").is_symlink() and outside.exists()
    assert "malformed" not in {r.id for r in queue.list().records}


@pytest.mark.parametrize("hostile", ["../secret", "../../secret", "..", "a/../b", "/etc/passwd",
                                     ".decisions", "x\x00y", "../" * 40 + "secret"])  # fmt: skip
def test_ids_that_try_to_leave_the_queue_are_refused(queue_home, outside, hostile, snap):
    # a JSON file next to the queue that reject ../secret would have unlinked upstream
    (queue_home.path / "pending" / "secret.json").parent.mkdir(exist_ok=True)
    (queue_home.path / "pending" / "secret.json").write_text("{}", encoding="utf-8")
    before = snap(queue_home.path)
    for argv in (("reject", hostile), ("approve", hostile), ("show", hostile)):
        code, out, err = run(queue_home, "pending", *argv)
        assert code == 1 and ("not a pending id" in err or "No pending write" in err), err
    assert snap(queue_home.path) == before and outside.exists()


def test_unknown_fields_a_bom_and_odd_created_at_are_tolerated(queue_home):
    path = write_upstream(queue_home, "memory", "b0b0b0b0", GOOD, created_at="not a time",
                          claimed=True, memory_route="x", receipt={"by": "fork"})  # fmt: skip
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    queue = PendingQueue(queue_home)
    record = queue.find("b0b0b0b0")
    assert record.problem is None and record.created_at == 0
    assert queue.approve("b0b0b0b0").ok


def test_a_lone_surrogate_in_content_is_refused_and_the_record_kept(queue_home):
    # upstream falls back to ASCII escapes for text UTF-8 cannot hold
    path = write_upstream(queue_home, "memory", "5a5a5a5a", GOOD)
    path.write_text(path.read_text().replace("Sails on weekends.", "odd \\ud800 text"))
    stores = [queue_home.memory_file, queue_home.user_file]
    before = [p.read_bytes() for p in stores]
    decision = PendingQueue(queue_home).approve("5a5a5a5a")
    assert not decision.ok and "lone surrogate" in decision.message
    assert [p.read_bytes() for p in stores] == before
    assert PendingQueue(queue_home).find("5a5a5a5a").failed


def test_shapes_seen_in_the_wild_are_read_and_files_that_are_not_records_are_left_alone(queue_home):
    folder = queue_home.path / "pending" / "memory"
    write_upstream(queue_home, "memory", "0e0e0e0e", GOOD, origin="codex_learning")
    write_upstream(queue_home, "memory", "0f0f0f0f", GOOD, origin="")
    write_upstream(queue_home, "skills", "0d0d0d0d", {"action": "batch", "name": "docker-logs",
                   "operations": [{"action": "patch", "old_string": "10m", "new_string": "1h"}]})  # fmt: skip
    leftovers = ["0a0a0a0a.json.tmp", ".0a0a_x1y2.tmp", "0b0b0b0b.json.applying.1234",
                 ".0c0c0c0c.applying", "notes.txt"]  # fmt: skip
    for name in leftovers:
        (folder / name).write_text("{}", encoding="utf-8")
    queue = PendingQueue(queue_home)
    records = {r.id: r for r in queue.list().records}
    assert set(records) == {"0e0e0e0e", "0f0f0f0f", "0d0d0d0d"}
    assert (records["0e0e0e0e"].origin, records["0f0f0f0f"].origin) == ("codex_learning", "foreground")
    check = queue.preview(records["0d0d0d0d"])
    assert not check["would_apply"] and "batch of skill changes" in check["reason"]
    assert queue.approve("0e0e0e0e").ok
    assert all((folder / name).exists() for name in leftovers)  # never touched
