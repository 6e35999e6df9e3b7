"""The app's window icon and desktop file name, set on the application it creates."""

from __future__ import annotations

import subprocess
import sys

from hermes_studio.paths import resources_dir

PROBE = """
import sys
from PySide6.QtWidgets import QApplication
from hermes_studio.app import main
code = main(["--demo", "--screenshot", sys.argv[1]])
app = QApplication.instance()
print(code, app.windowIcon().isNull(), app.desktopFileName())
"""


def test_app_sets_the_svg_window_icon_and_its_desktop_file_name(tmp_path):
    assert (resources_dir() / "icons" / "hermes-studio.svg").is_file()
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "shot.png")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-3:] == ["0", "False", "hermes-studio"]
