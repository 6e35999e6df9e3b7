"""List rows drawn from a little HTML (a bold title, grey details, a snippet with its hits)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

HTML_ROLE = Qt.ItemDataRole.UserRole + 1
PADDING = 4


class HtmlDelegate(QStyledItemDelegate):
    def _document(self, option: QStyleOptionViewItem, index: QModelIndex) -> QTextDocument:
        document = QTextDocument()
        document.setDefaultFont(option.font)
        document.setHtml(str(index.data(HTML_ROLE) or ""))
        document.setTextWidth(max(80, option.rect.width() - 2 * PADDING))
        return document

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        self.initStyleOption(option, index)
        style = option.widget.style() if option.widget else None
        text_option = QStyleOptionViewItem(option)
        text_option.text = ""
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, text_option, painter, option.widget)
        document = self._document(option, index)
        context = QAbstractTextDocumentLayout.PaintContext()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        context.palette.setColor(QPalette.ColorRole.Text, option.palette.color(role))
        painter.save()
        painter.translate(option.rect.left() + PADDING, option.rect.top() + PADDING)
        context.clip = QRectF(0, 0, option.rect.width(), option.rect.height())
        document.documentLayout().draw(painter, context)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        self.initStyleOption(option, index)
        width = option.widget.viewport().width() if option.widget else 360
        option.rect.setWidth(width)
        document = self._document(option, index)
        return QSize(width, int(document.size().height()) + 2 * PADDING)
