"""Light and dark themes, as data, and the function that applies one to the application.

A theme is a palette file (``resources/themes/light.json``, ``dark.json``: named colours)
filled into the stylesheet template ``resources/themes/app.qss`` and its SVG icons (the
checkbox mark, recoloured per theme). ``"system"`` follows the platform's colour scheme,
and follows it again when it changes. The graph canvas takes the theme's light or dark
sky (see :func:`hermes_studio.graph.style.canvas_style`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from functools import cache
from pathlib import Path
from string import Template
from typing import Literal

import platformdirs
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from .paths import resources_dir

Mode = Literal["system", "light", "dark"]
MODES: tuple[Mode, ...] = ("system", "light", "dark")
MODE_LABELS = {"light": "Light", "dark": "Dark", "system": "Follow the system"}


def themes_dir() -> Path:
    """``resources/themes`` in the package (beside the demo home)."""
    return resources_dir() / "themes"


@dataclass(frozen=True)
class Theme:
    """The colours of one theme, as ``#rrggbb`` strings."""

    name: str
    window: str
    surface: str
    surface_alt: str
    text: str
    muted_text: str
    accent: str
    accent_text: str
    border: str
    control_border: str  # checkbox and radio outlines: readable against ``surface``
    focus: str

    @property
    def dark(self) -> bool:
        return QColor(self.window).lightnessF() < 0.5


def load_theme(name: str) -> Theme:
    data = json.loads((themes_dir() / f"{name}.json").read_text(encoding="utf-8"))
    names = {f.name for f in fields(Theme)}
    missing = names - data.keys()
    if missing:
        raise ValueError(f"Theme {name!r} lacks {', '.join(sorted(missing))}.")
    return Theme(**{key: str(data[key]) for key in names})


LIGHT = load_theme("light")
DARK = load_theme("dark")


@cache
def stylesheet_template() -> Template:
    return Template((themes_dir() / "app.qss").read_text(encoding="utf-8"))


def system_prefers_dark() -> bool:
    """True when the platform reports a dark colour scheme (unknown counts as light)."""
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


def theme_for(mode: Mode = "system") -> Theme:
    if mode not in MODES:
        raise ValueError(f"Unknown theme {mode!r}; use one of {', '.join(MODES)}.")
    if mode == "system":
        return DARK if system_prefers_dark() else LIGHT
    return DARK if mode == "dark" else LIGHT


def build_palette(theme: Theme) -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: theme.window,
        QPalette.ColorRole.WindowText: theme.text,
        QPalette.ColorRole.Base: theme.surface,
        QPalette.ColorRole.AlternateBase: theme.surface_alt,
        QPalette.ColorRole.Text: theme.text,
        QPalette.ColorRole.PlaceholderText: theme.muted_text,
        QPalette.ColorRole.Button: theme.surface_alt,
        QPalette.ColorRole.ButtonText: theme.text,
        QPalette.ColorRole.ToolTipBase: theme.surface,
        QPalette.ColorRole.ToolTipText: theme.text,
        QPalette.ColorRole.Highlight: theme.accent,
        QPalette.ColorRole.HighlightedText: theme.accent_text,
        QPalette.ColorRole.Link: theme.accent,
        QPalette.ColorRole.Mid: theme.control_border,
        QPalette.ColorRole.Dark: theme.control_border,
    }
    for role, colour in roles.items():
        palette.setColor(role, QColor(colour))
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(theme.muted_text))
    return palette


def icon_file(name: str, colour: str) -> Path:
    """``resources/themes/<name>.svg`` recoloured (its ``$colour``), cached on disk for Qt."""
    source = Template((themes_dir() / f"{name}.svg").read_text(encoding="utf-8"))
    folder = Path(platformdirs.user_cache_dir("hermes-studio", appauthor=False)) / "icons"
    target = folder / f"{name}-{colour.lstrip('#')}.svg"
    if not target.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        target.write_text(source.substitute(colour=colour), encoding="utf-8")
    return target


def stylesheet(theme: Theme) -> str:
    check = icon_file("check", theme.accent_text).as_posix()
    return stylesheet_template().substitute({**asdict(theme), "check_icon": check})


def apply_theme(app: QApplication, mode: Mode = "system") -> Theme:
    """Give the whole application the palette and stylesheet of ``mode``; return the theme.

    Uses the Fusion style, the one style that honours a custom palette on every platform.
    """
    theme = theme_for(mode)
    app.setStyle("Fusion")
    app.setPalette(build_palette(theme))
    app.setStyleSheet(stylesheet(theme))
    app.setProperty("hermes_theme_mode", mode)
    return theme


def current_mode(app: QApplication | None = None) -> Mode:
    app = app or QApplication.instance()
    mode = app.property("hermes_theme_mode") if app is not None else None
    return mode if mode in MODES else "system"
