"""One entry as an editable card: its text, character count, and what the engine found.

The card only displays and reports: edits go to the editor, which turns them into undoable
document changes; checks come from the engine (:class:`EntryCheck`).
"""

from __future__ import annotations

import html
import unicodedata

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.memory.edits import EntryCheck

from .style import colours_for

#: Keys the document-level undo stack owns, even while a card's text has focus.
_DOCUMENT_KEYS = (
    QKeySequence.StandardKey.Undo,
    QKeySequence.StandardKey.Redo,
    QKeySequence.StandardKey.Save,
)


def char_name(char: str) -> str:
    return unicodedata.name(char, "unnamed character").lower()


class FindingsHighlighter(QSyntaxHighlighter):
    """Marks the spans the scanner flagged, and the neighbours of invisible characters."""

    def __init__(self, document: QTextDocument):
        super().__init__(document)
        self.spans: list[tuple[int, int, str]] = []  # (start, end, "pattern"|"invisible")
        self.finding_format = QTextCharFormat()
        self.invisible_format = QTextCharFormat()

    def set_colours(self, finding_bg: str, invisible_bg: str) -> None:
        self.finding_format.setBackground(QColor(finding_bg))
        self.finding_format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        self.finding_format.setUnderlineColor(QColor(finding_bg).darker(160))
        self.invisible_format.setBackground(QColor(invisible_bg))

    def set_spans(self, spans: list[tuple[int, int, str]]) -> None:
        if spans != self.spans:
            self.spans = spans
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt override)
        block_start = self.currentBlock().position()
        block_end = block_start + len(text)
        for start, end, kind in self.spans:
            if end <= block_start or start >= block_end + 1:
                continue
            begin = max(start, block_start) - block_start
            length = min(end, block_end) - block_start - begin
            if length > 0:
                fmt = self.invisible_format if kind == "invisible" else self.finding_format
                self.setFormat(begin, length, fmt)


class EntryTextEdit(QTextEdit):
    """Plain-text, auto-height text for one entry; document shortcuts pass through."""

    sig_focused = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAcceptRichText(False)
        self.setUndoRedoEnabled(False)  # the editor's undo stack covers typing
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setPlaceholderText("Write the entry: one fact the agent should remember…")
        self.document().setDocumentMargin(2)
        self.document().contentsChanged.connect(self._fit_height)
        self._fit_height()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if any(event.matches(key) for key in _DOCUMENT_KEYS) or (
                event.keyCombination().toCombined()
                == (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
                    | Qt.Key.Key_Z).toCombined()
            ):
                event.ignore()  # let the editor's Save/Undo/Redo actions have it
                return True
        return super().event(event)

    def focusInEvent(self, event: QFocusEvent) -> None:  # noqa: N802
        super().focusInEvent(event)
        self.sig_focused.emit()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_height()

    def _fit_height(self) -> None:
        document = self.document()
        document.setTextWidth(max(50, self.viewport().width()))
        height = int(document.size().height()) + 2 * self.frameWidth() + 2
        line = self.fontMetrics().lineSpacing()
        height = max(height, line + 10)
        if self.height() != height:
            self.setFixedHeight(height)

    def set_text_keeping_cursor(self, text: str) -> None:
        """Replace the text (undo/redo, reload) without moving the cursor more than needed."""
        if self.toPlainText() == text:
            return
        cursor = self.textCursor()
        position = cursor.position()
        blocked = self.blockSignals(True)
        try:
            self.setPlainText(text)
        finally:
            self.blockSignals(blocked)
        cursor = self.textCursor()
        cursor.setPosition(min(position, len(text)))
        self.setTextCursor(cursor)
        self._fit_height()


class DragHandle(QLabel):
    """The grip at the left of a card's header: dragging it moves the card."""

    sig_drag = Signal()  # the pointer moved far enough with the button down

    def __init__(self, parent: QWidget | None = None):
        super().__init__("⠿", parent)
        self.setObjectName("cardGrip")
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self.setToolTip("Drag to move this entry (or Alt+Up / Alt+Down)")
        self._pressed_at: QPoint | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt override)
        if event.button() == Qt.MouseButton.LeftButton:
            self._pressed_at = event.position().toPoint()
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        start = self._pressed_at
        if start is not None and (
            (event.position().toPoint() - start).manhattanLength() >= QApplication.startDragDistance()
        ):
            self._pressed_at = None
            self.sig_drag.emit()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._pressed_at = None
        super().mouseReleaseEvent(event)


class _HistoryRequests(QObject):
    """Where a card's "History" button asks for its entry's versions (the window listens)."""

    sig_entry = Signal(object, str)  # the card, its text


HISTORY_REQUESTS = _HistoryRequests()


class EntryCard(QFrame):
    """An entry card. Signals carry the card's uid."""

    sig_text_edited = Signal(int, str)
    sig_focused = Signal(int)
    sig_selection_toggled = Signal(int, bool)
    sig_move = Signal(int, int)
    sig_drag = Signal(int)  # the person started dragging the card by its grip
    sig_remove = Signal(int)
    sig_strip_invisible = Signal(int)
    sig_origin = Signal(int)  # "Where this came from": the session(s) that wrote it

    def __init__(self, uid: int, text: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.uid = uid
        self.check: EntryCheck | None = None
        self.setObjectName("entryCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)

        self.grip = DragHandle(self)
        self.grip.sig_drag.connect(lambda: self.sig_drag.emit(self.uid))
        self.select_box = QCheckBox(self)
        self.select_box.setToolTip("Select this entry to merge it with others, or to remove several")
        self.select_box.toggled.connect(lambda on: self.sig_selection_toggled.emit(self.uid, on))
        self.number_label = QLabel(self)
        self.number_label.setObjectName("cardNumber")
        self.count_label = QLabel(self)
        self.count_label.setObjectName("cardCount")
        self.badge_label = QLabel(self)
        self.badge_label.setObjectName("cardBadges")
        self.badge_label.setTextFormat(Qt.TextFormat.RichText)
        # Arrivals from the agent and conflicts are said in words, not only by colour.
        self.flag_label = QLabel(self)
        self.flag_label.setObjectName("cardFlag")
        self.flag_label.hide()

        self.up_button = self._tool_button("↑", "Move up (Alt+Up)", lambda: self.sig_move.emit(self.uid, -1))
        self.down_button = self._tool_button(
            "↓", "Move down (Alt+Down)", lambda: self.sig_move.emit(self.uid, 1)
        )
        self.remove_button = self._tool_button(
            "✕", "Remove this entry (Delete; undo with Ctrl+Z)", lambda: self.sig_remove.emit(self.uid)
        )
        self.history_button = self._tool_button(
            "⟲", "History of this entry (its versions, diffs and restore)",
            lambda: HISTORY_REQUESTS.sig_entry.emit(self, self._last_text),
        )

        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.setSpacing(6)
        header.addWidget(self.grip)
        header.addWidget(self.select_box)
        header.addWidget(self.number_label)
        header.addWidget(self.count_label)
        header.addWidget(self.flag_label)
        header.addWidget(self.badge_label, 1)
        self.origin_button = self._tool_button(
            "⌕", "Where this came from (the session that wrote it)", lambda: self.sig_origin.emit(self.uid))
        header.addWidget(self.origin_button)
        header.addWidget(self.up_button)
        header.addWidget(self.down_button)
        header.addWidget(self.history_button)
        header.addWidget(self.remove_button)

        self.text_edit = EntryTextEdit(self)
        self.text_edit.setPlainText(text)
        self._last_text = text
        self.text_edit.textChanged.connect(self._on_text_changed)
        self.text_edit.sig_focused.connect(lambda: self.sig_focused.emit(self.uid))
        self.highlighter = FindingsHighlighter(self.text_edit.document())

        self.findings_label = QLabel(self)
        self.findings_label.setObjectName("cardFindings")
        self.findings_label.setWordWrap(True)
        self.findings_label.setTextFormat(Qt.TextFormat.RichText)
        self.findings_label.setVisible(False)
        self.strip_button = QPushButton("Remove invisible characters", self)
        self.strip_button.setToolTip(
            "Delete every zero-width and direction-control character from this entry "
            "(undo with Ctrl+Z)"
        )
        self.strip_button.clicked.connect(lambda: self.sig_strip_invisible.emit(self.uid))
        self.strip_button.setVisible(False)
        findings_row = QHBoxLayout()
        findings_row.setContentsMargins(0, 0, 0, 0)
        findings_row.addWidget(self.findings_label, 1)
        findings_row.addWidget(self.strip_button, 0, Qt.AlignmentFlag.AlignTop)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 8, 8)
        layout.setSpacing(4)
        layout.addLayout(header)
        layout.addWidget(self.text_edit)
        layout.addLayout(findings_row)
        self._update_count()
        self.apply_colours()

    def _tool_button(self, text: str, tip: str, slot) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setAccessibleName(tip.split(" (")[0])  # the glyph alone says nothing to a reader
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.clicked.connect(slot)
        return button

    # --- state from the editor --------------------------------------------------------
    def text(self) -> str:
        return self.text_edit.toPlainText()

    def set_text(self, text: str) -> None:
        self._last_text = text
        self.text_edit.set_text_keeping_cursor(text)
        self._update_count()

    def set_number(self, number: int, count: int) -> None:
        self.number_label.setText(f"#{number}")
        self.text_edit.setAccessibleName(f"Entry {number} of {count}")
        self.select_box.setAccessibleName(f"Select entry {number}")
        self.up_button.setEnabled(number > 1)
        self.down_button.setEnabled(number < count)

    def set_selected(self, selected: bool) -> None:
        if self.select_box.isChecked() != selected:
            blocked = self.select_box.blockSignals(True)
            self.select_box.setChecked(selected)
            self.select_box.blockSignals(blocked)

    def set_state(self, changed: bool) -> None:
        if self.property("changed") != changed:
            self.setProperty("changed", changed)
            self._repolish()

    def set_arrived(self, arrived: bool) -> None:
        """Highlight a card the agent just added or changed."""
        if self.property("arrived") != arrived:
            self.setProperty("arrived", arrived)
            self._update_flag()

    def set_conflict(self, conflict: bool) -> None:
        """Mark a card whose entry the agent changed too (the choice is shown above)."""
        if self.property("conflict") != conflict:
            self.setProperty("conflict", conflict)
            self._update_flag()

    def _update_flag(self) -> None:
        if self.property("conflict"):
            self.flag_label.setText("⚠ Conflict: see above")
        elif self.property("arrived"):
            self.flag_label.setText("● From the agent")
        self.flag_label.setVisible(bool(self.property("conflict") or self.property("arrived")))
        self._repolish()

    def apply_colours(self) -> None:
        colours = colours_for(self)
        self.highlighter.set_colours(colours.finding_bg, colours.invisible_bg)
        if self.highlighter.spans:
            self.highlighter.rehighlight()

    def show_check(self, check: EntryCheck, duplicate_number: int | None = None) -> None:
        """Show what the engine found in this entry's text."""
        self.check = check
        self._update_count()
        colours = colours_for(self)
        badges = []
        if check.empty:
            badges.append(("Empty: not saved", colours.warning))
        if duplicate_number is not None:
            badges.append((f"Duplicate of #{duplicate_number}: saved once", colours.warning))
        if check.pattern_findings:
            ids = ", ".join(f.id for f in check.pattern_findings)
            badges.append((f"Blocked: {ids}", colours.over))
        if check.invisible:
            badges.append((f"{len(check.invisible)} invisible", colours.over))
        if check.delimiter_line:
            badges.append(("Contains a § line", colours.over))
        self.badge_label.setText(
            " ".join(
                f'<span style="color:{colour}; font-weight:600">{html.escape(text)}</span>'
                for text, colour in badges
            )
        )
        self._show_findings(check)
        problem = check.blocked or duplicate_number is not None
        if self.property("problem") != problem:
            self.setProperty("problem", problem)
            self._repolish()

    def _show_findings(self, check: EntryCheck) -> None:
        lines = []
        for finding in check.pattern_findings:
            lines.append(
                f"<b>{html.escape(finding.id)}</b>: {html.escape(finding.explanation)}"
            )
        for offset, char in check.invisible[:5]:
            lines.append(
                f"<b>Invisible U+{ord(char):04X}</b> ({html.escape(char_name(char))}) at "
                f"character {offset + 1}, highlighted: it hides text from you but not from "
                "the model."
            )
        if len(check.invisible) > 5:
            lines.append(f"…and {len(check.invisible) - 5} more invisible characters.")
        if check.delimiter_line:
            lines.append(
                "A line holding only <b>§</b> is the entry separator: this would be saved as "
                "separate entries. Remove that line, or split the entry into two cards."
            )
        self.findings_label.setText("<br>".join(lines))
        self.findings_label.setVisible(bool(lines))
        self.strip_button.setVisible(bool(check.invisible))
        # Spans are offsets into the stripped text; the card may hold leading whitespace.
        text = self.text()
        lead = len(text) - len(text.lstrip())
        spans: list[tuple[int, int, str]] = []
        for finding in check.pattern_findings:
            if finding.span_in_original:
                spans.append((lead + finding.start, lead + finding.end, "pattern"))
            else:  # offsets are in the NFKC form: mark the whole entry instead
                spans.append((lead, lead + len(check.text), "pattern"))
        for offset, _ in check.invisible:
            start = lead + offset
            spans.append((max(0, start - 1), start + 2, "invisible"))
        self.highlighter.set_spans(spans)

    # --- internals --------------------------------------------------------------------
    def _on_text_changed(self) -> None:
        text = self.text()
        if text == self._last_text:
            return  # a re-highlight also signals textChanged; only real edits count
        self._last_text = text
        self._update_count()
        self.sig_text_edited.emit(self.uid, text)

    def _update_count(self) -> None:
        count = len(self.text().strip())
        self.count_label.setText(f"{count:,} chars")
        self.count_label.setToolTip(
            f"This entry is {count:,} characters; with the 3-character separator it costs "
            f"{count + 3:,} of the budget (the first entry has no separator)."
        )

    def _repolish(self) -> None:
        self.style().unpolish(self)
        self.style().polish(self)
        self.update()


def focus_card(widget: QObject | None) -> EntryCard | None:
    """The card that ``widget`` (typically the focus widget) belongs to, if any."""
    while widget is not None:
        if isinstance(widget, EntryCard):
            return widget
        widget = widget.parent()
    return None
