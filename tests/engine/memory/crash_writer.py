"""A writer process for the crash test: mutates MEMORY.md forever, reporting each commit.

The sequence of states is deterministic from the file itself, so the test can tell which
states are legal after a SIGKILL: entries are ``entry <n> <padding>`` for a contiguous
range of n; below 20 entries the next one is added, at 20 the oldest is replaced by the
next number via a batch (remove + add), exercising both write paths.
"""

import sys

from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore

PADDING = "x" * 60


def entry(number: int) -> str:
    return f"entry {number} {PADDING}"


def main(home_path: str) -> None:
    store = MemoryStore(HermesHome.resolve(home_path))
    print("ready", flush=True)
    while True:
        numbers = [int(e.split()[1]) for e in store.read_entries("memory")]
        following = (numbers[-1] + 1) if numbers else 0
        if len(numbers) < 20:
            result = store.add("memory", entry(following))
        else:
            result = store.apply_batch(
                "memory",
                [
                    {"action": "remove", "old_text": entry(numbers[0])},
                    {"action": "add", "content": entry(following)},
                ],
            )
        if not result.get("success"):
            print(f"error {result}", flush=True)
            sys.exit(3)
        print(f"committed {following}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
