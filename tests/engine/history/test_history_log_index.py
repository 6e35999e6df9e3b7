"""The log's summary index: the same log as a full read of history, kept up to date by
decoding only the lines appended since, rebuilt whenever it cannot be trusted."""

from __future__ import annotations

import json
import time

import pytest
from history_helpers import write_skill

from hermes_memory.history import log_index, storage
from hermes_memory.history.ledger import ledger_path
from hermes_memory.history.recording import memory_event, record_skill_change, writing_as
from hermes_memory.history.service import forget, log
from hermes_memory.history.storage import HistoryStore
from hermes_memory.history.timeline import Timeline


def _reference(home) -> list[dict]:
    """The log as a full read of every file gives it, newest first."""
    timeline = Timeline(home)
    return [timeline.summary(event) for event in reversed(timeline.events)]


def _index(home):
    return HistoryStore(home).dir / log_index.INDEX


def _busy_home(home, store) -> None:
    for n in range(20):
        store.add("memory", f"Fact {n}: the deploy runs on weekdays")
    store.replace("memory", "Fact 3:", "Fact 3: the deploy runs on Fridays")
    store.remove("memory", "Fact 4:")
    store.add("user", "Prefers British English")
    directory = write_skill(home, "deploy-notes")
    with writing_as("background_review", session="s-42"):
        record_skill_change(home, "deploy-notes", "create", directory)
    record_skill_change(home, "deploy-notes", "pin", directory)


def test_the_log_matches_a_full_read_after_a_rebuild_and_after_appends(home, store):
    _busy_home(home, store)
    assert not _index(home).exists()  # a folder from before the index: read as before
    assert log(home)["events"] == _reference(home)
    assert _index(home).is_file()
    # more writes: the index is extended, and still agrees with a full read
    for n in range(20, 40):  # past a checkpoint, so deltas are replayed from the index
        store.add("memory", f"Fact {n}: the nightly job")
    store.remove("user", "British")
    directory = write_skill(home, "deploy-notes", body="Changed.\n")
    record_skill_change(home, "deploy-notes", "patch", directory)
    result = log(home)
    assert result["events"] == _reference(home)
    assert result["total"] == len(_reference(home))
    skill_log = log(home, kind="skill", skill="deploy-notes")["events"]
    assert [e["action"] for e in skill_log] == ["patch", "pin", "create"]
    assert skill_log[0]["text_changed"] and not skill_log[1]["text_changed"]
    assert skill_log[2]["origin_label"] == "background review" and skill_log[2]["session"] == "s-42"
    assert [e["kind"] for e in log(home, kind="user")["events"]] == ["user", "user"]
    cut = result["events"][5]["ts"]
    assert log(home, since=cut)["events"] == [e for e in _reference(home) if e["ts"] >= cut]
    assert log(home, limit=3)["events"] == _reference(home)[:3]


def test_a_log_after_one_write_decodes_only_the_new_lines(home, store, monkeypatch):
    _busy_home(home, store)
    log(home)
    decoded: list[int] = []
    real_parse = storage.parse_log
    monkeypatch.setattr(log_index, "parse_log", lambda data, *a, **k: decoded.append(len(data)) or real_parse(data, *a, **k))
    before = HistoryStore(home).events_path.stat().st_size
    store.add("memory", "One more fact")
    appended = HistoryStore(home).events_path.stat().st_size - before
    assert log(home)["events"] == _reference(home)
    assert decoded == [appended]
    decoded.clear()
    log(home)
    assert decoded == []  # nothing new: the index alone


def test_forget_rewrites_are_noticed_and_the_index_goes_with_the_history(home, store):
    _busy_home(home, store)
    log(home)
    cut = time.time() + 1
    time.sleep(0.01)
    forget(home, before=cut)  # everything before now goes
    assert not _index(home).exists()  # it held the summaries of what was forgotten
    store.add("memory", "After the purge")
    assert log(home)["events"] == _reference(home)
    assert len(log(home)["events"]) >= 1
    forget(home)
    assert not _index(home).exists()
    assert log(home)["events"] == []


def test_imports_and_ledger_changes_rebuild_the_index(home, store):
    _busy_home(home, store)
    log(home)
    history = HistoryStore(home)
    blobs: dict[str, str] = {}
    old = memory_event("memory", ["An imported fact"], None, origin="foreground", action="import",
                       ts=1_000_000.0, blobs=blobs, session="s-old")  # fmt: skip
    with history.locked():
        history.append([old], blobs, imported=True)
    result = log(home)
    assert result["events"] == _reference(home)
    assert result["events"][-1]["session"] == "s-old"
    ledger_path(home).parent.mkdir(parents=True, exist_ok=True)
    line = {"id": 1, "ts": "2025-01-01T10:00:00+00:00", "skill": "deploy-notes", "action": "patch",
            "actor": "curator", "evidence": {"session_id": "s-curator"}}  # fmt: skip
    ledger_path(home).write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = log(home)
    assert result["events"] == _reference(home)
    assert any(e["session"] == "s-curator" for e in result["events"])


def test_an_event_older_than_the_newest_summary_rebuilds_in_order(home, store):
    _busy_home(home, store)
    log(home)
    history = HistoryStore(home)
    blobs: dict[str, str] = {}
    late = memory_event("user", ["Late capture"], None, origin="hand", action="capture", ts=1_000.0, blobs=blobs)
    with history.locked():
        history.append([late], blobs)
    events = log(home)["events"]
    assert events == _reference(home)
    assert events[-1]["id"] == late["id"]


def test_a_damaged_or_hostile_index_is_rebuilt(home, store):
    _busy_home(home, store)
    expected = log(home)["events"]
    path = _index(home)
    for damage in ("not json", json.dumps([1, 2]), json.dumps({"v": log_index.VERSION, "rows": "x"}),
                   json.dumps({**json.loads(path.read_text()), "rows": [[1], "row", None]})):  # fmt: skip
        log(home)
        path.write_text(damage, encoding="utf-8")
        assert log(home)["events"] == expected, damage
    index = json.loads(path.read_text())
    index["rows"][0][7] = {"id": "injected", "restores": "abc"}  # only the known extras are taken
    path.write_text(json.dumps(index), encoding="utf-8")
    oldest = log(home)["events"][-1]
    assert oldest["id"] != "injected" and oldest["restores"] == "abc"


def test_the_cli_lines_from_index_rows_equal_those_of_the_summaries(home, store):
    """`history log` prints straight from the index rows; the lines are the summaries'
    own, also when damaged rows make the listing start afresh."""
    import io

    from hermes_memory.cli import main as cli_main
    from hermes_memory.history.commands import _describe

    _busy_home(home, store)
    expected = "\n".join(map(_describe, log(home)["events"])) + "\n"
    path = _index(home)
    for damage in (None, json.dumps({**json.loads(path.read_text()), "rows": [[1], "row", None]})):
        if damage:
            path.write_text(damage, encoding="utf-8")
            log_index._KEPT.clear()  # as a new process would: the damaged file is read
        out = io.StringIO()
        assert cli_main(["--home", str(home.path), "history", "log"], stdout=out) == 0
        assert out.getvalue() == expected, damage


def test_an_index_that_is_a_link_is_not_followed(home, store, tmp_path):
    _busy_home(home, store)
    outside = tmp_path / "outside.json"
    outside.write_text("keep me", encoding="utf-8")
    HistoryStore(home).dir.mkdir(parents=True, exist_ok=True)
    _index(home).symlink_to(outside)
    assert log(home)["events"] == _reference(home)
    assert outside.read_text(encoding="utf-8") == "keep me"


def test_a_process_listing_again_keeps_the_index_it_read(home, store, monkeypatch):
    _busy_home(home, store)
    log(home)
    decoded: list[int] = []
    real_decode = log_index._decode
    monkeypatch.setattr(log_index, "_decode", lambda data: decoded.append(len(data)) or real_decode(data))
    assert log(home)["events"] == _reference(home)
    assert decoded == []  # neither the index nor the log was decoded again
    rows_before, _ = log_index.summary_rows(home)
    count = len(rows_before)
    store.add("memory", "A fact after the first listing")
    assert log(home)["events"] == _reference(home)
    assert decoded == []  # extended from the kept index, which was then written and kept
    assert len(rows_before) == count  # what an earlier call returned is never changed
    # another process replacing the index file: its version is read, not the kept one
    path = _index(home)
    index = json.loads(path.read_text(encoding="utf-8"))
    index["problems"] = ["a problem only the other process saw"]
    other = path.with_name("other.tmp")
    other.write_text(json.dumps(index), encoding="utf-8")
    other.replace(path)
    assert log(home)["problems"] == ["a problem only the other process saw"]
    assert len(decoded) == 1



@pytest.mark.parametrize(
    "data",
    [
        json.dumps({"v": 3, "rows": [["a", 1700000000.123456789, "memory", 0.1 + 0.2, 10**18]]}).encode(),
        json.dumps({"rows": ["\ud800 lone"]}, ensure_ascii=False).encode("utf-8", "surrogatepass"),
        b'{"rows": [NaN, Infinity, -Infinity]}',
        b'{"rows": [123456789012345678901234567890]}',  # (orjson: a float)
        b'{"rows": [18446744073709551615, -9223372036854775808, 9223372036854775807]}',
        b'{"rows":[1,-123456789012345678901234567890]}',
        b'{"rows": ["c5188098268603070530", 1]}',  # (digits in an id: orjson reads it)
        b"12345678901234567890123",
        b'{"rows": [1e400, 5e-324, 2.2250738585072014e-308]}',
        b'{"v": 1, "v": 3}',
    ],
)
def test_the_index_decodes_as_json_reads_it(data):
    assert repr(log_index._decode(data)) == repr(json.loads(data))


def test_the_long_number_check_agrees_with_its_definition():
    """A whole number of 19 digits or more after a bracket, comma, colon or space (or at
    the start) sends the index to json, which reads it exactly; found without a regular
    expression over the whole file (that held the interpreter 50-70 ms at 10,000 versions)."""
    import random
    import re

    definition = re.compile(rb"(?:^|[\[,:\s])-?[0-9]{19}")
    rng = random.Random(5)
    alphabet = b"0123456789-,:[] \t\n\"ab"
    samples = [b"", b"1" * 19, b"-" + b"2" * 19, b"x" + b"3" * 19, b"[-" + b"4" * 25, b"a-" + b"5" * 30]
    for _ in range(3000):
        samples.append(bytes(rng.choice(alphabet) if rng.random() < 0.3 else rng.choice(b"0123456789")
                             for _ in range(rng.randint(0, 60))))  # fmt: skip
    for data in samples:
        assert log_index._has_long_number(data) == (definition.search(data) is not None), data


def test_an_index_written_in_pieces_reads_back_the_same(home, store, monkeypatch):
    monkeypatch.setattr(log_index, "ROWS_PER_PIECE", 3)
    monkeypatch.setattr(log_index, "PIECE_BYTES", 64)
    index = {"v": 3, "events": [1, 2, 3], "problems": ["a line with ],[ in it"],
             "rows": [["id1", 1.5, "memory", "write", "agent", "s],[1", None, {"note": "x],[y"}, 1, 0, 1]]
             + [[f"id{n}", float(n), "skill", "patch", "agent", None, None, None, f"name-{n}", "md", False, "active", True]
                for n in range(2, 12)]}  # fmt: skip
    data = log_index._encode(index)
    assert data == json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode()  # the same bytes as one call
    assert log_index._decode(data) == index
    assert log_index._decode_in_pieces(data) == index
