"""File ▸ Export on the demo home: PNG and SVG of the current view and of the whole graph,
and the growth animation as an animated GIF, each opened and checked after it is written;
Cancel leaves no file and puts the canvas back."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import shiboken6
from PIL import Image
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QFileDialog

from hermes_studio.graph import export
from hermes_studio.main_window import MainWindow


def finish(qtbot, job) -> tuple[bool, str]:
    qtbot.waitUntil(lambda: job.finished, timeout=60000)
    job.wait()
    return job.ok, job.message


def drawn_pixels(path, background) -> int:
    """How many pixels differ from the canvas background."""
    pixels = np.asarray(Image.open(path).convert("RGB"), dtype=np.int32)
    return int((np.abs(pixels - np.array(background)).sum(axis=2) > 40).sum())


def background(panel) -> tuple[int, int, int]:
    return QColor(panel.view.style_.background).getRgb()[:3]


def test_png_of_the_current_view_and_of_the_whole_graph(qtbot, make_panel, demo_home, tmp_path):
    panel = make_panel(demo_home)
    view = panel.view
    viewport = view.viewport().size()
    ok, message = finish(qtbot, export.export_picture(view, tmp_path / "view.png", "png"))
    assert ok, message
    with Image.open(tmp_path / "view.png") as image:
        assert image.format == "PNG" and image.size == (viewport.width(), viewport.height())
    assert drawn_pixels(tmp_path / "view.png", background(panel)) > 2000  # rings, edges, nodes

    view.vb.scaleBy((0.2, 0.2))  # zoomed in: the current view is what the person sees
    qtbot.wait(50)
    camera = view.vb.viewRect()
    finish(qtbot, export.export_picture(view, tmp_path / "zoomed.png", "png"))
    on_screen = view.viewport().grab().toImage()
    on_screen.save(str(tmp_path / "screen.png"))
    exported = np.asarray(Image.open(tmp_path / "zoomed.png").convert("RGB"), dtype=np.int32)
    shown = np.asarray(Image.open(tmp_path / "screen.png").convert("RGB"), dtype=np.int32)
    assert exported.shape == shown.shape and np.abs(exported - shown).mean() < 3.0

    ok, message = finish(qtbot, export.export_picture(view, tmp_path / "whole.png", "png", whole=True))
    assert ok, message
    with Image.open(tmp_path / "whole.png") as image:
        assert image.size == (round(viewport.width() * export.WHOLE_SCALE), round(viewport.height() * export.WHOLE_SCALE))
    assert view.vb.viewRect() == camera  # the camera is put back
    # the whole map fits the picture: what is drawn spans it (the outer ring, with a margin)
    pixels = np.asarray(Image.open(tmp_path / "whole.png").convert("RGB"), dtype=np.int32)
    drawn = np.abs(pixels - np.array(background(panel))).sum(axis=2) > 40
    rows, columns = np.flatnonzero(drawn.any(axis=1)), np.flatnonzero(drawn.any(axis=0))
    span = max((rows[-1] - rows[0]) / drawn.shape[0], (columns[-1] - columns[0]) / drawn.shape[1])
    assert 0.8 < span <= 1.0


def test_svg_is_a_valid_picture_with_the_graph_in_it(qtbot, make_panel, demo_home, tmp_path):
    panel = make_panel(demo_home)
    ok, message = finish(qtbot, export.export_picture(panel.view, tmp_path / "graph.svg", "svg", whole=True))
    assert ok, message
    root = ET.parse(tmp_path / "graph.svg").getroot()
    assert root.tag.endswith("svg")
    size = panel.view.viewport().size()
    assert root.get("viewBox").split() == ["0", "0", str(size.width()), str(size.height())]
    tags = [element.tag.rsplit("}", 1)[-1] for element in root.iter()]
    assert tags.count("path") >= 2  # the rings and the edges, as vectors
    assert tags.count("image") >= panel.view.data.size // 2  # node glyphs and label sprites
    # it opens: Qt's own SVG renderer draws it back, with the graph spread over the picture
    renderer = QSvgRenderer(str(tmp_path / "graph.svg"))
    assert renderer.isValid()
    image = QImage(size, QImage.Format.Format_RGB32)
    image.fill(QColor(*background(panel)))
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    image.save(str(tmp_path / "back.png"))
    assert drawn_pixels(tmp_path / "back.png", background(panel)) > 2000


def test_growth_animation_is_a_gif_whose_frames_grow(qtbot, make_panel, demo_home, tmp_path):
    panel = make_panel(demo_home)
    mask = panel.mask.copy()
    steps = []
    job = export.GrowthExport(panel, tmp_path / "growth.gif", frames=8)
    job.sig_progress.connect(lambda done, total, what: steps.append((done, total, what)))
    job.start()
    ok, message = finish(qtbot, job)
    assert ok, message
    assert steps[-1][0] == steps[-1][1] and {what for *_n, what in steps} == {"Rendering frames", "Encoding"}
    with Image.open(tmp_path / "growth.gif") as gif:
        assert gif.format == "GIF" and gif.n_frames == 8 and gif.info.get("loop") == 0
        gif.seek(0)
        first = np.asarray(gif.convert("RGB"), dtype=np.int32)
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB"), dtype=np.int32)
    bg = np.array(background(panel))
    assert (np.abs(last - bg).sum(axis=2) > 40).sum() > (np.abs(first - bg).sum(axis=2) > 40).sum()
    assert np.array_equal(panel.view.visible, mask)  # the canvas shows what it showed before


def test_cancel_leaves_no_file_and_restores_the_canvas(qtbot, make_panel, demo_home, tmp_path):
    panel = make_panel(demo_home)
    mask = panel.mask.copy()
    job = export.GrowthExport(panel, tmp_path / "growth.gif", frames=30)
    job.sig_progress.connect(lambda done, total, what: job.cancel() if done >= 2 else None)
    job.start()
    ok, message = finish(qtbot, job)
    assert not ok and "cancelled" in message
    assert list(tmp_path.glob("*.gif")) == [] and list(tmp_path.glob(".*part")) == []
    assert np.array_equal(panel.view.visible, mask)


def test_file_menu_exports_with_progress(qtbot, demo_home, tmp_path, monkeypatch):
    target = tmp_path / "menu-export"  # no suffix: the kind's is added
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    window = MainWindow(demo_home, view="memory")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.graph.ready, timeout=20000)
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    export_menu = next(a.menu() for a in menu.actions() if a.text() == "E&xport")
    export_menu.aboutToShow.emit()
    names = [a.text() for a in export_menu.actions()]
    assert "&Growth animation (GIF)…" in names and "Graph as SVG (w&hole graph)…" in names
    assert window.commands.trigger("file.export.png_whole")
    assert window.current_view() == "graph"
    ok, message = finish(qtbot, window.export_job)
    assert ok, message
    qtbot.waitUntil(lambda: not shiboken6.isValid(window.export_dialog), timeout=2000)  # closed and gone
    with Image.open(tmp_path / "menu-export.png") as image:
        assert image.width > 0 and image.height > 0
    assert "Exported menu-export.png" in window.statusBar().currentMessage()
    window.close()


@pytest.mark.parametrize("kind", ["png", "svg"])
def test_an_unwritable_target_is_a_clear_failure(qtbot, make_panel, demo_home, tmp_path, kind):
    panel = make_panel(demo_home)
    ok, message = finish(qtbot, export.export_picture(panel.view, tmp_path / "missing" / f"x.{kind}", kind))
    assert not ok and "Cannot write in" in message


def test_without_pillow_the_growth_export_says_why_and_writes_nothing(qtbot, demo_home, tmp_path, monkeypatch):
    # the frozen app leaves Pillow out (packaging/hermes-studio.spec): the GIF is refused in words
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "PIL" else real_find_spec(name, *a))
    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: asked.append(a) or ("", "")))
    window = MainWindow(demo_home, view="graph")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.graph.ready, timeout=20000)
    assert window.commands.trigger("file.export.growth")
    assert "needs Pillow" in window.statusBar().currentMessage()
    assert not asked and getattr(window, "export_job", None) is None
    target = tmp_path / "out" / "growth.gif"
    target.parent.mkdir()
    assert export.start_export(window, "gif", target) is None
    assert list(target.parent.iterdir()) == []
    window.close()
