"""The agent's memory tool through the MemoryManager: each write is attributed to its
origin (the agent's turn or its background review) and to the manager's session, in
history and in a staged record, and mirrored to the external provider with the same."""

from __future__ import annotations

import json

from provider_fakes import RecordingProvider

from hermes_memory.history.service import log
from hermes_memory.pending import PendingQueue
from hermes_memory.providers import BuiltinMemoryProvider, MemoryManager


def _manager(home) -> tuple[MemoryManager, RecordingProvider]:
    home.memories_dir.mkdir(parents=True, exist_ok=True)
    manager = MemoryManager(hermes_home=home)
    manager.add_provider(BuiltinMemoryProvider.for_home(home))
    external = RecordingProvider("recorder")
    manager.add_provider(external)
    manager.initialize_all("s-turn", platform="telegram")
    return manager, external


def _writes(home) -> list[tuple]:
    return [(e["kind"], e["origin"], e["session"], e.get("platform"))
            for e in reversed(log(home)["events"]) if e["action"] != "capture"]  # fmt: skip


def test_foreground_and_background_writes_carry_their_origin_and_session(home):
    manager, external = _manager(home)
    try:
        done = json.loads(manager.handle_memory_tool({"action": "add", "target": "user", "content": "Uses fish"}))
        assert done["success"] is True
        background = manager.handle_memory_tool(
            {"action": "add", "target": "memory", "content": "Deploys on Fridays"}, origin="background_review"
        )
        assert json.loads(background)["success"] is True
        manager.on_session_switch("s-next", parent_session_id="s-turn")
        manager.handle_memory_tool({"action": "remove", "target": "user", "old_text": "fish"}, tool_call_id="c1")
        manager.flush_pending(5)
        assert _writes(home) == [
            ("user", "foreground", "s-turn", "telegram"),
            ("memory", "background_review", "s-turn", "telegram"),
            ("user", "foreground", "s-next", "telegram"),
        ]
        mirrored = [call[4] for call in external.named("on_memory_write")]
        assert [(m["write_origin"], m["execution_context"], m["session_id"]) for m in mirrored] == [
            ("assistant_tool", "foreground", "s-turn"),
            ("background_review", "background_review", "s-turn"),
            ("assistant_tool", "foreground", "s-next"),
        ]
        assert mirrored[2]["parent_session_id"] == "s-turn" and mirrored[2]["tool_call_id"] == "c1"
        assert mirrored[2]["old_text"] == "fish" and mirrored[0]["platform"] == "telegram"
    finally:
        manager.shutdown_all()


def test_a_gated_background_write_is_staged_as_the_background_reviews(home, write_config):
    write_config("memory:\n  write_approval: true\n")
    manager, external = _manager(home)
    try:
        staged = json.loads(manager.handle_memory_tool(
            {"action": "add", "target": "memory", "content": "Prefers short answers"}, origin="background_review"
        ))  # fmt: skip
        assert staged["staged"] is True
        (record,) = PendingQueue(home).list().records
        assert (record.origin, record.session_id) == ("background_review", "s-turn")
        assert external.named("on_memory_write") == []  # nothing committed, nothing mirrored
        assert _writes(home) == []
    finally:
        manager.shutdown_all()


def test_writes_outside_a_managed_call_keep_the_default_origin(home):
    manager, _external = _manager(home)
    try:
        with manager.writing("background_review"):
            pass
        builtin = manager.get_provider("builtin")
        builtin.store.add("memory", "Written by the app")
        assert _writes(home) == [("memory", "app", None, None)]
    finally:
        manager.shutdown_all()
