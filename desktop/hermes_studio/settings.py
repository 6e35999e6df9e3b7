"""What the app remembers between launches, in one INI file (QSettings).

The file lives in the platform's user config folder (``platformdirs``), looked up each time
it is opened, so tests that point ``XDG_CONFIG_HOME`` (or ``HOME``) at a temporary folder
never touch the real one. Remembered: the window's geometry and splitter sizes, the theme,
the recent homes (the first is the last one opened), and per home the view, the graph's
mode and its filters.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import platformdirs
from PySide6.QtCore import QSettings

APP_ID = "hermes-studio"


def settings_file() -> Path:
    return Path(platformdirs.user_config_dir(APP_ID, appauthor=False)) / f"{APP_ID}.ini"


def app_settings() -> QSettings:
    """The app's settings file (a new handle each call; values are shared through the file)."""
    return QSettings(str(settings_file()), QSettings.Format.IniFormat)


def home_key(label: str) -> str:
    """A settings group name for a home (its label hashed: paths are not valid keys)."""
    return "home-" + hashlib.sha256(label.encode("utf-8")).hexdigest()[:16]


class Settings:
    """Typed access to the settings file."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.qsettings = settings or app_settings()

    # --- the window ----------------------------------------------------------------------
    def geometry(self) -> tuple[int, int, int, int, bool] | None:
        """``(x, y, width, height, maximized)`` of the window when it last closed."""
        value = self.qsettings.value("window/geometry")
        try:
            x, y, width, height, maximized = (int(v) for v in value)
        except (TypeError, ValueError):
            return None
        return (x, y, width, height, bool(maximized)) if width > 0 and height > 0 else None

    def set_geometry(self, x: int, y: int, width: int, height: int, maximized: bool) -> None:
        self.qsettings.setValue("window/geometry", [x, y, width, height, int(maximized)])

    def splitter(self, name: str) -> list[int] | None:
        value = self.qsettings.value(f"splitters/{name}")
        try:
            sizes = [int(v) for v in (value if isinstance(value, list) else [value])]
        except (TypeError, ValueError):
            return None
        return sizes if len(sizes) >= 2 and all(s >= 0 for s in sizes) else None

    def set_splitter(self, name: str, sizes: list[int]) -> None:
        self.qsettings.setValue(f"splitters/{name}", [int(s) for s in sizes])

    def theme(self) -> str | None:
        value = self.qsettings.value("view/theme")
        return str(value) if value else None

    def set_theme(self, mode: str) -> None:
        self.qsettings.setValue("view/theme", mode)

    # --- per home ----------------------------------------------------------------------------
    def home_value(self, label: str, key: str, default: Any = None) -> Any:
        raw = self.qsettings.value(f"{home_key(label)}/{key}")
        if raw is None:
            return default
        try:
            return json.loads(str(raw))
        except ValueError:
            return default

    def set_home_value(self, label: str, key: str, value: Any) -> None:
        self.qsettings.setValue(f"{home_key(label)}/{key}", json.dumps(value))

    def sync(self) -> None:
        self.qsettings.sync()
