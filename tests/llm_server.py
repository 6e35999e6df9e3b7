"""A scripted OpenAI-compatible chat-completions server for tests (loopback only).

The server answers ``POST /v1/chat/completions`` (and ``/chat/completions``) from a
script of replies queued in advance, records every request it receives, and can be told
to fail (an HTTP status), hang past the client's timeout, or send malformed tool calls.
Point litellm at it with :meth:`ScriptedLLMServer.litellm_kwargs`:
``model="openai/test-model"``, ``api_base="http://127.0.0.1:PORT/v1"``, ``api_key="test"``.

Use the ``llm_server`` fixture from a conftest next to your tests::

    from llm_server import llm_server  # noqa: F401  (tests/ is on sys.path)

    def test_summary(llm_server):
        llm_server.queue(reply_text("It went well."))
        ...
        assert llm_server.requests[0].body["model"] == "test-model"

A reply may also be a callable ``(RecordedRequest) -> Reply`` for answers that depend on
the request (useful when several calls run in parallel and their order is not fixed).
When the script runs dry the server answers HTTP 500 "script exhausted", so a test that
makes more calls than it planned fails loudly instead of passing by accident.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

TEST_MODEL = "test-model"
LITELLM_MODEL = f"openai/{TEST_MODEL}"
TEST_API_KEY = "test"
COMPLETION_PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class Reply:
    """One scripted answer; build it with the ``reply_*`` helpers below."""

    kind: str  # text | tool_calls | error | hang | raw
    content: str = ""
    tool_calls: tuple[dict[str, Any], ...] = ()
    status: int = 200
    seconds: float = 0.0
    body: str = ""


def reply_text(content: str) -> Reply:
    return Reply("text", content=content)


def reply_tool_calls(*calls: tuple[str, dict[str, Any] | str], content: str = "") -> Reply:
    """Tool calls given as ``(name, arguments)``; a str ``arguments`` is sent verbatim."""
    built = []
    for index, (name, arguments) in enumerate(calls, start=1):
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        built.append(
            {"id": f"call_{index}", "type": "function",
             "function": {"name": name, "arguments": raw}}
        )  # fmt: skip
    return Reply("tool_calls", content=content, tool_calls=tuple(built))


def reply_tool_call(name: str, arguments: dict[str, Any] | str) -> Reply:
    return reply_tool_calls((name, arguments))


def reply_malformed_tool_call(how: str = "bad-json") -> Reply:
    """A tool call whose arguments are not JSON (``bad-json``) or that has no name."""
    if how == "bad-json":
        return reply_tool_calls(("memory", '{"action": "add", "content": '))
    if how == "no-name":
        return Reply(
            "tool_calls",
            tool_calls=({"id": "call_1", "type": "function",
                         "function": {"name": "", "arguments": "{}"}},),
        )  # fmt: skip
    raise ValueError(f"unknown malformation {how!r}")


def reply_error(status: int = 500, message: str = "scripted failure") -> Reply:
    return Reply("error", status=status, content=message)


def reply_hang(seconds: float = 30.0) -> Reply:
    """Accept the request and say nothing for ``seconds`` (or until the server stops)."""
    return Reply("hang", seconds=seconds)


def reply_raw(body: str, status: int = 200) -> Reply:
    """Send ``body`` as-is with a JSON content type (for unreadable responses)."""
    return Reply("raw", body=body, status=status)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # decoded JSON, or the raw text when it was not JSON
    received_at: float = field(default_factory=time.time)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", []) if isinstance(self.body, dict) else []


ReplySource = Reply | Callable[[RecordedRequest], Reply]


class ScriptedLLMServer:
    """An OpenAI-compatible server on ``127.0.0.1`` (random port) that follows a script."""

    def __init__(self, *replies: ReplySource) -> None:
        self._script: deque[ReplySource] = deque(replies)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self.requests: list[RecordedRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- script -------------------------------------------------------------------------
    def queue(self, *replies: ReplySource) -> ScriptedLLMServer:
        with self._lock:
            self._script.extend(replies)
        return self

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            source = self._script.popleft() if self._script else None
        if source is None:
            return reply_error(500, "scripted server: script exhausted")
        return source(request) if callable(source) else source

    # --- addresses ----------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def litellm_kwargs(self) -> dict[str, str]:
        return {"model": LITELLM_MODEL, "api_base": self.base_url, "api_key": TEST_API_KEY}

    # --- lifecycle ----------------------------------------------------------------------
    def start(self) -> ScriptedLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/") in ("/v1/models", "/models"):
                    self._send_json(200, {"object": "list", "data": [
                        {"id": TEST_MODEL, "object": "model", "owned_by": "tests"}]})  # fmt: skip
                else:
                    self._send_json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                try:
                    body: Any = json.loads(raw) if raw else {}
                except ValueError:
                    body = raw
                path = self.path.split("?")[0].rstrip("/")
                if path not in COMPLETION_PATHS:
                    self._send_json(404, {"error": {"message": f"no route {path}"}})
                    return
                headers = {key.lower(): value for key, value in self.headers.items()}
                request = RecordedRequest("POST", path, headers, body)
                server._answer(self, request, server._next_reply(request))

            def _send_json(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
            name="scripted-llm-server", daemon=True,
        )  # fmt: skip
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes hanging handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- answering ----------------------------------------------------------------------
    def _completion(self, request: RecordedRequest, reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        finish = "stop"
        if reply.kind == "tool_calls":
            message["tool_calls"] = [dict(call) for call in reply.tool_calls]
            finish = "tool_calls"
        model = request.body.get("model", TEST_MODEL) if isinstance(request.body, dict) else TEST_MODEL
        return {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def _answer(self, handler: Any, request: RecordedRequest, reply: Reply) -> None:
        if reply.kind == "hang":
            self._stopping.wait(reply.seconds)
            handler.close_connection = True
            return
        if reply.kind == "error":
            handler._send_json(reply.status, {"error": {
                "message": reply.content, "type": "server_error", "code": reply.status}})  # fmt: skip
            return
        if reply.kind == "raw":
            data = reply.body.encode()
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
            return
        completion = self._completion(request, reply)
        if isinstance(request.body, dict) and request.body.get("stream"):
            self._stream(handler, completion)
        else:
            handler._send_json(200, completion)

    def _stream(self, handler: Any, completion: dict[str, Any]) -> None:
        """The same answer as server-sent events: one delta chunk, a finish chunk, DONE."""
        choice = completion["choices"][0]
        base = {k: completion[k] for k in ("id", "created", "model")}
        base["object"] = "chat.completion.chunk"
        delta = dict(choice["message"])
        if "tool_calls" in delta:
            delta["tool_calls"] = [dict(call, index=i) for i, call in enumerate(delta["tool_calls"])]
        events = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
        ]
        data = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        encoded = data.encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Content-Length", str(len(encoded)))
        handler.end_headers()
        handler.wfile.write(encoded)


@pytest.fixture
def llm_server(monkeypatch):
    """A started :class:`ScriptedLLMServer`; litellm is kept off the network."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("LITELLM_OFFLINE_MODE", "true")
    # A proxy configured on the machine must not swallow loopback requests.
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    server = ScriptedLLMServer().start()
    try:
        yield server
    finally:
        server.stop()
