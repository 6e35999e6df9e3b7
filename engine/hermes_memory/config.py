"""Reading and writing a home's ``config.yaml``.

Reads never fail: a missing file gives the defaults, a malformed one gives the defaults
plus a warning that says what to fix. Writes go through ruamel.yaml's round-trip mode so
comments and key order survive, and they are atomic.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from .fileio import MAX_SETTINGS_BYTES, atomic_write_text, file_lock, read_regular_bytes
from .home import HermesHome

DEFAULT_MEMORY_CHAR_LIMIT = 2200
DEFAULT_USER_CHAR_LIMIT = 1375


class ConfigError(RuntimeError):
    """config.yaml cannot be written safely (it does not parse, or is not a mapping)."""


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


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
        raw = read_regular_bytes(path, MAX_SETTINGS_BYTES)  # never a FIFO or a device
    except FileNotFoundError:
        return LoadedConfig({}, ())
    except OSError as exc:
        return LoadedConfig({}, (f"Could not read {path}: {exc.strerror}. Using defaults.",))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return LoadedConfig(
            {}, (f"{path} is not UTF-8 text. Using defaults; re-save it as UTF-8.",)
        )
    try:
        data = _yaml().load(text)
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
    return LoadedConfig(data, ())


def _bool(section: dict, key: str, default: bool, warnings: list[str]) -> bool:
    value = section.get(key, default)
    if isinstance(value, bool):
        return value
    warnings.append(f"memory.{key} should be true or false, not {value!r}; using {default}.")
    return default


def _limit(section: dict, key: str, default: int, warnings: list[str]) -> int:
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        warnings.append(
            f"memory.{key} should be a positive number of characters, not {value!r}; "
            f"using {default:,}."
        )
        return default
    return int(value)


def load_memory_config(home: HermesHome) -> MemoryConfig:
    loaded = load_config(home)
    warnings = list(loaded.warnings)
    section = loaded.data.get("memory") or {}
    if not isinstance(section, dict):
        warnings.append("The memory: section of config.yaml is not a mapping; using defaults.")
        section = {}
    provider = section.get("provider") or ""
    if not isinstance(provider, str):
        warnings.append(f"memory.provider should be a name, not {provider!r}; using none.")
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
                read_regular_bytes(path, MAX_SETTINGS_BYTES).decode("utf-8-sig")
                if path.exists()
                else ""
            )
            data = yaml.load(text) if text.strip() else CommentedMap()
        except (UnicodeDecodeError, YAMLError) as exc:
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
