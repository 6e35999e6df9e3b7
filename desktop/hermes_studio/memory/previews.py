"""The store editor's side tabs: the block the agent will see next session, and the raw file.

Both are read-only views of what the engine says: the prompt block is rendered by
``prompt_preview`` from the draft's check; the raw file is the text exactly as on disk.
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QTabWidget, QVBoxLayout, QWidget

from hermes_memory.memory.edits import DraftCheck, prompt_preview
from hermes_memory.memory.status import StoreStatus


def _text_page(parent: QWidget, font: QFont) -> tuple[QLabel, QPlainTextEdit, QWidget]:
    """A caption over a read-only, wrapped text view: one tab's page."""
    caption = QLabel(parent)
    caption.setWordWrap(True)
    caption.setObjectName("caption")
    text = QPlainTextEdit(parent)
    text.setReadOnly(True)
    text.setFont(font)
    text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    page = QWidget(parent)
    layout = QVBoxLayout(page)
    layout.setContentsMargins(6, 6, 6, 6)
    layout.addWidget(caption)
    layout.addWidget(text, 1)
    return caption, text, page


class PreviewTabs:
    """The side tabs' widgets (children of the editor) and what their captions say."""

    def __init__(self, parent: QWidget) -> None:
        # The pages come before their tab widget, so the keyboard focus order stays the same.
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.preview_caption, self.preview_text, preview_page = _text_page(parent, mono)
        self.preview_text.setPlaceholderText(
            "Nothing: an empty store adds no block to the prompt."
        )
        self.raw_caption, self.raw_text, raw_page = _text_page(parent, mono)
        self.tabs = QTabWidget(parent)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(preview_page, "What the agent sees next session")
        self.tabs.addTab(raw_page, "Raw file")

    def show_check(self, target: str, check: DraftCheck, enabled: bool, dirty: bool) -> None:
        """The prompt block the checked draft would give the agent."""
        block = prompt_preview(target, list(check.saved_entries), check.limit)
        self.preview_text.setPlainText(block)
        if not enabled:
            caption = (
                "The agent does not load this store: it is disabled in config.yaml. Were it "
                "enabled, its block would read:"
            )
        elif dirty and check.over_budget:
            caption = (
                "Over budget, so this cannot be saved yet. Were it saved, the agent's system "
                "prompt would hold exactly this block (its header caps the percentage at 100)."
            )
        elif dirty:
            caption = (
                "After you save: the block the agent's system prompt will hold next session, "
                "rendered by the engine (flagged entries become [BLOCKED: …] placeholders)."
            )
        else:
            caption = (
                "The block the agent's system prompt will hold next session, rendered by the "
                "engine (flagged entries become [BLOCKED: …] placeholders)."
            )
        self.preview_caption.setText(caption)

    def show_file(self, status: StoreStatus, file_name: str) -> None:
        """The file exactly as on disk, with where it is and what it holds."""
        self.raw_text.setPlainText(status.raw)
        if status.error:
            self.raw_caption.setText(f"{file_name} cannot be shown: {status.error}")
            return
        where = str(status.path)
        if status.exists:
            self.raw_caption.setText(
                f"{where} exactly as on disk: {len(status.raw):,} characters, "
                f"{len(status.entries)} entries."
            )
        else:
            self.raw_caption.setText(f"{where} does not exist yet; saving creates it.")
