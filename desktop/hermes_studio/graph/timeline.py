"""The timeline scrubber: replay how the graph grew, with play/pause and a draggable playhead.

The track is a histogram of when skills (accent) and memory cards (complement) were
learned; tick marks show where the disk's rings begin. Dragging snaps the playhead at
once; Play sweeps from the first learning to now in about 15 seconds. ``sig_reveal``
carries the playhead time, or None when it is at the end (everything shown).

Once the home has recorded history (``history_versions``), the track is the versions
recorded instead (its span also covers the learning times before the first version, where
the graph keeps revealing nodes by when they were learned), and :class:`HistoryReplay` asks the engine (``history_replay``, on the
reader thread) what existed at the playhead: a drag sends one request at a time and
only the newest position waits, so a fast drag never queues work. The graph then shows
the nodes that existed at that date (:func:`replayed_ids`), and other views (the Memory
tab) show the stores as they were from the same answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import numpy as np
import shiboken6
from PySide6.QtCore import QObject, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from .dates import AXIS_HEIGHT, paint_date_axis
from .model import format_date
from .style import CanvasStyle, canvas_style

SWEEP_SECONDS = 15.0
TICK_MS = 40
HISTORY_BINS = 72
#: An answer that has not come back after this long is taken as lost (the next step goes).
REPLY_TIMEOUT_S = 10.0
#: Change kinds after which the recorded history may have grown.
HISTORY_KINDS = {"memory", "user", "skills", "history"}


class _Track(QWidget):
    sig_moved = Signal(float)  # fraction 0..1

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(34 + int(AXIS_HEIGHT))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.skills = np.zeros(0)
        self.memories = np.zeros(0)
        self.ticks: list[float] = []
        self.fraction = 1.0
        self.span: tuple[float, float] | None = None  # for the date axis
        self.style_: CanvasStyle = canvas_style()
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, 34 + int(AXIS_HEIGHT))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(6, 4, -6, -6 - AXIS_HEIGHT)
        base = QColor(self.style_.ring)
        painter.setPen(QPen(base, 1))
        painter.drawLine(QPointF(rect.left(), rect.bottom()), QPointF(rect.right(), rect.bottom()))
        bins = len(self.skills)
        if bins:
            top = max(float((self.skills + self.memories).max()), 1.0)
            width = rect.width() / bins
            skill_colour = QColor(self.style_.accent)
            memory_colour = QColor(self.style_.memory)
            for k in range(bins):
                x = rect.left() + k * width
                revealed = (k + 0.5) / bins <= self.fraction + 1e-9
                h_skill = rect.height() * self.skills[k] / top
                h_memory = rect.height() * self.memories[k] / top
                for colour, height, offset in ((skill_colour, h_skill, 0.0), (memory_colour, h_memory, h_skill)):
                    if height <= 0:
                        continue
                    c = QColor(colour)
                    c.setAlphaF(0.9 if revealed else 0.25)
                    painter.fillRect(QRectF(x + 0.5, rect.bottom() - offset - height, max(width - 1, 1), height), c)
        tick = QColor(self.style_.ring_label)
        painter.setPen(QPen(tick, 1))
        for fraction in self.ticks:
            x = rect.left() + fraction * rect.width()
            painter.drawLine(QPointF(x, rect.bottom()), QPointF(x, rect.bottom() + 4))
        head = QColor(self.style_.edge_lit)
        painter.setPen(QPen(head, 2))
        x = rect.left() + self.fraction * rect.width()
        painter.drawLine(QPointF(x, rect.top() - 2), QPointF(x, rect.bottom() + 4))
        paint_date_axis(painter, rect, self.span, QColor(self.style_.ring_label))
        painter.end()

    def _fraction_at(self, event: QMouseEvent) -> float:
        rect = QRectF(self.rect()).adjusted(6, 4, -6, -6)
        return float(np.clip((event.position().x() - rect.left()) / max(rect.width(), 1.0), 0.0, 1.0))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.sig_moved.emit(self._fraction_at(event))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.sig_moved.emit(self._fraction_at(event))


class TimelineScrubber(QWidget):
    sig_reveal = Signal(object)  # epoch seconds, or None for "everything"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineScrubber")
        self.span: tuple[float, float] | None = None
        self.history = False  # the playhead replays recorded versions (set_history)
        self._learned: tuple = (np.zeros(0), np.zeros(0), None, [])
        self._versions: tuple = (np.zeros(0), np.zeros(0, dtype=bool))
        self._now: float | None = None
        self.play_button = QToolButton()
        self.play_button.setText("▶")
        self.play_button.setToolTip("Replay how the graph grew (Space)")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self.set_playing)
        self.track = _Track()
        self.track.sig_moved.connect(self.scrub)
        self.date_label = QLabel("")
        self.date_label.setMinimumWidth(110)
        self.date_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(self.play_button)
        layout.addWidget(self.track, 1)
        layout.addWidget(self.date_label)
        self.timer = QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)

    @property
    def fraction(self) -> float:
        return self.track.fraction

    def set_data(self, skills: np.ndarray, memories: np.ndarray, span: tuple[float, float] | None, ticks: list[float]) -> None:
        """The learning times of the graph's nodes (a histogram over ``span``) and the rings' starts."""
        self._learned = (skills, memories, span if span and span[1] > span[0] else None, list(ticks))
        self._lay_out()

    def set_history(self, points: list[dict[str, Any]], now: float | None = None) -> None:
        """The versions recorded (``history_versions`` points): the playhead then replays real
        history from the first version to now; before it, the learning times still apply."""
        if not points:
            return
        self.history = True
        self._versions = (np.array([float(p["ts"]) for p in points], dtype=np.float64),
                          np.array([p.get("kind") == "skill" for p in points], dtype=bool))  # fmt: skip
        self._now = now
        self.setToolTip(f"{len(points):,} recorded versions: drag to see memory and skills as they were")
        self._lay_out()

    def _lay_out(self) -> None:
        skills, memories, learned_span, ticks = self._learned
        if not self.history:
            self.span = learned_span
            self.track.skills, self.track.memories = skills, memories
        else:
            times, is_skill = self._versions
            first = float(times.min())
            lo = min(first, learned_span[0]) if learned_span else first
            hi = max(float(times.max()), learned_span[1] if learned_span else first,
                     self._now if self._now is not None else time.time())  # fmt: skip
            hi = hi if hi > lo else lo + 1.0
            where = np.clip(((times - lo) / (hi - lo) * HISTORY_BINS).astype(np.int64), 0, HISTORY_BINS - 1)
            self.span = (lo, hi)
            self.track.skills = np.bincount(where[is_skill], minlength=HISTORY_BINS).astype(np.float64)
            self.track.memories = np.bincount(where[~is_skill], minlength=HISTORY_BINS).astype(np.float64)
            if learned_span and len(skills):  # before the first version: what was learned when
                centres = learned_span[0] + (np.arange(len(skills)) + 0.5) / len(skills) * (learned_span[1] - learned_span[0])
                before = centres < first
                bins = np.clip(((centres - lo) / (hi - lo) * HISTORY_BINS).astype(np.int64), 0, HISTORY_BINS - 1)
                np.add.at(self.track.skills, bins[before], np.asarray(skills)[before])
                np.add.at(self.track.memories, bins[before], np.asarray(memories)[before])
        self.track.span = self.span  # the date axis under the histogram
        if self.span:
            lo, hi = self.span
            self.track.ticks = [float(np.clip((t - lo) / (hi - lo), 0, 1)) for t in ticks if t == t]
        else:
            self.track.ticks = []
        self.setEnabled(self.span is not None)
        self._show()

    def time_at(self, fraction: float) -> float | None:
        if self.span is None or fraction >= 1.0:
            return None
        lo, hi = self.span
        return lo + fraction * (hi - lo)

    def scrub(self, fraction: float) -> None:
        """Move the playhead (0 = the first learning, 1 = now) and reveal up to it."""
        self.track.fraction = float(np.clip(fraction, 0.0, 1.0))
        self._show()
        self.sig_reveal.emit(self.time_at(self.track.fraction))

    def set_playing(self, playing: bool) -> None:
        if playing and self.span is None:
            playing = False
        if self.play_button.isChecked() != playing:
            self.play_button.setChecked(playing)
            return
        self.play_button.setText("❚❚" if playing else "▶")
        if playing:
            if self.track.fraction >= 1.0:
                self.scrub(0.0)
            self.timer.start()
        else:
            self.timer.stop()

    def toggle(self) -> None:
        self.set_playing(not self.timer.isActive())

    def _tick(self) -> None:
        step = TICK_MS / 1000.0 / SWEEP_SECONDS
        fraction = min(1.0, self.track.fraction + step)
        self.scrub(fraction)
        if fraction >= 1.0:
            self.set_playing(False)

    def stop(self) -> None:
        self.timer.stop()

    def _show(self) -> None:
        when = self.time_at(self.track.fraction)
        self.date_label.setText("now" if when is None else format_date(when))
        self.track.update()


def replayed_ids(nodes: Iterable[dict[str, Any]], state: dict[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
    """``(known, alive)`` node ids for a ``history_replay`` answer: ``known`` are the nodes
    history can speak for at that date (a store with a version by then, a skill it
    recorded), ``alive`` those of them that existed then. The rest fall back to their
    learning time."""
    fingerprints = {}
    for target, source in (("memory", "memory"), ("user", "profile")):
        store = state.get(target) or {}
        if store.get("version"):
            fingerprints[source] = {e["fingerprint"] for e in store.get("entries") or []}
    skills = {s["name"]: s.get("state") not in ("missing", "archived") for s in state.get("skills") or []}
    known, alive = set(), set()
    for node in nodes:
        node_id = str(node.get("id"))
        if node.get("kind") == "memory":
            parts = node_id.split(":")
            seen = fingerprints.get(parts[1]) if len(parts) == 4 else None
            if seen is not None:
                known.add(node_id)
                if parts[3] in seen:
                    alive.add(node_id)
        elif node_id in skills:
            known.add(node_id)
            if skills[node_id]:
                alive.add(node_id)
    return frozenset(known), frozenset(alive)


class HistoryReplay(QObject):
    """The state of the home at the playhead, asked of the engine one request at a time.

    ``request(when)`` never queues: while an answer is on its way, only the newest position
    waits and goes next. ``sig_state(when, answer)`` delivers each answer (``when`` None:
    now, nothing replayed); ``sig_growth(points)`` the versions recorded, after
    :meth:`refresh_growth`.
    """

    sig_state = Signal(object, object)  # (epoch seconds or None, history_replay answer or None)
    sig_growth = Signal(object)  # list of history_versions points ({"ts", "kind"})

    def __init__(self, workspace, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workspace = workspace
        self.when: float | None = None  # the position shown (or asked for last)
        self.state: dict[str, Any] | None = None
        self.requests = 0  # engine calls made (a drag makes far fewer than moves)
        self._waiting = False
        self._next: tuple[float | None] | None = None
        self._sent_at = 0.0
        workspace.sig_changed.connect(self._on_change)

    def _alive(self) -> bool:
        return shiboken6.isValid(self)

    def refresh_growth(self) -> None:
        def done(result: dict) -> None:
            if self._alive() and isinstance(result, dict) and result.get("ok"):
                self.sig_growth.emit(list(result.get("points") or []))

        # (the times and kinds only: history_growth would replay every version for sizes
        # the track does not show)
        self.workspace.call("history_versions", {}, done)

    def request(self, when: float | None) -> None:
        self.when = when
        if when is None:  # now: nothing to replay
            self._next = None
            self.state = None
            self.sig_state.emit(None, None)
            return
        if self._waiting and time.monotonic() - self._sent_at < REPLY_TIMEOUT_S:
            self._next = (when,)
            return
        self._send(when)

    def _send(self, when: float) -> None:
        self._waiting = True
        self._sent_at = time.monotonic()
        self.requests += 1
        self.workspace.call("history_replay", {"when": when}, lambda result: self._answered(when, result))

    def _answered(self, when: float, result: dict) -> None:
        if not self._alive():
            return
        self._waiting = False
        following, self._next = self._next, None
        if following is not None and following[0] is not None and following[0] != when:
            self._send(following[0])  # a newer position is waiting: this answer is already old
            return
        if self.when is None:
            return  # back at now meanwhile
        self.state = result if isinstance(result, dict) else {"ok": False, "error": "no answer"}
        self.sig_state.emit(when, self.state)

    def _on_change(self, change) -> None:
        # Someone else's write counts once the Workspace has recorded it (kind "history").
        recorded = change.kind == "history" or (change.origin == "app" and change.kind in HISTORY_KINDS)
        if recorded and self._alive():
            self.refresh_growth()
            if self.when is not None:
                self.request(self.when)
