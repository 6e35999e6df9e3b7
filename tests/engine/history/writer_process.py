"""A writer process for the concurrency test: engine writes and captures in a loop.

    python writer_process.py HOME NAME COUNT
"""

from __future__ import annotations

import sys

from hermes_memory.history.capture import capture
from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore


def main() -> None:
    home, name, count = HermesHome.resolve(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    store = MemoryStore(home, lock_timeout=60)
    written = 0
    for number in range(count):
        if store.add("memory", f"{name} wrote entry {number}")["success"]:
            written += 1
        if number % 3 == 0:
            capture(home)
    print(written)


if __name__ == "__main__":
    main()
