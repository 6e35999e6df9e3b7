"""``hermes-studio``: the command line, the choice of home, and the QApplication bootstrap.

Which home opens: ``--demo`` opens the bundled demo home; otherwise ``--home`` and
``--profile`` name one explicitly; otherwise the home opened last, if it still exists;
otherwise ``$HERMES_HOME`` or ``~/.hermes`` if it exists; otherwise the demo home. The demo
home is always opened from a private copy in the app's data directory, so exploring it
never changes the installed files.

A home named on the command line that cannot be opened (missing, not a folder, an unknown
profile, or a folder with nothing of Hermes in it) opens the window on an error page that
says so and offers "Open home…"; the exit status is then 2 (usage), ``--screenshot`` too.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import platformdirs
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from hermes_memory.home import HermesHome, HomeError, check_profile_name
from hermes_memory.pausing import set_aside_young_objects
from hermes_memory.remote.ssh import is_ssh_url

from . import (
    __version__,
    pyside_imports,  # noqa: F401 - first: every import after it is checked faster
)
from .gc_policy import UiThreadCollector
from .graph.homes import RecentHomes
from .icons import app_icon
from .main_window import APP_NAME, VIEWS, MainWindow
from .paths import resources_dir
from .settings import app_settings, flush_all
from .start_page import HomeErrorWindow
from .theme import MODES, apply_theme
from .worker_gate import show_first_frame

APP_ID = "hermes-studio"
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
UI_SWITCH_INTERVAL_S = 0.001


#: What the window's first reads and the graph's first build import (until now lazily, on
#: their worker threads): imported on the UI thread before the window is made, so that no
#: worker runs a module's import (one uninterruptible stretch of the interpreter, tens of
#: milliseconds for some) while the window paints its first frame.
START_UP_MODULES = (
    "encodings.utf_8_sig",
    "glob",
    "numpy.ma",  # (numpy.unique imports it on first use)
    "orjson",
    "sqlite3",
    "ruamel.yaml.mergevalue",
    "yaml",  # (a skill's front matter that the quick reader leaves to the full parser)
    "hermes_memory.api",
    "hermes_memory.config",
    "hermes_memory.history.backfill",
    "hermes_memory.history.capture",
    "hermes_memory.history.changes",
    "hermes_memory.pending.applying",
    "hermes_memory.pending.changes",
    "hermes_memory.pending.items",
    "hermes_memory.pending.legacy",
    "hermes_memory.pending.queue",
    "hermes_memory.review.skill_changes",  # (the Inbox's first read of a proposed skill)
    "hermes_memory.skills.editing",
    "hermes_memory.skills.lifecycle",
    "hermes_memory.skills.moves",
)


def import_start_up_modules() -> None:
    """Import :data:`START_UP_MODULES` here, on the UI thread (before any worker exists);
    one that cannot be imported is left to the code that needs it, which says why."""
    for name in START_UP_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def age_start_up_objects() -> None:
    """Set every object made so far aside from the young generations: the modules, classes
    and the window's widgets live as long as the app. Else the first collections once the
    window shows walk all of them (some 30,000 objects, 25 ms) on the UI thread, as it
    draws its first frames."""
    set_aside_young_objects()


class StartupError(RuntimeError):
    """The app cannot start (for example the bundled demo home is missing)."""


# --- the demo home --------------------------------------------------------------------
def bundled_demo_home() -> Path:
    """The demo home shipped with the app (``resources/demo-home`` in the package)."""
    return resources_dir() / "demo-home"


def app_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_ID, appauthor=False))


def bundled_demo_digest(source: Path) -> str:
    """A fingerprint of the bundled demo's contents (paths and bytes; ~600 KB to read)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        digest.update(path.relative_to(source).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def demo_home_copy() -> Path:
    """The private copy of the demo home, made on first use and then reused.

    When a newer app ships a different demo, the old copy (perhaps explored and edited)
    is moved aside to ``demo-home.previous-<time>`` and a fresh copy is made.
    """
    target = app_data_dir() / "demo-home"
    version_file = app_data_dir() / "demo-home.version"
    source = bundled_demo_home()
    current = bundled_demo_digest(source) if source.is_dir() else None
    if target.is_dir():
        try:
            copied = version_file.read_text(encoding="utf-8").strip()
        except OSError:
            copied = None  # made before copies were versioned: refresh it too
        if current is None or copied == current:
            return target
        aside = target.with_name(f"demo-home.previous-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            target.rename(aside)
        except OSError as exc:
            raise StartupError(
                f"A newer demo home ships with this version, but the old copy at {target} "
                f"could not be moved aside: {exc.strerror or exc}."
            ) from exc
        print(f"{APP_ID}: the demo home was updated; your old copy is in {aside}.", file=sys.stderr)
    if current is None:
        raise StartupError(
            f"The bundled demo home is missing (looked in {source}). Reinstall "
            f"{APP_NAME}, or open a real home with --home PATH."
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # Copy into a staging folder and rename, so an interrupted copy is never reused.
        staging = Path(tempfile.mkdtemp(prefix=".demo-home-", dir=target.parent))
        try:
            shutil.copytree(source, staging / "demo-home")
            try:
                (staging / "demo-home").rename(target)
            except OSError:
                if not target.is_dir():  # another instance may have won the race
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except OSError as exc:
        raise StartupError(
            f"Could not copy the demo home to {target}: {exc.strerror or exc}. "
            "Check that the folder is writable, or open a real home with --home PATH."
        ) from exc
    with contextlib.suppress(OSError):
        version_file.write_text(current or "", encoding="utf-8")
    return target


# --- choosing the home ----------------------------------------------------------------
def _require(home: HermesHome) -> HermesHome:
    if home.profile and not home.path.exists():
        profiles = home.list_profiles()
        known = f"Profiles there: {', '.join(profiles)}." if profiles else "It has no profiles."
        raise HomeError(f"No profile {home.profile!r} under {home.root}. {known}")
    return home.require()


class UnfamiliarHome(HomeError):
    """A folder that exists but holds nothing a Hermes agent keeps (opened by mistake?)."""

    def __init__(self, home: HermesHome) -> None:
        super().__init__(
            f"{home.path} holds none of the files a Hermes agent keeps (memories/, skills/, "
            "config.yaml, state.db), so it does not look like a Hermes home."
        )
        self.home = home


def last_home() -> tuple[HermesHome, bool] | None:
    """The home opened last (from the settings), if it still exists."""
    for item in RecentHomes(app_settings()).items()[:1]:
        home = item.home
        if home.exists():
            return home, item.demo
    return None


def instead_of_the_bundled_demo(home: HermesHome, demo: bool) -> tuple[HermesHome, bool]:
    """The bundled demo home is the package's own data (read-only in an install, shared by
    every user, replaced by an update): a home inside it opens the private copy instead."""
    if getattr(home, "remote", False):
        return home, demo
    try:
        bundled = home.root.resolve().is_relative_to(bundled_demo_home().resolve())
    except OSError:
        return home, demo
    if not bundled:
        return home, demo
    print(f"{APP_ID}: {home.root} is the demo home shipped with the app; opening your "
          "private copy of it instead, so the package stays as installed.", file=sys.stderr)  # fmt: skip
    return HermesHome.resolve(demo_home_copy(), home.profile), True


def choose_home(args: argparse.Namespace) -> tuple[HermesHome, bool]:
    """The home to open and whether it is the demo copy; :class:`HomeError` if unusable."""
    return instead_of_the_bundled_demo(*_chosen_home(args))


def _chosen_home(args: argparse.Namespace) -> tuple[HermesHome, bool]:
    if args.profile:
        check_profile_name(args.profile)  # before copying anything
    if args.demo:
        return _require(HermesHome.resolve(demo_home_copy(), args.profile)), True
    if args.home and is_ssh_url(args.home):  # checked here; its engine checks the rest
        from .remote.home import RemoteHome

        return RemoteHome.parse(args.home, args.profile), False
    if args.home or args.profile:
        home = _require(HermesHome.resolve(args.home, args.profile))
        if not home.profile and not home.has_hermes_files():
            raise UnfamiliarHome(home)
        return home, False
    remembered = last_home()
    if remembered is not None:
        return remembered
    home = HermesHome.resolve()
    if home.exists():
        return home, False
    print(
        f"{APP_ID}: no Hermes home at {home.path}; opening the demo home instead.",
        file=sys.stderr,
    )
    return HermesHome.resolve(demo_home_copy()), True


# --- command line ---------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=APP_ID,
        description=f"{APP_NAME}: see and curate what a Hermes agent has learned.",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--home",
        metavar="PATH",
        help="the Hermes home to open, a folder or ssh://[user@]host[:port]/path "
        "(default: $HERMES_HOME, else ~/.hermes, else the demo)",
    )
    where.add_argument(
        "--demo", action="store_true", help="open a private copy of the bundled demo home"
    )
    parser.add_argument("--profile", metavar="NAME", help="open the named profile of the home")
    parser.add_argument(
        "--view", choices=VIEWS, default=None,
        help="the view to show first (default: the one shown last for that home, else graph)",
    )
    parser.add_argument(
        "--theme", choices=MODES, default=None,
        help="light, dark, or follow the system (default: the last one chosen, else system)",
    )
    parser.add_argument(
        "--screenshot",
        metavar="FILE",
        type=Path,
        help="save a PNG of the window to FILE and exit (works headless)",
    )
    parser.add_argument(
        "--size", metavar="WxH", type=_size,
        help="the window's size, e.g. 1024x700 (default: the size it had when last closed)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or int(width) < 200 or int(height) < 150:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1024x700")
    return int(width), int(height)


def _prefer_offscreen_platform() -> None:
    """Use Qt's offscreen platform when there is no display to show a window on."""
    if os.environ.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


# --- running --------------------------------------------------------------------------
def save_screenshot(window: QWidget, path: Path, settle_ms: int = 30) -> bool:
    """Show ``window``, let it lay out and paint, and save it as a PNG; False on failure.

    The main window's ``grab`` itself waits until its graph and entries are shown, so the
    settling here is only for the first layout pass."""
    age_start_up_objects()
    show_first_frame(window)
    loop = QEventLoop()
    timer = QTimer(loop)
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    timer.start(settle_ms)
    loop.exec()
    return window.grab().save(str(path), "PNG")


def _dispose(window: QWidget) -> None:
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _error_window(args: argparse.Namespace, exc: HomeError) -> HomeErrorWindow:
    if isinstance(exc, UnfamiliarHome):
        home = exc.home
    else:  # an unusable ssh:// address is no local folder: the page starts from the default home
        home = HermesHome.resolve(None if is_ssh_url(args.home) else args.home)

    def open_window(chosen: HermesHome, demo: bool) -> MainWindow:
        chosen, demo = instead_of_the_bundled_demo(chosen, demo)
        window = MainWindow(chosen, view=args.view, demo=demo)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        window.show()
        return window

    def open_demo() -> HermesHome:
        return HermesHome.resolve(demo_home_copy())

    return HomeErrorWindow(
        home, str(exc), open_window, open_demo, unfamiliar=isinstance(exc, UnfamiliarHome)
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a usage error, already printed
        return exc.code if isinstance(exc.code, int) else EXIT_FAILURE

    problem: HomeError | None = None
    try:
        home, demo = choose_home(args)
    except HomeError as exc:
        print(f"{APP_ID}: {exc}", file=sys.stderr)
        if str(exc).startswith("Invalid profile name"):
            return EXIT_USAGE  # a typo on the command line, not a home to look for
        problem = exc
    except StartupError as exc:
        print(f"{APP_ID}: {exc}", file=sys.stderr)
        return EXIT_FAILURE

    if args.screenshot is not None:
        _prefer_offscreen_platform()
    # Each event Qt hands to our Python code needs the GIL, and while a worker runs Python
    # (a graph build, a layout) the UI thread waits up to the switch interval for it, once
    # per event: 1 ms instead of Python's 5 (at start-up the longest stalls of the event
    # loop were about a third shorter on the demo home and at 1,000 skills)
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)
    app = QApplication.instance()
    owned = app is None
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else APP_ID])
        app.setApplicationName(APP_NAME)
        app.setApplicationVersion(__version__)
        app.setWindowIcon(app_icon())
        app.setDesktopFileName(APP_ID)  # matches packaging's hermes-studio.desktop
    if owned or args.theme:  # app-wide state: only on an application we own, or when asked
        settings = app_settings()
        mode = args.theme or settings.theme() or "system"
        apply_theme(app, mode if mode in MODES else "system")
        if args.theme:
            settings.set_theme(args.theme)

    collector = UiThreadCollector(app)
    collector.start()
    window = None
    try:
        if problem is not None:
            window = _error_window(args, problem)
            code = EXIT_USAGE
        else:
            if not getattr(home, "remote", False):  # (a remote home's engine runs elsewhere)
                import_start_up_modules()
            window = MainWindow(home, view=args.view, demo=demo)
            code = EXIT_OK
        if args.size is not None:
            window.resize(*args.size)
        if args.screenshot is not None:
            target = args.screenshot.expanduser().absolute()
            if not save_screenshot(window, target):
                print(
                    f"{APP_ID}: could not save the screenshot to {target}. Check that the "
                    "folder exists and is writable.",
                    file=sys.stderr,
                )
                return EXIT_FAILURE
            print(target)
            return code
        age_start_up_objects()
        show_first_frame(window)
        result = app.exec()
        return code if problem is not None and getattr(window, "opened", None) is None else result
    finally:
        if window is not None:
            _dispose(window)
        flush_all()  # what the window saved as it closed (the process leaves without atexit)
        collector.stop()
        collector.deleteLater()


if __name__ == "__main__":
    sys.exit(main())
