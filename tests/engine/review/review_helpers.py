"""Shared pieces of the review tests: the recorded session, skills, home snapshots."""

from __future__ import annotations

import json
from pathlib import Path

from hermes_memory.sessions import SessionWriter, create_early_db

SESSION_ID = "20260412_093015_a1b2c3"
STARTED = 1_776_000_000.0

MEMORY_ENTRIES = ["The blog runs on the VPS 'blog' under /srv/blog; the deploy user is deploy."]
USER_ENTRIES = ["Name: Dana. Writes a Hugo blog about sailing."]


def skill_text(name: str, description: str = "Read and filter container logs", body: str = "") -> str:
    body = body or (
        f"# {name}\n\nWhen to use: whenever the task matches.\n\n## Procedure\n"
        "1. Run `docker logs --since 10m <container>`.\n2. Filter with `grep -i error`.\n"
    )
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def write_skill(root: Path, rel: str, name: str, **kwargs) -> Path:
    directory = root / rel
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(skill_text(name, **kwargs), encoding="utf-8")
    return directory


def record_session(db: Path) -> None:
    """A realistic session: the user states preferences, the agent finds a procedure."""
    create_early_db(db)
    t = STARTED
    with SessionWriter(db) as w:
        w.create_session(SESSION_ID, "cli", model="openai/gpt-4o", started_at=t)

        def say(role, content=None, **kw):
            nonlocal t
            t += 7
            w.append_message(SESSION_ID, role, content, timestamp=t, **kw)

        def call(call_id, command):
            return [{"id": call_id, "type": "function",
                     "function": {"name": "terminal", "arguments": json.dumps({"command": command})}}]

        say("user", "Can you deploy the blog to the VPS? And keep answers short please: the "
            "command first, the explanation after. I use fish, not bash.")
        say("assistant", None, tool_calls=call("call_a", "hugo && rsync -av public/ deploy@blog:/srv/blog"))
        say("tool", "sent 1,204 files, total size 18M", tool_name="terminal", tool_call_id="call_a")
        say("assistant", "`rsync -av public/ deploy@blog:/srv/blog` - deployed.")
        say("user", "Old pages are still online and the CDN still serves the old CSS.")
        say("assistant", None,
            tool_calls=call("call_b", "rsync -av --delete public/ deploy@blog:/srv/blog"))
        say("tool", "deleting posts/draft-2019/ ... sent 3 files", tool_name="terminal",
            tool_call_id="call_b")
        say("assistant", None, tool_calls=call("call_c", "curl -X POST https://cdn.example/purge"))
        say("tool", '{"purged": true}', tool_name="terminal", tool_call_id="call_c")
        say("assistant", "`rsync -av --delete ...` then purge the CDN cache. Old pages are gone.")
        say("user", "Perfect, that's how to deploy it every time.")
        say("assistant", "Noted.", finish_reason="stop")
        w.end_session(SESSION_ID, "user_exit", ended_at=t + 5)



def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
