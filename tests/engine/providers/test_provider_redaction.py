"""Egress redaction (spec §4.6, issue #115104): nothing secret reaches a provider."""

from __future__ import annotations

import json

import pytest
from provider_fakes import BuiltinStandIn, RecordingProvider, tool

from hermes_memory.providers import (
    EgressRedactor,
    MemoryManager,
    redact_for_egress,
    redact_for_provider,
)

SECRET = "Zx8Qw2Lm9Rt5Vb3Np7Kd"  # 20 characters, no vendor prefix: only learning catches it bare
OPENAI_KEY = "sk-proj-abcdefghijklmnopqrstuvwx"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"OPENAI_API_KEY={OPENAI_KEY}", "OPENAI_API_KEY=[redacted]"),
        (f"use {OPENAI_KEY} for now", "use [redacted] for now"),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123 here", "token [redacted] here"),
        ("aws AKIAABCDEFGHIJKLMNOP", "aws [redacted]"),
        ("Authorization: Bearer abcdefghijklmnopqrstuvwx", "Authorization: Bearer [redacted]"),
        ('{"apiKey": "q1w2e3r4t5y6u7i8o9p0"}', '{"apiKey": "[redacted]"}'),
        (f"db password: {SECRET}", "db password: [redacted]"),
        ("postgres://bob:s3cretpass@db:5432/app", "postgres://bob:[redacted]@db:5432/app"),
        (
            "https://x.io/cb?code=1&access_token=abcdef123456&x=1",
            "https://x.io/cb?code=1&access_token=[redacted]&x=1",
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\nafter",
            "[redacted]\nafter",
        ),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
            "jwt [redacted]",
        ),
    ],
)
def test_credentials_are_masked(text, expected):
    assert redact_for_egress(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "author: Jane Doe",
        "tokenizer: gpt2",
        "max_tokens: 4096",
        "passwordless: true",
        "API_KEY=$OPENAI_API_KEY",
        "the key is in os.getenv",
        "Project uses pnpm, not npm",
        "",
    ],
)
def test_ordinary_text_passes_unchanged(text):
    assert redact_for_egress(text) == text


def test_nested_values_are_copied_only_where_they_change():
    clean = {"role": "user", "content": "hello"}
    dirty = {"role": "tool", "content": f"DB_PASSWORD={SECRET}", "meta": ("x", 1)}
    messages = [clean, dirty, "data:image/png;base64,PASSWORD=abcd1234"]
    out = redact_for_provider(messages)
    assert out == [
        clean,
        {"role": "tool", "content": "DB_PASSWORD=[redacted]", "meta": ("x", 1)},
        messages[2],
    ]
    assert out[0] is clean and out[1]["meta"] is dirty["meta"]  # unchanged parts are shared
    assert dirty["content"] == f"DB_PASSWORD={SECRET}"  # the caller's objects are untouched
    assert redact_for_provider(clean) is clean


def test_one_value_in_one_out_several_give_a_tuple():
    assert redact_for_provider("a") == "a"
    assert redact_for_provider("a", ["b"], None) == ("a", ["b"], None)


def test_a_learned_token_is_masked_everywhere_in_the_same_hand_off():
    tool_result = {"role": "tool", "content": f"export DB_PASSWORD={SECRET}"}
    prose = f"I set the password to {SECRET} as asked."
    redacted_messages, redacted_prose = redact_for_provider([tool_result], prose)
    assert redacted_messages == [{"role": "tool", "content": "export DB_PASSWORD=[redacted]"}]
    assert redacted_prose == "I set the password to [redacted] as asked."


def test_a_redactor_remembers_learned_tokens_for_later_hand_offs():
    redactor = EgressRedactor()
    assert redactor.redact(f"MY_SECRET={SECRET}") == "MY_SECRET=[redacted]"
    assert redactor.learned_count == 1
    assert redactor.redact(f"later: {SECRET}.") == "later: [redacted]."
    # The one-shot helper keeps upstream's per-hand-off scope.
    assert redact_for_provider(f"MY_SECRET={SECRET}") == "MY_SECRET=[redacted]"
    assert redact_for_provider(f"later: {SECRET}.") == f"later: {SECRET}."


def test_learned_tokens_are_bounded():
    redactor = EgressRedactor(max_learned=2)
    for index in range(3):
        redactor.redact(f"API_TOKEN=token{index}-abcdefghijklmnop")
    assert redactor.learned_count == 2
    assert redactor.redact("token0-abcdefghijklmnop") == "token0-abcdefghijklmnop"
    assert redactor.redact("token2-abcdefghijklmnop") == "[redacted]"


def test_a_failing_scrub_fails_closed():
    def broken(text):
        raise RuntimeError("regex engine on fire")

    assert EgressRedactor(broken).redact({"content": "anything"}) == {"content": "[redacted]"}


# --- through the manager -----------------------------------------------------------------------
def all_text(provider: RecordingProvider) -> str:
    return json.dumps(provider.calls, default=str)


def test_a_secret_in_a_turn_never_reaches_a_provider():
    ext = RecordingProvider("ext", tools=[tool("ext_recall")])
    manager = MemoryManager()
    manager.add_provider(BuiltinStandIn())
    manager.add_provider(ext)
    leak = f"OPENAI_API_KEY={OPENAI_KEY}"
    transcript = [
        {"role": "user", "content": f"deploy with {leak}"},
        {
            "role": "assistant",
            "tool_calls": [{"function": {"arguments": json.dumps({"env": leak})}}],
        },
    ]
    manager.on_turn_start(1, f"deploy with {leak}")
    manager.prefetch_all(f"deploy with {leak}")
    manager.sync_all(f"deploy with {leak}", f"Done, I used {OPENAI_KEY}.", messages=transcript)
    manager.queue_prefetch_all(f"deploy with {leak}")
    assert manager.flush_pending(timeout=10)
    manager.handle_tool_call("ext_recall", {"query": leak, "nested": [{"k": leak}]})
    manager.on_memory_write("add", "memory", f"key is {leak}", {"old_text": leak})
    manager.on_session_end(transcript)
    manager.on_delegation(f"task {leak}", f"result {leak}")
    manager.shutdown_all()
    recorded = all_text(ext)
    assert OPENAI_KEY not in recorded
    assert "[redacted]" in recorded
    assert ext.named("sync_turn")[0][1:3] == (
        "deploy with OPENAI_API_KEY=[redacted]",
        "Done, I used [redacted].",
    )
    assert transcript[0]["content"] == f"deploy with {leak}"  # the agent's own history is untouched


def test_a_token_learned_in_one_turn_is_masked_when_repeated_later():
    ext = RecordingProvider("ext")
    manager = MemoryManager()
    manager.add_provider(BuiltinStandIn())
    manager.add_provider(ext)
    manager.sync_all(
        "set up the database",
        "Done.",
        messages=[{"role": "tool", "content": f"wrote .env: DB_PASSWORD={SECRET}"}],
    )
    manager.sync_all("what was the password again?", f"It is {SECRET}.")
    manager.flush_pending(timeout=10)
    manager.shutdown_all()
    first, second = ext.named("sync_turn")
    assert first[4] == [{"role": "tool", "content": "wrote .env: DB_PASSWORD=[redacted]"}]
    assert second[2] == "It is [redacted]."
    assert SECRET not in all_text(ext)
