"""hermes_memory.llm against the scripted OpenAI-compatible server (loopback only)."""

from __future__ import annotations

import socket

import pytest

from hermes_memory import llm
from llm_server import (
    reply_error,
    reply_hang,
    reply_malformed_tool_call,
    reply_raw,
    reply_text,
    reply_tool_calls,
)

MESSAGES = [{"role": "user", "content": "ping"}]


def test_text_completion_reaches_the_server(llm_server):
    llm_server.queue(reply_text("pong"))
    response = llm.complete(MESSAGES, **llm_server.litellm_kwargs(), timeout=10, temperature=0.1)
    assert llm.response_text(response) == "pong"
    assert len(llm_server.requests) == 1
    request = llm_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "test-model"
    assert request.body["messages"] == MESSAGES
    assert request.body["temperature"] == 0.1
    assert request.headers["authorization"] == "Bearer test"


def test_tool_calls_are_decoded(llm_server):
    llm_server.queue(
        reply_tool_calls(("memory", {"action": "add", "content": "x"}), ("noop", {}))
    )
    tools = [{"type": "function", "function": {"name": "memory", "parameters": {"type": "object"}}}]
    response = llm.complete(MESSAGES, **llm_server.litellm_kwargs(), tools=tools)
    assert llm.response_text(response) == ""
    assert llm.response_tool_calls(response) == [
        llm.ToolCall("call_1", "memory", {"action": "add", "content": "x"}),
        llm.ToolCall("call_2", "noop", {}),
    ]
    assert llm_server.requests[0].body["tools"] == tools


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("bad-json", r"Tool call 1 \(memory\) has arguments that are not JSON"),
        ("no-name", "Tool call 1 has no function name."),
    ],
)
def test_malformed_tool_calls_raise(llm_server, how, message):
    llm_server.queue(reply_malformed_tool_call(how))
    with pytest.raises(llm.LLMError, match=message) as caught:
        llm.response_tool_calls(llm.complete(MESSAGES, **llm_server.litellm_kwargs()))
    assert caught.value.kind == "bad-response"


def test_server_error_is_one_exception_type(llm_server):
    llm_server.queue(reply_error(500, "boom"))
    with pytest.raises(llm.LLMError, match="answered HTTP 500") as caught:
        llm.complete(MESSAGES, **llm_server.litellm_kwargs())
    assert (caught.value.kind, caught.value.status) == ("http", 500)
    assert len(llm_server.requests) == 1  # no hidden retries


def test_unreadable_response(llm_server):
    llm_server.queue(reply_raw("this is not json"))
    with pytest.raises(llm.LLMError) as caught:
        llm.complete(MESSAGES, **llm_server.litellm_kwargs())
    assert caught.value.kind == "bad-response"


def test_timeout(llm_server):
    llm_server.queue(reply_hang(10))
    with pytest.raises(llm.LLMError, match="did not answer within 0.5 s") as caught:
        llm.complete(MESSAGES, **llm_server.litellm_kwargs(), timeout=0.5)
    assert caught.value.kind == "timeout"


def test_connection_refused():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(llm.LLMError, match="Could not reach the model") as caught:
        llm.complete(MESSAGES, model="openai/test-model", api_base=f"http://127.0.0.1:{port}/v1",
                     api_key="test", timeout=5)  # fmt: skip
    assert caught.value.kind == "connection"


def test_no_model_configured():
    with pytest.raises(llm.LLMError, match="No model is configured") as caught:
        llm.complete(MESSAGES, model="")
    assert caught.value.kind == "not-configured"


def test_exhausted_script_fails_loudly(llm_server):
    with pytest.raises(llm.LLMError, match="script exhausted"):
        llm.complete(MESSAGES, **llm_server.litellm_kwargs())
