"""Home resolution, profiles and config.yaml (spec §1)."""

import os

import pytest

from hermes_memory import config as config_module
from hermes_memory import fileio
from hermes_memory.config import (
    ConfigError,
    get_config_value,
    load_memory_config,
    set_config_value,
)
from hermes_memory.home import HermesHome, HomeError


def test_resolution_order_explicit_then_env_then_default(tmp_path, monkeypatch):
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "from-env"))
    assert HermesHome.resolve(tmp_path / "explicit").path == tmp_path / "explicit"
    assert HermesHome.resolve().path == tmp_path / "from-env"
    monkeypatch.delenv("HERMES_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert HermesHome.resolve().path == tmp_path / "user" / ".hermes"


def test_profiles_live_under_the_root_and_are_listed(tmp_path):
    root = tmp_path / "hermes"
    for name in ("work", "personal", ".hidden"):
        (root / "profiles" / name).mkdir(parents=True)
    (root / "profiles" / "notes.txt").write_text("not a profile")
    home = HermesHome.resolve(root, "work")
    assert home.path == root / "profiles" / "work"
    assert home.memory_file == root / "profiles" / "work" / "memories" / "MEMORY.md"
    assert home.list_profiles() == ["personal", "work"]
    assert home.with_profile(None).path == root


@pytest.mark.parametrize("name", ["../escape", "a/b", "x" * 65, "/abs", ".hidden"])
def test_invalid_profile_names_are_refused(tmp_path, name):
    with pytest.raises(HomeError):
        HermesHome.resolve(tmp_path, name)


def test_paths_named_by_the_spec(tmp_path):
    home = HermesHome.resolve(tmp_path)
    assert home.user_file == tmp_path / "memories" / "USER.md"
    assert home.state_db == tmp_path / "state.db"
    assert home.memory_store_db == tmp_path / "memory_store.db"
    assert home.skills_usage_file == tmp_path / "skills" / ".usage.json"
    assert home.hub_lock_file == tmp_path / "skills" / ".hub" / "lock.json"
    assert home.skills_prompt_snapshot == tmp_path / ".skills_prompt_snapshot.json"
    assert home.store_file("user") == home.user_file
    with pytest.raises(HomeError, match="Invalid target 'notes'"):
        home.store_file("notes")


def test_missing_home_gives_a_clear_error(tmp_path):
    with pytest.raises(HomeError, match="No Hermes home at"):
        HermesHome.resolve(tmp_path / "missing").require()


def test_defaults_without_config(home):
    config = load_memory_config(home)
    assert (config.memory_char_limit, config.user_char_limit) == (2200, 1375)
    assert config.memory_enabled and config.user_profile_enabled
    assert config.provider == "" and config.warnings == ()


def test_config_values_are_read(home, write_config):
    write_config(
        "memory:\n  memory_enabled: false\n  memory_char_limit: 3000\n"
        "  user_char_limit: 900\n  provider: holographic\n"
    )
    config = load_memory_config(home)
    assert config.memory_enabled is False
    assert config.limit_for("memory") == 3000 and config.limit_for("user") == 900
    assert config.provider == "holographic"


@pytest.mark.parametrize(
    "text",
    ["memory: [unclosed\n", "- just\n- a list\n", b"\xff\xfe bad bytes", "memory: 5\n"],
)
def test_malformed_config_gives_defaults_and_a_warning(home, text):
    if isinstance(text, bytes):
        home.config_file.write_bytes(text)
    else:
        home.config_file.write_text(text, encoding="utf-8")
    config = load_memory_config(home)
    assert config.memory_char_limit == 2200 and config.user_char_limit == 1375
    assert len(config.warnings) == 1


def test_bad_values_fall_back_per_key(home, write_config):
    write_config("memory:\n  memory_char_limit: lots\n  user_char_limit: 500\n  memory_enabled: maybe\n")
    config = load_memory_config(home)
    assert config.memory_char_limit == 2200
    assert config.user_char_limit == 500
    assert config.memory_enabled is True
    assert len(config.warnings) == 2


def test_set_config_value_round_trips_comments_and_order(home, write_config):
    original = (
        "# my agent settings\n"
        "model: claude  # the main model\n"
        "memory:\n"
        "  memory_char_limit: 2200   # ~800 tokens\n"
        "  provider: ''\n"
        "display:\n"
        "  memory_notifications: on\n"
    )
    write_config(original)
    set_config_value(home, "memory.provider", "holographic")
    written = home.config_file.read_text(encoding="utf-8")
    # Only the one value changes (ruamel keeps the quoting style of the old scalar).
    assert written == original.replace("provider: ''", "provider: 'holographic'")
    set_config_value(home, "auxiliary.session_search.model", "small")
    assert get_config_value(home, "auxiliary.session_search.model") == "small"
    assert home.config_file.read_text(encoding="utf-8").startswith("# my agent settings\n")


def test_set_config_value_refuses_a_malformed_file(home, write_config):
    write_config("memory: [unclosed\n")
    with pytest.raises(ConfigError, match="nothing was written"):
        set_config_value(home, "memory.provider", "x")
    assert home.config_file.read_text(encoding="utf-8") == "memory: [unclosed\n"


def test_set_config_value_creates_the_file_when_missing(home):
    set_config_value(home, "memory.provider", "holographic")
    assert load_memory_config(home).provider == "holographic"


# --- config.yaml is parsed once per version -------------------------------------------


LAST_YEAR_NS = 1_764_000_000 * 10**9


def _write_limit(home: HermesHome, limit: int) -> None:
    """Rewrite config.yaml in place, its mtime set to one fixed moment long ago."""
    home.config_file.write_text(f"memory:\n  memory_char_limit: {limit}\n")
    os.utime(home.config_file, ns=(LAST_YEAR_NS, LAST_YEAR_NS))


@pytest.fixture
def settled(monkeypatch):
    """Files count as settled at once (not only 2 s after their last change)."""
    monkeypatch.setattr(fileio, "RACY_NS", 0)


def _count_parses(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = config_module.load_config

    def counting(home):
        calls.append(1)
        return real(home)

    monkeypatch.setattr(config_module, "load_config", counting)
    return calls


def test_an_unchanged_config_is_parsed_once(home, monkeypatch, settled):
    _write_limit(home, 1000)
    calls = _count_parses(monkeypatch)
    assert load_memory_config(home).memory_char_limit == 1000
    assert load_memory_config(home).memory_char_limit == 1000
    assert len(calls) == 1


def test_a_same_size_rewrite_with_the_old_mtime_is_still_seen(home, settled):
    # ctime cannot be set back (utime() itself moves it to now): it tells the versions apart.
    _write_limit(home, 1000)
    assert load_memory_config(home).memory_char_limit == 1000
    before = home.config_file.stat()
    _write_limit(home, 2000)
    after = home.config_file.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    assert load_memory_config(home).memory_char_limit == 2000


def test_a_config_changed_moments_ago_is_read_every_time(home, monkeypatch):
    home.config_file.write_text("memory:\n  memory_char_limit: 1000\n")
    calls = _count_parses(monkeypatch)
    load_memory_config(home)
    load_memory_config(home)
    assert len(calls) == 2


def test_a_replaced_or_removed_config_is_seen(home, settled):
    _write_limit(home, 1000)
    assert load_memory_config(home).memory_char_limit == 1000
    replacement = home.path / "config.new"
    replacement.write_text("memory:\n  memory_char_limit: 3000\n")
    os.utime(replacement, ns=(LAST_YEAR_NS, LAST_YEAR_NS))
    os.replace(replacement, home.config_file)
    assert load_memory_config(home).memory_char_limit == 3000
    home.config_file.unlink()
    assert load_memory_config(home).memory_char_limit == 2200
