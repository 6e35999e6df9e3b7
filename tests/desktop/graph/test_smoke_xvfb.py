"""Smoke test: the real ``hermes-studio`` process on a real X server (Xvfb), not offscreen.

It opens the demo home, lays out the graph and saves a screenshot; the PNG must show the
graph (the night-sky canvas with many coloured nodes), not a blank window. CI installs
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

from hermes_studio.graph.style import DARK_CANVAS


def _xvfb_run() -> str:
    found = shutil.which("xvfb-run")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("xvfb-run is missing on CI; .ci/run should have installed xvfb")
        pytest.skip("xvfb-run is not installed (sudo make xvfb-deps, or apt-get install xvfb xauth)")
    return found


def test_hermes_studio_screenshots_the_graph_under_xvfb(tmp_path):
    xvfb_run = _xvfb_run()
    studio = Path(sys.executable).with_name("hermes-studio")
    assert studio.exists(), f"{studio} is missing: pip install -e . first"
    out = tmp_path / "graph.png"
    env = dict(os.environ, QT_QPA_PLATFORM="xcb")
    env.pop("DISPLAY", None)
    result = subprocess.run(
        [xvfb_run, "-a", "-s", "-screen 0 1280x800x24", str(studio), "--demo", "--screenshot", str(out)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(out)
    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (1200, 800)
    canvas = QColor(DARK_CANVAS.background).rgb()
    pixels = Counter(
        image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)
    )
    sampled = sum(pixels.values())
    # the graph canvas fills a good part of the window...
    assert pixels[canvas] > sampled * 0.15
    # ...and nodes of many colours are drawn on it
    saturated = {
        rgb for rgb in pixels
        if QColor(rgb).saturation() > 90 and QColor(rgb).value() > 90
    }
    assert len(saturated) > 60
