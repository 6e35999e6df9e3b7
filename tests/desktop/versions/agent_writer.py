"""A stand-in agent for the History tests: adds memory entries the way upstream's agent
writes (the ``<file>.lock`` flock, re-read, temp file + ``os.replace``; not this engine).

    python agent_writer.py HOME COUNT INTERVAL_SECONDS

Prints ``ready``, then each entry it wrote, then ``done``.
"""

import fcntl
import os
import sys
import tempfile
import time
from pathlib import Path

DELIMITER = "\n§\n"


def add(home: Path, text: str) -> None:
    path = home / "memories" / "MEMORY.md"
    with open(str(path) + ".lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        entries = [e.strip() for e in old.split(DELIMITER) if e.strip()] + [text]
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".mem_")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(DELIMITER.join(entries))
        os.replace(temp, path)


def main(home: str, count: int, interval: float) -> None:
    print("ready", flush=True)
    for number in range(count):
        time.sleep(interval)
        text = f"Agent note {number}: written while the person restored."
        add(Path(home), text)
        print(text, flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
