"""Build the self-contained app: ``dist/hermes-studio/`` and an archive of it.

    python packaging/build.py        (``make package``; needs the ``package`` extra)

Renders the icons, runs PyInstaller on packaging/hermes-studio.spec, adds the Linux desktop
entry and its installer to the folder, archives it as
``dist/hermes-studio-<version>-<system>-<machine>.tar.gz`` (``.zip`` on Windows) and prints
the build time and the unpacked size.
"""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
BUNDLE = DIST / "hermes-studio"
ICONS = ROOT / "build" / "icons"
sys.path.insert(0, str(ROOT / "engine"))

from hermes_memory import __version__  # noqa: E402

SIZE_LIMIT_MB = 200


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def strip_python_runtime() -> None:
    """Drop debug symbols from the Python runtime (a source-built Python keeps ~25 MB).

    Only libpython and the stdlib's extension modules: stripping the wheels' own libraries
    (patched by auditwheel) can break them.
    """
    strip = shutil.which("strip")
    if strip is None:
        return
    internal = BUNDLE / "_internal"
    targets = [*internal.glob("libpython3*.so*"), *internal.glob("python3*/lib-dynload/*.so")]
    if targets:
        subprocess.run([strip, "--strip-debug", *map(str, targets)], check=True)


def link_cli(folder: Path) -> None:
    """``hermes-memory`` next to ``hermes-studio``: the same executable (see entry.py)."""
    link = folder / "hermes-memory"
    link.unlink(missing_ok=True)
    link.symlink_to("hermes-studio")


def add_linux_desktop_files() -> None:
    share = BUNDLE / "share"
    shutil.copytree(ICONS / "hicolor", share / "icons" / "hicolor", dirs_exist_ok=True)
    (share / "applications").mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "packaging" / "linux" / "hermes-studio.desktop", share / "applications")
    shutil.copy2(ROOT / "packaging" / "linux" / "install-desktop.sh", BUNDLE)


def archive_name() -> str:
    system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    return f"hermes-studio-{__version__}-{system}-{platform.machine().lower()}"


def main() -> int:
    started = time.monotonic()
    subprocess.run([sys.executable, str(ROOT / "packaging" / "render_icons.py"), str(ICONS)],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
         "--distpath", str(DIST), "--workpath", str(ROOT / "build" / "pyinstaller"),
         str(ROOT / "packaging" / "hermes-studio.spec")],
        check=True,
    )
    if sys.platform != "win32":
        link_cli(BUNDLE)
    if sys.platform == "darwin":
        link_cli(DIST / "Hermes Memory Studio.app" / "Contents" / "MacOS")
    if sys.platform.startswith("linux"):
        strip_python_runtime()
        add_linux_desktop_files()
    base = DIST / archive_name()
    for old in DIST.glob("hermes-studio-*.tar.gz"):
        old.unlink()
    fmt = "zip" if sys.platform == "win32" else "gztar"
    archive = shutil.make_archive(str(base), fmt, root_dir=DIST, base_dir=BUNDLE.name)
    elapsed = time.monotonic() - started
    size_mb = folder_size(BUNDLE) / 1e6
    verdict = "pass" if size_mb <= SIZE_LIMIT_MB else "FAIL"
    print(f"built {BUNDLE} in {elapsed:.0f} s: {size_mb:.0f} MB unpacked "
          f"(limit {SIZE_LIMIT_MB} MB, {verdict}); archive {archive} "
          f"{Path(archive).stat().st_size / 1e6:.0f} MB")
    return 0 if verdict == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
