"""The MemoryProvider contract of spec §3: constants, defaults, trivial prompts, threads."""

from __future__ import annotations

import contextvars
import json

import pytest

from hermes_memory.providers import (
    INDICATOR_GLYPH,
    PRE_COMPRESS_CHECKPOINT_API_VERSION,
    BuiltinMemoryProvider,
    MemoryProvider,
    RecallStatus,
    is_trivial_prompt,
    spawn_context_thread,
)


class Minimal(MemoryProvider):
    @property
    def name(self) -> str:
        return "minimal"

    def is_available(self) -> bool:
        return True

    def initialize(self, session_id, **kwargs):
        self.initialized = (session_id, kwargs)

    def get_tool_schemas(self):
        return []


def test_constants_match_the_spec():
    assert PRE_COMPRESS_CHECKPOINT_API_VERSION == 2
    assert INDICATOR_GLYPH == "🧠"
    assert MemoryProvider.pre_compress_checkpoint_api_version == 1
    assert RecallStatus("Mem", 3) == RecallStatus("Mem", 3, "🧠")


def test_the_four_required_methods_are_abstract():
    assert MemoryProvider.__abstractmethods__ == {
        "name",
        "is_available",
        "initialize",
        "get_tool_schemas",
    }
    with pytest.raises(TypeError):
        MemoryProvider()  # type: ignore[abstract]


def test_optional_hooks_default_to_no_ops():
    provider = Minimal()
    assert provider.unavailable_reason() == ""
    assert provider.system_prompt_block() == ""
    assert provider.prefetch("q", session_id="s") == ""
    assert provider.queue_prefetch("q") is None
    assert provider.recall_status() is None
    assert provider.sync_turn("u", "a", session_id="s", messages=[]) is None
    assert provider.shutdown() is None
    assert provider.on_turn_start(1, "m", model="x") is None
    assert provider.on_session_end([]) is None
    assert (
        provider.on_session_switch("new", parent_session_id="old", reset=True, rewound=False)
        is None
    )
    assert provider.on_pre_compress([]) == ""
    assert provider.on_delegation("t", "r", child_session_id="c") is None
    assert provider.get_config_schema() == []
    assert provider.save_config({}, "/tmp") is None
    assert provider.on_memory_write("add", "memory", "x", {"k": 1}) is None
    assert provider.backup_paths() == []
    with pytest.raises(NotImplementedError, match="Provider minimal does not handle tool t"):
        provider.handle_tool_call("t", {})


def test_initialize_for_inspection_delegates_to_initialize():
    provider = Minimal()
    provider.initialize_for_inspection("s1", hermes_home="/h", platform="cli")
    assert provider.initialized == ("s1", {"hermes_home": "/h", "platform": "cli"})


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "/reset",
        "ok",
        "OK!",
        "thanks :)",
        "Thank you…",
        "yes\u00a0",
        "lgtm.",
        "go ahead —",
        "k",
        "hey “",
        "done???",
    ],
)
def test_trivial_prompts(text):
    assert is_trivial_prompt(text) is True


@pytest.mark.parametrize(
    "text",
    ["k8s", "note this", "okay so the deploy failed", "yesterday", "hi there team", "nothing"],
)
def test_prompts_with_signal_are_not_trivial(text):
    assert is_trivial_prompt(text) is False


def test_none_is_trivial():
    assert is_trivial_prompt(None) is True


def test_spawn_context_thread_returns_an_unstarted_daemon_thread_in_the_callers_context():
    var = contextvars.ContextVar("profile", default="default")
    var.set("work")
    seen = []
    thread = spawn_context_thread(
        lambda suffix: seen.append(var.get() + suffix), name="t-ctx", args=("!",)
    )
    assert not thread.is_alive() and thread.daemon and thread.name == "t-ctx"
    thread.start()
    thread.join(5)
    assert seen == ["work!"]


class FakeStore:
    def __init__(self):
        self.loaded = 0

    def load_from_disk(self):
        self.loaded += 1

    def format_for_system_prompt(self, target):
        return {"memory": "MEMORY BLOCK", "user": "USER BLOCK"}[target]


def test_builtin_provider_adapts_the_store():
    store = FakeStore()
    provider = BuiltinMemoryProvider(store, memory_enabled=True, user_profile_enabled=True)
    assert provider.name == "builtin" and provider.is_available()
    provider.initialize("s1", hermes_home="/h", platform="cli")
    assert store.loaded == 1
    assert provider.system_prompt_block() == "MEMORY BLOCK\n\nUSER BLOCK"
    assert provider.prefetch("anything") == ""
    assert provider.sync_turn("u", "a") is None
    assert provider.get_tool_schemas() == []
    assert json.loads(provider.handle_tool_call("memory", {})) == {
        "error": "Built-in memory tool is handled by the agent loop"
    }
    assert (provider.store, provider.memory_enabled, provider.user_profile_enabled) == (
        store,
        True,
        True,
    )


def test_builtin_provider_blocks_follow_the_enable_flags():
    assert (
        BuiltinMemoryProvider(
            FakeStore(), memory_enabled=False, user_profile_enabled=True
        ).system_prompt_block()
        == "USER BLOCK"
    )
    assert BuiltinMemoryProvider(FakeStore()).system_prompt_block() == ""
    assert BuiltinMemoryProvider(None, True, True).system_prompt_block() == ""


def test_builtin_provider_over_the_real_store(home):
    pytest.importorskip("hermes_memory.memory.store")
    home.memory_file.write_text(
        "Project uses pnpm, not npm\n§\nUser runs macOS 14 with zsh", encoding="utf-8"
    )
    home.config_file.write_text("memory:\n  user_profile_enabled: false\n", encoding="utf-8")
    provider = BuiltinMemoryProvider.for_home(home)
    assert (provider.memory_enabled, provider.user_profile_enabled) == (True, False)
    provider.initialize("s1", hermes_home=str(home.path), platform="cli")
    sep = "═" * 46
    assert provider.system_prompt_block() == (
        f"{sep}\nMEMORY (your personal notes) [2% — 56/2,200 chars]\n{sep}\n"
        "Project uses pnpm, not npm\n§\nUser runs macOS 14 with zsh"
    )
