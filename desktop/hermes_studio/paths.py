"""Where the app's bundled files live: ``resources/`` inside the package (themes, icons and
the demo home).

One rule for every way the app runs: from a checkout (the editable install of ``make run``
maps the package to ``desktop/hermes_studio``), installed from the wheel (they are package
data, see pyproject.toml), and frozen (packaging/hermes-studio.spec puts them at
``hermes_studio/resources`` in the bundle, where PyInstaller sets the package's
``__file__``).
"""

from __future__ import annotations

from pathlib import Path

import hermes_studio


def resources_dir() -> Path:
    return Path(hermes_studio.__file__).resolve().parent / "resources"
