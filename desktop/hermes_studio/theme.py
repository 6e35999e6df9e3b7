"""Light and dark palettes, and a function that applies one to the application.

Themes are data: a :class:`Theme` names the colours, and :data:`STYLESHEET` is a small
template filled from them. ``"system"`` (the default) follows the platform's colour scheme.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from string import Template
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

Mode = Literal["system", "light", "dark"]
MODES: tuple[Mode, ...] = ("system", "light", "dark")


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


LIGHT = Theme(
    name="light",
    window="#f4f5f7",
    surface="#ffffff",
    surface_alt="#eef0f3",
    text="#1f2328",
    muted_text="#5f6b7a",
    accent="#3b6fd8",
    accent_text="#ffffff",
    border="#d0d5dd",
)

DARK = Theme(
    name="dark",
    window="#1e2127",
    surface="#262a31",
    surface_alt="#2e333b",
    text="#e6e9ef",
    muted_text="#9aa4b2",
    accent="#6f9cf0",
    accent_text="#10131a",
    border="#3b414b",
)

STYLESHEET = Template(
    """
QTabWidget::pane { border: 1px solid $border; background: $surface; }
QTabBar::tab { padding: 6px 16px; color: $muted_text; background: $surface_alt;
               border: 1px solid $border; border-bottom: none; margin-right: 2px; }
QTabBar::tab:selected { color: $text; background: $surface; }
QStatusBar { color: $muted_text; border-top: 1px solid $border; }
"""
)


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


def apply_theme(app: QApplication, mode: Mode = "system") -> Theme:
    """Give the whole application the palette and stylesheet of ``mode``; return the theme.

    Uses the Fusion style, the one style that honours a custom palette on every platform.
    """
    theme = theme_for(mode)
    app.setStyle("Fusion")
    app.setPalette(build_palette(theme))
    app.setStyleSheet(STYLESHEET.substitute(asdict(theme)))
    return theme
