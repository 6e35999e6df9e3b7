"""The strips of the graph tab: the top bar, the skipped-files warning over the canvas and the message bar under it.

Widgets only: the panel connects their controls and tells them what to show.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from .actions import Undo


class TopBar(QWidget):
    """Timeline/Clusters, "Colour by kind", Fit, the search field, "showing N of M" and "updating…"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.timeline_button = QToolButton()
        self.timeline_button.setText("Timeline")
        self.timeline_button.setToolTip("Radial time disk: the core is the oldest, rings are calendar periods")
        self.clusters_button = QToolButton()
        self.clusters_button.setText("Clusters")
        self.clusters_button.setToolTip("Grouped by category")
        self.layout_group = QButtonGroup(self)
        for button in (self.timeline_button, self.clusters_button):
            button.setCheckable(True)
            self.layout_group.addButton(button)
        self.timeline_button.setChecked(True)
        self.colour_box = QCheckBox("Colour by kind")
        self.colour_box.setToolTip("Colour skills and memory cards apart instead of by category")
        self.fit_button = QToolButton()
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Show the whole map (double-click empty space)")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search labels, categories and memory text (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.count_label = QLabel("")
        self.count_label.setObjectName("graphCount")
        self.count_label.setMinimumWidth(130)
        self.busy_label = QLabel("")
        self.busy_label.setObjectName("graphBusy")
        top = QHBoxLayout(self)
        top.setContentsMargins(6, 4, 6, 2)
        top.setSpacing(0)  # the gaps are the explicit spacings below
        top.addWidget(self.timeline_button)
        top.addWidget(self.clusters_button)
        top.addSpacing(8)
        top.addWidget(self.colour_box)
        top.addWidget(self.fit_button)
        top.addSpacing(8)
        top.addWidget(self.search, 1)
        top.addWidget(self.count_label)
        top.addWidget(self.busy_label)


class WarningsBar(QFrame):
    """The files the last read skipped: a count, a Details toggle with the list, and ✕."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphWarnings")
        self.setStyleSheet(
            "#graphWarnings { background: #fdf1dc; border: 1px solid #e8c98a; border-radius: 4px; }"
            " #graphWarnings QLabel { color: #5c4300; }"
        )
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.toggle = QToolButton()
        self.toggle.setText("Details")
        self.toggle.setCheckable(True)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail.hide()
        self.toggle.toggled.connect(self.detail.setVisible)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.clicked.connect(self.hide)
        grid = QGridLayout(self)
        grid.setContentsMargins(8, 4, 4, 4)
        grid.addWidget(self.label, 0, 0)
        grid.addWidget(self.toggle, 0, 1)
        grid.addWidget(close, 0, 2)
        grid.addWidget(self.detail, 1, 0, 1, 3)
        self.hide()

    def show_warnings(self, warnings: list[str]) -> None:
        """Show the skipped files, or hide the bar when there are none."""
        if not warnings:
            self.hide()
            return
        count = len(warnings)
        self.label.setText(
            f"{count} file{'s were' if count != 1 else ' was'} skipped; the rest of the home is shown."
        )
        self.detail.setText("\n".join(f"• {w}" for w in warnings))
        self.show()


class MessageBar(QFrame):
    """A one-line status message under the canvas, with Undo when an action offers it."""

    sig_undo = Signal(object)  # Undo

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphMessageBar")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.error_mark = QLabel("⚠")  # an error says so by shape too, not only by colour
        self.error_mark.setAccessibleName("Error")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.undo_button = QPushButton("Undo")
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 4, 3)
        layout.addWidget(self.error_mark)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.undo_button)
        layout.addWidget(self.close_button)
        self.undo: Undo | None = None
        self.undo_button.clicked.connect(self._undo_clicked)
        self.close_button.clicked.connect(self.clear)
        # the bar keeps its height when empty, so a message never resizes the canvas
        self.setFixedHeight(max(self.sizeHint().height(), 34))
        self.clear()

    def clear(self) -> None:
        self.undo = None
        self.error = False
        self.label.setText("")
        self.error_mark.hide()
        self.undo_button.hide()
        self.close_button.hide()

    def clear_error(self) -> None:
        """Drop an error message (its node is no longer the one shown)."""
        if self.error:
            self.clear()

    def has_message(self) -> bool:
        return bool(self.label.text())

    def show_message(self, text: str, *, error: bool = False, undo: Undo | None = None) -> None:
        self.undo = undo
        self.error = error
        self.error_mark.setVisible(error)
        self.label.setText(text)
        self.label.setStyleSheet("color: #c2372f;" if error else "")
        self.undo_button.setVisible(undo is not None)
        self.close_button.show()
        if undo is not None:
            self.undo_button.setToolTip(f"Undo: {undo.label}")

    def _undo_clicked(self) -> None:
        undo, self.undo = self.undo, None
        self.undo_button.hide()
        if undo is not None:
            self.sig_undo.emit(undo)

