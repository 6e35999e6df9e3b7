"""The Changes tab: "Since you last looked" on opening a home, and a live feed while open.

On opening, the panel asks the engine (``changes_since``) for every version recorded since
this home was last open here (a time kept per home in the app settings), and the skills used
since; the Workspace has recorded what someone else wrote on disk first. While the home is
open, each capture of changes on disk (``Workspace.sig_changed`` with kind ``"history"`` and
origin ``"disk"``) lands its new versions at the top of the live feed, and the node pulses
in the graph.

Undo restores the version before a change through the engine (only while nothing changed it
since), and goes on the app-wide undo stack so Ctrl+Z takes it back; Pin pins a skill the
same way. New and changed nodes stay marked in the graph until the person opens them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QEventLoop, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..settings import Settings
from ..undo import History
from ..waiting import wait_until_ready
from ..workspace import Change, Workspace
from . import render
from .card import ChangeCard

LAST_SEEN_KEY = "changes/last_seen"
UNSEEN_KEY = "changes/unseen"
#: With no record of a last look (the first time here), the latest this many changes.
FIRST_LOOK = 20
#: At most this many changes are listed in each section (the History tab has them all).
MAX_SHOWN = 200
MAX_UNSEEN = 500
#: After the column's width changed, this many cards are measured again per turn.
REMEASURED_PER_TURN = 4
#: Equal timestamps: the next fetch starts this far back and drops the ids already shown.
OVERLAP_SECONDS = 1.0


def node_ref(node_id: str) -> str:
    """A graph node id as the feed names nodes: a skill's name, an entry's fingerprint."""
    parts = node_id.split(":")
    return parts[3] if len(parts) == 4 and parts[0] == "memory" else node_id


class _Feed(QWidget):
    """A titled, scrolling column of change cards.

    ``items`` are the changes it lists, top first; their cards are made only while the
    feed is on screen, one per turn of the event loop, and only as far as a screenful
    below what is scrolled to: scrolling makes the next ones. The column is a list view
    holding each card at the height it needs for the column's width, measured once: in
    a plain layout every card added laid out every card's wrapped text again (a listing
    of 200 had held the window for seconds, and each card added to a long one 150 ms)."""

    def __init__(self, title: str, make_card: Callable[[dict[str, Any]], ChangeCard],
                 parent: QWidget | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.heading = QLabel(title, self)
        self.heading.setObjectName("changesHeading")
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        font.setBold(True)
        self.heading.setFont(font)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.scroll = QListWidget(self)
        self.scroll.setObjectName("changesFeed")
        self.scroll.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.scroll.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setSpacing(3)
        self.scroll.viewport().installEventFilter(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.note)
        layout.addWidget(self.scroll, 1)
        self.items: list[dict[str, Any]] = []
        self.cards: list[ChangeCard] = []  # the cards made so far, top first
        self._new_on_top = 0  # items put on top whose cards are not made yet
        self._remeasure: list[ChangeCard] = []  # cards whose height may have changed
        self._width = 0  # the width the cards were measured for
        self._make_card = make_card
        self._step_queued = False
        self._made: tuple[ChangeCard, bool] | None = None  # (card, on top) to add next turn
        self.scroll.verticalScrollBar().valueChanged.connect(self._make_soon)

    def put(self, changes: list[dict[str, Any]], *, top: bool) -> None:
        """List ``changes`` (in their order) above or below what is listed."""
        if top:
            self.items[0:0] = changes
            self._new_on_top += len(changes)
        else:
            self.items.extend(changes)
        while len(self.items) > MAX_SHOWN:
            self.items.pop()
            if len(self.items) < self._new_on_top + len(self.cards):
                card = self.cards.pop()
                self.scroll.takeItem(self.scroll.count() - 1)
                card.deleteLater()
        self._new_on_top = min(self._new_on_top, len(self.items))
        self._make_soon()

    def filled(self) -> bool:
        """Every card that is wanted on screen now is made and measured."""
        return not self._new_on_top and not self._remeasure and self._made is None and not self._wants_more()

    def _wants_more(self) -> bool:
        if len(self.cards) + self._new_on_top >= len(self.items):
            return False
        if not self.cards:
            return True
        last = self.scroll.visualItemRect(self.scroll.item(self.scroll.count() - 1))
        return last.bottom() < 2 * max(self.scroll.viewport().height(), 1)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self._make_soon()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.Resize and watched is self.scroll.viewport():
            if self.scroll.viewport().width() != self._width:  # every card's text wraps anew
                self._width = self.scroll.viewport().width()
                self._remeasure = list(self.cards)
                self._make_soon()
        elif event.type() == QEvent.Type.LayoutRequest and watched in self.cards:
            if watched not in self._remeasure:  # (an outcome shown on it, say)
                self._remeasure.append(watched)
            self._make_soon()
        return super().eventFilter(watched, event)

    def _make_soon(self) -> None:
        if not self._step_queued and self.isVisible() and not self.filled():
            self._step_queued = True
            QTimer.singleShot(1, self, self._make_one)  # (after the last one is laid out)

    def _make_one(self) -> None:
        self._step_queued = False
        if not self.isVisible():
            return  # (shown again: showEvent goes on)
        if self._remeasure:
            for card in self._remeasure[:REMEASURED_PER_TURN]:
                if shiboken6.isValid(card) and card in self.cards:
                    self._measure(card, self.scroll.item(self.cards.index(card)))
            del self._remeasure[:REMEASURED_PER_TURN]
        elif self._made is not None:  # made last turn: measured and shown this one
            card, on_top = self._made
            self._made = None
            self._add(card, on_top)
        elif self._new_on_top:
            self._made = (self._make_card(self.items[self._new_on_top - 1]), True)
        elif self._wants_more():
            self._made = (self._make_card(self.items[len(self.cards)]), False)
        else:
            return
        if self._made is not None:
            self._made[0].setParent(self.scroll.viewport())  # (hidden until added: no window of its own)
        self._make_soon()

    def _add(self, card: ChangeCard, on_top: bool) -> None:
        if (self._new_on_top if on_top else len(self.items) - self._new_on_top - len(self.cards)) <= 0:
            card.deleteLater()  # its change left the feed meanwhile
            return
        row = 0 if on_top else len(self.cards)
        item = QListWidgetItem()
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self.scroll.insertItem(row, item)
        self.scroll.setItemWidget(item, card)
        self.cards.insert(row, card)
        self._new_on_top -= on_top
        self._measure(card, item)
        card.installEventFilter(self)

    def _measure(self, card: ChangeCard, item: QListWidgetItem) -> None:
        self._width = self.scroll.viewport().width()
        width = max(self._width - 2 * self.scroll.spacing(), 200)
        item.setSizeHint(QSize(width, card.heightForWidth(width) if card.hasHeightForWidth()
                               else card.sizeHint().height()))  # fmt: skip


class ChangesPanel(QWidget):
    sig_ready = Signal()  # "since you last looked" is shown (or its failure)
    sig_marks = Signal(object)  # set of node references not seen yet
    sig_pulse = Signal(object)  # list of node references the agent just changed
    sig_show = Signal(str)  # a node reference to show in the graph
    sig_live = Signal(object)  # a change that arrived in the live feed
    sig_done = Signal(object)  # the engine's answer to an Undo or Pin

    def __init__(self, workspace: Workspace, settings: Settings, history: History | None = None,
                 parent: QWidget | None = None, *, start: bool = True) -> None:  # fmt: skip
        super().__init__(parent)
        self.workspace = workspace
        self.settings = settings
        self.history = history
        self.label = workspace.home.label
        self.opened_at = time.time()
        stamp = settings.home_value(self.label, LAST_SEEN_KEY)
        self.last_seen: float | None = float(stamp) if isinstance(stamp, (int, float)) else None
        stored = settings.home_value(self.label, UNSEEN_KEY, [])
        self.unseen: set[str] = {str(r) for r in stored} if isinstance(stored, list) else set()
        self.shown_ids: set[str] = set()
        self.live_since = self.opened_at
        self.ready = False
        self.error: str | None = None
        self._fetching = False
        self._fetch_again = False

        self.banner = QLabel(self)
        self.banner.setObjectName("changesBanner")
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.PlainText)
        self.banner.setStyleSheet("color: #d73a49; padding: 4px;")
        self.banner.hide()
        self.since_feed = _Feed("Since you last looked", self._card, self)
        self.since_feed.note.setText("Reading history…")
        self.live_feed = _Feed("Live: what the agent changes now", self._card, self)
        self.live_feed.note.setText("Each change the agent makes while this home is open appears "
                                    "here, with Undo.")  # fmt: skip
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.since_feed)
        splitter.addWidget(self.live_feed)
        splitter.setSizes([560, 560])
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.banner)
        layout.addWidget(splitter, 1)
        workspace.sig_changed.connect(self._on_change)
        if start:  # else the window asks once the graph is drawn (load_since)
            self.load_since()

    # --- engine calls ----------------------------------------------------------------------
    def _alive(self, callback):
        return lambda result: callback(result) if shiboken6.isValid(self) else None

    def load_since(self) -> None:
        params: dict[str, Any] = {"since": self.last_seen,
                                  "limit": FIRST_LOOK if self.last_seen is None else MAX_SHOWN}  # fmt: skip
        self.workspace.call("changes_since", params, self._alive(self._since_loaded), ordered=True)

    def _since_loaded(self, result: dict[str, Any]) -> None:
        feed = self.since_feed
        if not result.get("ok"):
            self._show_error(str(result.get("error") or "no reason given"))
            feed.note.setText("What changed since your last look cannot be shown until the history is readable.")
            self._since_shown()
            return
        changes = result.get("changes") or []
        for change in changes:
            self.shown_ids.add(str(change.get("id")))
            if self.last_seen is not None and change.get("verb") not in ("archived", "removed"):
                # (on a first look everything is new: nothing is marked)
                self.unseen.update(str(ref) for ref in change.get("nodes") or [])
        feed.heading.setText(self._since_heading(result))
        feed.note.setText(self._since_note(result))
        newest = max((float(c.get("ts") or 0) for c in changes), default=0.0)
        # What this listing had is "since you last looked", also the versions the limit
        # left out (the capture at open can record thousands at once): the live feed
        # starts after its newest. (The listing runs after every capture queued before
        # it, so no half-recorded capture straddles this line.)
        self.live_since = max(self.opened_at, newest)
        self._trim_unseen()
        self.sig_marks.emit(set(self.unseen))
        feed.put(changes, top=False)
        self._since_shown()

    def _since_shown(self) -> None:
        self.ready = True
        self.sig_ready.emit()
        if self._fetch_again:  # a capture landed while this was listed
            self._fetch_again = False
            self.fetch_live()

    def _since_heading(self, result: dict[str, Any]) -> str:
        if self.last_seen is None:
            return "Since you last looked: this is the first look here"
        return f"Since you last looked ({render.when_text(self.last_seen)})"

    def _since_note(self, result: dict[str, Any]) -> str:
        total, shown = int(result.get("total") or 0), len(result.get("changes") or [])
        if self.last_seen is None:
            text = (f"The latest {shown} of {total} recorded changes." if total
                    else "No changes recorded yet: they appear here from now on.")  # fmt: skip
        elif not total:
            text = "Nothing changed while this home was closed."
        else:
            text = f"{total} change{'s' if total != 1 else ''}" + (f" (the newest {shown} shown)." if shown < total else ".")
        used = result.get("used") or []
        if used and self.last_seen is not None:
            names = ", ".join(f"{u['skill']} (×{u['use_count']})" for u in used[:8])
            text += f"\nSkills used since: {names}{' …' if len(used) > 8 else ''}."
        problems = result.get("problems") or []
        if problems:
            text += f"\n{len(problems)} damaged history line(s) skipped: {problems[0]}"
        return text

    def _show_error(self, message: str) -> None:
        self.error = message
        self.banner.setText(f"{message}\nThe rest of the app works; the Changes tab fills in once the "
                            "history folder (.memory-studio/history) is readable again.")  # fmt: skip
        self.banner.show()

    # --- live ------------------------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        if change.origin == "disk" and change.kind == "history":
            self.fetch_live()

    def fetch_live(self) -> None:
        """Add the versions recorded since the last fetch to the live feed."""
        if self._fetching or not self.ready:  # (once "since you last looked" is listed)
            self._fetch_again = True
            return
        self._fetching = True
        params = {"since": self.live_since, "exclude_origins": ["app"], "limit": MAX_SHOWN}
        self.workspace.call("changes_since", params, self._alive(self._live_loaded), ordered=True)

    def _live_loaded(self, result: dict[str, Any]) -> None:
        if not result.get("ok"):
            self._show_error(str(result.get("error") or "no reason given"))
            self._live_shown([])
            return
        if self.error is not None:
            self.error = None
            self.banner.hide()
        fresh = [c for c in reversed(result.get("changes") or []) if str(c.get("id")) not in self.shown_ids]
        for change in fresh:  # oldest first
            self.shown_ids.add(str(change.get("id")))
            self.live_since = max(self.live_since, float(change.get("ts") or 0) - OVERLAP_SECONDS)
        self.live_feed.put(fresh[::-1], top=True)  # (the newest on top)
        self._live_shown(fresh)

    def _live_shown(self, fresh: list[dict[str, Any]]) -> None:
        self._fetching = False  # (only now: a next fetch's cards go above these)
        pulses = [str(ref) for change in fresh for ref in change.get("nodes") or []]
        for change in fresh:
            self.sig_live.emit(change)
        if fresh:
            self.live_feed.note.setText(f"{len(self.live_feed.items)} change(s) since this home was opened.")
            self.unseen.update(pulses)
            self._trim_unseen()
            self.sig_marks.emit(set(self.unseen))
            self.sig_pulse.emit(pulses)
        if self._fetch_again:
            self._fetch_again = False
            self.fetch_live()

    # --- cards and their actions ------------------------------------------------------------
    def _card(self, change: dict[str, Any]) -> ChangeCard:
        card = ChangeCard(change)
        card.sig_undo.connect(lambda c, card=card: self.undo_change(card))
        card.sig_pin.connect(lambda c, card=card: self.pin_skill(card))
        card.sig_show.connect(lambda c: self._show(c))
        return card

    def cards(self) -> list[ChangeCard]:
        return self.since_feed.cards + self.live_feed.cards

    def _show(self, change: dict[str, Any]) -> None:
        refs = [str(ref) for ref in change.get("nodes") or []]
        if refs:
            self.mark_seen(refs[0])
            self.sig_show.emit(refs[0])

    @staticmethod
    def _write_kind(change: dict[str, Any]) -> str:
        return "skills" if change.get("kind") == "skill" else str(change.get("kind"))

    def undo_change(self, card: ChangeCard) -> None:
        change = card.change
        kind, version = self._write_kind(change), str(change.get("id"))
        card.set_busy(True)

        def done(result: dict[str, Any]) -> None:
            ok = bool(result.get("ok"))
            text = str(result.get("message") if ok else result.get("error") or "refused")
            card.set_outcome(f"Undone: {text} (Edit ▸ Undo brings it back.)" if ok else f"Not undone: {text}",
                             ok, undone=ok)  # fmt: skip
            if ok and self.history is not None:
                self.history.record(f"undo of {render.title(change)}", kind,
                                    ("changes_redo", {"version_id": version}),
                                    ("changes_undo", {"version_id": version}))  # fmt: skip
            self.sig_done.emit(result)

        self.workspace.call("changes_undo", {"version_id": version}, self._alive(done), write=kind)

    def pin_skill(self, card: ChangeCard) -> None:
        skill = str(card.change.get("skill"))
        card.set_busy(True)

        def done(result: dict[str, Any]) -> None:
            ok = bool(result.get("ok"))
            text = str(result.get("message") or result.get("error") or "")
            card.set_outcome(text or ("Pinned." if ok else "Not pinned."), ok, pinned=ok)
            if ok and self.history is not None:
                self.history.record(f"pin '{skill}'", "skills",
                                    ("changes_pin", {"skill": skill, "pinned": False}),
                                    ("changes_pin", {"skill": skill, "pinned": True}))  # fmt: skip
            self.sig_done.emit(result)

        self.workspace.call("changes_pin", {"skill": skill, "pinned": True}, self._alive(done), write="skills")

    # --- seen ------------------------------------------------------------------------------
    def mark_seen(self, node_id: str | None) -> None:
        """The person opened this node: it is no longer new to them."""
        if node_id is None:
            return
        ref = node_ref(node_id)
        if ref in self.unseen:
            self.unseen.discard(ref)
            self.sig_marks.emit(set(self.unseen))

    def _trim_unseen(self) -> None:
        if len(self.unseen) > MAX_UNSEEN:
            self.unseen = set(sorted(self.unseen)[:MAX_UNSEEN])

    def save_settings(self) -> None:
        """Remember now as the last look at this home, and what is still unseen."""
        self.settings.set_home_value(self.label, LAST_SEEN_KEY, time.time())
        self.settings.set_home_value(self.label, UNSEEN_KEY, sorted(self.unseen))

    def wait_ready(self, timeout_ms: int = 5000) -> bool:
        """Run the event loop until the first changes are listed and the cards on screen
        are made (for screenshots)."""
        deadline = time.monotonic() + timeout_ms / 1000
        wait_until_ready(lambda: self.ready, self.sig_ready, timeout_ms)
        loop = QEventLoop()
        while not self.filled() and time.monotonic() < deadline:
            loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        return self.ready

    def filled(self) -> bool:
        return all(feed.filled() or not feed.isVisible() for feed in (self.since_feed, self.live_feed))
