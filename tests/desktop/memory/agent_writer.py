"""A stand-in agent for the editor tests: adds entries through the engine at a steady pace.

    python agent_writer.py HOME COUNT INTERVAL_SECONDS

Prints ``ready`` before the first write and ``done`` after the last; exits 3 on a refusal.
"""

import sys
import time

from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore


def main(home_path: str, count: int, interval: float) -> None:
    store = MemoryStore(HermesHome.resolve(home_path))
    print("ready", flush=True)
    for number in range(count):
        time.sleep(interval)
        result = store.add("memory", f"Agent fact {number}: noted while the person edited")
        if not result.get("success"):
            print(f"error {result}", flush=True)
            sys.exit(3)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
