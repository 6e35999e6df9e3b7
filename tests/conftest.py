"""Shared fixtures. Every test runs against a temporary Hermes home, never ~/.hermes."""

from __future__ import annotations

import os

# Before anything can import Qt: tests are headless everywhere, CI included.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from hermes_memory.home import HermesHome  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path_factory, monkeypatch):
    """Point HOME, HERMES_HOME and the XDG dirs at a fresh temp dir for each test."""
    sandbox = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("HOME", str(sandbox))
    monkeypatch.setenv("HERMES_HOME", str(sandbox / ".hermes"))
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(sandbox / var.lower()))
    yield


@pytest.fixture
def home(tmp_path) -> HermesHome:
    """An empty but existing Hermes home with a memories directory."""
    root = tmp_path / "hermes-home"
    (root / "memories").mkdir(parents=True)
    return HermesHome.resolve(root)


@pytest.fixture
def write_config(home):
    """Write config.yaml for the ``home`` fixture from a YAML string."""

    def _write(text: str) -> None:
        home.config_file.write_text(text, encoding="utf-8")

    return _write
