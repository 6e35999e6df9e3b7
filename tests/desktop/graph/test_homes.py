"""Recent homes and the home/profile switcher."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from hermes_memory.home import HermesHome
from hermes_studio.graph.homes import MAX_RECENT, HomeSwitcher, RecentHome, RecentHomes
from hermes_studio.main_window import MainWindow


def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat)


def test_recent_homes_are_newest_first_unique_and_capped(tmp_path):
    recent = RecentHomes(settings(tmp_path))
    for number in range(MAX_RECENT + 2):
        recent.add(HermesHome.resolve(tmp_path / f"home-{number}"))
    recent.add(HermesHome.resolve(tmp_path / "home-3"), demo=True)
    recent.add(HermesHome.resolve(tmp_path / "home-3", "work"))
    again = RecentHomes(settings(tmp_path)).items()  # read back from the file
    assert len(again) == MAX_RECENT
    assert again[0] == RecentHome(str(tmp_path / "home-3"), "work", False)
    assert again[1] == RecentHome(str(tmp_path / "home-3"), None, True)
    assert again[2].root == str(tmp_path / f"home-{MAX_RECENT + 1}")
    assert [item.root for item in again].count(str(tmp_path / "home-3")) == 2
    recent.clear()
    assert RecentHomes(settings(tmp_path)).items() == []


def test_switcher_lists_profiles_and_recent_homes(qtbot, home, tmp_path):
    (home.path / "profiles" / "work").mkdir(parents=True)
    (home.path / "profiles" / "play").mkdir(parents=True)
    recent = RecentHomes(settings(tmp_path))
    recent.add(HermesHome.resolve(tmp_path / "elsewhere"))
    opened: list[tuple[HermesHome, bool]] = []
    switcher = HomeSwitcher(home, lambda h, demo: opened.append((h, demo)), recent=recent)
    qtbot.addWidget(switcher)
    menu = switcher.fill_menu()
    texts = [action.text() for action in menu.actions() if action.text()]
    assert texts[:5] == ["Open home…", "Open remote home…", "Default profile", "Profile play", "Profile work"]
    assert texts[-1] == "Recent homes"
    recent_menu = menu.actions()[-1].menu()
    assert [a.text() for a in recent_menu.actions() if a.text()] == [
        str(tmp_path / "elsewhere"), "Clear the list"
    ]
    next(a for a in menu.actions() if a.text() == "Profile work").trigger()
    assert opened == [(home.with_profile("work"), False)]
    recent_menu.actions()[0].trigger()
    assert opened[-1] == (HermesHome.resolve(tmp_path / "elsewhere"), False)


def test_open_home_replaces_the_window_and_names_the_home(qtbot, home, tmp_path):
    other = HermesHome.resolve(tmp_path / "other-home")
    (other.path / "memories").mkdir(parents=True)
    window = MainWindow(home)
    qtbot.addWidget(window)
    window.show()
    replacement = window.open_home(other)
    assert replacement is not None  # deletes itself on close
    assert not window.isVisible()
    assert replacement.windowTitle() == f"Hermes Memory Studio — {other.path}"
    assert replacement.home_switcher.text() == "⌂ other-home"
    recent = RecentHomes().items()
    assert (recent[0].root, recent[1].root) == (str(other.root), str(home.root))
    replacement.close()


def test_open_home_asks_before_opening_a_folder_without_hermes_files(qtbot, home, tmp_path, monkeypatch):
    plain = tmp_path / "holiday-photos"
    plain.mkdir()
    opened: list[HermesHome] = []
    switcher = HomeSwitcher(home, lambda h, demo: opened.append(h), recent=RecentHomes(settings(tmp_path)))
    qtbot.addWidget(switcher)
    asked: list[str] = []

    def answer(choice):
        def question(parent, title, text, *args):
            asked.append(text)
            return choice
        return question

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *args: str(plain))
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Cancel))
    switcher.choose_home()
    assert opened == [] and "holds none of the files a Hermes agent keeps" in asked[0]
    assert list(plain.iterdir()) == []
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Open))
    switcher.choose_home()
    assert opened == [HermesHome.resolve(plain)]
    (plain / "memories").mkdir()  # a real home opens without a question
    asked.clear()
    switcher.choose_home()
    assert asked == [] and opened[-1] == HermesHome.resolve(plain)
