"""Render desktop/hermes_studio/resources/icons/hermes-studio.svg into the icons each system expects.

    python packaging/render_icons.py [OUT]      (default OUT: build/icons)

Writes the freedesktop hicolor theme's PNG sizes (``hicolor/<n>x<n>/apps/hermes-studio.png``
plus ``hicolor/scalable/apps/hermes-studio.svg``), a Windows ``hermes-studio.ico`` and a
macOS ``hermes-studio.icns``, using Qt's own SVG renderer and image writers, so no other
tool is needed on any of the three systems.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "desktop" / "hermes_studio" / "resources" / "icons" / "hermes-studio.svg"
NAME = "hermes-studio"
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZE = 256  # Qt's ICO writer stores one image; Windows scales it down well
ICNS_SIZE = 512


def render(size: int):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SOURCE))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: cannot read {SOURCE}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def save(image, path: Path, fmt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(path), fmt):
        raise SystemExit(f"render_icons: Qt could not write {path} as {fmt}")


def render_all(out: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 (fonts, plugins)
    hicolor = out / "hicolor"
    for size in HICOLOR_SIZES:
        save(render(size), hicolor / f"{size}x{size}" / "apps" / f"{NAME}.png", "PNG")
    scalable = hicolor / "scalable" / "apps" / f"{NAME}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, scalable)
    save(render(ICO_SIZE), out / f"{NAME}.ico", "ICO")
    save(render(ICNS_SIZE), out / f"{NAME}.icns", "ICNS")


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "icons"
    render_all(target)
    print(target)
