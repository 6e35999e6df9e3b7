"""The Fleet: every known home at a glance, and one click to open it.

Known homes are the open home, the homes in Recent (folders here and ``ssh://`` homes) and
the profiles each of them lists. Each row shows both stores' meters, the pending writes,
the last change and how the home is reached; the figures come from the engine face's
``home_summary``, called in-process for a folder here and over ssh (a short ``serve``
session) for a remote home, on worker threads: the window never waits for a host.
"""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from hermes_memory.home import HermesHome, HomeError

from .home import RemoteHome, is_remote

if TYPE_CHECKING:
    from ..main_window import MainWindow

log = logging.getLogger(__name__)

COLUMNS = ("Home", "Reached", "MEMORY.md", "USER.md", "Pending", "Last change", "")
#: How many homes are asked at once (each remote one is an ssh session).
PARALLEL = 4


def home_key(home: Any) -> tuple[str, str | None]:
    return (str(home.root), home.profile)


def summarise(home: HermesHome | RemoteHome) -> dict[str, Any]:
    """``api.home_summary`` of ``home`` plus ``reached`` (``this machine``, ``connected`` or
    ``lost``) and, when it could not be read, ``error``; runs on a worker thread."""
    if is_remote(home):
        from hermes_memory.remote.client import EngineClient, RemoteError

        try:
            with EngineClient.over_ssh(home.target, home.profile, timeout=30) as client:
                summary = client.call("home_summary")
        except RemoteError as exc:
            return {"reached": "lost", "error": str(exc)}
        home.remember_profiles(list(summary.get("profiles") or []))
        return {**summary, "reached": "connected"}
    from hermes_memory import api

    try:
        home.require()
        return {**api.home_summary(home), "reached": "this machine"}
    except (HomeError, OSError) as exc:
        return {"reached": "this machine", "error": str(exc)}


def meter_text(store: dict[str, Any] | None) -> str:
    if not store:
        return "—"
    if store.get("error"):
        return "unreadable"
    if store.get("enabled") is False:
        return "disabled"
    return f"{store.get('used', 0):,} / {store.get('limit', 0):,} · {store.get('percent', 0)} %"


def age_text(when: float | None, now: float | None = None) -> str:
    if not when:
        return "—"
    seconds = max(0, (now or time.time()) - float(when))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


class _Summaries(QObject):
    sig_summary = Signal(object, object)  # (home key, summary)


class FleetDialog(QDialog):
    """The table of homes; ``open_home(home)`` opens the one clicked."""

    def __init__(self, window: MainWindow, homes: list[Any] | None = None) -> None:
        super().__init__(window)
        self.setObjectName("fleet")
        self.setWindowTitle("Fleet — every known home")
        self.resize(980, 420)
        self.window_ = window
        self.homes: dict[tuple[str, str | None], Any] = {}
        self.summaries: dict[tuple[str, str | None], dict[str, Any]] = {}
        self._executor = ThreadPoolExecutor(PARALLEL, thread_name_prefix="hermes-fleet")
        self._relay = _Summaries(self)
        self._relay.sig_summary.connect(self._summarised)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.cellDoubleClicked.connect(lambda row, _col: self.open_row(row))
        self.note = QLabel("Double-click a home, or press its Open button, to open it.", self)
        refresh = QPushButton("Refresh", self)
        refresh.clicked.connect(self.refresh)
        close = QPushButton("Close", self)
        close.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.note, 1)
        buttons.addWidget(refresh)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        for home in homes if homes is not None else known_homes(window):
            self._add(home)
        self.refresh()

    @classmethod
    def show_for(cls, window: MainWindow) -> FleetDialog:
        dialog = cls(window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # --- rows ---------------------------------------------------------------------------
    def _add(self, home: Any) -> None:
        key = home_key(home)
        if key in self.homes:
            return
        self.homes[key] = home
        row = self.table.rowCount()
        self.table.insertRow(row)
        item = QTableWidgetItem(home.label)
        item.setData(Qt.ItemDataRole.UserRole, key)
        self.table.setItem(row, 0, item)
        self.table.setItem(row, 1, QTableWidgetItem("connecting…" if is_remote(home) else "this machine"))
        for column in range(2, 6):
            self.table.setItem(row, column, QTableWidgetItem("…"))
        button = QPushButton("Open", self.table)
        button.setObjectName("fleetOpen")
        button.clicked.connect(lambda _checked=False, k=key: self.open_home(self.homes[k]))
        self.table.setCellWidget(row, 6, button)

    def row_of(self, key: tuple[str, str | None]) -> int:
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).data(Qt.ItemDataRole.UserRole) == key:
                return row
        return -1

    def row_texts(self, row: int) -> list[str]:
        return [self.table.item(row, column).text() for column in range(6)]

    # --- figures ------------------------------------------------------------------------
    def refresh(self) -> None:
        for key, home in list(self.homes.items()):
            self._ask(key, home)

    def _ask(self, key: tuple[str, str | None], home: Any) -> None:
        relay = self._relay

        def work() -> None:
            try:
                summary = summarise(home)
            except Exception as exc:  # a broken home must not take the others down
                log.exception("fleet summary failed")
                summary = {"reached": "lost", "error": f"Unexpected error: {exc}"}
            if shiboken6.isValid(relay):
                relay.sig_summary.emit(key, summary)

        self._executor.submit(work)

    def _summarised(self, key: tuple[str, str | None], summary: dict[str, Any]) -> None:
        self.summaries[key] = summary
        row = self.row_of(key)
        if row < 0:
            return
        error = summary.get("error")
        stores = summary.get("stores") or {}
        reached = summary.get("reached", "")
        texts = [reached, meter_text(stores.get("memory")), meter_text(stores.get("user")),
                 "—" if error else str(summary.get("pending", 0)), age_text(summary.get("last_change"))]
        for column, text in enumerate(texts, start=1):
            self.table.item(row, column).setText(text)
        tip = str(error) if error else summary.get("home", "")
        for column in range(6):
            self.table.item(row, column).setToolTip(tip)
        if error:
            self.table.item(row, 2).setText("cannot be read" if reached != "lost" else "—")
        home = self.homes[key]
        if not home.profile:  # a root lists its profiles: they are homes too
            for profile in summary.get("profiles") or []:
                try:
                    other = home.with_profile(profile)
                except HomeError:
                    continue
                if home_key(other) not in self.homes:
                    self._add(other)
                    self._ask(home_key(other), other)

    # --- opening ------------------------------------------------------------------------
    def open_row(self, row: int) -> None:
        key = self.table.item(row, 0).data(Qt.ItemDataRole.UserRole)
        self.open_home(self.homes[tuple(key)])

    def open_home(self, home: Any) -> None:
        window = self.window_
        if home_key(home) == home_key(window.home):
            self.close()
            window.raise_()
            return
        self.close()
        window.open_home(home, False)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self._executor.shutdown(wait=False, cancel_futures=True)
        super().closeEvent(event)


def known_homes(window: MainWindow) -> list[Any]:
    """The open home first, then Recent (the demo copy left out: it is no agent's home)."""
    from ..graph.homes import RecentHomes

    homes: list[Any] = [window.home]
    for item in RecentHomes(window.settings).items():
        if item.demo:
            continue
        try:
            homes.append(item.home)
        except HomeError:
            continue
    return homes


__all__ = ["FleetDialog", "known_homes", "summarise"]
