"""The middle of the graph tab, one page at a time: reading, the graph, nothing learned yet, or an error."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QStackedWidget, QVBoxLayout, QWidget

EMPTY_TEXT = (
    "<h3>Nothing learned yet</h3>"
    "<p>Skills appear here once the agent creates or uses them (a <code>SKILL.md</code> under "
    "<code>skills/</code> with a record in <code>skills/.usage.json</code>), and memory cards "
    "once it writes <code>memories/MEMORY.md</code> or <code>USER.md</code>.</p>"
    "<p>Use Hermes a while and this map fills in by itself — or open the demo home "
    "(<code>hermes-studio --demo</code>) to see what one looks like.</p>"
)


class CanvasPages(QStackedWidget):
    """The loading page until the first graph; then the graph page (warnings, canvas, scrubber),
    the empty-home page, or the error page whose "Try again" asks for a rebuild."""

    sig_retry = Signal()

    def __init__(
        self, home_label: str, warnings: QWidget, canvas: QWidget, scrubber: QWidget, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.graph_page = QWidget()
        graph_layout = QVBoxLayout(self.graph_page)
        graph_layout.setContentsMargins(0, 0, 0, 0)
        graph_layout.setSpacing(2)
        graph_layout.addWidget(warnings)
        graph_layout.addWidget(canvas, 1)
        graph_layout.addWidget(scrubber)

        self.loading_label = QLabel(f"Reading {home_label}…")
        self.loading_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label = QLabel(EMPTY_TEXT)
        self.empty_label.setObjectName("graphEmpty")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setMargin(40)
        self.error_page = QWidget()
        self.error_label = QLabel()
        self.error_label.setObjectName("graphError")
        self.error_label.setWordWrap(True)
        self.error_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        retry = QPushButton("Try again")
        retry.clicked.connect(lambda: self.sig_retry.emit())
        error_layout = QVBoxLayout(self.error_page)
        error_layout.addStretch(1)
        error_layout.addWidget(self.error_label)
        error_layout.addWidget(retry, 0, Qt.AlignmentFlag.AlignHCenter)
        error_layout.addStretch(1)
        for page in (self.loading_label, self.graph_page, self.empty_label, self.error_page):
            self.addWidget(page)

    def show_graph(self, empty: bool) -> None:
        """The graph page, or the "Nothing learned yet" page for a home with nothing to show."""
        self.setCurrentWidget(self.empty_label if empty else self.graph_page)

    def show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.setCurrentWidget(self.error_page)
