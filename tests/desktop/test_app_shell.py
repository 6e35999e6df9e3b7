"""The app shell: command line, choice of home, demo copy, main window, screenshots."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage, QKeySequence

from hermes_memory.config import load_memory_config
from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import char_count, parse_entries, serialise_entries
from hermes_studio import __version__
from hermes_studio import app as studio_app
from hermes_studio.main_window import MainWindow
from hermes_studio.theme import DARK, LIGHT, apply_theme, build_palette, theme_for

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root`` with its SHA-256 and mtime, to prove nothing changed."""
    return {
        str(path.relative_to(root)): (
            hashlib.sha256(path.read_bytes()).hexdigest(),
            path.stat().st_mtime_ns,
        )
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def demo_copy_path() -> Path:
    return studio_app.app_data_dir() / "demo-home"


@pytest.fixture
def run_main(qapp, capsys):
    """Call ``main`` in-process (on the test's QApplication); returns (code, out, err)."""

    def _run(*argv: str) -> tuple[int, str, str]:
        code = studio_app.main(list(argv))
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _run


@pytest.fixture
def opened(monkeypatch) -> list[tuple[HermesHome, bool]]:
    """Record the home (and demo flag) of every window ``main`` opens."""
    homes: list[tuple[HermesHome, bool]] = []
    real = studio_app.MainWindow

    def recording(home, **kwargs):
        homes.append((home, kwargs.get("demo", False)))
        return real(home, **kwargs)

    monkeypatch.setattr(studio_app, "MainWindow", recording)
    return homes


# --- the window -----------------------------------------------------------------------
def test_window_title_and_status_bar_show_the_home(qtbot, home):
    window = MainWindow(home)
    qtbot.addWidget(window)

    assert window.windowTitle() == f"Hermes Memory Studio — {home.path}"
    assert str(home.path) in window.home_label.text()
    assert (window.width(), window.height()) == (1200, 800)
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "Learning graph",
        "Memory",
        "Inbox",
        "Changes",
        "History",
        "Sessions",
    ]
    assert str(home.path) in window.graph.loading_label.text()


def test_window_has_file_quit_and_help_about(qtbot, home):
    window = MainWindow(home)
    qtbot.addWidget(window)
    menus = {
        action.text().replace("&", ""): [a.text().replace("&", "") for a in action.menu().actions()]
        for action in window.menuBar().actions()
    }
    assert menus == {
        "File": ["Open home…", "Open remote home…", "Open recent", "Profiles", "Fleet…",
                 "Open the demo home", "", "Export", "", "Quit"],
        "Edit": ["Undo", "Redo", "", "Find…", "Command palette…"],
        "View": [
            "Learning graph", "Memory", "Inbox", "Changes", "History", "Sessions", "", "Theme", "",
            "Zoom in", "Zoom out", "Zoom to fit",
            "", "Side panels",
        ],
        "Selection": [
            "Next result", "Previous result", "Select all results", "", "Pin selected skills…",
            "Unpin selected skills…", "Archive selected skills…", "Restore ticked archived skills…",
            "Delete selected memories…", "", "Show: Graph", "Show: Table", "Show: Both",
        ],
        "Help": ["Keyboard shortcuts", "", "About Hermes Memory Studio"],
    }
    assert window.quit_action.shortcut() == QKeySequence("Ctrl+Q")
    assert str(home.path) in window.about_text()

    window.show()
    qtbot.waitExposed(window)
    window.quit_action.trigger()
    assert not window.isVisible()


def test_profile_title_and_demo_marker(qtbot, home):
    (home.path / "profiles" / "work").mkdir(parents=True)
    window = MainWindow(home.with_profile("work"), demo=True)
    qtbot.addWidget(window)
    assert window.windowTitle() == (
        f"Hermes Memory Studio — {home.path} (profile work) (demo copy)"
    )


@pytest.mark.parametrize(("view", "tab"), [("graph", "Learning graph"), ("memory", "Memory"), ("inbox", "Inbox"),
                                           ("sessions", "Sessions")])
def test_view_selects_the_current_tab(qtbot, home, view, tab):
    window = MainWindow(home, view=view)
    qtbot.addWidget(window)
    assert window.current_view() == view
    assert window.tabs.tabText(window.tabs.currentIndex()) == tab
    with pytest.raises(ValueError, match="Unknown view"):
        window.set_view("timeline")


# --- choosing the home ----------------------------------------------------------------
def test_demo_opens_a_private_copy_and_leaves_the_bundled_one_untouched(run_main, opened, tmp_path):
    bundled = studio_app.bundled_demo_home()
    before = snapshot(bundled)

    code, _, err = run_main("--demo", "--screenshot", str(tmp_path / "demo.png"))

    assert code == 0, err
    copy = demo_copy_path()
    assert copy.is_dir()
    assert copy.resolve().is_relative_to(Path(os.environ["HOME"]).resolve())  # test sandbox
    assert [(home.path, demo) for home, demo in opened] == [(copy, True)]
    # opening records the home's history in the app's own folder and takes the stores' locks;
    # no file of the home itself changes
    def home_files(files):
        return {name: digest for name, (digest, _) in files.items()
                if not name.startswith(".memory-studio/") and not name.endswith(".lock")}

    assert home_files(snapshot(copy)) == home_files(before)
    assert (copy / ".memory-studio" / "history" / "events.jsonl").is_file()
    assert snapshot(bundled) == before


def test_the_bundled_demo_opened_by_path_opens_the_private_copy(run_main, opened, tmp_path, qtbot, home):
    bundled = studio_app.bundled_demo_home()
    before = snapshot(bundled)

    code, _, err = run_main("--home", str(bundled), "--screenshot", str(tmp_path / "demo.png"))

    assert code == 0, err
    assert "shipped with the app" in err
    assert [(home.path, demo) for home, demo in opened] == [(demo_copy_path(), True)]
    # and from a window's File > Open Home…
    window = MainWindow(home)
    qtbot.addWidget(window)
    other = window.open_home(HermesHome.resolve(bundled))
    assert other is not None
    assert (other.home.path, other.demo) == (demo_copy_path(), True)
    other.close()  # and deletes itself
    assert snapshot(bundled) == before  # no history folder, no lock file in the package


def test_demo_copy_is_made_once_and_then_reused(run_main, tmp_path):
    bundled = studio_app.bundled_demo_home()
    before = snapshot(bundled)
    assert run_main("--demo", "--screenshot", str(tmp_path / "1.png"))[0] == 0
    edited = demo_copy_path() / "memories" / "MEMORY.md"
    edited.write_text("Edited while exploring the demo.", encoding="utf-8")

    assert run_main("--demo", "--screenshot", str(tmp_path / "2.png"))[0] == 0

    assert edited.read_text(encoding="utf-8") == "Edited while exploring the demo."
    assert snapshot(bundled) == before
    assert not list(demo_copy_path().parent.glob(".demo-home-*")), "staging dir left behind"


@pytest.mark.parametrize("hermes_home_env", ["unset", "missing-dir"])
def test_without_a_hermes_home_the_app_falls_back_to_the_demo(
    run_main, opened, tmp_path, monkeypatch, hermes_home_env
):
    if hermes_home_env == "unset":
        monkeypatch.delenv("HERMES_HOME")
    default = HermesHome.resolve()
    assert not default.exists()

    code, _, err = run_main("--screenshot", str(tmp_path / "shot.png"))

    assert code == 0, err
    assert [(home.path, demo) for home, demo in opened] == [(demo_copy_path(), True)]
    assert "opening the demo home" in err
    assert not default.exists(), "the fallback must not create a Hermes home"


def test_an_existing_hermes_home_is_opened(run_main, opened, tmp_path):
    root = Path(os.environ["HERMES_HOME"])
    (root / "memories").mkdir(parents=True)

    code, _, err = run_main("--screenshot", str(tmp_path / "shot.png"))

    assert code == 0, err
    assert [(home.path, demo) for home, demo in opened] == [(root, False)]
    assert not demo_copy_path().exists()


def test_profile_of_an_explicit_home_is_opened(run_main, opened, home, tmp_path):
    (home.path / "profiles" / "work" / "memories").mkdir(parents=True)

    code, _, err = run_main(
        "--home", str(home.path), "--profile", "work", "--screenshot", str(tmp_path / "s.png")
    )

    assert code == 0, err
    assert [(h.path, h.profile) for h, _ in opened] == [(home.path / "profiles" / "work", "work")]


@pytest.mark.parametrize("name", ["../escape", "a/b", ".hidden", "x" * 65])
def test_an_invalid_profile_name_exits_2(run_main, opened, home, name):
    code, _, err = run_main("--home", str(home.path), "--profile", name)
    assert code == 2
    assert "Invalid profile name" in err
    assert opened == []


def test_an_invalid_profile_name_with_demo_copies_nothing(run_main, opened):
    code, _, err = run_main("--demo", "--profile", "../escape")
    assert code == 2
    assert "Invalid profile name" in err
    assert not demo_copy_path().exists()
    assert opened == []


def test_a_missing_profile_exits_2_and_lists_the_profiles(run_main, opened, home, tmp_path):
    (home.path / "profiles" / "work").mkdir(parents=True)
    code, _, err = run_main(
        "--home", str(home.path), "--profile", "play", "--screenshot", str(tmp_path / "e.png")
    )
    assert code == 2
    assert "No profile 'play'" in err and "work" in err
    assert opened == []


@pytest.mark.parametrize("kind", ["missing", "a file", "unfamiliar"])
def test_a_bad_explicit_home_opens_the_error_page_and_exits_2(
    run_main, opened, tmp_path, monkeypatch, kind
):
    bad = tmp_path / "nowhere"
    if kind == "a file":
        bad.write_text("not a folder", encoding="utf-8")
    elif kind == "unfamiliar":
        (bad / "photos").mkdir(parents=True)
    pages: list = []
    real = studio_app.HomeErrorWindow

    def recording(*args, **kwargs):
        page = real(*args, **kwargs)  # what it shows, read before main() disposes of it
        pages.append({
            "message": page.message.text(), "open": page.open_button.text(),
            "anyway": page.anyway_button.isVisibleTo(page),
            "menus": [a.text().replace("&", "") for a in page.menuBar().actions()],
        })
        return page

    monkeypatch.setattr(studio_app, "HomeErrorWindow", recording)
    shot = tmp_path / "error.png"
    code, printed, err = run_main("--home", str(bad), "--screenshot", str(shot))
    assert code == 2
    assert printed.strip() == str(shot) and QImage(str(shot)).width() > 0
    assert opened == []  # no main window on a bad home
    expected = {
        "missing": "No Hermes home at", "a file": "is not a directory",
        "unfamiliar": "does not look like a Hermes home",
    }[kind]
    assert expected in err
    (page,) = pages
    assert expected in page["message"]
    assert page["open"] == "Open home…"
    assert page["anyway"] == (kind == "unfamiliar")
    assert page["menus"] == ["File"]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--view", "timeline"], 2),
        (["--demo", "--home", "x"], 2),
        (["--no-such-flag"], 2),
        (["--help"], 0),
    ],
)
def test_usage_errors_return_instead_of_exiting(run_main, opened, argv, code):
    assert run_main(*argv)[0] == code
    assert opened == []


def test_version(run_main):
    code, out, _ = run_main("--version")
    assert code == 0
    assert out.strip() == f"hermes-studio {__version__}"


# --- screenshots ----------------------------------------------------------------------
def test_screenshot_writes_a_png_and_prints_its_path(run_main, home, tmp_path):
    out = tmp_path / "shot.png"

    code, printed, err = run_main("--home", str(home.path), "--screenshot", str(out))

    assert code == 0, err
    assert printed.strip() == str(out)
    assert out.read_bytes()[:8] == PNG_MAGIC
    image = QImage(str(out))
    assert not image.isNull()
    assert image.width() > 0 and image.height() > 0
    # Not blank: a painted window has more than one colour.
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
    }
    assert len(colours) > 2


def test_a_screenshot_that_cannot_be_saved_exits_1(run_main, home, tmp_path):
    out = tmp_path / "no-such-folder" / "shot.png"
    code, printed, err = run_main("--home", str(home.path), "--screenshot", str(out))
    assert code == 1
    assert printed == ""
    assert "could not save the screenshot" in err and str(out) in err
    assert not out.exists()


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="X11/Wayland only")
@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, "offscreen"),
        ({"DISPLAY": ":0"}, None),
        ({"WAYLAND_DISPLAY": "wayland-0"}, None),
        ({"QT_QPA_PLATFORM": "xcb"}, "xcb"),
    ],
)
def test_screenshots_go_offscreen_only_without_a_display(monkeypatch, env, expected):
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    studio_app._prefer_offscreen_platform()
    assert os.environ.get("QT_QPA_PLATFORM") == expected


# --- the bundled demo home and the theme ----------------------------------------------
def test_bundled_demo_home_is_a_well_formed_small_home():
    demo = HermesHome.resolve(studio_app.bundled_demo_home())
    config = load_memory_config(demo)
    assert config.warnings == ()
    assert (config.memory_char_limit, config.user_char_limit) == (2200, 1375)
    for path, limit in ((demo.memory_file, 2200), (demo.user_file, 1375)):
        text = path.read_text(encoding="utf-8")
        entries = parse_entries(text)
        assert len(entries) >= 3
        assert text == serialise_entries(entries), f"{path.name} is not in canonical form"
        assert 0 < char_count(entries) <= limit
    assert (demo.skills_dir / ".gitkeep").is_file()


def test_theme_palettes(qapp):
    assert theme_for("light") is LIGHT
    assert theme_for("dark") is DARK
    assert theme_for("system") in (LIGHT, DARK)
    with pytest.raises(ValueError, match="Unknown theme"):
        theme_for("sepia")  # type: ignore[arg-type]
    assert build_palette(DARK).window().color().name() == DARK.window

    saved = (qapp.style().name(), qapp.palette(), qapp.styleSheet())
    try:
        assert apply_theme(qapp, "dark") is DARK
        assert qapp.palette().base().color().name() == DARK.surface
        assert DARK.muted_text in qapp.styleSheet()
    finally:
        qapp.setStyle(saved[0])
        qapp.setPalette(saved[1])
        qapp.setStyleSheet(saved[2])


def test_a_newer_bundled_demo_replaces_the_copy_and_keeps_the_old_one(run_main, tmp_path):
    assert run_main("--demo", "--screenshot", str(tmp_path / "1.png"))[0] == 0
    edited = demo_copy_path() / "memories" / "MEMORY.md"
    edited.write_text("Explored in an older version.", encoding="utf-8")
    version_file = demo_copy_path().with_name("demo-home.version")
    version_file.write_text("an-older-demo", encoding="utf-8")  # as if shipped earlier

    code, _, err = run_main("--demo", "--screenshot", str(tmp_path / "2.png"))

    assert code == 0
    assert "the demo home was updated" in err
    bundled = studio_app.bundled_demo_home() / "memories" / "MEMORY.md"
    assert edited.read_bytes() == bundled.read_bytes()
    (aside,) = demo_copy_path().parent.glob("demo-home.previous-*")
    assert (aside / "memories" / "MEMORY.md").read_text(encoding="utf-8") == (
        "Explored in an older version."
    )
    assert version_file.read_text(encoding="utf-8") == studio_app.bundled_demo_digest(
        studio_app.bundled_demo_home()
    )


def test_the_command_leaves_quickly_with_everything_saved(home, tmp_path):
    """``hermes-studio`` exits without the interpreter's teardown, once the window closed its
    home: the screenshot, the printed path, the remembered view and the history capture at
    open are all there, and the exit status is the app's."""
    import os
    import subprocess
    import sys

    from hermes_memory.history.storage import HistoryStore

    home.memory_file.write_text("uses docker\n§\nprefers short answers", encoding="utf-8")
    out = tmp_path / "shot.png"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-m", "hermes_studio.launch", "--home", str(home.path), "--view", "changes",
         "--screenshot", str(out)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    assert out.read_bytes()[:8] == PNG_MAGIC
    assert any(e["kind"] == "memory" for e in HistoryStore(home).read_events().events)  # the capture at open
    from hermes_studio.settings import Settings

    assert Settings().home_value(home.label, "view") == "changes"  # synced before leaving

    bad = subprocess.run(
        [sys.executable, "-m", "hermes_studio.launch", "--home", str(home.path), "--profile", "../x"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "profile" in bad.stderr.lower()
