"""``hermes-memory provider status|list|setup|off`` (spec §7.2)."""

from __future__ import annotations

import io
import json
import textwrap

import pytest
from ruamel.yaml import YAML

from hermes_memory import cli

CONFIG = textwrap.dedent(
    """\
    # Hermes settings — hand-written, keep my comments
    memory:
      memory_enabled: true   # notes on
      user_profile_enabled: false
      provider: ""           # the ONE external provider
    display:
      memory_notifications: on
    """
)


REGISTERED_MODULES = cli.COMMAND_MODULES


def test_the_provider_commands_are_registered_with_the_cli():
    assert "hermes_memory.providers.commands" in REGISTERED_MODULES


@pytest.fixture(autouse=True)
def only_provider_commands(monkeypatch):
    """Parse with this feature's commands only, so other areas' work in progress cannot break these tests."""
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("hermes_memory.providers.commands",))


def assert_only_provider_line_changed(home, expected):
    """Every other line, comments included, is byte-identical; the provider line keeps its comment."""
    written = home.config_file.read_text(encoding="utf-8").splitlines()
    original = CONFIG.splitlines()
    changed = [i for i, (a, b) in enumerate(zip(original, written, strict=True)) if a != b]
    assert changed in ([], [4])
    assert written[4].endswith("# the ONE external provider")
    assert YAML(typ="safe").load("\n".join(written))["memory"]["provider"] == expected


def run(home, *args):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--home", str(home.path), *args], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_setup_writes_the_provider_and_keeps_comments(home, write_config):
    write_config(CONFIG)
    code, out, err = run(home, "provider", "setup", "holographic")
    assert (code, err) == (0, "")
    assert out == "✓ Memory provider: holographic\nStart a new session to activate.\n"
    assert_only_provider_line_changed(home, "holographic")


def test_off_writes_an_empty_provider_and_keeps_comments(home, write_config):
    write_config(CONFIG.replace('provider: ""          ', "provider: holographic"))
    code, out, _ = run(home, "provider", "off")
    assert (code, out) == (0, "✓ Memory provider: built-in only\n")
    assert_only_provider_line_changed(home, "")


def test_setup_builtin_is_the_same_as_off(home):
    code, out, _ = run(home, "--json", "provider", "setup", "builtin")
    assert (code, json.loads(out)) == (0, {"provider": ""})
    assert home.config_file.read_text(encoding="utf-8") == "memory:\n  provider: ''\n"


def test_setup_refuses_an_unknown_provider_and_writes_nothing(home, write_config):
    write_config(CONFIG)
    code, out, err = run(home, "provider", "setup", "ghost")
    assert (code, out) == (1, "")
    assert err == (
        "hermes-memory: No memory provider named 'ghost' was found (available: holographic); "
        "nothing was written.\n"
    )
    assert home.config_file.read_text(encoding="utf-8") == CONFIG


@pytest.mark.parametrize("args", [("provider", "setup", "holographic"), ("provider", "off")])
def test_a_malformed_config_is_never_written(home, write_config, args):
    broken = "memory:\n  provider: [unclosed\n# keep me\n"
    write_config(broken)
    code, out, err = run(home, *args)
    assert (code, out) == (1, "")
    assert err.startswith(f"hermes-memory: {home.config_file} does not parse")
    assert err.rstrip().endswith("nothing was written.")
    assert home.config_file.read_text(encoding="utf-8") == broken


def test_a_missing_home_is_refused(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(
        ["--home", str(tmp_path / "nowhere"), "provider", "off"], stdout=out, stderr=err
    )
    assert code == 1 and "No Hermes home at" in err.getvalue()
    assert not (tmp_path / "nowhere").exists()


def test_usage_errors_exit_2(home):
    assert run(home, "provider")[0] == 2
    assert run(home, "provider", "setup")[0] == 2


def test_status_reports_builtin_flags_and_the_configured_provider(home, write_config):
    write_config(
        CONFIG.replace('provider: ""          ', "provider: holographic")
        + "plugins:\n  hermes-memory-store:\n    auto_extract: 'false'\n"
    )
    code, out, _ = run(home, "provider", "status")
    assert code == 0
    assert out.splitlines() == [
        f"Hermes home: {home.path}",
        "Built-in memory:",
        "  Memory injection (MEMORY.md): enabled ✓",
        "  User profile (USER.md):       disabled ✗",
        "  Memory tool:                  enabled ✓",
        "Provider: holographic",
        "  Installed: yes ✓ (bundled)",
        "  Available: yes ✓",
        "  Config (plugins.hermes-memory-store):",
        "    auto_extract: false",
        "Installed providers:",
        "  holographic (bundled)  ← active",
    ]


def test_status_json_for_a_missing_provider(home, write_config):
    write_config("memory:\n  provider: ghost\n")
    code, out, _ = run(home, "--json", "provider", "status")
    payload = json.loads(out)
    assert code == 0
    assert payload["builtin"] == {
        "memory_enabled": True,
        "user_profile_enabled": True,
        "memory_tool": True,
    }
    assert (payload["provider"], payload["found"], payload["available"], payload["source"]) == (
        "ghost",
        False,
        False,
        None,
    )
    assert [(p["name"], p["active"]) for p in payload["providers"]] == [("holographic", False)]


def test_status_without_a_provider(home):
    code, out, _ = run(home, "provider", "status")
    assert code == 0 and "Provider: (none — built-in only)" in out.splitlines()


def test_list(home, write_config):
    write_config("memory:\n  provider: holographic\n")
    code, out, _ = run(home, "--json", "provider", "list")
    (entry,) = json.loads(out)
    assert code == 0
    assert (entry["name"], entry["source"], entry["active"], entry["version"]) == (
        "holographic",
        "bundled",
        True,
        "1.0.0",
    )
    code, out, _ = run(home, "provider", "list")
    assert out.startswith("holographic (bundled)  ← active — Local structured fact store")
