"""The ``serve --stdio`` protocol: one UTF-8 JSON object per line, both ways.

Requests ``{"id", "method", "params": {...}}``; answers ``{"id", "result"}`` or
``{"id", "error": {"code", "message"}}``; unsolicited events ``{"event": "changed", ...}``.
The first request must be ``hello`` with the client's ``protocol`` version; the answer
carries the server's protocol and engine versions, the home and the methods it exposes.
Methods are the public functions of :mod:`hermes_memory.api` (their first parameter, the
home, is the server's; ``params`` are the rest, by name).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import asdict, is_dataclass
from pathlib import PurePath
from typing import Any

import orjson

from .. import __version__
from .ssh import INSTALL_HINT

#: Bump when a message changes shape; a server answers clients from OLDEST_PROTOCOL up.
PROTOCOL_VERSION = 1
OLDEST_PROTOCOL = 1
#: A request line longer than this is refused unread (a whole SKILL.md fits many times).
MAX_LINE_BYTES = 16 * 1024 * 1024

#: Methods the protocol itself answers, beside the engine face's.
BUILTIN_METHODS = ("hello", "ping")

# Error codes (``error.code``)
PARSE_ERROR = "parse_error"  # not UTF-8 JSON
INVALID_REQUEST = "invalid_request"  # JSON, but not a request object
TOO_LARGE = "too_large"
HELLO_FIRST = "hello_first"
PROTOCOL_MISMATCH = "protocol_mismatch"
NOT_A_HOME = "not_a_home"
UNKNOWN_METHOD = "unknown_method"
INVALID_PARAMS = "invalid_params"
FAILED = "failed"  # the call raised; the message says what


class ProtocolError(Exception):
    """A request that cannot be carried out, as ``{"code", "message"}``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


# --- lines ---------------------------------------------------------------------------
def _plain(value: Any) -> Any:
    """``json.dumps`` default: paths as strings, dataclasses as dicts, sets as lists."""
    if isinstance(value, PurePath):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def encode(message: dict[str, Any]) -> bytes:
    """One protocol line (orjson: a graph payload encodes in a few milliseconds). Text that
    is not valid UTF-8 (a lone surrogate) goes through the standard encoder, escaped."""
    try:
        return orjson.dumps(message, default=_plain, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # lone surrogates, integers beyond 64 bits
        return (json.dumps(message, separators=(",", ":"), default=_plain) + "\n").encode("ascii")


def decode(line: bytes) -> dict[str, Any]:
    """A received line as a JSON object, or :class:`ProtocolError`."""
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ProtocolError(PARSE_ERROR, f"not a JSON line: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError(INVALID_REQUEST, "a message must be a JSON object")
    return message


def request_parts(message: dict[str, Any]) -> tuple[Any, str, dict[str, Any]]:
    """``(id, method, params)`` of a request, or :class:`ProtocolError`."""
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | type(None)):
        raise ProtocolError(INVALID_REQUEST, "id must be a string, a whole number or null")
    method = message.get("method")
    if not isinstance(method, str) or not method:
        raise ProtocolError(INVALID_REQUEST, "method must be a non-empty string")
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError(INVALID_REQUEST, "params must be a JSON object of named parameters")
    return request_id, method, params


def response(request_id: Any, result: Any) -> dict[str, Any]:
    return {"id": request_id, "result": result}


def error_response(request_id: Any, error: ProtocolError) -> dict[str, Any]:
    return {"id": request_id, "error": error.as_dict()}


# --- versions ------------------------------------------------------------------------
def check_client_protocol(client_protocol: Any, client_engine: Any = None) -> None:
    """The server's side of the handshake: :class:`ProtocolError` with what to upgrade."""
    if isinstance(client_protocol, bool) or not isinstance(client_protocol, int):
        raise ProtocolError(INVALID_PARAMS, "hello needs the client's protocol version (a whole number)")
    client = f"the app (protocol {client_protocol}" + (f", engine {client_engine})" if client_engine else ")")
    server = f"this engine (hermes-memory {__version__}, protocols {OLDEST_PROTOCOL}–{PROTOCOL_VERSION})"
    if client_protocol > PROTOCOL_VERSION:
        raise ProtocolError(
            PROTOCOL_MISMATCH,
            f"{client} is newer than {server}: upgrade the engine on this host ({INSTALL_HINT} -U).",
        )
    if client_protocol < OLDEST_PROTOCOL:
        raise ProtocolError(
            PROTOCOL_MISMATCH, f"{client} is older than {server}: upgrade the app."
        )


def check_server_hello(result: Any, host: str) -> str | None:
    """The client's side: ``None`` when the server's hello is one we speak, else what to
    upgrade (for a server too old to check versions itself)."""
    if not isinstance(result, dict) or not isinstance(result.get("protocol"), int):
        return f"the engine on {host} did not answer the handshake; upgrade it there ({INSTALL_HINT} -U)."
    theirs = result["protocol"]
    engine = result.get("engine", "?")
    if theirs < OLDEST_PROTOCOL:
        return (f"the engine on {host} (hermes-memory {engine}, protocol {theirs}) is older than "
                f"this app (protocol {PROTOCOL_VERSION}): upgrade it there ({INSTALL_HINT} -U).")
    if theirs > PROTOCOL_VERSION:
        return (f"the engine on {host} (hermes-memory {engine}, protocol {theirs}) is newer than "
                f"this app (protocol {PROTOCOL_VERSION}): upgrade this app.")
    return None


# --- methods -------------------------------------------------------------------------
def exposed_methods() -> dict[str, Callable[..., Any]]:
    """The engine face's public functions whose first parameter is the home, by name:
    every function added to :mod:`hermes_memory.api` is reachable without a list here."""
    from .. import api

    methods: dict[str, Callable[..., Any]] = {}
    for name, function in vars(api).items():
        if name.startswith("_") or name in BUILTIN_METHODS or not inspect.isfunction(function):
            continue
        if function.__module__ != api.__name__:  # imported helpers are not the face
            continue
        parameters = list(inspect.signature(function).parameters)
        if parameters and parameters[0] == "home":
            methods[name] = function
    return methods


def bind_params(name: str, function: Callable[..., Any], home: Any, params: dict[str, Any]):
    """``inspect.BoundArguments`` for ``function(home, **params)``, or INVALID_PARAMS."""
    if "home" in params:
        raise ProtocolError(INVALID_PARAMS, "home is the server's own; it cannot be a parameter")
    try:
        return inspect.signature(function).bind(home, **params)
    except TypeError as exc:
        raise ProtocolError(INVALID_PARAMS, f"{name}: {exc}") from None
