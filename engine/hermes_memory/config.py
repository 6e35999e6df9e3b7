"""Reading and writing a home's ``config.yaml``.

Reads never fail: a missing file gives the defaults, a malformed one gives the defaults
plus a warning that says what to fix. Writes go through ruamel.yaml's round-trip mode so
comments and key order survive, and they are atomic.

Reads are bounded (:mod:`.safe_load`: size, nesting depth, alias expansion). A value no
consumer can use safely anywhere in the file (``.inf``, ``.nan``, a number of more
than :data:`MAX_NUMBER` magnitude, one too long to read) is dropped with a warning, so
every key falls back to its default; the keys read here are also checked per key.
"""

from __future__ import annotations

import io
import math
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import YAMLError

from .fileio import atomic_write_text, file_lock, file_version, settled
from .home import HermesHome
from .safe_load import (
    CONFIG_LIMITS,
    MAX_NUMBER_DIGITS,
    UnsafeDocument,
    check_structure,
    describe,
    finite_number,
    read_bounded,
)

DEFAULT_MEMORY_CHAR_LIMIT = 2200
DEFAULT_USER_CHAR_LIMIT = 1375
#: The largest character budget accepted (a budget is prompt space; 10 M is absurd).
MAX_CHAR_LIMIT = 10_000_000
#: Numbers beyond this magnitude are dropped from the config as unusable.
MAX_NUMBER = 10**15


class ConfigError(RuntimeError):
    """config.yaml cannot be written safely (it does not parse, or is not a mapping)."""


class _OverlongNumber(str):
    """A YAML integer too long to convert (Python refuses over 4,300 digits)."""


class _ReadingConstructor(RoundTripConstructor):
    """The round-trip constructor, except that an overlong integer becomes a marker
    (dropped with a warning) instead of failing the whole file."""

    def construct_yaml_int(self, node: Any) -> Any:
        value = node.value if isinstance(node.value, str) else ""
        if len(value) > MAX_NUMBER_DIGITS:
            return _OverlongNumber(value)
        return super().construct_yaml_int(node)


_ReadingConstructor.add_constructor("tag:yaml.org,2002:int", _ReadingConstructor.construct_yaml_int)


def _yaml(*, reading: bool = False) -> YAML:
    yaml = YAML(typ="rt")
    if reading:
        yaml.Constructor = _ReadingConstructor
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def _parse(text: str, yaml: YAML, what: str) -> Any:
    """Load and bound-check; :class:`UnsafeDocument` for anything but a syntax error."""
    try:
        data = yaml.load(text)
    except YAMLError:
        raise
    except RecursionError:
        raise UnsafeDocument(f"{what} is nested too deeply to read.") from None
    except (ValueError, TypeError, OverflowError) as exc:
        raise UnsafeDocument(f"{what} holds a value that cannot be read ({exc}).") from None
    check_structure(data, CONFIG_LIMITS, what)
    return data


def _drop_unusable(node: Any, where: str, warnings: list[str]) -> None:
    """Remove non-finite, overlong and huge numbers anywhere in the loaded config."""
    items = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
    bad = []
    for key, value in items:
        path = f"{where}.{key}" if where else str(key)
        if isinstance(value, dict | list):
            _drop_unusable(value, path, warnings)
        elif _unusable(value):
            bad.append(key)
            shown = f"a {len(value):,}-digit number" if isinstance(value, _OverlongNumber) else describe(value)
            warnings.append(
                f"config.yaml: {path} is {shown}, which no setting accepts; "
                "ignored (the default applies)."
            )
    for key in reversed(bad):
        del node[key]


def _unusable(value: Any) -> bool:
    if isinstance(value, _OverlongNumber):
        return True
    if isinstance(value, float):
        return not math.isfinite(value) or abs(value) > MAX_NUMBER
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_NUMBER


@dataclass(frozen=True)
class MemoryConfig:
    """The ``memory:`` section, with defaults filled in and problems listed."""

    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = DEFAULT_MEMORY_CHAR_LIMIT
    user_char_limit: int = DEFAULT_USER_CHAR_LIMIT
    provider: str = ""
    write_approval: bool = False
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def limit_for(self, target: str) -> int:
        return self.memory_char_limit if target == "memory" else self.user_char_limit

    def enabled_for(self, target: str) -> bool:
        return self.memory_enabled if target == "memory" else self.user_profile_enabled


@dataclass(frozen=True)
class LoadedConfig:
    data: dict[str, Any]
    warnings: tuple[str, ...]


def load_config(home: HermesHome) -> LoadedConfig:
    """The whole config as plain data; ``{}`` plus a warning when it cannot be read."""
    path = home.config_file
    try:
        raw = read_bounded(path, CONFIG_LIMITS.max_bytes)
    except FileNotFoundError:
        return LoadedConfig({}, ())
    except UnsafeDocument as exc:
        return LoadedConfig({}, (f"{exc} Using defaults.",))
    except OSError as exc:
        return LoadedConfig({}, (f"Could not read {path}: {exc.strerror}. Using defaults.",))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return LoadedConfig(
            {}, (f"{path} is not UTF-8 text. Using defaults; re-save it as UTF-8.",)
        )
    try:
        data = _parse(text, _yaml(reading=True), str(path))
    except UnsafeDocument as exc:
        return LoadedConfig({}, (f"{exc} Using defaults until it is fixed.",))
    except YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        return LoadedConfig(
            {}, (f"{path} is not valid YAML{line}. Using defaults until it is fixed.",)
        )
    if data is None:
        return LoadedConfig({}, ())
    if not isinstance(data, dict):
        return LoadedConfig(
            {}, (f"{path} does not hold a mapping of settings. Using defaults.",)
        )
    warnings: list[str] = []
    _drop_unusable(data, "", warnings)
    if len(warnings) > 5:
        warnings[5:] = [f"config.yaml: {len(warnings) - 5:,} more unusable values were ignored."]
    return LoadedConfig(data, tuple(warnings))


def _bool(section: dict, key: str, default: bool, warnings: list[str]) -> bool:
    value = section.get(key, default)
    if isinstance(value, bool):
        return value
    warnings.append(f"memory.{key} should be true or false, not {describe(value)}; using {default}.")
    return default


def _limit(section: dict, key: str, default: int, warnings: list[str]) -> int:
    value = section.get(key, default)
    if not finite_number(value, 1, MAX_CHAR_LIMIT):
        warnings.append(
            f"memory.{key} should be a number of characters from 1 to {MAX_CHAR_LIMIT:,}, "
            f"not {describe(value)}; using {default:,}."
        )
        return default
    return int(value)


_memory_configs: dict[tuple, MemoryConfig] = {}


def load_memory_config(home: HermesHome) -> MemoryConfig:
    """The ``memory:`` section; parsed once per version of config.yaml (every write of
    memory reads it, and the round-trip parser costs more than the write itself)."""
    key = _version_key(home.config_file)
    cached = _memory_configs.get(key) if key is not None else None
    if cached is not None:
        return cached
    config = _read_memory_config(home)
    if key is not None:
        if len(_memory_configs) >= 64:
            _memory_configs.clear()
        _memory_configs[key] = config
    return config


def _version_key(path: Path) -> tuple | None:
    """What tells this version of the file from any other; None when it may not be reused."""
    try:
        link = os.lstat(path)
        st = os.stat(path)
    except FileNotFoundError:
        return (str(path), None)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None  # a FIFO or folder: read it again and say so each time
    if not settled(st, time.time_ns()):
        return None
    return (str(path), link.st_ino, link.st_mtime_ns, *file_version(st))


def _read_memory_config(home: HermesHome) -> MemoryConfig:
    loaded = load_config(home)
    warnings = list(loaded.warnings)
    section = loaded.data.get("memory") or {}
    if not isinstance(section, dict):
        warnings.append("The memory: section of config.yaml is not a mapping; using defaults.")
        section = {}
    provider = section.get("provider") or ""
    if not isinstance(provider, str) or len(provider) > 128:
        warnings.append(f"memory.provider should be a name, not {describe(provider)}; using none.")
        provider = ""
    return MemoryConfig(
        memory_enabled=_bool(section, "memory_enabled", True, warnings),
        user_profile_enabled=_bool(section, "user_profile_enabled", True, warnings),
        memory_char_limit=_limit(
            section, "memory_char_limit", DEFAULT_MEMORY_CHAR_LIMIT, warnings
        ),
        user_char_limit=_limit(section, "user_char_limit", DEFAULT_USER_CHAR_LIMIT, warnings),
        provider=provider.strip(),
        write_approval=_bool(section, "write_approval", False, warnings),
        warnings=tuple(warnings),
    )


def get_config_value(home: HermesHome, dotted_key: str, default: Any = None) -> Any:
    node: Any = load_config(home).data
    for part in dotted_key.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def set_config_value(home: HermesHome, dotted_key: str, value: Any) -> None:
    """Set ``a.b.c`` in config.yaml, keeping comments, quoting and key order.

    Refuses (``ConfigError``) rather than overwrite a file that does not parse: a person's
    hand-written config is never replaced by one we generated.
    """
    path = home.config_file
    home.require()
    with file_lock(path):
        yaml = _yaml()
        try:
            text = (
                read_bounded(path, CONFIG_LIMITS.max_bytes).decode("utf-8-sig")
                if path.exists()
                else ""
            )
            data = _parse(text, yaml, str(path)) if text.strip() else CommentedMap()
        except UnsafeDocument as exc:
            raise ConfigError(
                f"{exc} Fix it by hand before changing settings; nothing was written."
            ) from None
        except (UnicodeDecodeError, YAMLError, OSError) as exc:
            raise ConfigError(
                f"{path} does not parse ({exc.__class__.__name__}); fix it by hand before "
                "changing settings, nothing was written."
            ) from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{path} is not a mapping of settings; nothing was written.")
        node = data
        parts = dotted_key.split(".")
        for part in parts[:-1]:
            child = node.get(part)
            if child is None:
                child = node[part] = CommentedMap()
            elif not isinstance(child, dict):
                raise ConfigError(
                    f"{part} in {path} is not a mapping, so {dotted_key} cannot be set; "
                    "nothing was written."
                )
            node = child
        node[parts[-1]] = value
        out = io.StringIO()
        yaml.dump(data, out)
        atomic_write_text(Path(path), out.getvalue(), temp_prefix=".config_")
