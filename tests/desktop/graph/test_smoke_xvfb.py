"""Smoke test: the real ``hermes-studio`` process on a real X server (Xvfb), not offscreen.

It opens the demo home in each theme, lays out the graph and saves a screenshot; the PNG
must show the graph (the theme's canvas with many coloured nodes), not a blank window. It
also opens a bad ``--home`` (the error page, exit 2) and, without ``--home``, the home
opened last. CI installs
Xvfb in ``.ci/run``; on a developer machine without ``xvfb-run`` the test is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from hermes_studio.app import bundled_demo_home
from hermes_studio.graph.homes import RecentHomes
from hermes_studio.graph.style import DARK_CANVAS, LIGHT_CANVAS
from hermes_studio.settings import Settings


def _xvfb_run() -> str:
    found = shutil.which("xvfb-run")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("xvfb-run is missing on CI; .ci/run should have installed xvfb")
        pytest.skip("xvfb-run is not installed (sudo make xvfb-deps, or apt-get install xvfb xauth)")
    return found


def run_studio(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``hermes-studio ARGS`` on a fresh Xvfb server (a real X window, not offscreen)."""
    xvfb_run = _xvfb_run()
    studio = Path(sys.executable).with_name("hermes-studio")
    assert studio.exists(), f"{studio} is missing: pip install -e . first"
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", **(env_extra or {}))
    env.pop("DISPLAY", None)
    return subprocess.run(
        [xvfb_run, "-a", "-s", "-screen 0 1280x800x24", str(studio), *args],
        env=env, capture_output=True, text=True, timeout=120,
    )


def canvas_share(image: QImage, background: str) -> tuple[float, int]:
    """How much of the window is the canvas colour, and how many saturated colours it holds."""
    canvas = QColor(background).rgb()
    pixels = Counter(
        image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)
    )
    saturated = {
        rgb for rgb in pixels if QColor(rgb).saturation() > 90 and QColor(rgb).value() > 90
    }
    return pixels[canvas] / sum(pixels.values()), len(saturated)


@pytest.mark.parametrize(("theme", "canvas"), [("dark", DARK_CANVAS), ("light", LIGHT_CANVAS)])
def test_hermes_studio_screenshots_the_graph_under_xvfb(tmp_path, theme, canvas):
    out = tmp_path / "graph.png"
    result = run_studio("--demo", "--theme", theme, "--screenshot", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(out)
    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (1200, 800)
    share, colours = canvas_share(image, canvas.background)
    assert share > 0.15  # the graph canvas, in the theme's sky, fills a good part of the window
    assert colours > 60  # ...and nodes of many colours are drawn on it


def test_a_bad_home_opens_the_error_page_and_exits_2_under_xvfb(tmp_path):
    out = tmp_path / "error.png"
    result = run_studio("--home", str(tmp_path / "nowhere"), "--screenshot", str(out))
    assert result.returncode == 2, result.stderr
    assert "No Hermes home at" in result.stderr
    assert result.stdout.strip() == str(out)
    image = QImage(str(out))
    assert not image.isNull() and image.width() > 0
    colours = {image.pixel(x, y) for x in range(0, image.width(), 5) for y in range(0, image.height(), 5)}
    assert len(colours) > 2  # the page is drawn, not blank


def test_the_last_home_is_opened_again_without_home_under_xvfb(tmp_path):
    home = tmp_path / "my-home"
    shutil.copytree(bundled_demo_home(), home)
    nowhere = {"HERMES_HOME": str(tmp_path / "no-hermes-home")}
    first = run_studio("--home", str(home), "--screenshot", str(tmp_path / "1.png"), env_extra=nowhere)
    assert first.returncode == 0, first.stderr
    again = run_studio("--screenshot", str(tmp_path / "2.png"), env_extra=nowhere)
    assert again.returncode == 0, again.stderr
    assert "opening the demo home" not in again.stderr  # the remembered home, not the fallback
    recent = RecentHomes(Settings()).items()
    assert recent and recent[0].root == str(home)
    share, _ = canvas_share(QImage(str(tmp_path / "2.png")), DARK_CANVAS.background)
    light_share, _ = canvas_share(QImage(str(tmp_path / "2.png")), LIGHT_CANVAS.background)
    assert max(share, light_share) > 0.15  # its graph, drawn
