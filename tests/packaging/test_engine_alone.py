"""The engine and its CLI installed alone: a fresh venv, the package without extras.

pip resolves the engine's dependencies the ordinary way (the index, or pip's cache), so
this runs with `make package-test` (HERMES_PACKAGE_TEST=1), not in every `make test`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from hermes_memory import __version__

ROOT = Path(__file__).resolve().parents[2]
DESKTOP_ONLY = ("PySide6", "pyqtgraph", "watchdog")


# Nothing of this checkout or of the project's venv may leak into the fresh one.
CLEAN_ENV = {
    key: value for key, value in os.environ.items()
    if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
}
CLEAN_ENV["PATH"] = os.pathsep.join(
    part for part in os.environ.get("PATH", "").split(os.pathsep)
    if Path(part) != Path(sys.executable).parent
)


def run(command) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=600, env=CLEAN_ENV, cwd=Path.home())


@pytest.fixture(scope="module")
def engine_venv(built_wheel, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("engine-alone") / "venv"
    venv.EnvBuilder(with_pip=True).create(target)
    installed = run([target / "bin" / "python", "-m", "pip", "install", "--quiet", built_wheel])
    assert installed.returncode == 0, installed.stderr
    return target


def test_engine_installs_without_the_desktop_dependencies(engine_venv):
    python = engine_venv / "bin" / "python"
    for module in DESKTOP_ONLY:
        found = run([python, "-c", f"import {module}"])
        assert found.returncode != 0, f"{module} was installed with the engine"
        assert "ModuleNotFoundError" in found.stderr
    metadata = run([python, "-c", "import importlib.metadata as m, json; print(json.dumps("
                    "[m.version('hermes-memory-studio'), m.requires('hermes-memory-studio')]))"])
    version, requirements = json.loads(metadata.stdout)
    assert version == __version__  # the package's version is the engine's
    for requirement in requirements:
        if requirement.split(">")[0].split("<")[0].strip() in ("PySide6-Essentials", "pyqtgraph", "watchdog"):
            assert 'extra == "desktop"' in requirement


def test_engine_alone_runs_status_on_a_home(engine_venv, tmp_path):
    cli = engine_venv / "bin" / "hermes-memory"
    home = tmp_path / "home"
    shutil.copytree(ROOT / "desktop" / "hermes_studio" / "resources" / "demo-home", home)
    version = run([cli, "--version"])
    where = run([engine_venv / "bin" / "python", "-c", "import hermes_memory; print(hermes_memory.__file__)"])
    assert Path(where.stdout.strip()).is_relative_to(engine_venv), where.stdout
    assert version.stdout.strip() == f"hermes-memory {__version__}"
    status = run([cli, "--home", home, "status"])
    assert status.returncode == 0, status.stderr
    assert "MEMORY.md" in status.stdout and "/2,200 chars" in status.stdout
    added = run([cli, "--home", home, "add", "user", "Runs the agent on a headless server"])
    assert added.returncode == 0, added.stderr
    assert "headless server" in (home / "memories" / "USER.md").read_text(encoding="utf-8")


def test_studio_command_without_the_desktop_extra_says_how_to_get_it(engine_venv):
    result = run([engine_venv / "bin" / "hermes-studio", "--demo"])
    assert result.returncode == 1
    assert "pip install 'hermes-memory-studio[desktop]'" in result.stderr
    assert "Traceback" not in result.stderr
