"""The app icon (``resources/icons/hermes-studio.svg``), for every window."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QIcon

from .paths import resources_dir


def app_icon_file() -> Path:
    return resources_dir() / "icons" / "hermes-studio.svg"


def app_icon() -> QIcon:
    """The icon, or an empty one when the file is missing (the window still opens)."""
    path = app_icon_file()
    return QIcon(str(path)) if path.is_file() else QIcon()
