"""Writing sessions in the early Hermes schema, for our demo home and for tests.

The studio never writes a live agent's history; this writer exists so we can build
realistic ``state.db`` files. It follows the early upstream API (``create_session``,
``end_session``, ``append_message``) and its bookkeeping: every message bumps
``message_count``; tool results and assistant messages carrying ``tool_calls`` also bump
``tool_call_count``.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import translate_sqlite_errors
from .schema import configure_writer, detect_schema, ensure_early_schema

#: Upstream's early writer timeout.
WRITER_BUSY_TIMEOUT = 10.0

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _json_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


class SessionWriter:
    """A read-write connection that creates the early schema when the file is new.

    ``extra`` mappings on the write methods fill optional columns (``title``, ``active``,
    ``compacted``, ``display_kind``...) when the database has them, which is how tests
    build modern-schema fixtures.
    """

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = WRITER_BUSY_TIMEOUT):
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with translate_sqlite_errors(self.path, busy_timeout):
            self.conn = sqlite3.connect(self.path, timeout=busy_timeout, check_same_thread=False)
            configure_writer(self.conn, busy_timeout)
            if "messages" not in {
                row[0] for row in self.conn.execute("SELECT name FROM sqlite_master")
            }:
                ensure_early_schema(self.conn)
            schema = detect_schema(self.conn)
        self._columns = {"sessions": schema.session_columns, "messages": schema.message_columns}

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _extra(self, table: str, extra: Mapping[str, Any] | None) -> dict[str, Any]:
        if not extra:
            return {}
        for column in extra:
            if not _IDENTIFIER.match(column) or column not in self._columns[table]:
                raise ValueError(f"{table} has no column {column!r} in {self.path}")
        return {column: _json_text(value) if isinstance(value, (dict, list)) else value
                for column, value in extra.items()}

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        columns = ", ".join(values)
        marks = ", ".join("?" * len(values))
        cursor = self.conn.execute(
            f"INSERT INTO {table} ({columns}) VALUES ({marks})", tuple(values.values())
        )
        return int(cursor.lastrowid)

    def create_session(
        self,
        session_id: str,
        source: str,
        model: str | None = None,
        model_config: Mapping[str, Any] | str | None = None,
        system_prompt: str | None = None,
        user_id: str | None = None,
        parent_session_id: str | None = None,
        *,
        started_at: float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> str:
        values = {
            "id": session_id,
            "source": source,
            "user_id": user_id,
            "model": model,
            "model_config": _json_text(model_config),
            "system_prompt": system_prompt,
            "parent_session_id": parent_session_id,
            "started_at": time.time() if started_at is None else float(started_at),
            **self._extra("sessions", extra),
        }
        with translate_sqlite_errors(self.path, self.busy_timeout), self.conn:
            self._insert("sessions", values)
        return session_id

    def end_session(
        self, session_id: str, end_reason: str, *, ended_at: float | None = None
    ) -> None:
        with translate_sqlite_errors(self.path, self.busy_timeout), self.conn:
            self.conn.execute(
                "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?",
                (time.time() if ended_at is None else float(ended_at), end_reason, session_id),
            )

    def append_message(
        self,
        session_id: str,
        role: str,
        content: str | None = None,
        tool_name: str | None = None,
        tool_calls: Any = None,
        tool_call_id: str | None = None,
        token_count: int | None = None,
        finish_reason: str | None = None,
        *,
        timestamp: float | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> int:
        """Insert one message and update the session's counters; returns the message id."""
        values = {
            "session_id": session_id,
            "role": role,
            "content": content,
            "tool_call_id": tool_call_id,
            "tool_calls": _json_text(tool_calls),
            "tool_name": tool_name,
            "timestamp": time.time() if timestamp is None else float(timestamp),
            "token_count": token_count,
            "finish_reason": finish_reason,
            **self._extra("messages", extra),
        }
        counts_as_tool = role == "tool" or bool(tool_calls)
        with translate_sqlite_errors(self.path, self.busy_timeout), self.conn:
            message_id = self._insert("messages", values)
            self.conn.execute(
                "UPDATE sessions SET message_count = message_count + 1, "
                "tool_call_count = tool_call_count + ? WHERE id = ?",
                (1 if counts_as_tool else 0, session_id),
            )
        return message_id


def create_session(path: str | os.PathLike[str], session_id: str, source: str, **kwargs: Any) -> str:
    """One-shot :meth:`SessionWriter.create_session` (opens and closes the file)."""
    with SessionWriter(path) as writer:
        return writer.create_session(session_id, source, **kwargs)


def end_session(path: str | os.PathLike[str], session_id: str, end_reason: str, **kwargs: Any) -> None:
    with SessionWriter(path) as writer:
        writer.end_session(session_id, end_reason, **kwargs)


def append_message(path: str | os.PathLike[str], session_id: str, role: str, **kwargs: Any) -> int:
    with SessionWriter(path) as writer:
        return writer.append_message(session_id, role, **kwargs)
