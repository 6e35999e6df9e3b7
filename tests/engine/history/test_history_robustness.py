"""Damaged, truncated, huge and hostile history files: a clear message, the rest usable."""

from __future__ import annotations

import json
import os

import pytest
from history_helpers import entries, events

from hermes_memory.history import storage
from hermes_memory.history.service import log, show
from hermes_memory.history.storage import HistoryError, HistoryStore
from hermes_memory.history.timeline import Timeline


def test_bad_lines_are_skipped_and_reported(home, store):
    store.add("memory", "One")
    path = HistoryStore(home).events_path
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("not json at all\n")
        handle.write(json.dumps({"id": "x", "ts": "yesterday", "kind": "memory", "entries": []}) + "\n")
        handle.write(json.dumps({"id": "y", "ts": 1.0, "kind": "../../etc", "entries": []}) + "\n")
        handle.write(json.dumps(["a", "list"]) + "\n")
        handle.write('{"id": "cut", "ts": 1700000000, "kind": "mem')  # a crash mid-append
    result = log(home)
    assert result["ok"] and len(result["events"]) == 1
    assert len(result["problems"]) == 5
    assert any("not JSON" in p for p in result["problems"])
    # the next write starts on its own line, and the damaged lines stay as they were
    store.add("memory", "Two")
    assert [len(e["entries"]) for e in events(home)] == [1, 2]
    assert '"kind": "mem\n' in path.read_text(encoding="utf-8")


def test_a_tampered_blob_is_not_trusted(home, store):
    store.add("memory", "Real text")
    blobs = HistoryStore(home).blobs_path
    line = json.loads(blobs.read_text(encoding="utf-8"))
    blobs.write_text(json.dumps({"h": line["h"], "t": "Injected text"}) + "\n", encoding="utf-8")
    (event,) = events(home)
    assert Timeline(home).entries(event) == [f"(text {line['h']} missing from history)"]
    assert show(home, event["id"])["ok"]


def test_huge_history_is_refused_with_a_message(home, store, monkeypatch):
    store.add("memory", "One")
    monkeypatch.setattr(storage, "MAX_FILE_BYTES", 10)
    result = log(home)
    assert not result["ok"] and "far more than any history" in result["error"]
    assert store.add("memory", "Two")["success"]  # the stores keep working
    assert entries(home) == ["One", "Two"]


def test_links_are_refused(home, store, tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text("", encoding="utf-8")
    history = HistoryStore(home)
    history.dir.mkdir(parents=True)
    os.symlink(outside, history.events_path)
    assert store.add("memory", "Saved anyway")["success"]
    assert outside.read_text(encoding="utf-8") == ""
    with pytest.raises(HistoryError, match="symbolic link"):
        history.read_events()
    assert "symbolic link" in log(home)["error"]


def test_unknown_and_hostile_ids(home, store):
    store.add("memory", "One")
    for bad in ("../../x", "", "ledger-../x", "a" * 5000):
        result = show(home, bad)
        assert not result["ok"] and "No history version" in result["error"]


def test_capture_reports_an_unreadable_store_and_keeps_the_rest(home):
    # a run of NUL bytes: the store refuses it as binary (a single stray NUL still loads)
    home.user_file.write_bytes(b"\x00" * 16 + b"binary")
    home.memory_file.write_text("Readable entry", encoding="utf-8")
    from hermes_memory.history.capture import capture

    result = capture(home)
    assert not result["ok"] and result["recorded"] == 1
    assert any("binary" in p for p in result["problems"])
    assert [e["kind"] for e in events(home)] == ["memory"]


def _event_lines(count: int) -> list[bytes]:
    return [json.dumps({"id": f"e{n}", "ts": 1_700_000_000 + n, "kind": "memory", "entries": [f"fact {n}"]}).encode()
            for n in range(count)]


@pytest.mark.parametrize(
    "data",
    [
        b"\n".join(_event_lines(60)) + b"\n",
        b"\n".join(_event_lines(30)) + b"\n\n" + b"\n".join(_event_lines(30)),  # an empty line inside
        b"\n".join(_event_lines(40)) + b"\nnot json\n" + b"\n".join(_event_lines(5)),
        b"\n".join(_event_lines(40)) + b'\n{"id": "cut", "ts": 17',  # a crash mid-append
        b"\r\n".join(_event_lines(50)),
    ],
)
def test_a_log_decoded_in_pieces_reads_as_in_one_piece(monkeypatch, data):
    """The fast path decodes a long log a few lines at a time (each call is short, so other
    threads get their turn): the same events and problems as one decode of it all."""
    monkeypatch.setattr(storage, "LINES_PIECE_BYTES", 10**9)
    whole = storage.parse_log(data, "events.jsonl")
    monkeypatch.setattr(storage, "LINES_PIECE_BYTES", 200)
    pieces = storage.parse_log(data, "events.jsonl")
    assert (pieces.events, pieces.problems) == (whole.events, whole.problems)


def test_a_long_log_is_decoded_in_short_calls(monkeypatch):
    import orjson

    data = b"\n".join(_event_lines(8000))
    calls: list[int] = []
    real = orjson.loads
    monkeypatch.setattr(orjson, "loads", lambda text: calls.append(len(text)) or real(text))
    assert len(storage.parse_log(data, "events.jsonl").events) == 8000
    assert len(calls) >= len(data) // storage.LINES_PIECE_BYTES > 1
    assert max(calls) < 2 * storage.LINES_PIECE_BYTES
