"""The capacity meter: used / limit characters, the percentage and a coloured bar.

Counts come from the engine (``StoreStatus.used``, ``DraftCheck.used``), so the meter shows
exactly what the agent's tool would count, delimiters included. Over-budget files (written
by hand) show their real percentage, above 100.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QWidget

from hermes_memory.memory.entries import FILE_NAMES, TARGETS, usage_percent

from .style import band, colours_for

if TYPE_CHECKING:
    from hermes_memory.memory.status import StoreStatus

    from ..workspace import Workspace

SHORT_LABELS = {"memory": "Notes", "user": "Profile"}


def percent(used: int, limit: int) -> int:
    """The engine's percentage, except that an over-budget store shows more than 100."""
    if limit <= 0:
        return 0
    return usage_percent(used, limit) if used <= limit else int(used / limit * 100)


def usage_text(used: int, limit: int) -> str:
    return f"{used:,} / {limit:,} chars · {percent(used, limit)}%"


def projection_text(projected: int, used: int, limit: int) -> str:
    """The one figure an editor with unsaved edits shows: usage after saving."""
    return (
        f"After save: {projected:,} / {limit:,} chars · {percent(projected, limit)}%"
        f"  (on disk now: {used:,})"
    )


class CapacityMeter(QWidget):
    """A meter for one store; ``compact`` is the status-bar form (clickable)."""

    sig_clicked = Signal()
    sig_updated = Signal(int)  # the used count now shown

    def __init__(self, label: str, *, compact: bool = False, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = label
        self.compact = compact
        self.used = 0
        self.limit = 0
        self.projected: int | None = None
        self.enabled_store = True
        self.error: str | None = None
        self.loaded = False
        self.file_name = ""
        self.setSizePolicy(
            QSizePolicy.Policy.Fixed if compact else QSizePolicy.Policy.Expanding,
            QSizePolicy.Policy.Fixed,
        )
        if compact:
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName(f"{label} capacity")
        self._update_tooltip()

    # --- state ----------------------------------------------------------------------
    def set_usage(
        self,
        used: int,
        limit: int,
        *,
        enabled: bool = True,
        error: str | None = None,
        file_name: str = "",
    ) -> None:
        self.used, self.limit = used, limit
        self.enabled_store, self.error, self.file_name = enabled, error, file_name
        self.loaded = True
        self._update_tooltip()
        self.update()
        self.sig_updated.emit(used)

    def set_projection(self, projected: int | None) -> None:
        """Show what the store would use after saving (``None`` hides the projection)."""
        if projected == self.projected:
            return
        self.projected = projected
        self._update_tooltip()
        self.update()

    @property
    def projecting(self) -> bool:
        return self.projected is not None and self.projected != self.used and not self.compact

    @property
    def shown_used(self) -> int:
        """The count the meter is about: after saving while there are edits, else on disk."""
        return self.projected if self.projecting else self.used

    @property
    def band(self) -> str:
        return band(self.shown_used, self.limit)

    def text(self) -> str:
        """The meter's text, as painted."""
        if not self.loaded:
            return f"{self.label}: …"
        if self.error:
            return f"{self.label}: unreadable"
        main = usage_text(self.used, self.limit)
        if self.compact:
            main = f"{self.label} {self.used:,}/{self.limit:,} · {percent(self.used, self.limit)}%"
            return main if self.enabled_store else f"{main} (off)"
        if self.projecting:
            main = projection_text(self.projected, self.used, self.limit)
        if self.shown_used > self.limit:
            main += f" — over budget by {self.shown_used - self.limit:,}"
        return main

    def _update_tooltip(self) -> None:
        if not self.loaded:
            tip = f"{self.label}: loading…"
        elif self.error:
            tip = f"{self.file_name or self.label}: {self.error}"
        else:
            lines = [
                f"{self.file_name or self.label}: {self.used:,} of {self.limit:,} characters "
                f"({percent(self.used, self.limit)}%), counted as the agent counts them "
                "(the 3-character separators between entries included).",
            ]
            if self.used > self.limit:
                lines.append(
                    f"Over budget by {self.used - self.limit:,} characters: the agent refuses "
                    "new entries until it is consolidated."
                )
            if self.projected is not None and self.projected != self.used:
                lines.append(f"After saving your edits: {self.projected:,} characters.")
            if not self.enabled_store:
                lines.append("This store is disabled in config.yaml: the agent does not use it.")
            if self.compact:
                lines.append("Click to open the editor.")
            tip = "\n".join(lines)
        self.setToolTip(tip)

    # --- painting -------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        metrics = self.fontMetrics()
        if self.compact:
            text_width = metrics.horizontalAdvance(f"{self.label} 00,000/00,000 · 100% (off)")
            return QSize(text_width + 70, max(20, metrics.height() + 6))
        return QSize(320, metrics.height() + 22)

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return self.sizeHint() if self.compact else QSize(200, self.sizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        colours = colours_for(self)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_colour = palette.color(palette.ColorRole.WindowText)
        muted = palette.color(palette.ColorRole.PlaceholderText)
        fill = QColor(colours.for_band(self.band))
        if not self.enabled_store or self.error:
            fill = muted
        rect = QRectF(self.rect()).adjusted(1, 1, -1, -1)
        if self.compact:
            bar = QRectF(rect.left(), rect.center().y() - 4, 56, 8)
            text_rect = rect.adjusted(bar.width() + 8, 0, 0, 0)
        else:
            bar = QRectF(rect.left(), rect.bottom() - 9, rect.width(), 9)
            text_rect = QRectF(rect.left(), rect.top(), rect.width(), rect.height() - 12)
        self._paint_bar(painter, bar, fill, QColor(colours.track))
        font = QFont(self.font())
        if not self.compact:
            font.setBold(True)
        painter.setFont(font)
        painter.setPen(QPen(text_colour))
        align = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        if self.band == "over" and not self.compact:
            painter.setPen(QPen(QColor(colours.over)))  # and the words "over budget"
        painter.drawText(text_rect, align, self.text() if self.loaded else f"{self.label}: …")
        painter.end()

    def _paint_bar(self, painter: QPainter, bar: QRectF, fill: QColor, track: QColor) -> None:
        radius = bar.height() / 2
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(track)
        painter.drawRoundedRect(bar, radius, radius)
        if not self.loaded or self.limit <= 0:
            return
        fraction = min(1.0, self.shown_used / self.limit)
        if fraction > 0:
            filled = QRectF(bar.left(), bar.top(), max(bar.height(), bar.width() * fraction), bar.height())
            painter.setBrush(fill)
            painter.drawRoundedRect(filled, radius, radius)
        if self.projecting:
            # Where the file stands now, as a marker over the bar.
            position = bar.left() + bar.width() * min(1.0, self.used / self.limit)
            painter.setPen(QPen(self.palette().color(self.palette().ColorRole.WindowText), 2))
            painter.drawLine(int(position), int(bar.top() - 2), int(position), int(bar.bottom() + 2))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
            event.position().toPoint()
        ):
            self.sig_clicked.emit()
        super().mouseReleaseEvent(event)


class StatusMeters(QWidget):
    """Both stores' usage, always visible; a click opens that store's editor."""

    sig_open = Signal(str)  # target

    def __init__(self, workspace: Workspace, parent: QWidget | None = None):
        super().__init__(parent)
        self.meters: dict[str, CapacityMeter] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 4, 0)
        layout.setSpacing(12)
        for target in TARGETS:
            meter = CapacityMeter(SHORT_LABELS[target], compact=True, parent=self)
            meter.sig_clicked.connect(lambda t=target: self.sig_open.emit(t))
            self.meters[target] = meter
            layout.addWidget(meter)
        workspace.sig_store_status.connect(self._on_status)
        for status in workspace.statuses.values():
            self._on_status(status)

    def _on_status(self, status: StoreStatus) -> None:
        meter = self.meters.get(status.target)
        if meter is not None:
            meter.set_usage(
                status.used, status.limit, enabled=status.enabled, error=status.error,
                file_name=FILE_NAMES[status.target],
            )
