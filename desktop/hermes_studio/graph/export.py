"""Export the graph: a PNG or SVG of the current view or of the whole graph, and the growth
animation (the timeline replayed from the first thing learned to now) as an animated GIF.

Qt paints only on the UI thread, so each picture or frame is rendered there (milliseconds
each; the frames of an animation one per turn of the event loop, so the window stays live);
encoding and writing run on a worker thread. Every export reports progress, can be
cancelled, and writes to a temporary name that is renamed into place only when complete, so
a cancelled or failed export leaves no half file behind. Pillow encodes the GIF.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import shiboken6
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QRectF, QSize, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from .filters import visible_mask

#: The whole graph is rendered at this multiple of the canvas size (a sharper picture).
WHOLE_SCALE = 2.0
#: Growth animation: frames, their pace, and the widest frame.
GROWTH_FRAMES = 40
FRAME_MS = 120
LAST_FRAME_MS = 1500
MAX_FRAME_WIDTH = 800


class ExportError(RuntimeError):
    """An export could not be written; the message says why."""


@contextlib.contextmanager
def framed(view: Any, whole: bool) -> Iterator[None]:
    """With ``whole``, frame the whole graph for the time of a render, then put the camera back."""
    if not whole or view.content_rect() is None:
        yield
        return
    saved = view.vb.viewRect()
    view.vb.setRange(view.content_rect(), padding=0.04)
    try:
        yield
    finally:
        view.vb.setRange(saved, padding=0)


def _paint(view: Any, painter: QPainter, target: QRectF) -> None:
    view.scene().prepareForPaint()  # pyqtgraph's ViewBox applies its new range here
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.fillRect(target, QColor(view.style_.background))
    view.render(painter, target, view.viewport().rect())


def render_image(view: Any, *, whole: bool = False, scale: float = 1.0) -> QImage:
    """The canvas as an image (the current view, or the whole graph)."""
    with framed(view, whole):
        size = view.viewport().size()
        image = QImage(QSize(max(1, round(size.width() * scale)), max(1, round(size.height() * scale))),
                       QImage.Format.Format_ARGB32)  # fmt: skip
        painter = QPainter(image)
        _paint(view, painter, QRectF(image.rect()))
        painter.end()
    return image


def render_svg(view: Any, *, whole: bool = False, title: str = "Learning graph") -> bytes:
    """The canvas as SVG text (vector rings, edges and labels; nodes as drawn)."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    with framed(view, whole):
        size = view.viewport().size()
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(size)
        generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
        generator.setTitle(title)
        generator.setDescription("Exported from Hermes Memory Studio")
        painter = QPainter(generator)
        _paint(view, painter, QRectF(0, 0, size.width(), size.height()))
        painter.end()
    return bytes(buffer.data())


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise ExportError("The picture could not be encoded as PNG.")
    return bytes(data)


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place."""
    path = Path(path)
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as exc:
        raise ExportError(f"Cannot write in {path.parent}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise ExportError(f"Cannot write {path}: {exc.strerror or exc}") from None


def _rgba(image: QImage) -> tuple[int, int, bytes]:
    converted = image.convertToFormat(QImage.Format.Format_RGBA8888)
    return converted.width(), converted.height(), bytes(converted.constBits())


def encode_gif(frames: list[tuple[int, int, bytes]], durations: list[int],
               progress: Callable[[int], None], cancelled: Callable[[], bool]) -> bytes | None:  # fmt: skip
    """The frames as one looping animated GIF (``None`` when cancelled)."""
    from PIL import Image

    palette_frames = []
    for number, (width, height, data) in enumerate(frames):
        if cancelled():
            return None
        frame = Image.frombytes("RGBA", (width, height), data).convert("RGB")
        palette_frames.append(frame.quantize(colors=255, method=Image.Quantize.MEDIANCUT))
        progress(number + 1)
    out = io.BytesIO()
    first, rest = palette_frames[0], palette_frames[1:]
    first.save(out, format="GIF", save_all=True, append_images=rest, duration=durations, loop=0,
               optimize=False, disposal=1)  # fmt: skip
    return out.getvalue()


class Export(QObject):
    """One export running: ``sig_progress(done, total, what)``, then ``sig_finished(ok, message)``."""

    sig_progress = Signal(int, int, str)
    sig_finished = Signal(bool, str)
    _sig_worker_progress = Signal(int, int, str)
    _sig_worker_done = Signal(bool, str)

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.cancelled = False
        self.finished = False
        self.ok = False
        self.message = ""
        self._thread: threading.Thread | None = None
        self._sig_worker_progress.connect(self.sig_progress)
        self._sig_worker_done.connect(self._finish)

    def cancel(self) -> None:
        self.cancelled = True

    def _finish(self, ok: bool, message: str) -> None:
        if self.finished:
            return
        self.finished, self.ok, self.message = True, ok, message
        self.sig_finished.emit(ok, message)

    def _in_background(self, total: int, work: Callable[[Callable[[int], None]], bytes | None]) -> None:
        """Run ``work(progress)`` on a thread and write what it returns to the path."""

        def emit(signal_name: str, *args: Any) -> None:
            if shiboken6.isValid(self):  # the window may have closed meanwhile
                getattr(self, signal_name).emit(*args)

        def run() -> None:
            try:
                data = work(lambda done: emit("_sig_worker_progress", done, total, "Encoding"))
                if data is None or self.cancelled or not shiboken6.isValid(self):
                    emit("_sig_worker_done", False, "Export cancelled; nothing was written.")
                    return
                write_atomically(self.path, data)
            except (ExportError, OSError, ValueError) as exc:
                emit("_sig_worker_done", False, f"Export failed: {exc}")
                return
            emit("_sig_worker_done", True, f"Exported {self.path.name} ({len(data):,} bytes).")

        self._thread = threading.Thread(target=run, name="hermes-export", daemon=True)
        self._thread.start()

    def wait(self, timeout: float = 30.0) -> None:
        """Join the worker thread (for closing and tests)."""
        if self._thread is not None:
            self._thread.join(timeout)


def export_picture(view: Any, path: Path, fmt: str, *, whole: bool = False,
                   parent: QObject | None = None) -> Export:  # fmt: skip
    """Start a PNG or SVG export of the canvas; the returned job reports when it is written."""
    job = Export(path, parent)
    if fmt == "svg":
        data = render_svg(view, whole=whole)
        job._in_background(1, lambda progress: data)
    else:
        image = render_image(view, whole=whole, scale=WHOLE_SCALE if whole else 1.0)
        job._in_background(1, lambda progress: png_bytes(image))  # QImage is safe off the UI thread
    return job


class GrowthExport(Export):
    """The timeline replayed frame by frame on the canvas, then encoded as an animated GIF."""

    def __init__(self, panel: Any, path: Path, frames: int = GROWTH_FRAMES, parent: QObject | None = None) -> None:
        super().__init__(path, parent)
        self.panel = panel
        self.view = panel.view
        data = panel.data
        if data is None or data.size == 0:
            raise ExportError("There is no graph to animate yet.")
        times = np.asarray(data.times, dtype=float)
        dated = times[~np.isnan(times)]
        start, end = (float(dated.min()), float(dated.max())) if len(dated) else (0.0, 0.0)
        count = max(2, frames)
        self.steps: list[float | None] = [start + (end - start) * k / (count - 1) for k in range(count - 1)] + [None]
        self.total = len(self.steps)
        self.frames: list[tuple[int, int, bytes]] = []
        self._saved_range = self.view.vb.viewRect()
        content = self.view.content_rect()
        if content is not None:
            self.view.vb.setRange(content, padding=0.04)
        width = self.view.viewport().width()
        self.scale = min(1.0, MAX_FRAME_WIDTH / width) if width > 0 else 1.0
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._next_frame)
        self._shown = False  # the current step's nodes are handed to the canvas

    def start(self) -> None:
        self._timer.start()

    def _restore(self) -> None:
        self._timer.stop()
        self.view.set_visible(self.panel.mask)
        self.view.vb.setRange(self._saved_range, padding=0)

    def _next_frame(self) -> None:
        if self.cancelled:
            self._restore()
            self._finish(False, "Export cancelled; nothing was written.")
            return
        number = len(self.frames)
        if not self._shown:
            state = self.panel.state.with_(reveal_until=self.steps[number])
            self.view.set_visible(visible_mask(self.panel.data, state))
            self._shown = True
            return  # let the canvas take the nodes (big graphs arrive in slices)
        if self.view.drawing:
            return
        self.frames.append(_rgba(render_image(self.view, scale=self.scale)))
        self._shown = False
        self.sig_progress.emit(len(self.frames), self.total * 2, "Rendering frames")
        if len(self.frames) < self.total:
            return
        self._restore()
        frames, total = self.frames, self.total
        durations = [FRAME_MS] * (total - 1) + [LAST_FRAME_MS]
        self._sig_worker_progress.disconnect(self.sig_progress)
        self._sig_worker_progress.connect(lambda done, _t, what: self.sig_progress.emit(total + done, total * 2, what))
        self._in_background(total, lambda progress: encode_gif(frames, durations, progress, lambda: self.cancelled))


# --- from the File menu ---------------------------------------------------------------------
KINDS = {"png": "PNG image (*.png)", "svg": "SVG image (*.svg)", "gif": "Animated GIF (*.gif)"}


def default_path(label: str, kind: str) -> Path:
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in label).strip("-") or "graph"
    folder = Path.home() / "Pictures"
    return (folder if folder.is_dir() else Path.home()) / f"{stem}-{'growth' if kind == 'gif' else 'graph'}.{kind}"


def ask_and_export(window: Any, kind: str, whole: bool = False) -> Export | None:
    """Ask where to save, then export with a progress dialog (File ▸ Export)."""
    from PySide6.QtWidgets import QFileDialog

    if kind == "gif" and not gif_available():
        window.statusBar().showMessage(NO_GIF, 15000)
        return None
    what = "the growth animation" if kind == "gif" else "the whole graph" if whole else "the current view"
    path, _filter = QFileDialog.getSaveFileName(window, f"Export {what}", str(default_path(window.home.label, kind)),
                                                KINDS[kind])  # fmt: skip
    if not path:
        return None
    if not path.lower().endswith("." + kind):
        path += "." + kind
    return start_export(window, kind, Path(path), whole=whole)


def gif_available() -> bool:
    """Whether Pillow, which encodes the GIF, is installed (the frozen app leaves it out to
    stay within its size budget; PNG and SVG need only Qt)."""
    import importlib.util

    return importlib.util.find_spec("PIL") is not None


NO_GIF = ("The growth animation needs Pillow, which this build of the app does not include; "
          "PNG and SVG export work. Install the app with pip (the desktop extra) to export it.")


def start_export(window: Any, kind: str, path: Path, *, whole: bool = False) -> Export | None:
    """Export the window's graph to ``path``, showing progress with Cancel."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QProgressDialog

    if kind == "gif" and not gif_available():
        window.statusBar().showMessage(NO_GIF, 15000)
        return None
    graph = window.graph
    if graph.data is None:
        window.statusBar().showMessage("Nothing to export yet: the graph is still being read.", 8000)
        return None
    window.set_view("graph")
    try:
        job = GrowthExport(graph, path, parent=window) if kind == "gif" else \
            export_picture(graph.view, path, kind, whole=whole, parent=window)
    except ExportError as exc:
        window.statusBar().showMessage(str(exc), 10000)
        return None
    dialog = QProgressDialog(f"Exporting {path.name}…", "Cancel", 0, 0, window)
    dialog.setWindowTitle("Export")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(300)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    dialog.canceled.connect(job.cancel)

    def progress(done: int, total: int, what: str) -> None:
        dialog.setMaximum(total)
        dialog.setValue(done)
        dialog.setLabelText(f"{what}… ({done} of {total})")

    def finished(ok: bool, message: str) -> None:
        dialog.close()
        dialog.deleteLater()
        window.statusBar().showMessage(message, 10000)
        graph.message.show_message(message, error=not ok and not job.cancelled)

    job.sig_progress.connect(progress)
    job.sig_finished.connect(finished)
    window.export_job, window.export_dialog = job, dialog
    if isinstance(job, GrowthExport):
        job.start()
    return job
