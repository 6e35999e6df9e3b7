"""The digest (spec §4.4), its budget, and making stored messages replayable."""

from __future__ import annotations

from hermes_memory.review import digest_history, fit_digest
from hermes_memory.review.conversation import replayable
from hermes_memory.review.digest import DIGEST_HEADER


def user(text):
    return {"role": "user", "content": text}


def assistant(text=None, *tools):
    message = {"role": "assistant", "content": text}
    if tools:
        message["tool_calls"] = [
            {"id": f"c_{name}", "type": "function", "function": {"name": name, "arguments": "{}"}}
            for name in tools
        ]
    return message


def tool(name, text="ok"):
    return {"role": "tool", "tool_call_id": f"c_{name}", "content": text}


def test_short_histories_are_returned_unchanged():
    messages = [user("hi"), assistant("hello")]
    assert digest_history(messages, tail=24) == messages


def test_old_turns_collapse_into_one_line_each():
    old = [user("first\nquestion " + "q" * 400), assistant(None, "terminal", "memory"),
           tool("terminal"), tool("memory"), assistant("a" * 300), {"role": "system", "content": "s"}]
    recent = [user("recent"), assistant("answer")]
    digest, *tail = digest_history(old + recent, tail=2)
    assert tail == recent
    lines = digest["content"].split("\n")
    assert digest["role"] == "user" and lines[0] == DIGEST_HEADER
    assert lines[1] == "USER: first question " + "q" * 285  # 300 chars, newlines flattened
    assert lines[2] == "ASSISTANT[tools: terminal, memory]"
    assert lines[3] == "ASSISTANT: " + "a" * 200
    assert len(lines) == 4  # tool results and system messages are left out


def test_the_window_never_starts_with_an_orphan_tool_result():
    messages = [user("u1"), assistant(None, "terminal"), tool("terminal"), assistant("done")]
    digest, *tail = digest_history(messages, tail=2)
    assert tail == messages[1:]  # extended back to the call
    assert digest_history([tool("a"), tool("b"), assistant("x")], tail=2)[0]["role"] == "tool"


def test_the_budget_shrinks_the_verbatim_window_then_the_digest():
    messages = [m for n in range(40) for m in (user(f"question {n} " + "x" * 990),
                                               assistant(f"answer {n} " + "y" * 990))]  # fmt: skip
    roomy = fit_digest(messages, tail=24, max_chars=100_000)
    assert (roomy.verbatim, roomy.summarised, roomy.omitted) == (24, 56, 0)
    tight = fit_digest(messages, tail=24, max_chars=30_000)
    assert tight.chars <= 30_000 and 0 < tight.verbatim < 24 and tight.omitted == 0
    tiny = fit_digest(messages, tail=24, max_chars=5_000)
    assert tiny.chars <= 5_000 and tiny.omitted > 0 and tiny.verbatim == 0
    assert "older messages are left out" in tiny.messages[0]["content"]
    assert "question 39" in tiny.messages[0]["content"]  # the newest lines are the ones kept


def test_huge_messages_are_clipped_head_and_tail():
    (only,) = fit_digest([user("H" * 9_000 + "T" * 1_000)], max_message_chars=4_000).messages
    assert only["content"].startswith("H" * 3_000) and only["content"].endswith("T" * 800)
    assert "characters cut for the review" in only["content"]


def test_stored_messages_become_a_valid_chat_history():
    stored = [
        {"role": "system", "content": "old system prompt"},
        {"role": "user", "content": [{"type": "text", "text": "part one"}, {"type": "image"}]},
        {"role": "tool", "tool_call_id": "lost", "tool_name": "terminal", "content": "orphan"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "function": {"name": "terminal", "arguments": {"command": "ls"}}}]},
        {"role": "tool", "tool_call_id": "a", "tool_name": "terminal", "content": "file.txt"},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [
            {"id": "b", "function": {"name": "web", "arguments": "{}"}}]},  # never answered
    ]  # fmt: skip
    assert replayable(stored) == [
        {"role": "user", "content": "part one"},
        {"role": "assistant", "content": "[terminal result] orphan"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "a", "type": "function",
             "function": {"name": "terminal", "arguments": '{"command": "ls"}'}}]},
        {"role": "tool", "tool_call_id": "a", "content": "file.txt"},
        {"role": "assistant", "content": "Let me check.\n[called tools: web]"},
    ]  # fmt: skip
