"""The Sessions tab: search the agent's past sessions as you type, read one as a transcript,
see what it taught (links into the graph and the memory editors), and revert that.

Every engine call goes through :meth:`Workspace.call` (``sessions_*`` of the engine face);
the reader thread does the searching, the writer thread the revert. A missing, locked or
damaged ``state.db`` and a vanished session are said in the state line; the rest of the
app carries on. The panel records nothing in the undo stack itself: it hands the revert's
result (with its ``change``) to the window through ``sig_reverted``.
"""

from __future__ import annotations

import html
import time
from typing import Any

import shiboken6
from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..workspace import Change, Workspace
from . import render
from .delegate import HTML_ROLE, HtmlDelegate
from .live_search import LiveSearch

#: When state.db was locked by the agent, try again after this long.
LOCKED_RETRY_MS = 1500
SESSION_ROLE = Qt.ItemDataRole.UserRole + 2  # (session id, message id or None)


def _label(name: str, *, rich: bool = False) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction if rich
                                  else Qt.TextInteractionFlag.TextSelectableByMouse)  # fmt: skip
    return label


def state_text(answer: dict[str, Any]) -> str:
    """A refusal from the engine as a person reads it (its own message says what to do)."""
    state = answer.get("state")
    lead = {
        "missing": "No session history here yet.",
        "locked": "The agent is holding state.db right now; trying again in a moment.",
        "invalid": "state.db cannot be read as session history.",
        "corrupt": "state.db is damaged; nothing was changed.",
        "vanished": "That session is gone.",
    }.get(str(state), "Session history could not be read.")
    return f"{lead} {answer.get('error') or ''}".strip()


class RevertDialog(QDialog):
    """The engine's dry run of "revert what this session taught", then Revert or Cancel."""

    def __init__(self, session: str, plan: dict[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Revert what session {session} taught")
        self.resize(640, 420)
        layout = QVBoxLayout(self)
        intro = _label("revertIntro")
        intro.setText("This is what would change (nothing is written until you press Revert). "
                      "Edit ▸ Undo puts it all back.")  # fmt: skip
        layout.addWidget(intro)
        self.plan_view = QTextBrowser(self)
        self.plan_view.setHtml(render.revert_plan_html(plan))
        layout.addWidget(self.plan_view, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.revert_button = self.buttons.addButton("Revert", QDialogButtonBox.ButtonRole.AcceptRole)
        self.revert_button.setEnabled(_has_work(plan))
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)


def _has_work(plan: dict[str, Any]) -> bool:
    memory = any(outcome.get("undone") for outcome in (plan.get("memory") or {}).values())
    return memory or any(skill.get("undo") for skill in plan.get("skills") or ())


class SessionsPanel(QWidget):
    sig_open_node = Signal(str)  # a graph node id
    sig_open_entry = Signal(str, str)  # (target, entry text): open it in its editor
    sig_reverted = Signal(dict)  # the engine's revert result, with its undoable "change"
    sig_results_shown = Signal(int)  # the serial of the search whose results are on screen
    sig_transcript_shown = Signal(str)  # a session id
    sig_lesson_shown = Signal(str)  # a session id
    sig_ready = Signal()

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.session_id: str | None = None
        self.anchor: int | None = None
        self.transcript: dict[str, Any] | None = None
        self.lesson: dict[str, Any] | None = None
        self.expanded: set[str] = set()
        self.ready = False
        self._reading = 0  # serial of the transcript asked for last
        self.revert_dialog: RevertDialog | None = None

        self.search_box = QLineEdit(self)
        self.search_box.setObjectName("sessionSearch")
        self.search_box.setPlaceholderText("Search the agent's past sessions (words, \"phrases\", OR)…")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setAccessibleName("Search sessions")
        self.search_box.installEventFilter(self)
        self.order_box = QComboBox(self)
        self.order_box.setAccessibleName("Order of the matches")
        self.order_box.addItem("Newest first", "newest")
        self.order_box.addItem("Best match first", "best")
        self.order_box.setToolTip("Best match ranks every match, which takes longer for common words")
        self.state = _label("sessionsState")
        self.origins = _label("sessionsOrigins", rich=True)
        self.origins.linkActivated.connect(self._link)
        self.origins.hide()

        self.results = QListWidget(self)
        self.results.setObjectName("sessionResults")
        self.results.setAccessibleName("Sessions and matching messages")
        self.results.setItemDelegate(HtmlDelegate(self.results))
        self.results.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setWordWrap(True)
        self.results.setUniformItemSizes(True)
        self.results.currentItemChanged.connect(self._current_changed)
        self.results.itemActivated.connect(lambda item: self._open_item(item, focus=True))

        self.header = _label("sessionHeader")
        font = self.header.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.header.setFont(font)
        self.lesson_label = _label("sessionLesson", rich=True)
        self.lesson_label.linkActivated.connect(self._link)
        self.revert_button = QPushButton("Revert what this session taught…", self)
        self.revert_button.setToolTip("Shows the engine's dry run first; Edit ▸ Undo puts it back")
        self.revert_button.clicked.connect(self.revert_current)
        self.revert_button.setEnabled(False)
        self.view = QTextBrowser(self)
        self.view.setObjectName("sessionTranscript")
        self.view.setAccessibleName("Transcript")
        self.view.setOpenLinks(False)
        self.view.anchorClicked.connect(lambda url: self._link(url.toString()))
        self.view.setPlaceholderText("Pick a session or a matching message to read it here.")

        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.header, 1)
        top.addWidget(self.revert_button, 0, Qt.AlignmentFlag.AlignTop)
        right_layout.addLayout(top)
        right_layout.addWidget(self.lesson_label)
        right_layout.addWidget(self.view, 1)
        self.splitter = QSplitter(self)
        self.splitter.addWidget(self.results)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([420, 680])
        layout = QVBoxLayout(self)
        search_row = QHBoxLayout()
        search_row.addWidget(self.search_box, 1)
        search_row.addWidget(self.order_box)
        layout.addLayout(search_row)
        layout.addWidget(self.state)
        layout.addWidget(self.origins)
        layout.addWidget(self.splitter, 1)

        self.live = LiveSearch(workspace, self)
        self.live.sig_answer.connect(self._show_answer)
        self.search_box.textChanged.connect(self.live.ask)
        self.order_box.currentIndexChanged.connect(self._order_changed)
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(LOCKED_RETRY_MS)
        self._retry.timeout.connect(self.refresh)
        workspace.sig_changed.connect(self._on_change)
        self.live.ask("", now=True)

    # --- helpers ----------------------------------------------------------------------
    def _alive(self) -> bool:
        return shiboken6.isValid(self) and shiboken6.isValid(self.view)

    def _call(self, method: str, params: dict[str, Any], done, *, write: str | None = None) -> None:
        self.workspace.call(method, params, lambda result: done(result) if self._alive() else None,
                            write=write)  # fmt: skip

    def close_panel(self) -> None:
        self.live.close()
        self._retry.stop()

    def refresh(self) -> None:
        """Search again for what is typed (new messages, a lock released)."""
        self.live.ask(self.search_box.text(), now=True)

    def _order_changed(self, _index: int) -> None:
        self.live.order = str(self.order_box.currentData())
        if self.search_box.text().strip():
            self.refresh()

    def _on_change(self, change: Change) -> None:
        if change.kind == "sessions" and self.isVisible():
            self.refresh()
            self._follow_transcript()

    def _follow_transcript(self) -> None:
        """Re-read the open session (the agent may be writing it), keeping the reader's place."""
        session_id, serial = self.session_id, self._reading
        if session_id is None or self.transcript is None:
            return

        def read(result: dict[str, Any]) -> None:
            if serial == self._reading and result.get("ok") and result["total"] != self.transcript["total"]:
                self.transcript = result
                anchor, self.anchor = self.anchor, None  # stay where the reader is
                self._render_transcript()
                self.anchor = anchor

        self._call("sessions_transcript", {"session_id": session_id}, read)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if watched is self.search_box and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.results.count():
                self.results.setFocus()
                if self.results.currentRow() < 0:
                    self.results.setCurrentRow(0)
                if event.key() != Qt.Key.Key_Down:
                    self._open_item(self.results.currentItem(), focus=False)
                return True
            if event.key() == Qt.Key.Key_Escape and self.search_box.text():
                self.search_box.clear()
                return True
        return super().eventFilter(watched, event)

    # --- search results ---------------------------------------------------------------
    def _show_answer(self, answer: dict[str, Any]) -> None:
        if not self._alive():
            return
        if not answer.get("ok"):
            self.state.setText(state_text(answer))
            self.results.clear()
            if answer.get("state") == "locked":
                self._retry.start()
            self._mark_ready()
            return
        self.results.blockSignals(True)
        self.results.clear()
        if "results" in answer:
            for hit in answer["results"]:
                self._add_row(render.result_html(hit), hit["session_id"], hit["id"])
            found = answer["count"]
            note = f" ({answer['note']})" if answer.get("note") else ""
            note = (", newest first" if answer.get("order") == "newest" else ", best match first") + note
            self.state.setText(
                f"{found} matching message{'s' if found != 1 else ''} in {answer['sessions']} "
                f"session{'s' if answer['sessions'] != 1 else ''}{note}" if found
                else f"No message matches “{answer['query']}”.{note}")  # fmt: skip
        else:
            for session in answer.get("sessions", ()):
                self._add_row(render.recent_html(session), session["id"], None)
            count = answer.get("count", 0)
            self.state.setText(f"{count} most recent session{'s' if count != 1 else ''}; type to search them all."
                               if count else "No sessions recorded in this home yet.")  # fmt: skip
        self.results.blockSignals(False)
        self.sig_results_shown.emit(int(answer.get("serial", 0)))
        if not self.ready:
            if self.results.count() and self.session_id is None:
                self.results.setCurrentRow(0)  # a first look opens the latest session
            else:
                self._mark_ready()

    def _add_row(self, html_text: str, session_id: str, message_id: int | None) -> None:
        item = QListWidgetItem()
        item.setData(HTML_ROLE, html_text)
        item.setData(SESSION_ROLE, (session_id, message_id))
        item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{session_id} {html_text}")
        self.results.addItem(item)

    def _current_changed(self, item: QListWidgetItem | None, _previous) -> None:
        if item is not None:
            self._open_item(item, focus=False)

    def _open_item(self, item: QListWidgetItem | None, *, focus: bool) -> None:
        if item is None:
            return
        session_id, message_id = item.data(SESSION_ROLE)
        self.open_session(session_id, message_id)
        if focus:
            self.view.setFocus()

    # --- one session ------------------------------------------------------------------
    def open_session(self, session_id: str, message_id: int | None = None) -> None:
        """Read ``session_id`` (at ``message_id``, marked and scrolled to) and what it taught."""
        same = session_id == self.session_id and self.transcript is not None
        self.session_id, self.anchor = session_id, message_id
        if same:
            self._render_transcript()
            self.sig_transcript_shown.emit(session_id)
            return
        self.expanded = set()
        self.transcript = self.lesson = None
        self.revert_button.setEnabled(False)
        self.header.setText(f"Session {session_id}")
        self.lesson_label.setText("")
        self.view.setPlainText("Reading…")
        self._reading += 1
        serial = self._reading
        self._call("sessions_transcript", {"session_id": session_id},
                   lambda result: self._transcript_read(serial, result))  # fmt: skip

    def _read_lesson(self, serial: int) -> None:
        """Ask what the session taught once its transcript is on screen: working that out
        reads the whole history on the reader, and beside the transcript's layout on the UI
        thread the two took turns for the interpreter long enough to hold the window."""
        self._call("sessions_lesson", {"session_id": self.session_id},
                   lambda result: self._lesson_read(serial, result))  # fmt: skip

    def _transcript_read(self, serial: int, result: dict[str, Any]) -> None:
        if serial != self._reading:
            return  # another session was asked for since
        if not result.get("ok"):
            self.transcript = None
            self.view.setPlainText(state_text(result))
            self.sig_transcript_shown.emit(self.session_id or "")
            self._mark_ready()
            self._read_lesson(serial)
            return
        self.transcript = result
        session = result["session"]
        self.header.setText(
            f"{render.session_name(session)} — {session['id']} · {session.get('source') or ''} · "
            f"{render.when(session.get('started_at'))} · {result['total']} messages, "
            f"{result['writes']} memory or skill write{'s' if result['writes'] != 1 else ''}")  # fmt: skip
        # laid out on a turn of its own: it came with the list's first paint, which alone
        # takes a few tens of milliseconds, and the two together held the window too long
        QTimer.singleShot(0, self, lambda: self._show_transcript(serial))

    def _show_transcript(self, serial: int) -> None:
        if serial != self._reading or self.transcript is None or not self._alive():
            return
        self._render_transcript()
        self.sig_transcript_shown.emit(self.transcript["session"]["id"])
        self._mark_ready()
        self._read_lesson(serial)

    def _render_transcript(self) -> None:
        if self.transcript is None:
            return
        bar = self.view.verticalScrollBar()
        keep = bar.value()
        self.view.setHtml(render.transcript_html(self.transcript, self.expanded, self.anchor))
        if self.anchor is not None:
            self.view.scrollToAnchor(f"m{self.anchor}")
        else:
            bar.setValue(keep)

    def _lesson_read(self, serial: int, result: dict[str, Any]) -> None:
        if serial != self._reading:
            return
        self.lesson = result
        self.lesson_label.setText(render.lesson_html(result))
        self.revert_button.setEnabled(bool(result.get("ok")) and bool(result.get("entries") or result.get("skills")))
        self.sig_lesson_shown.emit(self.session_id or "")

    def _link(self, link: str) -> None:
        kind, _, value = link.partition(":")
        if kind == "toggle":
            self.expanded ^= {value}
            self._render_transcript()
        elif kind == "node":
            self.sig_open_node.emit(value)
        elif kind == "entry" and self.lesson:
            entry = self.lesson["entries"][int(value)]
            self.sig_open_entry.emit(entry["target"], entry["text"])
        elif kind == "session":
            session_id, _, message = value.partition("@")
            self.open_session(session_id, int(message) if message.isdigit() else None)

    # --- where this came from ---------------------------------------------------------
    def show_origins(self, *, target: str | None = None, fingerprint: str | None = None,
                     skill: str | None = None) -> None:  # fmt: skip
        """Open the session(s) that wrote a memory entry or a skill, at the writing message."""
        self.origins.setText("Looking for where this came from…")
        self.origins.show()
        params = {"skill": skill} if skill else {"target": target, "fingerprint": fingerprint}
        self._call("sessions_origins", params, self._origins_found)

    def _origins_found(self, result: dict[str, Any]) -> None:
        if not result.get("ok"):
            self.origins.setText(html.escape(state_text(result)))
            return
        found = [o for o in result.get("origins", ()) if o.get("exists") is not False]
        links = [
            f"<a href='session:{html.escape(o['session_id'])}@{o.get('message_id') or ''}'>"
            f"{html.escape(o.get('title') or o['session_id'])}</a> "
            f"({html.escape(render.when(o.get('timestamp'), time_of_day=False))}"
            f"{', ' + html.escape(str(o['action'])) if o.get('action') else ''})"
            for o in found
        ]
        gone = len(result.get("origins", ())) - len(found)
        what = html.escape(str(result.get("what")))
        text = f"<b>Where this came from</b>: {what} — " + (", ".join(links) if links else "no session on record")
        if gone:
            text += f"; {gone} session(s) it came from are no longer in state.db"
        if result.get("note"):
            text += f"<br><i>{html.escape(result['note'])}</i>"
        self.origins.setText(text)
        if found:
            self.open_session(found[0]["session_id"], found[0].get("message_id"))

    # --- revert -----------------------------------------------------------------------
    def revert_current(self) -> None:
        """Show the engine's dry run for the open session; on Revert, apply it as one change."""
        session_id = self.session_id
        if session_id is None:
            return
        self.revert_button.setEnabled(False)
        self._call("session_revert", {"session_id": session_id, "dry_run": True},
                   lambda plan: self._confirm_revert(session_id, plan))  # fmt: skip

    def _confirm_revert(self, session_id: str, plan: dict[str, Any]) -> None:
        self.revert_button.setEnabled(True)
        dialog = RevertDialog(session_id, plan, self)
        self.revert_dialog = dialog

        def decided(code: int) -> None:
            self.revert_dialog = None
            if code == QDialog.DialogCode.Accepted and session_id == self.session_id:
                self.revert_button.setEnabled(False)
                self._call("sessions_revert", {"session_id": session_id}, self._reverted, write="memory")

        dialog.finished.connect(decided)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def _reverted(self, result: dict[str, Any]) -> None:
        self.sig_reverted.emit(result)
        message = "Reverted what this session taught; Edit ▸ Undo puts it back." if result.get("ok") else (
            "Revert refused: " + "; ".join(str(o.get("error")) for o in (result.get("memory") or {}).values()
                                           if o.get("error")) or str(result.get("error")))  # fmt: skip
        self.origins.setText(html.escape(message))
        self.origins.show()
        self.reload_lesson()

    def reload_lesson(self) -> None:
        if self.session_id is not None:
            serial = self._reading
            self._call("sessions_lesson", {"session_id": self.session_id},
                       lambda result: self._lesson_read(serial, result))  # fmt: skip

    # --- readiness (screenshots, tests) -----------------------------------------------
    def _mark_ready(self) -> None:
        if not self.ready:
            self.ready = True
            self.sig_ready.emit()

    def wait_ready(self, timeout_ms: int = 5000) -> bool:
        deadline = time.monotonic() + timeout_ms / 1000
        loop = QEventLoop()
        while not self.ready and time.monotonic() < deadline:
            loop.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        return self.ready

