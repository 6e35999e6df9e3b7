"""A stand-in agent for the Sessions tests: it records a conversation in state.db and
writes MEMORY.md through the memory tool, at a steady pace, while the person works.

    python agent_writer.py HOME COUNT INTERVAL_SECONDS

Prints ``ready``, then each entry it wrote, then ``done``.
"""

import sys
import time

from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore
from hermes_memory.sessions import SessionWriter


def main(home_path: str, count: int, interval: float) -> None:
    home = HermesHome.resolve(home_path)
    session = "20261201_agent_live"
    with SessionWriter(home.state_db) as writer:
        writer.create_session(session, "cli", model="hermes-4-70b")
    print("ready", flush=True)
    for number in range(count):
        time.sleep(interval)
        entry = f"Live agent fact {number}: the agent wrote this while the person reverted."
        with SessionWriter(home.state_db) as writer:
            writer.append_message(session, "user", content=f"Remember fact number {number}, please.")
        result = MemoryStore(home).add("memory", entry)
        if not result.get("success"):
            print(f"refused {result}", flush=True)
            continue
        print(entry, flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
