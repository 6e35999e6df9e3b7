"""Discovery, loading and activation of providers (spec §6 step 1, §7.1)."""

from __future__ import annotations

import logging
import sys
import textwrap
from importlib import metadata

import pytest

from hermes_memory.providers import (
    ENTRY_POINT_GROUP,
    BuiltinMemoryProvider,
    ProviderLoadError,
    create_memory_manager,
    discover_providers,
    find_provider,
    load_configured_provider,
    load_external_prefetch_timeout,
    load_provider,
)
from hermes_memory.providers.discovery import PLUGIN_MODULE_PREFIX
from hermes_memory.providers.plugins.holographic import HolographicMemoryProvider

ECHO_INIT = '''
"""A test provider that echoes queries."""
from hermes_memory.providers import MemoryProvider
from .words import PREFIX


class EchoProvider(MemoryProvider):
    def __init__(self, home):
        self.home = home

    @property
    def name(self):
        return "echo"

    def is_available(self):
        return True

    def initialize(self, session_id, **kwargs):
        pass

    def get_tool_schemas(self):
        return [{"name": "echo_recall", "description": "echo", "parameters": {"type": "object"}}]

    def prefetch(self, query, *, session_id=""):
        return PREFIX + query


def register(ctx):
    ctx.register_hook("pre_llm_call", lambda: None)  # non-memory registrations are ignored
    ctx.register_memory_provider(EchoProvider(ctx.hermes_home))
'''


@pytest.fixture(autouse=True)
def forget_plugin_modules():
    yield
    for name in [
        n for n in sys.modules if n.startswith(PLUGIN_MODULE_PREFIX) or n == "fake_pip_provider"
    ]:
        del sys.modules[name]


def write_plugin(root, name, init_text, files=None):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(textwrap.dedent(init_text), encoding="utf-8")
    for file_name, text in (files or {}).items():
        (folder / file_name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


@pytest.fixture
def plugins(home):
    root = home.plugins_dir
    write_plugin(
        root,
        "echo",
        ECHO_INIT,
        {
            "words.py": 'PREFIX = "echo: "\n',
            "plugin.yaml": "name: echo\nversion: 0.3.0\ndescription: Echoes the query\n",
        },
    )
    write_plugin(root, "notes", '"""Not a provider: no marker here."""\n')
    write_plugin(
        root,
        "holographic",
        '"""A user copy: MemoryProvider."""\nraise ImportError("never imported")\n',
    )
    write_plugin(
        root,
        "classonly",
        """
        from hermes_memory.providers import MemoryProvider

        class Helper:
            pass

        class ClassOnly(MemoryProvider):
            name = "classonly"

            def is_available(self):
                return False

            def unavailable_reason(self):
                return "set CLASSONLY_TOKEN"

            def initialize(self, session_id, **kwargs):
                pass

            def get_tool_schemas(self):
                return []
        """,
    )
    write_plugin(
        root,
        "broken",
        "from hermes_memory.providers import MemoryProvider\nimport not_a_real_module_xyz\n",
    )
    (root / ".hidden").mkdir()
    return root


def names(infos):
    return [(info.name, info.source) for info in infos]


def test_the_bundled_holographic_provider_is_found_by_its_upstream_name(home):
    info = find_provider("holographic", home)
    assert (info.name, info.source, info.version) == ("holographic", "bundled", "1.0.0")
    provider = load_provider(info, home)
    assert isinstance(provider, HolographicMemoryProvider) and provider.name == "holographic"


def test_plugin_folders_in_the_home_are_discovered_without_running_them(plugins, home):
    found = discover_providers(home)
    assert names(found) == [
        ("holographic", "bundled"),
        ("broken", "user"),
        ("classonly", "user"),
        ("echo", "user"),
    ]
    echo = find_provider("echo", home)
    assert (echo.version, echo.description, echo.path) == (
        "0.3.0",
        "Echoes the query",
        plugins / "echo",
    )
    assert not [name for name in sys.modules if name.startswith(PLUGIN_MODULE_PREFIX)]


def test_a_plugin_folder_loads_through_register_with_relative_imports(plugins, home):
    provider = load_provider("echo", home)
    assert provider.name == "echo" and provider.home == str(home.path)
    assert provider.prefetch("hello") == "echo: hello"


def test_a_plugin_without_register_gives_its_first_provider_class(plugins, home):
    provider = load_provider("classonly", home)
    assert type(provider).__name__ == "ClassOnly" and provider.is_available() is False


def test_a_broken_plugin_raises_a_load_error(plugins, home):
    with pytest.raises(
        ProviderLoadError,
        match=r"Memory provider 'broken' \(user\) failed to load: No module named",
    ):
        load_provider("broken", home)
    with pytest.raises(ProviderLoadError, match="No memory provider named 'ghost' was found"):
        load_provider("ghost", home)


def test_project_plugins_need_the_opt_in(home, tmp_path, monkeypatch):
    project = tmp_path / "project"
    write_plugin(project / ".hermes" / "plugins", "proj", "# register_memory_provider\n")
    monkeypatch.delenv("HERMES_ENABLE_PROJECT_PLUGINS", raising=False)
    assert "proj" not in [i.name for i in discover_providers(home, cwd=project)]
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    assert ("proj", "project") in names(discover_providers(home, cwd=project))


def fake_entry_points(*entries):
    def lookup(**kwargs):
        assert kwargs == {"group": ENTRY_POINT_GROUP}
        return [metadata.EntryPoint(name, value, ENTRY_POINT_GROUP) for name, value in entries]

    return lookup


def test_entry_points_are_discovered_last_and_loaded_on_demand(
    home, plugins, tmp_path, monkeypatch
):
    package_dir = tmp_path / "site"
    package_dir.mkdir()
    (package_dir / "fake_pip_provider.py").write_text(
        textwrap.dedent(
            """
            from hermes_memory.providers import MemoryProvider

            class PipProvider(MemoryProvider):
                name = "pipmem"
                def is_available(self): return True
                def initialize(self, session_id, **kwargs): pass
                def get_tool_schemas(self): return []
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(package_dir))
    monkeypatch.setattr(
        metadata,
        "entry_points",
        fake_entry_points(
            ("pipmem", "fake_pip_provider:PipProvider"), ("echo", "fake_pip_provider:PipProvider")
        ),
    )
    found = names(discover_providers(home))
    assert found[-1] == ("pipmem", "entry_point")
    assert ("echo", "user") in found and ("echo", "entry_point") not in found  # first seen wins
    assert "fake_pip_provider" not in sys.modules
    info = find_provider("pipmem", home)
    assert info.entry_point == "fake_pip_provider:PipProvider"
    assert type(load_provider(info, home)).__name__ == "PipProvider"


def test_a_broken_entry_point_lookup_does_not_break_discovery(home, monkeypatch):
    def explode(**kwargs):
        raise RuntimeError("corrupt metadata")

    monkeypatch.setattr(metadata, "entry_points", explode)
    assert names(discover_providers(home)) == [("holographic", "bundled")]


# --- activation -----------------------------------------------------------------------------------
def test_create_memory_manager_registers_the_configured_provider(plugins, home, write_config):
    write_config("memory:\n  provider: echo\n  external_prefetch_timeout: 0.5\n")
    manager = create_memory_manager(home, builtin=BuiltinMemoryProvider())
    assert [p.name for p in manager.providers] == ["builtin", "echo"]
    assert manager.external_prefetch_timeout == 0.5
    assert manager.get_all_tool_names() == {"echo_recall"}
    manager.shutdown_all()


@pytest.mark.parametrize(
    ("provider", "message"),
    [
        (
            "ghost",
            "Memory provider 'ghost' is configured but was not found; using built-in memory only.",
        ),
        ("broken", "Memory provider 'broken' (user) failed to load"),
        (
            "classonly",
            "Memory provider 'classonly' is not available (set CLASSONLY_TOKEN); using built-in memory only.",
        ),
    ],
)
def test_an_unusable_provider_leaves_built_in_memory_working(
    plugins, home, write_config, caplog, provider, message
):
    write_config(f"memory:\n  provider: {provider}\n")
    with caplog.at_level(logging.WARNING, logger="hermes_memory.providers.activation"):
        manager = create_memory_manager(home, builtin=BuiltinMemoryProvider())
    assert [p.name for p in manager.providers] == ["builtin"]
    assert message in caplog.text


def test_no_configured_provider_means_built_in_only(home):
    assert load_configured_provider(home) is None
    assert load_configured_provider(home, "builtin") is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", 8.0), ("2", 2.0), ("0.25", 0.25), ("-1", 8.0), ("'soon'", 8.0), ("true", 8.0)],
)
def test_external_prefetch_timeout_comes_from_config(home, write_config, value, expected):
    write_config(f"memory:\n  external_prefetch_timeout: {value}\n" if value else "memory: {}\n")
    assert load_external_prefetch_timeout(home) == expected


def test_create_memory_manager_builds_the_builtin_provider_from_the_home(home):
    pytest.importorskip("hermes_memory.memory.store")
    manager = create_memory_manager(home)
    builtin = manager.get_provider("builtin")
    assert (
        isinstance(builtin, BuiltinMemoryProvider)
        and builtin.memory_enabled
        and builtin.user_profile_enabled
    )


# --- issue 11 §4: a provider laid out as an installed package --------------------------
def test_provider_plugin_laid_out_as_a_package_is_discovered(home):
    """``plugins/mimir/plugin.yaml`` plus ``plugins/mimir/hermes_mimir/__init__.py`` and no
    root ``__init__.py`` (how pip-style providers ship): found under the folder's name,
    metadata from the root plugin.yaml, code imported from the package, with its
    relative imports working."""
    folder = home.plugins_dir / "mimir"
    write_plugin(folder, "hermes_mimir", ECHO_INIT, {"words.py": 'PREFIX = "mimir: "\n'})
    write_plugin(folder, "aaa_helpers", '"""Helpers, no provider here."""\n')
    (folder / "plugin.yaml").write_text("name: mimir\nversion: 2.1.0\ndescription: Mimir\n")
    (folder / "pyproject.toml").write_text("[project]\nname = 'hermes-mimir'\n")
    info = find_provider("mimir", home)
    assert info is not None and info.source == "user"
    assert (info.version, info.description) == ("2.1.0", "Mimir")
    assert info.path == folder and info.package == folder / "hermes_mimir"
    provider = load_provider(info, home)
    assert provider.prefetch("q") == "mimir: q"


def test_a_package_named_after_the_plugin_is_preferred_over_other_provider_packages(home):
    folder = home.plugins_dir / "my-store"
    write_plugin(folder, "a_first", ECHO_INIT, {"words.py": 'PREFIX = "wrong: "\n'})
    write_plugin(folder, "my_store", ECHO_INIT, {"words.py": 'PREFIX = "right: "\n'})
    (folder / "plugin.yaml").write_text("name: my-store\n")
    info = find_provider("my-store", home)
    assert info.package == folder / "my_store"
    assert load_provider(info, home).prefetch("q") == "right: q"


def test_a_folder_with_neither_root_init_nor_a_provider_package_is_not_a_provider(home):
    folder = home.plugins_dir / "docs-only"
    write_plugin(folder, "pkg", '"""No marker."""\n')
    (folder / "plugin.yaml").write_text("name: docs-only\n")
    assert find_provider("docs-only", home) is None


def test_a_yaml_bomb_in_plugin_yaml_is_ignored_quickly_and_the_provider_still_found(home):
    folder = write_plugin(home.plugins_dir, "bomb", ECHO_INIT, {"words.py": 'PREFIX = ""\n'})
    lines = ['l0: &l0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 12)]
    (folder / "plugin.yaml").write_text("\n".join(lines) + "\ndescription: *l11\n")
    info = find_provider("bomb", home)
    assert info is not None and info.description == ""


def test_a_provider_nested_under_a_category_folder_is_discovered(home):
    """``plugins/memory/<name>/`` loads at runtime in the agent (upstream issue 48822);
    discovery finds it too, one category level deep, never deeper."""
    write_plugin(home.plugins_dir / "memory", "nested-echo", ECHO_INIT, {"words.py": 'PREFIX = "n: "\n'})
    write_plugin(home.plugins_dir / "a" / "b", "too-deep", ECHO_INIT, {"words.py": 'PREFIX = ""\n'})
    info = find_provider("nested-echo", home)
    assert info is not None and info.path == home.plugins_dir / "memory" / "nested-echo"
    assert load_provider(info, home).prefetch("q") == "n: q"
    assert find_provider("too-deep", home) is None
