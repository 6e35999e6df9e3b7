"""What the app remembers between launches, in one INI file (QSettings).

The file lives in the platform's user config folder (``platformdirs``), looked up each time
it is opened, so tests that point ``XDG_CONFIG_HOME`` (or ``HOME``) at a temporary folder
never touch the real one. Remembered: the window's geometry and splitter sizes, the theme,
the recent homes (the first is the last one opened), and per home the view, the graph's
mode and its filters.

The UI thread never waits for the file: a QSettings ``sync`` locks, re-reads and rewrites
it, 10-150 ms on a busy disk. :func:`app_settings` is the app's one handle: it reads the
file once (at start-up, before the window) and answers from memory. Changes go to the
process's one writer thread (QSettings is reentrant: that thread makes its own instance),
in batches written at most :data:`FLUSH_DELAY_S` after their first change, so a crash a
second after a change keeps it. :func:`flush_all` writes what is waiting and waits for it
(the app calls it as it quits, and at exit).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import platformdirs
from PySide6.QtCore import QSettings

APP_ID = "hermes-studio"
#: A change waits this long for others to join it before the batch is written.
FLUSH_DELAY_S = 0.5
#: How long :meth:`Settings.flush` waits for the writer at most.
FLUSH_TIMEOUT_S = 10.0

log = logging.getLogger(__name__)
_REMOVED = object()  # a key to remove from the file
_shared: dict[Path, Settings] = {}
_shared_lock = threading.Lock()


def settings_file() -> Path:
    return Path(platformdirs.user_config_dir(APP_ID, appauthor=False)) / f"{APP_ID}.ini"


def app_settings() -> Settings:
    """The app's one handle on its settings file (per file: tests move it)."""
    path = settings_file()
    with _shared_lock:
        settings = _shared.get(path)
        if settings is None:
            settings = _shared[path] = Settings(path)
        return settings


def home_key(label: str) -> str:
    """A settings group name for a home (its label hashed: paths are not valid keys)."""
    return "home-" + hashlib.sha256(label.encode("utf-8")).hexdigest()[:16]


def _read_all(path: Path) -> dict[str, Any]:
    qsettings = QSettings(str(path), QSettings.Format.IniFormat)
    return {key: qsettings.value(key) for key in qsettings.allKeys()}


# --- the writer thread: one for the process, started with it, idle until a change ---------
_changes = threading.Condition()  # guards every handle's values and pending changes
_dirty: dict[Settings, None] = {}  # handles with changes to write, in order
_hurry = False  # write now, without waiting for more changes
_writing = False


def _hurried() -> bool:
    return _hurry


def _write_batches() -> None:
    global _hurry, _writing
    while True:
        with _changes:
            _changes.wait_for(lambda: bool(_dirty))
            if not _hurry:  # let the other changes of a moment join the first
                _changes.wait_for(_hurried, FLUSH_DELAY_S)
            _hurry = False
            batches = [(settings.path, settings._take_pending()) for settings in _dirty]
            _dirty.clear()
            _writing = True
        try:
            for path, batch in batches:
                _write(path, batch)
        except Exception:  # the writer must outlive a failed write
            log.exception("saving the settings failed")
        finally:
            with _changes:
                _writing = False
                _changes.notify_all()


def _write(path: Path, batch: dict[str, Any]) -> None:
    qsettings = QSettings(str(path), QSettings.Format.IniFormat)
    for key, value in batch.items():
        if value is _REMOVED:
            qsettings.remove(key)
        else:
            qsettings.setValue(key, value)
    qsettings.sync()  # (locks the file, merges what other processes wrote, replaces it)
    if qsettings.status() != QSettings.Status.NoError:
        log.warning("Could not save the settings to %s (%s)", path, qsettings.status())


def _write_now(written: Callable[[], bool], timeout: float) -> bool:
    """Have the writer write what waits without delay, and wait until ``written()``."""
    global _hurry
    with _changes:
        if written():
            return True
        _hurry = True
        _changes.notify_all()
        return _changes.wait_for(written, timeout)


def flush_all(timeout: float = FLUSH_TIMEOUT_S) -> bool:
    """Write every handle's waiting changes now and wait for them (at quit: the app
    leaves without Python's teardown); False if the writer is late."""
    return _write_now(lambda: not _dirty and not _writing, timeout)


threading.Thread(target=_write_batches, name="hermes-settings", daemon=True).start()
atexit.register(flush_all)


class Settings:
    """Typed access to the settings file, from memory; changes are written by the writer.

    ``Settings()`` reads the file as it is now (a new handle); the app shares
    :func:`app_settings`. ``value``/``setValue``/``remove``/``sync`` follow QSettings, so
    code written for a QSettings (recent homes) takes either."""

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(path) if path is not None else settings_file()
        self._values = _read_all(self.path)  # the file as read, plus our changes
        self._pending: dict[str, Any] = {}  # changes not written yet (or _REMOVED)

    def _take_pending(self) -> dict[str, Any]:
        """(Lock held.) The changes to write, handed over."""
        batch, self._pending = self._pending, {}
        return batch

    def _changed(self) -> None:
        """(Lock held.) Have the writer take this handle's changes soon."""
        _dirty[self] = None
        _changes.notify_all()

    # --- QSettings' own words ----------------------------------------------------------
    def value(self, key: str, default: Any = None) -> Any:
        with _changes:
            return self._values.get(key, default)

    def setValue(self, key: str, value: Any) -> None:  # noqa: N802 (QSettings' name)
        with _changes:
            if key in self._values and self._values[key] == value:
                return  # (nothing to write)
            self._values[key] = value
            self._pending[key] = value
            self._changed()

    def remove(self, key: str) -> None:
        with _changes:
            gone = [k for k in self._values if k == key or k.startswith(key + "/")]
            if not gone:
                return
            for k in gone:
                del self._values[k]
            self._pending[key] = _REMOVED
            self._changed()

    def sync(self) -> None:
        """Changes are written within :data:`FLUSH_DELAY_S` anyway: this never waits (see
        :meth:`flush`)."""

    def flush(self, timeout: float = FLUSH_TIMEOUT_S) -> bool:
        """Write the waiting changes now and wait for them; False if the writer is late."""
        return _write_now(lambda: self not in _dirty and not _writing, timeout)

    # --- the window ----------------------------------------------------------------------
    def geometry(self) -> tuple[int, int, int, int, bool] | None:
        """``(x, y, width, height, maximized)`` of the window when it last closed."""
        value = self.value("window/geometry")
        try:
            x, y, width, height, maximized = (int(v) for v in value)
        except (TypeError, ValueError):
            return None
        return (x, y, width, height, bool(maximized)) if width > 0 and height > 0 else None

    def set_geometry(self, x: int, y: int, width: int, height: int, maximized: bool) -> None:
        self.setValue("window/geometry", [str(v) for v in (x, y, width, height, int(maximized))])

    def splitter(self, name: str) -> list[int] | None:
        value = self.value(f"splitters/{name}")
        try:
            sizes = [int(v) for v in (value if isinstance(value, list) else [value])]
        except (TypeError, ValueError):
            return None
        return sizes if len(sizes) >= 2 and all(s >= 0 for s in sizes) else None

    def set_splitter(self, name: str, sizes: list[int]) -> None:
        self.setValue(f"splitters/{name}", [str(int(s)) for s in sizes])

    def theme(self) -> str | None:
        value = self.value("view/theme")
        return str(value) if value else None

    def set_theme(self, mode: str) -> None:
        self.setValue("view/theme", mode)

    # --- per home ----------------------------------------------------------------------------
    def home_value(self, label: str, key: str, default: Any = None) -> Any:
        raw = self.value(f"{home_key(label)}/{key}")
        if raw is None:
            return default
        try:
            return json.loads(str(raw))
        except ValueError:
            return default

    def set_home_value(self, label: str, key: str, value: Any) -> None:
        self.setValue(f"{home_key(label)}/{key}", json.dumps(value))
