"""Where the app's bundled files live: ``resources/`` of the repository, or of the frozen
bundle that ``packaging/`` builds (themes, icons and the demo home)."""

from __future__ import annotations

import sys
from pathlib import Path

import hermes_studio


def resources_dir() -> Path:
    if getattr(sys, "frozen", False):
        return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "resources"
    return Path(hermes_studio.__file__).resolve().parents[2] / "resources"
