"""The app installed from the project's wheel (as `pip install .` does), not from a checkout:
its themes, icon and demo home must come with it.

The wheel goes into a fresh venv with --no-deps; the desktop's dependencies (PySide6 and
friends) come from this test's own environment through a .pth file, which adds that
folder's modules but none of its .pth files (so not this checkout's editable install).
Runs with `make package-test` (HERMES_PACKAGE_TEST=1), like the engine-alone test.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from hermes_studio.paths import resources_dir


def run(command, env, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=env["HOME"])


def files_under(folder: Path) -> set[str]:
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}


@pytest.fixture(scope="module")
def app_venv(built_wheel, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("installed-app") / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-deps", str(built_wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert installed.returncode == 0, installed.stderr
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site) / "test-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    return target


@pytest.fixture
def env(clean_env) -> dict[str, str]:
    return dict(clean_env, QT_QPA_PLATFORM="offscreen")


def test_installed_package_carries_every_resource(app_venv, env):
    where = run([app_venv / "bin" / "python", "-c",
                 "import hermes_studio.paths as p; print(p.__file__); print(p.resources_dir())"], env)
    assert where.returncode == 0, where.stderr
    module, installed = (Path(line) for line in where.stdout.splitlines())
    assert module.is_relative_to(app_venv), f"{module} is not the installed package"
    assert installed.is_relative_to(app_venv), f"{installed} is outside the installed package"
    expected = files_under(resources_dir())  # this checkout's
    assert {"themes/light.json", "themes/dark.json", "themes/app.qss", "icons/hermes-studio.svg",
            "demo-home/memories/MEMORY.md", "demo-home/state.db",
            "demo-home/.memory-studio/history/events.jsonl"} <= expected
    assert files_under(installed) == expected


def test_installed_commands_run_and_the_app_opens_its_demo_home(app_venv, env, tmp_path):
    helped = run([app_venv / "bin" / "hermes-memory", "--help"], env)
    assert helped.returncode == 0, helped.stderr
    assert "usage: hermes-memory" in helped.stdout

    out = tmp_path / "demo.png"
    shot = run([app_venv / "bin" / "hermes-studio", "--demo", "--theme", "dark",
                "--screenshot", out], env)
    assert shot.returncode == 0, shot.stderr
    assert shot.stdout.strip() == str(out)
    demo_copy = Path(env["HOME"]) / ".local" / "share" / "hermes-studio" / "demo-home"
    assert (demo_copy / "memories" / "MEMORY.md").is_file()
    assert not QImage(str(out)).isNull()

