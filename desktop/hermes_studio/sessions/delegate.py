"""List rows drawn from a little HTML (a bold title, grey details, a snippet with its hits).

Every row has the same height (a title line and three lines of snippet, the rest clipped),
so the list lays out 30 rows without measuring each: results as you type stay quick.
Each row's laid-out text is kept for the next paints (a scroll repaints every row in view,
and parsing and laying out each one's HTML again took most of a scroll step).
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFontMetrics,
    QPainter,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

HTML_ROLE = Qt.ItemDataRole.UserRole + 1
PADDING = 4
LINES = 4
#: Laid-out rows kept for repainting (a few screens of them).
KEPT_DOCUMENTS = 200


class HtmlDelegate(QStyledItemDelegate):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._documents: OrderedDict[tuple[str, str, float], QTextDocument] = OrderedDict()

    def _document(self, html: str, option: QStyleOptionViewItem) -> QTextDocument:
        width = max(80, option.rect.width() - 2 * PADDING)
        key = (html, option.font.key(), width)
        document = self._documents.get(key)
        if document is None:
            document = QTextDocument()
            document.setDefaultFont(option.font)
            document.setDocumentMargin(0)
            document.setHtml(html)
            document.setTextWidth(width)
            self._documents[key] = document
            while len(self._documents) > KEPT_DOCUMENTS:
                self._documents.popitem(last=False)
        else:
            self._documents.move_to_end(key)
        return document

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        self.initStyleOption(option, index)
        style = option.widget.style() if option.widget else None
        background = QStyleOptionViewItem(option)
        background.text = ""
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, background, painter, option.widget)
        document = self._document(str(index.data(HTML_ROLE) or ""), option)
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, option.palette.color(role))
        painter.save()
        painter.translate(option.rect.left() + PADDING, option.rect.top() + PADDING)
        clip = QRectF(0, 0, option.rect.width() - 2 * PADDING, option.rect.height() - 2 * PADDING)
        painter.setClipRect(clip)
        context.clip = clip
        document.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        width = option.widget.viewport().width() if option.widget else 360
        return QSize(width, LINES * QFontMetrics(option.font).lineSpacing() + 2 * PADDING + 2)
