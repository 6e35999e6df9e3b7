"""Who changed a skill on disk, as ``history capture`` records it: the curator ledger's
actor, the agent's ``skill_manage`` call in ``state.db``, a person by hand when the agent
left no trace of writing it, and ``unknown`` when nothing can tell."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import UTC, datetime

from history_helpers import write_skill

from hermes_memory.history.capture import capture
from hermes_memory.history.ledger import ledger_path
from hermes_memory.history.timeline import Timeline
from hermes_memory.sessions import SessionWriter

NAME = "docker-logs"


def newest(home, name: str = NAME) -> dict:
    return Timeline(home).chain("skill", name)[-1]


def skill_md(home, name: str = NAME):
    return home.skills_dir / name / "SKILL.md"


def agent_call(home, session: str, arguments: dict, tool: str = "skill_manage") -> None:
    """One assistant message with a tool call, as the agent records it in state.db."""
    with SessionWriter(home.state_db) as writer:
        if writer.conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session,)).fetchone() is None:
            writer.create_session(session, "cli", started_at=time.time())
        writer.append_message(session, "assistant", None, timestamp=time.time(), tool_calls=[
            {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": json.dumps(arguments)}}])  # fmt: skip


def ledger_line(home, skill: str, actor: str, text: str | None, session: str | None = None) -> None:
    after = []
    if text is not None:
        after = [{"path": str(skill_md(home, skill)), "sha256": hashlib.sha256(text.encode()).hexdigest()}]
    line = {"id": hashlib.sha256(f"{skill}{actor}{text}{time.time()}".encode()).hexdigest()[:12],
            "ts": datetime.now(UTC).isoformat(), "actor": actor, "action": "patch", "skill": skill,
            "evidence": {"session_id": session} if session else {}, "before": [], "after": after}  # fmt: skip
    path = ledger_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def seen_once(home) -> str:
    """A skill history has recorded once, and its text."""
    write_skill(home, NAME)
    assert capture(home)["recorded"] == 1
    time.sleep(0.01)
    return skill_md(home).read_text(encoding="utf-8")


def test_an_edit_the_agents_skill_manage_call_wrote_is_the_agents(home):
    text = seen_once(home)
    edited = text + "\nUse --tail 100.\n"
    agent_call(home, "s-edit", {"action": "edit", "name": NAME, "content": edited})
    skill_md(home).write_text(edited, encoding="utf-8")
    capture(home)
    event = newest(home)
    assert (event["origin"], event["session"], event["action"]) == ("foreground", "s-edit", "capture")


def test_a_patch_call_explains_the_text_it_leaves(home):
    text = seen_once(home)
    agent_call(home, "s-patch", {"action": "patch", "name": NAME, "old_string": "Use it well.",
                                 "new_string": "Use it with --since 10m."})  # fmt: skip
    skill_md(home).write_text(text.replace("Use it well.", "Use it with --since 10m."), encoding="utf-8")
    capture(home)
    assert (newest(home)["origin"], newest(home)["session"]) == ("foreground", "s-patch")


def test_a_change_with_no_trace_from_an_agent_that_would_leave_one_is_by_hand(home):
    text = seen_once(home)
    agent_call(home, "s-other", {"action": "add", "target": "memory", "content": "Unrelated."}, tool="memory")
    ledger_line(home, "another-skill", "agent", "x")  # this agent keeps a curator ledger
    skill_md(home).write_text(text + "\nMy own note.\n", encoding="utf-8")
    capture(home)
    assert newest(home)["origin"] == "hand" and "session" not in newest(home)


def test_it_stays_unknown_when_nothing_can_tell(home):
    text = seen_once(home)
    skill_md(home).write_text(text + "\nNo state.db here.\n", encoding="utf-8")
    capture(home)
    assert newest(home)["origin"] == "unknown"  # no state.db: no way to tell
    agent_call(home, "s-other", {"action": "add", "target": "memory", "content": "Unrelated."}, tool="memory")
    skill_md(home).write_text(text + "\nNo ledger either.\n", encoding="utf-8")
    capture(home)
    assert newest(home)["origin"] == "unknown"  # no ledger: the background review leaves no trace
    ledger_line(home, "another-skill", "agent", "x")
    agent_call(home, "s-mention", {"action": "patch", "name": NAME, "old_string": "a", "new_string": "zzz-not-there"})
    skill_md(home).write_text(text + "\nMentioned, not explained.\n", encoding="utf-8")
    capture(home)
    assert newest(home)["origin"] == "unknown"  # the agent touched it, but not into this
    write_skill(home, "first-seen")
    capture(home)
    assert newest(home, "first-seen")["origin"] == "unknown"  # installed or bundled, not by hand


def test_the_ledger_line_that_wrote_this_exact_text_names_its_writer(home):
    text = seen_once(home)
    curated = text + "\nCurated.\n"
    skill_md(home).write_text(curated, encoding="utf-8")
    ledger_line(home, NAME, "curator", curated, session="s-curator")
    assert capture(home)["recorded"] == 0  # the ledger is history already
    skill_md(home).write_text(text + "\nA detour.\n", encoding="utf-8")
    capture(home)
    time.sleep(0.01)
    skill_md(home).write_text(curated, encoding="utf-8")  # back to the curator's text
    capture(home)
    event = newest(home)
    assert (event["origin"], event["session"], event["action"]) == ("background_review", "s-curator", "capture")


def test_a_deleted_skill_is_the_agents_when_it_called_delete(home):
    import shutil

    seen_once(home)
    agent_call(home, "s-delete", {"action": "delete", "name": NAME})
    shutil.rmtree(skill_md(home).parent)
    capture(home)
    event = newest(home)
    assert (event["state"], event["origin"], event["session"]) == ("missing", "foreground", "s-delete")


def test_a_state_db_that_does_not_read_leaves_it_unknown_and_the_capture_whole(home):
    text = seen_once(home)
    ledger_line(home, "another-skill", "agent", "x")
    home.state_db.write_bytes(b"not a database at all" * 100)
    skill_md(home).write_text(text + "\nChanged.\n", encoding="utf-8")
    result = capture(home)
    assert result["ok"] and newest(home)["id"] in result["events"] and newest(home)["origin"] == "unknown"
