"""The one thin place where the engine calls a language model, through litellm.

litellm is an optional dependency (``pip install 'hermes-memory-studio[llm]'``), imported
lazily on the first call so that everything else in the engine starts fast and works
without it. Before that import we make sure litellm stays off the network on its own
account: it would otherwise fetch a model price list from GitHub at import time.

Every failure, including a missing litellm, a timeout, an HTTP error and a response we
cannot read, comes out as one exception type, :class:`LLMError`, whose message says what
went wrong; ``kind`` lets a caller decide what to tell a person.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_TIMEOUT = 60.0

_import_lock = threading.Lock()
_litellm: Any = None


class LLMError(RuntimeError):
    """An LLM call failed. ``kind`` is one of: not-installed, not-configured, timeout,
    connection, auth, http, bad-request, bad-response, error."""

    def __init__(self, message: str, *, kind: str = "error", status: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.status = status


def _load_litellm() -> Any:
    global _litellm
    with _import_lock:
        if _litellm is None:
            # Use the bundled model list instead of downloading one; skip other fetches.
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
            try:
                import litellm
            except ImportError as exc:
                raise LLMError(
                    "LLM features need litellm: pip install 'hermes-memory-studio[llm]'.",
                    kind="not-installed",
                ) from exc
            litellm.telemetry = False
            litellm.suppress_debug_info = True
            # Parameters a provider does not support are dropped rather than fatal.
            litellm.drop_params = True
            _litellm = litellm
    return _litellm


def _first_line(text: str, limit: int = 300) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _classify(exc: BaseException, *, model: str, api_base: str | None, timeout: float) -> LLMError:
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    where = f"{model}" + (f" at {api_base}" if api_base else "")
    detail = _first_line(str(exc))
    if "Timeout" in name or isinstance(exc, TimeoutError):
        return LLMError(f"The model {where} did not answer within {timeout:g} s.", kind="timeout")
    if "Authentication" in name or "PermissionDenied" in name or status in (401, 403):
        return LLMError(
            f"The model {where} rejected the API key ({detail}).", kind="auth", status=status
        )
    if "APIConnection" in name or "Connect" in name or "connection error" in detail.lower():
        return LLMError(f"Could not reach the model {where} ({detail}).", kind="connection")
    if "BadRequest" in name or "NotFound" in name or status in (400, 404, 422):
        return LLMError(
            f"The model {where} refused the request ({detail}).", kind="bad-request", status=status
        )
    if "Expecting value" in detail or "JSONDecodeError" in detail:
        return LLMError(f"The model {where} sent a response that is not JSON ({detail}).",
                        kind="bad-response")
    if isinstance(status, int):
        return LLMError(
            f"The model {where} answered HTTP {status} ({detail}).", kind="http", status=status
        )
    return LLMError(f"The call to {where} failed: {name}: {detail}", kind="error")


def complete(
    messages: Sequence[dict[str, Any]],
    *,
    model: str,
    api_base: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    tools: Sequence[dict[str, Any]] | None = None,
    tool_choice: Any = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Any:
    """One chat completion; returns litellm's response object or raises :class:`LLMError`.

    ``model`` is a litellm model string (``provider/model``, e.g. ``openai/gpt-4o-mini``).
    No retries happen here: callers decide whether a failure is worth another try.
    """
    if not model:
        raise LLMError("No model is configured for this task.", kind="not-configured")
    litellm = _load_litellm()
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": list(messages),
        "timeout": timeout,
        "num_retries": 0,
        "max_retries": 0,  # the OpenAI client's own retries would multiply the timeout
    }
    if api_base:
        kwargs["api_base"] = api_base
    if api_key:
        kwargs["api_key"] = api_key
    if tools:
        kwargs["tools"] = list(tools)
    if tool_choice is not None:
        kwargs["tool_choice"] = tool_choice
    if temperature is not None:
        kwargs["temperature"] = temperature
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    try:
        response = litellm.completion(**kwargs)
    except Exception as exc:  # noqa: BLE001 - every provider error becomes an LLMError
        raise _classify(exc, model=model, api_base=api_base, timeout=timeout) from exc
    choices = getattr(response, "choices", None)
    if not choices:
        raise LLMError(f"The model {model} returned no choices.", kind="bad-response")
    return response


def response_text(response: Any) -> str:
    """The text of the first choice (``""`` when the model only called tools)."""
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMError("The model's response has no message.", kind="bad-response") from exc
    return content if isinstance(content, str) else ""


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


def response_tool_calls(response: Any) -> list[ToolCall]:
    """The first choice's tool calls with their JSON arguments decoded.

    Raises :class:`LLMError` (``bad-response``) when a call has no function name or its
    arguments are not a JSON object, so callers never act on half-parsed instructions.
    """
    try:
        calls = response.choices[0].message.tool_calls or []
    except (AttributeError, IndexError, TypeError) as exc:
        raise LLMError("The model's response has no message.", kind="bad-response") from exc
    parsed = []
    for position, call in enumerate(calls, start=1):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        raw = getattr(function, "arguments", None)
        if not name:
            raise LLMError(f"Tool call {position} has no function name.", kind="bad-response")
        if isinstance(raw, dict):
            arguments = raw
        else:
            try:
                arguments = json.loads(raw or "{}")
            except (TypeError, ValueError) as exc:
                raise LLMError(
                    f"Tool call {position} ({name}) has arguments that are not JSON: "
                    f"{_first_line(str(raw), 120)}",
                    kind="bad-response",
                ) from exc
        if not isinstance(arguments, dict):
            raise LLMError(
                f"Tool call {position} ({name}) has arguments that are not a JSON object.",
                kind="bad-response",
            )
        parsed.append(ToolCall(id=str(getattr(call, "id", "") or ""), name=name, arguments=arguments))
    return parsed
