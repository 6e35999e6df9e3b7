"""Hostile and broken input against the memory stores (issue 10, integrity and availability).

Each test is named after the class of input it guards against. Where a command must refuse,
the home is compared byte for byte before and after (``home_snapshot``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from home_snapshot import differences, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_memory import fileio
from hermes_memory.config import load_config, set_config_value
from hermes_memory.home import HermesHome
from hermes_memory.memory import edits
from hermes_memory.memory.entries import fingerprint
from hermes_memory.memory.store import MemoryStore, clean_content, read_store_file
from hermes_memory.memory.tool import dispatch
from hermes_memory.skills.usage import read_usage, update_usage

UNSTORABLE = {
    "nul": "\x00",
    "escape": "\x1b",
    "vertical_tab": "\x0b",
    "form_feed": "\x0c",
    "delete": "\x7f",
    "c1_next_line": "\x85",
    "c1_csi": "\x9b",
    "lone_high_surrogate": "\ud800",
    "lone_low_surrogate": "\udcff",
    "noncharacter_fffe": "\ufffe",
    "noncharacter_ffff": "\uffff",
    "noncharacter_fdd0": "\ufdd0",
    "noncharacter_plane_16": "\U0010ffff",
}


def cli(home: HermesHome, *args, stdin: bytes = b"", timeout: float = 30):
    """The real console command in a subprocess (a hang fails by timeout, not forever)."""
    argv = [sys.executable, "-m", "hermes_memory.cli", "--home", str(home.path), *args]
    result = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout, check=False)
    return (
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )


def assert_no_traceback(err: str) -> None:
    assert "Traceback" not in err and "unexpected error" not in err, err


def make_home(folder: Path) -> HermesHome:
    (folder / "memories").mkdir(parents=True)
    return HermesHome.resolve(folder)


# --- integrity: a NUL byte and other characters that cannot round-trip ----------------------
def test_nul_byte_from_stdin_is_refused_and_the_store_keeps_working(home):
    home.memory_file.write_text("Project uses pnpm", encoding="utf-8")
    before = snapshot(home.path)
    code, _, err = cli(home, "add", "memory", "-", stdin=b"a\x00b")
    assert code == 1
    assert "U+0000 (a control character)" in err
    assert_no_traceback(err)
    assert differences(before, snapshot(home.path)) == []
    code, _, err = cli(home, "add", "memory", "Deploys go through CI")
    assert code == 0, err
    assert read_store_file(home.memory_file).entries == ["Project uses pnpm", "Deploys go through CI"]


@pytest.mark.parametrize("char", UNSTORABLE.values(), ids=UNSTORABLE.keys())
def test_unstorable_characters_are_refused_by_every_write(home, store, char):
    store.add("memory", "first entry")
    store.add("user", "likes tea")
    before = snapshot(home.path)
    text = f"note {char} here"
    results = [
        store.add("memory", text),
        store.replace("memory", "first", text),
        store.apply_batch("memory", [{"action": "add", "content": text}]),
        store.apply_batch("memory", [{"action": "replace", "old_text": "first", "content": text}]),
        store.replace_by_fingerprint("memory", "0" * 12, text),
        edits.save_draft(store, "memory", ["first entry"], ["first entry", text]),
        dispatch(action="add", target="user", content=text, store=store),
    ]
    for result in results:
        assert result["success"] is False
        assert f"U+{ord(char):04X}" in result["error"], result["error"]
    assert edits.check_entry(text).blocked
    assert differences(before, snapshot(home.path)) == []


def test_carriage_returns_are_stored_as_the_file_reads_them_back(home, store):
    assert store.add("memory", "line one\r\nline two\rline three")["success"]
    assert home.memory_file.read_bytes() == b"line one\nline two\nline three"
    assert store.read_entries("memory") == ["line one\nline two\nline three"]
    again = store.add("memory", "line one\nline two\r\nline three")
    assert again["message"] == "Entry already exists (no duplicate added)."
    assert store.replace("memory", "two\r\nline", "one line")["success"]


def test_a_poisoned_file_reads_with_a_clear_warning_and_can_be_repaired(home):
    # What an older engine wrote after `printf 'a\0b' | hermes-memory add memory -`.
    home.memory_file.write_bytes("Project uses pnpm\n§\na\x00b".encode())
    code, out, err = cli(home, "show", "memory")
    assert code == 0
    assert "entry 2 holds characters a memory entry cannot hold" in err
    assert "U+0000" in err and "a\\x00b" in out  # shown escaped, never raw
    code, out, _ = cli(home, "status")
    assert code == 0 and "warning: MEMORY.md: entry 2" in out
    code, _, err = cli(home, "add", "memory", "Deploys go through CI")  # not wedged
    assert code == 0, err
    code, _, err = cli(home, "remove", "memory", "Deploys")
    assert code == 0, err
    assert MemoryStore(home).remove_by_fingerprint("memory", fingerprint("a\x00b"))["success"]
    assert home.memory_file.read_bytes() == b"Project uses pnpm"
    code, _, _ = cli(home, "show", "memory")
    assert code == 0


def test_a_zero_filled_file_is_still_refused_as_binary(home, store):
    home.memory_file.write_bytes(b"Project uses pnpm\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
    before = snapshot(home.path)
    result = store.add("memory", "x")
    assert result["success"] is False and "binary" in result["error"]
    assert differences(before, snapshot(home.path)) == []


def test_a_single_sectioned_entry_is_refused_rather_than_read_back_split(home, store):
    text = "## Build\nuse pnpm\n## Deploy\nthrough CI"
    result = store.add("memory", text)
    assert result["success"] is False
    assert "'## ' headings" in result["error"]
    assert not home.memory_file.exists()
    store.add("memory", "another entry")
    assert store.add("memory", text)["success"]  # with a delimiter in the file it round-trips
    assert store.read_entries("memory") == ["another entry", text]


# --- integrity: symbolic links ---------------------------------------------------------------
def test_memories_folder_linked_outside_the_home_is_not_written_through(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "MEMORY.md").write_text("outside entry", encoding="utf-8")
    root = tmp_path / "home"
    root.mkdir()
    (root / "memories").symlink_to(outside)
    home = HermesHome.resolve(root)
    outside_before = snapshot(outside)
    result = MemoryStore(home).add("memory", "new entry")
    assert result["success"] is False
    assert "leads outside the Hermes home" in result["error"]
    assert differences(outside_before, snapshot(outside)) == []  # not even a lock file
    assert MemoryStore(home).read_entries("memory") == ["outside entry"]  # reads follow


def test_memory_file_linked_inside_the_home_is_written_through_and_stays_a_link(home, store):
    shared = home.path / "shared"
    shared.mkdir()
    (shared / "notes.md").write_text("first", encoding="utf-8")
    home.memory_file.symlink_to(Path("..") / "shared" / "notes.md")
    assert store.add("memory", "second")["success"]
    assert home.memory_file.is_symlink()
    assert (shared / "notes.md").read_text(encoding="utf-8") == "first\n§\nsecond"
    assert store.remove("memory", "first")["success"]
    assert home.memory_file.is_symlink()


def test_memory_file_linked_outside_the_home_is_refused_and_the_link_kept(tmp_path):
    home = make_home(tmp_path / "home")
    target = tmp_path / "dotfiles" / "MEMORY.md"
    target.parent.mkdir()
    target.write_text("kept", encoding="utf-8")
    home.memory_file.symlink_to(target)
    before, target_before = snapshot(home.path), snapshot(target.parent)
    result = MemoryStore(home).add("memory", "new")
    assert result["success"] is False and "outside the Hermes home" in result["error"]
    assert differences(before, snapshot(home.path)) == []
    assert differences(target_before, snapshot(target.parent)) == []
    assert home.memory_file.is_symlink()


def test_lock_file_linked_outside_the_home_creates_nothing_there(tmp_path):
    home = make_home(tmp_path / "home")
    victim = tmp_path / "victim.txt"
    fileio.lock_path_for(home.memory_file).symlink_to(victim)
    before = snapshot(home.path)
    result = MemoryStore(home).add("memory", "x")
    assert result["success"] is False and "outside the Hermes home" in result["error"]
    assert not victim.exists()
    assert differences(before, snapshot(home.path)) == []


def test_usage_json_linked_inside_the_home_stays_a_link_and_outside_is_refused(tmp_path):
    home = make_home(tmp_path / "home")
    home.skills_dir.mkdir()
    records = home.path / "records.json"
    records.write_text("{}", encoding="utf-8")
    home.skills_usage_file.symlink_to(records)
    update_usage(home, lambda data: data.setdefault("demo", {"pinned": True}))
    assert home.skills_usage_file.is_symlink()
    assert json.loads(records.read_text(encoding="utf-8")) == {"demo": {"pinned": True}}
    outside = tmp_path / "outside.json"
    outside.write_text("{}", encoding="utf-8")
    home.skills_usage_file.unlink()
    home.skills_usage_file.symlink_to(outside)
    with pytest.raises(OSError, match="outside the Hermes home"):
        update_usage(home, lambda data: data.setdefault("demo", {}))
    assert outside.read_text(encoding="utf-8") == "{}"
    assert home.skills_usage_file.is_symlink()


def test_config_yaml_linked_outside_the_home_is_not_rewritten(tmp_path):
    home = make_home(tmp_path / "home")
    dotfile = tmp_path / "dotfiles" / "config.yaml"
    dotfile.parent.mkdir()
    dotfile.write_text("memory:\n  provider: ''\n", encoding="utf-8")
    home.config_file.symlink_to(dotfile)
    assert load_config(home).data == {"memory": {"provider": ""}}  # reads follow
    with pytest.raises(OSError, match="outside the Hermes home"):
        set_config_value(home, "memory.provider", "holographic")
    assert dotfile.read_text(encoding="utf-8") == "memory:\n  provider: ''\n"


def test_a_home_that_is_itself_a_link_is_written_normally(tmp_path):
    real = tmp_path / "data" / "hermes"
    (real / "memories").mkdir(parents=True)
    link = tmp_path / "dot-hermes"
    link.symlink_to(real)
    store = MemoryStore(HermesHome.resolve(link))
    assert store.add("memory", "through the home link")["success"]
    assert (real / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "through the home link"


# --- integrity: leftover temp files ------------------------------------------------------------
def test_stale_temp_files_are_removed_under_the_lock_and_fresh_ones_kept(home, store):
    folder = home.memories_dir
    stale = [folder / ".mem_ab12cd34.tmp", folder / ".mem_8fj2k_x9.tmp"]
    fresh = folder / ".mem_freshone.tmp"
    not_ours = [folder / "notes.tmp", folder / ".mem_notes.md", folder / ".memories_x_12345678.tmp"]
    old = time.time() - fileio.STALE_TEMP_SECONDS - 60
    for path in [*stale, fresh, *not_ours]:
        path.write_text("a full copy of memory", encoding="utf-8")
    for path in [*stale, *not_ours]:
        os.utime(path, (old, old))
    assert store.add("memory", "x")["success"]
    assert not any(path.exists() for path in stale)
    assert fresh.exists() and all(path.exists() for path in not_ours)


# --- availability: FIFOs, devices, unbounded input ----------------------------------------------
@pytest.mark.slow
def test_fifo_as_memory_file_neither_hangs_nor_holds_the_lock(home):
    os.mkfifo(home.memory_file)
    before = snapshot(home.path)
    for command in (["status"], ["show"], ["show", "--prompt"], ["add", "memory", "x"],
                    ["remove", "memory", "x"], ["sessions", "provenance"]):  # fmt: skip
        started = time.monotonic()
        code, _, err = cli(home, *command, timeout=20)
        assert code == 1, (command, err)
        assert "FIFO" in err or "FIFO" in _, (command, err)
        assert time.monotonic() - started < fileio.DEFAULT_LOCK_TIMEOUT
        assert_no_traceback(err)
    assert differences(before, snapshot(home.path)) == []
    code, _, err = cli(home, "add", "user", "still works", timeout=20)
    assert code == 0, err


def test_device_as_memory_file_is_refused_not_read(home, store):
    home.memory_file.symlink_to("/dev/zero")
    started = time.monotonic()
    status = store.add("memory", "x")
    assert status["success"] is False and "device" in status["error"]
    with pytest.raises(Exception, match="device"):
        store.read_entries("memory")
    assert time.monotonic() - started < 5


def test_fifo_lock_file_and_fifo_settings_files_do_not_hang(home, store):
    os.mkfifo(fileio.lock_path_for(home.memory_file))
    result = store.add("memory", "x")
    assert result["success"] is False and "FIFO" in result["error"]
    os.mkfifo(home.config_file)
    assert any("FIFO" in warning for warning in load_config(home).warnings)
    home.skills_dir.mkdir()
    os.mkfifo(home.skills_usage_file)
    assert "FIFO" in (read_usage(home).error or "")
    with pytest.raises(OSError, match="FIFO"):
        update_usage(home, lambda data: None)
    assert store.add("user", "the other store still works")["success"]


@pytest.mark.slow
def test_stdin_from_dev_zero_is_bounded(home):
    with open("/dev/zero", "rb") as zero:
        argv = [sys.executable, "-m", "hermes_memory.cli", "--home", str(home.path), "add",
                "memory", "-"]  # fmt: skip
        result = subprocess.run(argv, stdin=zero, capture_output=True, timeout=30, check=False)
    assert result.returncode == 1
    assert b"standard input is over" in result.stderr


def test_batch_file_that_is_a_fifo_or_a_device_is_refused(home, tmp_path):
    fifo = tmp_path / "ops.json"
    os.mkfifo(fifo)
    for source in (str(fifo), "/dev/zero"):
        code, _, err = cli(home, "batch", "memory", source, timeout=20)
        assert code == 2 and "not a regular file" in err, err



def test_every_file_argument_refuses_fifos_devices_and_other_encodings(home, tmp_path):
    """``node edit FILE`` and ``pending edit ID FILE`` read like ``batch FILE``: a regular
    UTF-8 file only, bounded; a FIFO would hang and /dev/zero would never end."""
    home.memory_file.write_text("Project uses pnpm", encoding="utf-8")
    fifo = tmp_path / "text.md"
    os.mkfifo(fifo)
    latin1 = tmp_path / "latin1.md"
    latin1.write_bytes(b"caf\xe9")
    node_id = f"memory:memory:{fingerprint('Project uses pnpm')}"
    before = snapshot(home.path)
    for source, said in ((str(fifo), "not a regular file"), ("/dev/zero", "not a regular file"),
                         (str(latin1), "not UTF-8")):  # fmt: skip
        for args in (["node", "edit", node_id, source], ["pending", "edit", "ab12cd34", source]):
            code, _, err = cli(home, *args, timeout=20)
            assert code == 2 and said in err, (args, err)  # a usage error, as for batch FILE
            assert_no_traceback(err)
    assert not differences(before, snapshot(home.path))


def test_a_fifo_named_env_is_not_read_for_provider_settings(home):
    from hermes_memory.providers.commands import _dotenv_names

    os.mkfifo(home.env_file)  # opening it for reading would block until a writer came
    assert _dotenv_names(home) == set()
    home.env_file.unlink()
    home.env_file.write_text("export OPENAI_API_KEY=sk-x\nEMPTY=\n", encoding="utf-8")
    assert _dotenv_names(home) == {"OPENAI_API_KEY"}

# --- availability: tracebacks --------------------------------------------------------------------
@pytest.mark.slow
def test_lone_surrogates_in_arguments_and_stdin_give_messages_not_tracebacks(home):
    home.memory_file.write_text("Project uses pnpm", encoding="utf-8")
    before = snapshot(home.path)
    bad = b"caf\xe9"  # Latin-1 bytes: Python turns them into a lone surrogate
    for command, code_expected in (
        (["add", "memory", bad], 1),
        (["replace", "memory", bad, "new"], 1),
        (["replace", "memory", "pnpm", bad], 1),
        (["remove", "memory", bad], 1),
        (["--json", "remove", "memory", bad], 1),
        (["scan", bad], 0),
        (["add", "memory", "-"], 1),
    ):
        code, out, err = cli(home, *command, stdin=bad)
        assert code == code_expected, (command, out, err)
        assert_no_traceback(err)
    assert differences(before, snapshot(home.path)) == []


def test_memory_tool_dispatch_returns_errors_instead_of_raising(home, store):
    before = snapshot(home.path)
    calls = [
        {"action": "add", "content": "caf\udce9"},
        {"action": "add", "content": 12345},
        {"action": "add", "content": ["a", "list"]},
        {"action": "replace", "old_text": {"x": 1}, "content": "y"},
        {"action": 7, "content": "x"},
        {"action": "add", "target": ["memory"], "content": "x"},
        {"action": "remove", "old_text": "caf\udce9"},
        {"operations": [{"action": "add", "content": "caf\udce9"}]},
        {"operations": [{"action": "add", "content": 1}, "junk", None]},
        {"operations": [{"action": ["add"], "content": "x"}]},
    ]
    for call in calls:
        result = dispatch(store=store, **call)
        assert result["success"] is False, (call, result)
        assert isinstance(result["error"], str) and result["error"]
        json.dumps(result, ensure_ascii=False)
    assert differences(before, snapshot(home.path)) == []


def test_batch_with_deeply_nested_json_or_huge_integers_is_a_usage_error(home, tmp_path):
    before = snapshot(home.path)
    cases = {
        "nested.json": "[" * 100_000 + "]" * 100_000,
        "huge.json": '[{"action": "add", "content": ' + "9" * 5000 + "}]",
        "not-utf8.json": None,
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is None:
            path.write_bytes(b'[{"action": "add", "content": "caf\xe9"}]')
        else:
            path.write_text(text, encoding="utf-8")
        code, _, err = cli(home, "batch", "memory", str(path))
        assert code == 2, (name, err)
        assert_no_traceback(err)
    assert differences(before, snapshot(home.path)) == []


def test_show_prompt_and_writes_when_memories_is_a_file(tmp_path):
    root = tmp_path / "home"
    root.mkdir()
    (root / "memories").write_text("not a folder", encoding="utf-8")
    home = HermesHome.resolve(root)
    before = snapshot(root)
    for command in (["show", "--prompt"], ["show"], ["status"], ["add", "memory", "x"],
                    ["remove", "memory", "x"], ["batch", "memory", "-"]):  # fmt: skip
        code, out, err = cli(home, *command, stdin=b'[{"action": "add", "content": "x"}]')
        assert code == 1, (command, err)
        assert "not a folder" in out + err or "is a file" in out + err, (command, err)
        assert_no_traceback(err)
    assert differences(before, snapshot(root)) == []


def test_reading_creates_nothing_in_the_home(tmp_path):
    root = tmp_path / "home"
    root.mkdir()
    home = HermesHome.resolve(root)
    store = MemoryStore(home)
    store.load_from_disk()
    assert list(root.iterdir()) == []


# --- the whole class, swept -------------------------------------------------------------------
def _hostile_homes(tmp_path: Path):
    """(name, home) pairs, each broken in one way; all but the last make reads fail too."""
    def fresh(name: str) -> HermesHome:
        return make_home(tmp_path / name)

    home = fresh("nul-file")
    home.memory_file.write_bytes(b"\x00" * 64)
    yield "nul-file", home
    home = fresh("not-utf8")
    home.memory_file.write_bytes(b"caf\xe9")
    yield "not-utf8", home
    home = fresh("huge")
    home.memory_file.write_bytes(b"a" * (5 * 1024 * 1024))
    yield "huge", home
    home = fresh("folder-as-file")
    home.memory_file.mkdir()
    yield "folder-as-file", home
    home = fresh("device")
    home.memory_file.symlink_to("/dev/null")
    yield "device", home
    home = fresh("fifo")
    os.mkfifo(home.memory_file)
    yield "fifo", home
    home = fresh("dangling-outside")
    home.memory_file.symlink_to(tmp_path / "nowhere" / "MEMORY.md")
    yield "dangling-outside", home


@pytest.mark.slow
def test_every_hostile_home_gets_a_message_and_stays_byte_identical(tmp_path):
    writes = (["add", "memory", "x"], ["replace", "memory", "a", "b"], ["remove", "memory", "a"],
              ["batch", "memory", "-"])  # fmt: skip
    reads = (["status"], ["show"], ["show", "--prompt"], ["--json", "show", "memory"])
    for name, home in _hostile_homes(tmp_path):
        before = snapshot(home.path)
        for command in (*writes, *reads):
            code, out, err = cli(home, *command, stdin=b'[{"action": "add", "content": "x"}]',
                                 timeout=20)  # fmt: skip
            if name == "dangling-outside" and command in reads:
                assert code == 0, (name, command, out, err)  # a missing file reads as empty
                continue
            assert code == 1, (name, command, out, err)
            assert err.strip() or "unreadable" in out or '"error"' in out, (name, command)
            assert_no_traceback(err)
        assert differences(before, snapshot(home.path)) == [], name


# --- the property -----------------------------------------------------------------------------
_TRICKY = st.lists(
    st.sampled_from(["§", "\n", "## ", "\r", "\r\n", " ", "\t", "\ufeff", "a", "\x00", "\x85",
                     "\u2028", "é", "\udcff", "\n§\n", "#"]),  # fmt: skip
    min_size=1,
    max_size=12,
).map("".join)
_ENTRY_TEXT = st.one_of(st.text(min_size=1, max_size=40), _TRICKY)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=_ENTRY_TEXT, second=_ENTRY_TEXT)
def test_no_text_accepted_by_add_makes_the_next_add_or_read_fail(first, second):
    with tempfile.TemporaryDirectory() as folder:
        home = make_home(Path(folder))
        store = MemoryStore(home)
        expected: list[str] = []
        for text in (first, second):
            result = dispatch(action="add", target="memory", content=text, store=store)
            if result["success"] and clean_content(text) not in expected:
                expected.append(clean_content(text))
            assert store.read_entries("memory") == expected
        assert store.add("memory", "a plain follow-up note")["success"]
        expected.append("a plain follow-up note")
        assert read_store_file(home.memory_file).entries == expected
        store.load_from_disk()
        assert store.read_errors == {}
        for entry in expected[:-1]:
            assert store.remove("memory", entry)["success"], entry
        assert store.read_entries("memory") == ["a plain follow-up note"]


# --- issue 11 §4 ---------------------------------------------------------------------------------
def test_issue_11_memory_tool_validation_errors_carry_success_false(store):
    cases = {
        "Invalid target 'notes'. Use 'memory' or 'user'.": {"target": "notes", "action": "add"},
        "operations must be a list of {action, content?, old_text?} objects.": {
            "operations": "add x"
        },
        "Content is required for 'add' action.": {"action": "add"},
        "content is required for 'replace' action.": {"action": "replace", "old_text": "x"},
        "Unknown action 'purge'. Use: add, replace, remove": {"action": "purge"},
    }
    for message, call in cases.items():
        assert dispatch(store=store, **call) == {"error": message, "success": False}


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
    | st.sampled_from(["add", "replace", "remove", "memory", "user", "x"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["action", "content", "old_text", "x"]), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(action=_JSON, target=_JSON, content=_JSON, old_text=_JSON, operations=_JSON)
def test_memory_tool_dispatch_never_raises_for_any_json_arguments(
    action, target, content, old_text, operations
):
    with tempfile.TemporaryDirectory() as folder:
        store = MemoryStore(make_home(Path(folder)))
        store.add("memory", "x marks the spot")
        result = dispatch(action, target, content, old_text, operations, store=store)
        assert isinstance(result, dict) and isinstance(result.get("success"), bool), result
        json.dumps(result, ensure_ascii=False)
        assert store.read_entries("memory")  # still readable


def test_a_refused_first_write_creates_nothing_in_the_home(tmp_path):
    root = tmp_path / "home"
    root.mkdir()
    store = MemoryStore(HermesHome.resolve(root))
    for result in (
        store.add("memory", "## Build\nuse pnpm\n## Deploy\nthrough CI"),
        store.add("memory", "x" * 5000),
        store.remove("memory", "nothing here"),
        store.apply_batch("memory", [{"action": "replace", "old_text": "none", "content": "y"}]),
    ):
        assert result["success"] is False
    assert list(root.iterdir()) == []


def test_memory_tool_payload_stays_valid_utf8_when_a_refusal_echoes_a_surrogate(store):
    from hermes_memory.memory.tool import memory_tool

    text = memory_tool(action="remove", old_text="caf\udce9", store=store)
    text.encode("utf-8")  # sendable by any agent loop
    assert json.loads(text)["success"] is False
    assert json.loads(memory_tool(action="add", content="café", store=store))["success"]
    assert "café" in memory_tool(action="remove", old_text="nothing", store=store)


def test_a_dangling_memories_link_is_refused_outside_and_made_inside_the_home(tmp_path):
    root = tmp_path / "home"
    root.mkdir()
    (root / "memories").symlink_to(tmp_path / "gone")
    result = MemoryStore(HermesHome.resolve(root)).add("memory", "x")
    assert result["success"] is False and "outside the Hermes home" in result["error"]
    assert not (tmp_path / "gone").exists()
    (root / "memories").unlink()
    (root / "memories").symlink_to("stores/memories")
    assert MemoryStore(HermesHome.resolve(root)).add("memory", "x")["success"]
    assert (root / "stores" / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "x"
    assert (root / "memories").is_symlink()
