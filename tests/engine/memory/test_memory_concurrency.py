"""Concurrency (spec §2.7): many writer processes at once, and writers killed mid-write."""

import multiprocessing
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import parse_entries, serialise_entries
from hermes_memory.memory.store import MemoryStore, read_store_file

WRITERS = 8
ENTRIES_PER_WRITER = 25


def _add_entries(home_path: str, writer: int, barrier) -> None:
    store = MemoryStore(HermesHome.resolve(home_path))
    barrier.wait()
    for number in range(ENTRIES_PER_WRITER):
        result = store.add("memory", f"writer {writer} fact {number}")
        assert result["success"], result


@pytest.mark.slow
def test_eight_processes_adding_at_once_lose_nothing(home, write_config):
    write_config("memory:\n  memory_char_limit: 100000\n")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WRITERS)
    processes = [
        context.Process(target=_add_entries, args=(str(home.path), writer, barrier))
        for writer in range(WRITERS)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    raw = home.memory_file.read_text(encoding="utf-8")
    entries = parse_entries(raw)
    expected = {f"writer {w} fact {n}" for w in range(WRITERS) for n in range(ENTRIES_PER_WRITER)}
    assert set(entries) == expected
    assert len(entries) == WRITERS * ENTRIES_PER_WRITER
    assert raw == serialise_entries(entries)  # canonical
    for writer in range(WRITERS):  # each writer's own entries stay in its order
        mine = [e for e in entries if e.startswith(f"writer {writer} ")]
        assert mine == [f"writer {writer} fact {n}" for n in range(ENTRIES_PER_WRITER)]


def _successor(entries: list[str], make_entry) -> list[str]:
    """The state the crash writer commits after ``entries`` (see crash_writer.py)."""
    numbers = [int(e.split()[1]) for e in entries]
    following = (numbers[-1] + 1) if numbers else 0
    kept = entries if len(entries) < 20 else entries[1:]
    return [*kept, make_entry(following)]


@pytest.mark.slow
def test_writer_killed_at_random_moments_never_leaves_a_torn_file(home, write_config):
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from crash_writer import entry
    finally:
        sys.path.pop(0)
    write_config("memory:\n  memory_char_limit: 100000\n")
    rng = random.Random(20261129)
    script = Path(__file__).with_name("crash_writer.py")
    # Every run continues from the file it finds, so all runs walk one deterministic chain
    # of states; the file must always be exactly one of its links.
    state: list[str] = []
    commits_seen = 0
    for _kill in range(60):
        writer = subprocess.Popen(
            [sys.executable, str(script), str(home.path)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout.readline().strip() == "ready"
        # Let a few commits through (so the chain advances even on a loaded machine), then
        # kill after a random sub-write delay so the kill lands anywhere in the cycle.
        lines = [writer.stdout.readline().strip() for _ in range(rng.randint(0, 4))]
        time.sleep(rng.uniform(0, 0.004))
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        # Read the rest through the same text stream: communicate(timeout=...) reads the
        # pipe directly and would miss lines readline() already buffered.
        lines += writer.stdout.read().splitlines()
        writer.stdout.close()
        assert not [line for line in lines if line.startswith("error")]
        reported = sum(1 for line in lines if line.startswith("committed"))
        commits_seen += reported
        for _ in range(reported):
            state = _successor(state, entry)

        on_disk = read_store_file(home.memory_file)  # raises if torn or not UTF-8
        assert on_disk.raw == serialise_entries(on_disk.entries)
        in_flight = _successor(state, entry)
        assert on_disk.entries in (state, in_flight)
        state = on_disk.entries  # a kill after the rename but before the report
    assert commits_seen >= 100  # the kills landed between and during real writes
