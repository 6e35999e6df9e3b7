"""``.usage.json``: reading, locked updates that keep what we do not know, timestamps."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_memory.fileio import LockTimeout, file_lock
from hermes_memory.skills.usage import (
    UsageError,
    _string_to_epoch,
    count_value,
    empty_record,
    has_learning_signal,
    mutate_record,
    read_usage,
    record_timestamp,
    to_epoch,
    update_usage,
)


def test_a_missing_file_reads_as_empty(hb):
    snapshot = read_usage(hb.home)
    assert (snapshot.records, snapshot.exists, snapshot.error) == ({}, False, None)


def test_non_dict_records_are_left_out_of_records_but_kept_on_write(hb):
    hb.home.skills_usage_file.write_text('{"a": {"use_count": 2}, "_meta": [1, 2], "b": 3}')
    assert read_usage(hb.home).records == {"a": {"use_count": 2}}

    def bump(data):
        data["a"]["use_count"] += 1

    update_usage(hb.home, bump)
    assert hb.home.skills_usage_file.read_text() == (
        '{\n  "_meta": [\n    1,\n    2\n  ],\n  "a": {\n    "use_count": 3\n  },\n  "b": 3\n}'
    )


def test_unknown_fields_survive_and_output_matches_the_agents_format(hb):
    hb.usage({"zeta": {"use_count": 1, "future_field": {"x": "ü"}}, "alpha": {"pinned": False}})
    mutate_record(hb.home, "alpha", lambda record: record.update(pinned=True))
    text = hb.home.skills_usage_file.read_text(encoding="utf-8")
    assert text == json.dumps(
        {"alpha": {"pinned": True}, "zeta": {"future_field": {"x": "ü"}, "use_count": 1}},
        indent=2,
        sort_keys=True,
        ensure_ascii=False,
    )
    assert "ü" in text and not text.endswith("\n")


@pytest.mark.parametrize(
    "raw, fragment",
    [
        (b'{"a": {', "is not valid JSON"),
        (b"[1, 2]", "does not hold a JSON object"),
        (b'{"a": "\xff"}', "is not UTF-8 text"),
    ],
)
def test_a_broken_file_is_reported_and_never_overwritten(hb, raw, fragment):
    hb.home.skills_usage_file.write_bytes(raw)
    snapshot = read_usage(hb.home)
    assert snapshot.records == {} and snapshot.exists
    assert fragment in snapshot.error
    with pytest.raises(UsageError, match=fragment):
        mutate_record(hb.home, "a", lambda record: record.update(pinned=True))
    assert hb.home.skills_usage_file.read_bytes() == raw


def test_an_update_that_changes_nothing_does_not_rewrite_the_file(hb):
    hb.usage({"a": {"pinned": True}})
    before = os.stat(hb.home.skills_usage_file)
    update_usage(hb.home, lambda data: data["a"].update(pinned=True))
    after = os.stat(hb.home.skills_usage_file)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize(
    "start, change",
    [
        ({"a": {"pinned": 1}}, lambda data: data["a"].update(pinned=True)),  # equal, not the same
        ({"a": {"n": 1}, "b": {}}, lambda data: data["b"].update(x=None)),
        ({"a": {"n": 1}}, lambda data: data.pop("a")),
        ({"a": {"n": [1, 2]}}, lambda data: data["a"]["n"].append(3)),  # nested: the slow check
        ({"a": {"f": 1.5}, "z": 3}, lambda data: data.update(z=4)),
    ],
)
def test_every_real_change_is_written_in_the_agents_format(hb, start, change):
    hb.usage(start)
    update_usage(hb.home, change)
    expected = json.loads(json.dumps(start))
    change(expected)
    text = hb.home.skills_usage_file.read_text()
    assert text == json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False)


def test_updates_wait_for_the_agents_lock_file(hb):
    hb.usage({"a": {}})
    assert not (hb.home.skills_dir / ".usage.json.lock").exists()
    with file_lock(hb.home.skills_usage_file), pytest.raises(LockTimeout):
        update_usage(hb.home, lambda data: data.update(b={}), timeout=0.05)
    assert (hb.home.skills_dir / ".usage.json.lock").exists()
    assert json.loads(hb.home.skills_usage_file.read_text()) == {"a": {}}


def test_a_new_record_has_every_field_the_agent_writes(hb):
    record = mutate_record(hb.home, "fresh", lambda r: None)
    assert set(record) == set(empty_record())
    assert record == {**empty_record(record["created_at"])}
    assert to_epoch(record["created_at"]) is not None


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, None), (True, None), (12.7, 12), (5, 5), ("42", 42), ("42.9", 42), ("", None),
        ("2026-07-01T10:00:00+00:00", 1782900000), ("2026-07-01T10:00:00Z", 1782900000),
        ("2026-07-01T10:00:00", 1782900000), ("2026-07-01T12:00:00+02:00", 1782900000),
        ("yesterday", None), ([], None),
    ],
)
def test_to_epoch(value, expected):
    assert to_epoch(value) == expected


def _epoch_number_first(value: str):
    """The reading of a timestamp string as it was written first: a number, else ISO-8601."""
    text = value.strip()
    if not text:
        return None
    try:
        return int(float(text))
    except (ValueError, OverflowError):
        pass
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return int((parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp())


_TIME_PIECES = st.sampled_from(
    ["2026", "-", "07", "01", "T", "10:00:00", ".5", "+02:00", "Z", "z", " ", "1", "e", "E", "-5",
     "1.0e-5", "12e-5", "inf", "nan", "_", "0x1", "W27", "20260701", "x", "9999-12-31"]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_TIME_PIECES, max_size=6).map("".join))
def test_a_timestamp_string_reads_as_with_the_number_tried_first(text):
    """Dates are tried as dates first (quicker); the answer is what trying a number first
    gives, for any string."""
    assert _string_to_epoch(text) == _epoch_number_first(text)


def test_record_timestamp_takes_the_first_present_field_not_the_latest():
    assert record_timestamp({"last_used_at": "100", "last_viewed_at": "200"}) == 100
    assert record_timestamp({"last_activity_at": 5, "created_at": 900}) == 5
    assert record_timestamp({"last_used_at": 0, "created_at": "7"}) == 7  # 0 counts as missing
    assert record_timestamp({"last_used_at": "garbage"}) is None
    assert record_timestamp({}) is None


def test_count_values_and_the_learning_signal():
    assert [count_value(v) for v in (None, "3", 2.0, "x", True, [])] == [0, 3, 2, 0, 1, 0]
    assert has_learning_signal("profile", {"created_by": "agent"})
    assert has_learning_signal("profile", {"created_by": "learn"})
    assert has_learning_signal("profile", {"use_count": 1})
    assert not has_learning_signal("profile", {"created_by": "user", "use_count": 0})
    assert not has_learning_signal("base", {"created_by": "agent", "use_count": 9})
    assert not has_learning_signal("external", {"use_count": 9})


def test_repeated_writes_stay_byte_identical_to_the_agents_serialisation(hb):
    """After its own write, update_usage copies unchanged records as text: whatever the
    changes, the file must stay exactly json.dumps(indent=2, sort_keys=True)."""
    import random

    rng = random.Random(7)
    keys = ["a", "b-1", 'quo"te', "back\\slash", "ünï", "z" * 40, "0", "tab\there", "é"]
    values = [None, True, False, 0, 1, 7, "x", "", "line\nbreak", "ok", "agent"]
    expected = {key: {"use_count": i, "pinned": False} for i, key in enumerate(keys[:5])}
    hb.usage(expected)
    for step in range(150):
        # one or two records per write: a type-only change (1 -> True) beside a real one
        # must be written too, though the records compare equal
        edits = [(rng.choice(keys), rng.random(), rng.choice(values), rng.choice(["pinned", "state", "n"]))
                 for _ in range(rng.choice((1, 2)))]

        def change(data, edits=edits, step=step):
            for key, roll, value, field in edits:
                if roll < 0.15:
                    data.pop(key, None)
                elif roll < 0.25:
                    data[key] = {}
                elif roll < 0.3:
                    data[key] = value  # a top-level entry that is not a record
                else:
                    record = data.get(key)
                    if not isinstance(record, dict):
                        record = data[key] = {}
                    record[field] = True if value == 1 and step % 2 else value  # 1 and True alike

        update_usage(hb.home, change)
        change(expected)
        text = hb.home.skills_usage_file.read_text()
        assert text == json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False), step
        assert json.loads(text) == expected
    for first, second in ((1, True), (True, 1), (0, False), (1.0, 1)):
        for tick, value in enumerate((first, second)):
            def change(data, value=value, tick=tick):
                data["a"] = {"n": value}  # equal to the value before it, of another type
                data["b"] = {"tick": tick}  # and a real change beside it

            update_usage(hb.home, change)
            change(expected)
            text = hb.home.skills_usage_file.read_text()
            assert text == json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False)

@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": {"use_count": 3, "state": "active", "pinned": false, "created_by": null}}',
        b'{"a": {"use_count": 1}, "a": {"use_count": 2}}',  # the last of a repeated key
        b'\xef\xbb\xbf{"a": {"use_count": 1}}',  # a BOM
        b'{"a": {"use_count": NaN}, "b": {"use_count": 4}}',
        b'{"a": {"use_count": 123456789012345678901234567890}}',  # too big for 64 bits
        b'{"a": {"use_count": -3, "view_count": 2.5}}',
        b'{"a": {"created_by": "\\ud800"}}',  # a lone surrogate
        b'{"a": {"tags": ["x"]}, "b": "not a record"}',
        b'["not", "an", "object"]',
        b"",
    ],
)
def test_the_fast_read_of_a_usual_file_equals_the_bounded_reader(hb, monkeypatch, raw):
    from hermes_memory.skills import usage as usage_module

    hb.home.skills_usage_file.write_bytes(raw)
    fast = read_usage(hb.home)
    monkeypatch.setattr(usage_module, "_plain_file", lambda _raw: None)
    assert read_usage(hb.home) == fast


def _usual_file(count: int) -> bytes:
    records = {f"skill-{n:03}": {"use_count": n, "state": "active", "pinned": False} for n in range(count)}
    return json.dumps(records, indent=2, sort_keys=True, ensure_ascii=False).encode()


@pytest.mark.parametrize(
    "raw",
    [
        _usual_file(40),
        # a name repeated far apart: the last value, at the first one's place
        _usual_file(30).replace(b'"skill-029"', b'"skill-000"'),
        # hand-edited: a nested value indented like the top level, so a cut falls inside it
        b'{\n  "a": {\n  "use_count": 1,\n  "state": "active"\n  },\n  "b": {\n  "use_count": 2\n  }\n}'
        + b" " * 40,
        b"\x0c" + _usual_file(20),  # a form feed is no white space in JSON
        _usual_file(20)[:-1],  # cut short
        _usual_file(20) + b"\n{}",  # something after the object
    ],
)
def test_a_file_read_in_pieces_equals_the_whole_read(hb, monkeypatch, raw):
    import orjson

    from hermes_memory.skills import usage as usage_module

    calls: list[int] = []

    def loads(text):
        calls.append(len(text))
        return orjson.loads(text)

    monkeypatch.setattr(usage_module, "PIECE_BYTES", 64)
    try:
        whole = orjson.loads(raw)
    except orjson.JSONDecodeError:
        whole = None
    if whole is not None:
        pieces = usage_module._loads_in_pieces(raw, loads)
        assert pieces == whole and list(pieces) == list(whole)
    hb.home.skills_usage_file.write_bytes(raw)
    read = read_usage(hb.home)
    monkeypatch.setattr(usage_module, "_plain_file", lambda _raw: None)
    assert read_usage(hb.home) == read  # as the bounded reader has it


def test_a_big_usual_file_is_parsed_in_short_calls(monkeypatch):
    import orjson

    from hermes_memory.skills import usage as usage_module

    raw = _usual_file(6000)
    assert len(raw) > 4 * usage_module.PIECE_BYTES
    calls: list[int] = []

    def loads(text):
        calls.append(len(text))
        return orjson.loads(text)

    assert usage_module._loads_in_pieces(raw, loads) == orjson.loads(raw)
    assert len(calls) >= len(raw) // usage_module.PIECE_BYTES
    assert max(calls) < 2 * usage_module.PIECE_BYTES
