"""A one-line message above an editor's cards, with optional action buttons.

The store editor keeps three: short notes (saved, reloaded), problems (refusals, read errors)
and the file's own state (drift, deletion, disabled store). The editor's stylesheet colours
them by their ``level`` property.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget


class Banner(QFrame):
    """A one-line message with optional action buttons (info, warning or error)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("banner")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons_layout = QHBoxLayout()
        self.buttons_layout.setContentsMargins(0, 0, 0, 0)
        self.close_button = QToolButton(self)
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Dismiss")
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.addWidget(self.label, 1)
        layout.addLayout(self.buttons_layout)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_message(
        self,
        level: str,
        text_html: str,
        actions: list[tuple[str, str, object]] | None = None,
        closable: bool = True,
    ) -> None:
        self.setProperty("level", level)
        self.setProperty("cause", None)  # callers that track why it shows set it after
        self.style().unpolish(self)
        self.style().polish(self)
        self.label.setText(text_html)
        while self.buttons_layout.count():
            item = self.buttons_layout.takeAt(0)
            if item.widget():
                item.widget().hide()
                item.widget().deleteLater()
        for label, tip, slot in actions or []:
            button = QPushButton(label, self)
            button.setToolTip(tip)
            button.clicked.connect(slot)
            self.buttons_layout.addWidget(button)
        self.close_button.setVisible(closable)
        self.show()

    def text(self) -> str:
        return self.label.text()

    def button(self, label: str) -> QPushButton:
        for index in range(self.buttons_layout.count()):
            widget = self.buttons_layout.itemAt(index).widget()
            if isinstance(widget, QPushButton) and widget.text() == label:
                return widget
        raise KeyError(label)
