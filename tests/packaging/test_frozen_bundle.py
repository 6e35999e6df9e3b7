"""The frozen bundle from `make package`, run from its unpacked archive with a clean
environment: no venv on PATH, a fresh HOME, no display unless Xvfb provides one."""

from __future__ import annotations

import configparser
import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from hermes_memory import __version__
from hermes_studio.graph.style import DARK_CANVAS

ROOT = Path(__file__).resolve().parents[2]

SIZE_LIMIT = 200_000_000
HICOLOR_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def run(command, env, timeout=120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(part) for part in command], env=env, capture_output=True, text=True,
        timeout=timeout, **kwargs,
    )


@pytest.fixture
def demo_home(tmp_path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(ROOT / "desktop" / "hermes_studio" / "resources" / "demo-home", home)
    return home


def test_both_frozen_commands_print_the_one_version_without_a_display(unpacked_bundle, clean_env):
    for command in ("hermes-studio", "hermes-memory"):
        result = run([unpacked_bundle / command, "--version"], clean_env)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"{command} {__version__}"


def test_frozen_cli_reads_and_writes_a_home(unpacked_bundle, clean_env, demo_home):
    cli = unpacked_bundle / "hermes-memory"
    status = run([cli, "--home", demo_home, "--json", "status"], clean_env)
    assert status.returncode == 0, status.stderr
    stores = json.dumps(json.loads(status.stdout))
    assert "MEMORY.md" in stores and "USER.md" in stores

    added = run([cli, "--home", demo_home, "add", "memory", "Frozen builds run on Debian 12"], clean_env)
    assert added.returncode == 0, added.stderr
    assert "Frozen builds run on Debian 12" in (demo_home / "memories" / "MEMORY.md").read_text()
    # state.db through the bundled SQLite, FTS5 included
    found = run([cli, "--home", demo_home, "--json", "sessions", "search", "pnpm"], clean_env)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout), "the demo sessions mention pnpm"


def test_frozen_app_screenshots_the_demo_graph_under_xvfb(unpacked_bundle, clean_env, tmp_path):
    xvfb_run = shutil.which("xvfb-run")
    if xvfb_run is None:
        pytest.fail("xvfb-run is missing: sudo make xvfb-deps (.ci/run installs it)")
    out = tmp_path / "graph.png"
    result = run(
        [xvfb_run, "-a", "-s", "-screen 0 1280x800x24",
         unpacked_bundle / "hermes-studio", "--demo", "--theme", "dark", "--screenshot", out],
        dict(clean_env, QT_QPA_PLATFORM="xcb"),
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(out)
    # the demo home came out of the bundle into the fresh HOME's data folder
    demo_copy = Path(clean_env["HOME"]) / ".local" / "share" / "hermes-studio" / "demo-home"
    assert (demo_copy / "memories" / "MEMORY.md").is_file()

    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (1200, 800)
    pixels = Counter(
        image.pixel(x, y) for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)
    )
    sampled = sum(pixels.values())
    assert pixels[QColor(DARK_CANVAS.background).rgb()] > sampled * 0.15  # the graph canvas
    saturated = {
        rgb for rgb in pixels if QColor(rgb).saturation() > 90 and QColor(rgb).value() > 90
    }
    assert len(saturated) > 60  # nodes of many colours drawn on it


def test_bundle_holds_only_what_the_app_needs(unpacked_bundle):
    files = [path for path in unpacked_bundle.rglob("*") if path.is_file() and not path.is_symlink()]
    size = sum(path.stat().st_size for path in files)
    assert size <= SIZE_LIMIT, f"the bundle is {size / 1e6:.0f} MB unpacked"
    names = {part.lower() for path in files for part in path.relative_to(unpacked_bundle).parts}
    for unwanted in ("qtwebenginecore.abi3.so", "litellm", "pytest", "_pytest", "hypothesis",
                     "scipy", "qtqml.abi3.so", "translations"):
        assert unwanted not in names, f"{unwanted} should not be bundled"
    for link in (path for path in unpacked_bundle.rglob("*") if path.is_symlink()):
        assert link.resolve().is_relative_to(unpacked_bundle.resolve()), f"{link} leaves the bundle"


def _desktop_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_entry_installs_and_uninstalls_for_the_user(unpacked_bundle, clean_env, tmp_path):
    data = tmp_path / "xdg-data"
    env = dict(clean_env, XDG_DATA_HOME=str(data))
    user_data = data / "hermes-studio" / "demo-home" / "memories" / "MEMORY.md"
    user_data.parent.mkdir(parents=True)
    user_data.write_text("kept\n", encoding="utf-8")

    installed = run(["sh", ROOT / "packaging" / "linux" / "install-desktop.sh", "install",
                     unpacked_bundle], env)
    assert installed.returncode == 0, installed.stderr
    entry_file = data / "applications" / "hermes-studio.desktop"
    entry = _desktop_entry(entry_file)
    assert entry["Type"] == "Application" and entry["Name"] == "Hermes Memory Studio"
    assert entry["Icon"] == "hermes-studio"
    app = data / "hermes-studio" / "app" / "hermes-studio"
    assert entry["Exec"] == f'"{app}"' and entry["TryExec"] == str(app)
    validator = shutil.which("desktop-file-validate")
    if validator:
        checked = run([validator, entry_file], env)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    for size in HICOLOR_SIZES:
        icon = QImage(str(data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "hermes-studio.png"))
        assert (icon.width(), icon.height()) == (size, size)
        assert QColor.fromRgba(icon.pixel(size // 2, size // 2)).alpha() > 0
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "hermes-studio.svg").is_file()
    # the installed copy runs on its own, the unpacked folder no longer needed
    version = run([app, "--version"], env)
    assert version.stdout.strip() == f"hermes-studio {__version__}", version.stderr

    removed = run(["sh", ROOT / "packaging" / "linux" / "install-desktop.sh", "uninstall"], env)
    assert removed.returncode == 0, removed.stderr
    assert not entry_file.exists()
    assert not list((data / "icons").rglob("hermes-studio.*"))
    assert not (data / "hermes-studio" / "app").exists()
    assert user_data.read_text(encoding="utf-8") == "kept\n"


def test_install_desktop_refuses_a_folder_without_the_app(clean_env, tmp_path):
    data = tmp_path / "xdg-data"
    env = dict(clean_env, XDG_DATA_HOME=str(data))
    result = run(["sh", ROOT / "packaging" / "linux" / "install-desktop.sh", "install", tmp_path], env)
    assert result.returncode == 1
    assert "no hermes-studio" in result.stderr
    assert not data.exists()


def test_uninstall_desktop_leaves_a_clean_user_untouched(clean_env, tmp_path):
    data = tmp_path / "xdg-data"
    env = dict(clean_env, XDG_DATA_HOME=str(data))
    result = run(["sh", ROOT / "packaging" / "linux" / "install-desktop.sh", "uninstall"], env)
    assert result.returncode == 0, result.stderr
    assert not data.exists()
