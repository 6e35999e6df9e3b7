"""The entry-level merge a person resolves when the file changed under unsaved edits.

The engine computes the proposal (:class:`MergeProposal`); this panel shows each change
(added, removed or edited on disk, changed by the person, conflicts) with the choices the
engine allows, and the usage the result would have.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from hermes_memory.memory.edits import MergeItem, MergeProposal, merge_problems
from hermes_memory.memory.entries import FILE_NAMES, char_count

from .meter import percent
from .style import band, colours_for

KIND_TITLES = {
    "added_by_agent": "Added on disk",
    "removed_by_agent": "Removed on disk",
    "edited_by_agent": "Edited on disk",
    "edited_by_person": "Your change",
    "conflict": "Conflict",
}

OPTION_LABELS = {
    "added_by_agent": {"theirs": "Keep it", "mine": "Drop it"},
    "removed_by_agent": {"theirs": "Remove it", "mine": "Keep it"},
    "edited_by_agent": {"theirs": "Take the disk version", "mine": "Keep the earlier text"},
    "edited_by_person": {"mine": "Keep your change", "theirs": "Use what is on disk"},
    "conflict": {"mine": "Yours", "theirs": "Disk version", "both": "Keep both"},
}


SAVE_TIP = "Write the merged entries under the file lock; anything written meanwhile is merged in too"


def _short(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _quote(texts: tuple[str, ...]) -> str:
    if not texts:
        return "<i>(nothing)</i>"
    return "<br>".join(
        "• " + html.escape(text).replace("\n", "<br>&nbsp;&nbsp;") for text in texts
    )


class MergeItemRow(QFrame):
    """One change with its choices."""

    sig_choice_changed = Signal()

    def __init__(self, item: MergeItem, choice: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.item = item
        self.setObjectName("mergeItem")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        colours = colours_for(self)
        colour = {
            "added_by_agent": colours.added,
            "removed_by_agent": colours.removed,
            "edited_by_agent": colours.edited,
            "edited_by_person": colours.edited,
            "conflict": colours.over,
        }[item.kind]
        heading = item.describe()
        if item.kind == "conflict":
            heading = f"Conflict: {heading}"
        title = QLabel(
            f'<span style="color:{colour}; font-weight:700">{html.escape(heading)}</span>', self
        )
        title.setTextFormat(Qt.TextFormat.RichText)
        title.setWordWrap(True)

        sides = []
        if item.base and item.kind in ("edited_by_agent", "edited_by_person", "conflict"):
            sides.append(("Before", item.base))
        if item.kind in ("edited_by_person", "conflict") or item.mine != item.base:
            sides.append(("Yours", item.mine))
        if item.kind != "edited_by_person" or item.theirs != item.base:
            sides.append(("On disk now", item.theirs))
        body = QLabel(
            "<br>".join(f"<b>{label}:</b><br>{_quote(texts)}" for label, texts in sides), self
        )
        body.setTextFormat(Qt.TextFormat.RichText)
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.group = QButtonGroup(self)
        options = QHBoxLayout()
        options.setContentsMargins(0, 0, 0, 0)
        self.buttons: dict[str, QRadioButton] = {}
        for option in item.options:
            button = QRadioButton(OPTION_LABELS[item.kind][option], self)
            button.setChecked(option == choice)
            self.group.addButton(button)
            self.buttons[option] = button
            button.toggled.connect(self._toggled)
            options.addWidget(button)
        options.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addWidget(title)
        layout.addWidget(body)
        layout.addLayout(options)

    def choice(self) -> str:
        for option, button in self.buttons.items():
            if button.isChecked():
                return option
        return self.item.default

    def set_choice(self, option: str) -> None:
        self.buttons[option].setChecked(True)

    def _toggled(self, on: bool) -> None:
        if on:
            self.sig_choice_changed.emit()


class MergePanel(QWidget):
    """Shows a :class:`MergeProposal` and reports the person's decision."""

    sig_save = Signal(object, dict)  # proposal, choices
    sig_adopt = Signal(object, dict)  # proposal, choices: keep editing the merged result

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.proposal: MergeProposal | None = None
        self.limit = 0
        self.rows: list[MergeItemRow] = []
        self._busy = False

        self.heading = QLabel(self)
        self.heading.setObjectName("mergeHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)

        self.list_widget = QWidget(self)
        self.list_layout = QVBoxLayout(self.list_widget)
        self.list_layout.setContentsMargins(0, 0, 0, 0)
        self.list_layout.setSpacing(8)
        self.list_layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.list_widget)

        self.usage_label = QLabel(self)
        self.usage_label.setTextFormat(Qt.TextFormat.RichText)
        self.problems_label = QLabel(self)
        self.problems_label.setObjectName("mergeProblems")
        self.problems_label.setTextFormat(Qt.TextFormat.RichText)
        self.problems_label.setWordWrap(True)
        self.problems_label.hide()
        self.adopt_button = QPushButton("Keep editing the merged result", self)
        self.adopt_button.setToolTip(
            "Put the merged entries in the editor without saving; save when you are ready"
        )
        self.adopt_button.clicked.connect(self._adopt)
        self.save_button = QPushButton("Save merged result", self)
        self.save_button.setDefault(True)
        self.save_button.setToolTip(SAVE_TIP)
        self.save_button.clicked.connect(self._save)
        footer = QHBoxLayout()
        footer.addWidget(self.usage_label, 1)
        footer.addWidget(self.adopt_button)
        footer.addWidget(self.save_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.problems_label)
        layout.addLayout(footer)

    def set_proposal(
        self, proposal: MergeProposal, limit: int, keep: dict[str, str] | None = None
    ) -> None:
        """Show ``proposal``; choices in ``keep`` (by item id) survive a refreshed proposal."""
        self.proposal, self.limit = proposal, limit
        for row in self.rows:
            row.hide()
            self.list_layout.removeWidget(row)
            row.deleteLater()
        self.rows = []
        keep = keep or {}
        for item in proposal.changes:
            choice = keep.get(item.id, item.default)
            row = MergeItemRow(item, choice if choice in item.options else item.default, self)
            row.setToolTip(KIND_TITLES[item.kind])
            row.sig_choice_changed.connect(self._update_result)
            self.list_layout.insertWidget(self.list_layout.count() - 1, row)
            self.rows.append(row)
        name = FILE_NAMES[proposal.target]
        unchanged = len(proposal.by_kind("same"))
        conflicts = len(proposal.conflicts)
        lines = [
            f"<b>{name} changed on disk while you had unsaved edits.</b> Nothing was "
            "overwritten and nothing was discarded. Choose what the saved file should hold:",
            html.escape(proposal.summary() or "only the order changed")
            + f"; {unchanged} entr{'y' if unchanged == 1 else 'ies'} unchanged.",
        ]
        if conflicts:
            lines.append(
                f"{conflicts} conflict{'s' if conflicts != 1 else ''}: you and the other writer "
                "changed the same entry. Both versions are kept unless you choose one."
            )
        lines.extend(html.escape(note) for note in proposal.notes)
        self.heading.setText("<br>".join(lines))
        self._update_result()

    def choices(self) -> dict[str, str]:
        return {row.item.id: row.choice() for row in self.rows}

    def row_for(self, item_id: str) -> MergeItemRow:
        for row in self.rows:
            if row.item.id == item_id:
                return row
        raise KeyError(item_id)

    def projected(self) -> int:
        if self.proposal is None:
            return 0
        return char_count(self.proposal.resolved_texts(self.choices()))

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.adopt_button.setEnabled(not busy)
        self._update_result()

    def _update_result(self) -> None:
        """The footer for the current choices: what cannot be saved, and the usage."""
        if self.proposal is None:
            self.save_button.setEnabled(not self._busy)
            return
        problems = merge_problems(self.proposal, self.choices())
        self.problems_label.setVisible(bool(problems))
        if problems:
            colour = colours_for(self).over
            listed = "<br>".join(
                f"• “{html.escape(_short(text))}”: {html.escape(reason)}" for text, reason in problems
            )
            self.problems_label.setText(
                f'<span style="color:{colour}; font-weight:700">This result cannot be saved:'
                f"</span> the store refuses {'this entry' if len(problems) == 1 else 'these entries'}."
                f" Choose the other version, or keep editing and fix it.<br>{listed}"
            )
        self.save_button.setEnabled(not self._busy and not problems)
        self.save_button.setToolTip("Fix or drop the entries listed above first" if problems else SAVE_TIP)
        used = self.projected()
        colours = colours_for(self)
        colour = colours.for_band(band(used, self.limit))
        text = (
            f'Result: <span style="color:{colour}; font-weight:700">{used:,} / '
            f"{self.limit:,} chars · {percent(used, self.limit)}%</span>"
        )
        if used > self.limit:
            text += " — over budget: drop or merge something before saving"
        self.usage_label.setText(text)

    def _save(self) -> None:
        if self.proposal is not None:
            self.sig_save.emit(self.proposal, self.choices())

    def _adopt(self) -> None:
        if self.proposal is not None:
            self.sig_adopt.emit(self.proposal, self.choices())
