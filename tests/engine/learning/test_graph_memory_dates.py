"""Memory cards are dated from session history when state.db exists (not the file mtime)."""

import json
import os

from hermes_memory.learning.graph import GraphBuilder, build_learning_graph
from hermes_memory.memory.entries import fingerprint
from hermes_memory.sessions import SessionWriter, create_early_db

LEARNED_AT = 1_750_000_000.0  # 2025-06-15


def _memory_call(call_id: str, content: str) -> list[dict]:
    arguments = {"action": "add", "target": "memory", "content": content}
    return [{"id": call_id, "type": "function",
             "function": {"name": "memory", "arguments": json.dumps(arguments)}}]  # fmt: skip


def _home_with_history(home):
    home.memory_file.write_text("Uses pnpm, not npm\n§\nTyped by hand", encoding="utf-8")
    mtime = 1_780_000_000
    os.utime(home.memory_file, (mtime, mtime))
    create_early_db(home.state_db)
    with SessionWriter(home.state_db) as writer:
        writer.create_session("s1", "cli")
        writer.append_message("s1", "user", "we use pnpm here", timestamp=LEARNED_AT - 5)
        writer.append_message(
            "s1", "assistant", None, tool_calls=_memory_call("c1", "Uses pnpm, not npm"),
            timestamp=LEARNED_AT,
        )
        writer.append_message(
            "s1", "tool", json.dumps({"success": True}), tool_name="memory",
            tool_call_id="c1", timestamp=LEARNED_AT + 1,
        )
    return mtime


def _card_times(payload):
    return {card["fingerprint"]: card["timestamp"] for card in payload["memory"]}


def test_cards_get_the_date_the_agent_wrote_them(home):
    mtime = _home_with_history(home)
    times = _card_times(build_learning_graph(home))
    assert times[fingerprint("Uses pnpm, not npm")] == int(LEARNED_AT)
    # not in the history: upstream's file mtime plus position
    assert times[fingerprint("Typed by hand")] == mtime + 1


def test_without_history_cards_keep_the_file_mtime(home):
    home.memory_file.write_text("Uses pnpm, not npm", encoding="utf-8")
    os.utime(home.memory_file, (1_700_000_000, 1_700_000_000))
    assert _card_times(build_learning_graph(home)) == {fingerprint("Uses pnpm, not npm"): 1_700_000_000}


def test_builder_rereads_history_only_when_it_changes(home, monkeypatch):
    _home_with_history(home)
    builder = GraphBuilder(home)
    calls = []
    import hermes_memory.learning.graph as graph_module

    real = graph_module.memory_dates
    monkeypatch.setattr(graph_module, "memory_dates", lambda h: calls.append(1) or real(h))
    builder.build()
    builder.build()
    assert len(calls) == 1
    with SessionWriter(home.state_db) as writer:
        writer.append_message("s1", "user", "thanks", timestamp=LEARNED_AT + 60)
    builder.build()
    assert len(calls) == 2
