"""Spilling oversized recalled context to a private file (``hooks.output_spill``).

A prefetch result is stamped into the user turn and replayed on every later request,
so one provider returning a huge blob would inflate every turn. Above ``max_chars``
(default 10,000) the text goes to ``<home>/hook_outputs/<session>/<uuid>.txt`` and the
turn carries a head/tail preview that names the file instead.
"""

from __future__ import annotations

import logging
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..config import get_config_value
from ..home import HermesHome

logger = logging.getLogger(__name__)

DEFAULT_MAX_CHARS = 10_000
DEFAULT_PREVIEW_HEAD = 500
DEFAULT_PREVIEW_TAIL = 500


@dataclass(frozen=True)
class SpillConfig:
    enabled: bool = True
    max_chars: int = DEFAULT_MAX_CHARS
    preview_head: int = DEFAULT_PREVIEW_HEAD
    preview_tail: int = DEFAULT_PREVIEW_TAIL
    directory: Path | None = None  # None: <home>/hook_outputs


def _int_setting(section: dict, key: str, default: int, minimum: int) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        return default
    return value


def load_spill_config(home: HermesHome) -> SpillConfig:
    """``hooks.output_spill`` from config.yaml; defaults for anything missing or invalid."""
    section = get_config_value(home, "hooks.output_spill", {})
    if not isinstance(section, dict):
        section = {}
    directory = section.get("directory")
    return SpillConfig(
        enabled=section.get("enabled", True) is not False,
        max_chars=_int_setting(section, "max_chars", DEFAULT_MAX_CHARS, 1),
        preview_head=_int_setting(section, "preview_head", DEFAULT_PREVIEW_HEAD, 0),
        preview_tail=_int_setting(section, "preview_tail", DEFAULT_PREVIEW_TAIL, 0),
        directory=Path(directory).expanduser()
        if isinstance(directory, str) and directory
        else None,
    )


def _write_private(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = directory / f"{uuid.uuid4().hex}.txt"
    # O_EXCL + O_NOFOLLOW: the session directory is predictable, so never follow or reuse.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")
    return path


def spill_if_oversized(
    text: str,
    *,
    home: HermesHome,
    session_id: str = "",
    source: str = "hook",
    config: SpillConfig | None = None,
) -> str:
    """``text`` unchanged when small enough, else a preview naming the spill file."""
    config = config or SpillConfig()
    if not text or not config.enabled or len(text) <= config.max_chars:
        return text
    segment = (session_id or "no-session").replace("/", "_").replace("\\", "_").replace("..", "_")
    base = config.directory or (home.path / "hook_outputs")
    saved: Path | None = None
    try:
        saved = _write_private(base / segment, text)
    except OSError as exc:  # a full disk must not break the turn: still send a preview
        logger.warning("Could not spill oversized %s output: %s", source, exc)
    where = f"saved to {saved}]" if saved else "unavailable — spill write failed]"
    parts = [f"[{source} output truncated — {len(text):,} chars; full content {where}"]
    if config.preview_head:
        parts += ["--- head ---", text[: config.preview_head]]
    if config.preview_tail and len(text) > config.preview_head:
        parts += ["--- tail ---", text[-config.preview_tail :]]
    return "\n".join(parts)
