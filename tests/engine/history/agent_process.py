"""A stand-in for a live Hermes agent, run as a real subprocess by the history tests.

It writes MEMORY.md/USER.md the way the agent does (the ``<file>.lock`` flock, re-read,
temp file + ``os.replace``, without this engine) and records each ``memory`` call and its
result in ``state.db``, so captures and imports see what a real agent leaves behind.

    python agent_process.py HOME SESSION_ID OPS_JSON [SOURCE]

OPS_JSON is a list of memory tool arguments ({"action", "target", "content", "old_text"}
or a batch with "operations").
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from hermes_memory.sessions import SessionWriter

DELIMITER = "\n§\n"


def apply(entries: list[str], op: dict) -> bool:
    action, content, old = op.get("action"), op.get("content"), op.get("old_text")
    if action == "add":
        if content in entries:
            return True
        entries.append(content)
        return True
    matches = [i for i, e in enumerate(entries) if old and old in e]
    if len(matches) != 1:
        return False
    if action == "replace":
        entries[matches[0]] = content
    else:
        del entries[matches[0]]
    return True


def write(home: Path, target: str, arguments: dict) -> bool:
    path = home / "memories" / ("MEMORY.md" if target == "memory" else "USER.md")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path) + ".lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        entries = [e.strip() for e in text.split(DELIMITER) if e.strip()]
        ops = arguments.get("operations") or [arguments]
        ok = all(apply(entries, op) for op in ops)
        if ok:
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".mem_")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(DELIMITER.join(entries))
            os.replace(temp, path)
        return ok


def main() -> None:
    home, session_id, ops = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    source = sys.argv[4] if len(sys.argv) > 4 else "cli"
    writer = SessionWriter(home / "state.db")
    if writer.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        writer.create_session(session_id, source, started_at=time.time())
    for number, arguments in enumerate(ops, start=1):
        call_id = f"call_{number}"
        writer.append_message(session_id, "assistant", None, timestamp=time.time(), tool_calls=[
            {"id": call_id, "type": "function",
             "function": {"name": "memory", "arguments": json.dumps(arguments)}}])  # fmt: skip
        ok = write(home, arguments.get("target", "memory"), arguments)
        result = {"success": True, "message": "ok"} if ok else {"success": False, "error": "no match"}
        writer.append_message(session_id, "tool", json.dumps(result), timestamp=time.time(),
                              tool_name="memory", tool_call_id=call_id)  # fmt: skip
    writer.close()


if __name__ == "__main__":
    main()
