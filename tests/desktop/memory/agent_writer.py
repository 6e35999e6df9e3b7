"""A stand-in agent for the editor tests, writing through the engine as the agent does.

    python agent_writer.py HOME COUNT INTERVAL_SECONDS [PREFIX]   add COUNT entries, steadily
    python agent_writer.py HOME --replace OLD_TEXT NEW_CONTENT     replace one entry

Prints ``ready`` before the first write and ``done`` after the last; exits 3 on a refusal.
"""

import sys
import time

from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore


def add_steadily(store: MemoryStore, count: int, interval: float, prefix: str) -> None:
    for number in range(count):
        time.sleep(interval)
        result = store.add("memory", f"{prefix} {number}: noted while the person edited")
        if not result.get("success"):
            print(f"error {result}", flush=True)
            sys.exit(3)


def main(argv: list[str]) -> None:
    store = MemoryStore(HermesHome.resolve(argv[0]))
    print("ready", flush=True)
    if argv[1] == "--replace":
        result = store.replace("memory", argv[2], argv[3])
        if not result.get("success"):
            print(f"error {result}", flush=True)
            sys.exit(3)
    else:
        prefix = argv[3] if len(argv) > 3 else "Agent fact"
        add_steadily(store, int(argv[1]), float(argv[2]), prefix)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
