"""A stand-in agent for the Inbox tests: stages memory adds, as upstream's agent does, at a
steady pace while the person decides.

    python agent_stager.py HOME COUNT INTERVAL_SECONDS

Prints ``ready`` before the first record, then each record's id, then ``done``.
"""

import sys
import time

from inbox_helpers import stage

from hermes_memory.home import HermesHome


def main(home_path: str, count: int, interval: float) -> None:
    home = HermesHome.resolve(home_path)
    print("ready", flush=True)
    for number in range(count):
        time.sleep(interval)
        record_id = f"ab{number:06x}"
        stage(home, "memory", record_id, {"action": "add", "target": "memory",
              "content": f"Agent fact {number}, staged while the person decided."},
              summary=f"Add memory: agent fact {number}", session_id="20261201_101500_agent")  # fmt: skip
        print(record_id, flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
