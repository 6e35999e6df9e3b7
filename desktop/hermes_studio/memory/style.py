"""Palette-aware colours for the memory editors: meter bands, findings, merge kinds.

The theme module names the app's base colours; these are the semantic colours that sit on
top, picked for contrast against the current palette (light or dark). The store editor's
stylesheet (cards, banners, the Save button) is built here from both.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QWidget

#: Usage bands: below 80 % calm, 80–100 % warning, above 100 % over budget.
WARNING_PERCENT = 80


def band(used: int, limit: int) -> str:
    """``"calm"``, ``"warning"`` or ``"over"`` for ``used`` characters of ``limit``."""
    if limit <= 0 or used > limit:
        return "over" if used > 0 else "calm"
    return "warning" if used * 100 >= WARNING_PERCENT * limit else "calm"


@dataclass(frozen=True)
class Colours:
    calm: str
    warning: str
    over: str
    finding_bg: str  # behind text the scanner flagged
    invisible_bg: str  # around an invisible character
    track: str  # the empty part of a meter
    info_bg: str
    warning_bg: str
    error_bg: str
    added: str
    removed: str
    edited: str

    def for_band(self, name: str) -> str:
        return {"calm": self.calm, "warning": self.warning, "over": self.over}[name]


LIGHT_COLOURS = Colours(
    calm="#2f8a4c",
    warning="#b7791f",
    over="#c2372f",
    finding_bg="#fbd5d1",
    invisible_bg="#f7b955",
    track="#e3e6ea",
    info_bg="#e7effc",
    warning_bg="#fdf1dc",
    error_bg="#fbe3e1",
    added="#2f8a4c",
    removed="#c2372f",
    edited="#3b6fd8",
)

DARK_COLOURS = Colours(
    calm="#5cc27f",
    warning="#e8b04c",
    over="#f0766c",
    finding_bg="#5c2b2a",
    invisible_bg="#8a5a12",
    track="#3a4049",
    info_bg="#243349",
    warning_bg="#45391f",
    error_bg="#4a2626",
    added="#5cc27f",
    removed="#f0766c",
    edited="#6f9cf0",
)


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def colours_for(widget: QWidget | None = None) -> Colours:
    palette = widget.palette() if widget is not None else QApplication.palette()
    return DARK_COLOURS if is_dark(palette) else LIGHT_COLOURS


def editor_stylesheet(widget: QWidget) -> str:
    """The store editor's stylesheet, from the widget's palette and the semantic colours."""
    colours = colours_for(widget)
    palette = widget.palette()
    base = palette.color(palette.ColorRole.Base).name()
    window = palette.color(palette.ColorRole.Window)
    border = (window.darker(118) if window.lightness() >= 128 else window.lighter(150)).name()
    muted = palette.color(palette.ColorRole.PlaceholderText).name()
    accent = palette.color(palette.ColorRole.Highlight).name()
    accent_text = palette.color(palette.ColorRole.HighlightedText).name()
    return f"""
        QWidget#cardsArea {{ background: transparent; }}
        QFrame#entryCard {{ background: {base}; border: 1px solid {border};
                            border-radius: 6px; }}
        QFrame#entryCard[changed="true"] {{ border-left: 4px solid {accent}; }}
        QFrame#entryCard[problem="true"] {{ border: 1px solid {colours.over};
                                           border-left: 4px solid {colours.over}; }}
        QFrame#entryCard[arrived="true"] {{ border: 2px solid {colours.added}; }}
        QFrame#entryCard[conflict="true"] {{ border: 2px dashed {colours.warning}; }}
        QLabel#cardFlag {{ font-weight: 600; }}
        QFrame#entryCard QTextEdit {{ background: {base}; }}
        QLabel#cardNumber {{ color: {muted}; font-weight: 600; }}
        QLabel#cardGrip {{ color: {muted}; padding: 0 2px; }}
        QFrame#dropMarker {{ background: {accent}; border: none; border-radius: 1px; }}
        QLabel#cardCount, QLabel#caption, QLabel#editorSubtitle, QLabel#saveState,
        QLabel#emptyState {{ color: {muted}; }}
        QLabel#cardFindings {{ color: {palette.color(palette.ColorRole.Text).name()}; }}
        QFrame#banner {{ border-radius: 5px; border: 1px solid {border}; }}
        QFrame#banner[level="info"] {{ background: {colours.info_bg}; }}
        QFrame#banner[level="warning"] {{ background: {colours.warning_bg}; }}
        QFrame#banner[level="error"] {{ background: {colours.error_bg}; }}
        QToolButton#saveButton {{ background: {accent}; color: {accent_text};
                                  border-radius: 4px; padding: 4px 16px;
                                  font-weight: 600; }}
        QToolButton#saveButton:disabled {{ background: {border}; color: {muted}; }}
        """
