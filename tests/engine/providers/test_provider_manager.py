"""MemoryManager (spec §4): registration, isolation, prefetch timeout, FIFO sync, shutdown."""

from __future__ import annotations

import json
import logging
import os
import threading
import time

import pytest
from provider_fakes import BuiltinStandIn, FailingProvider, RecordingProvider, tool

from hermes_memory.home import HermesHome
from hermes_memory.providers import (
    MemoryManager,
    RecallStatus,
    inject_memory_provider_tools,
    memory_provider_tools_enabled,
)

MANAGER_LOGGER = "hermes_memory.providers.manager"


def make_manager(*providers, **kwargs) -> MemoryManager:
    manager = MemoryManager(**kwargs)
    for provider in providers:
        manager.add_provider(provider)
    return manager


def join_threads_named(prefix: str) -> None:
    for thread in threading.enumerate():
        if thread.name.startswith(prefix):
            thread.join(timeout=10)


# --- construction and registration ---------------------------------------------------------
def test_prefetch_timeout_defaults_to_eight_seconds_and_must_be_positive():
    assert MemoryManager().external_prefetch_timeout == 8.0
    assert MemoryManager(external_prefetch_timeout=2).external_prefetch_timeout == 2.0
    for bad in (0, -1):
        with pytest.raises(ValueError, match="^external_prefetch_timeout must be positive$"):
            MemoryManager(external_prefetch_timeout=bad)


def test_a_second_external_provider_is_refused_with_a_warning(caplog):
    alpha = RecordingProvider("alpha", tools=[tool("alpha_search")])
    beta = RecordingProvider("beta", tools=[tool("beta_search")])
    with caplog.at_level(logging.WARNING, logger=MANAGER_LOGGER):
        manager = make_manager(BuiltinStandIn(), alpha, beta)  # no exception
    assert [p.name for p in manager.providers] == ["builtin", "alpha"]
    assert manager.external_provider is alpha
    assert manager.get_all_tool_names() == {"alpha_search"}
    assert (
        "Rejected memory provider 'beta' — external provider 'alpha' is already registered. "
        "Only one external memory provider is allowed at a time." in caplog.text
    )


def test_a_provider_whose_schemas_fail_leaves_the_manager_untouched():
    class BrokenSchemas(RecordingProvider):
        def get_tool_schemas(self):
            raise RuntimeError("schema load failed")

    manager = make_manager(BuiltinStandIn())
    with pytest.raises(RuntimeError, match="schema load failed"):
        manager.add_provider(BrokenSchemas("broken"))
    assert [p.name for p in manager.providers] == ["builtin"]
    assert manager.external_provider is None
    manager.add_provider(RecordingProvider("working"))  # #9948: the slot is still free
    assert [p.name for p in manager.providers] == ["builtin", "working"]


def test_core_tool_names_are_reserved_and_first_owner_keeps_a_name(caplog):
    builtin = BuiltinStandIn(tools=[tool("shared_name")])
    external = RecordingProvider(
        "ext",
        tools=[
            tool("memory"),
            tool("session_search"),
            tool("ext_recall"),
            {"type": "function", "function": tool("ext_wrapped")},
            {"description": "no name"},
            tool("shared_name"),
        ],
    )
    with caplog.at_level(logging.WARNING, logger=MANAGER_LOGGER):
        manager = make_manager(builtin, external)
    assert manager.get_all_tool_names() == {"shared_name", "ext_recall", "ext_wrapped"}
    assert manager.has_tool("ext_wrapped") and not manager.has_tool("memory")
    assert "tool 'memory' shadows a reserved core tool name" in caplog.text
    assert "tool 'session_search' shadows a reserved core tool name" in caplog.text
    assert "'shared_name' already registered by builtin, ignoring from ext" in caplog.text
    assert [s["name"] for s in manager.get_all_tool_schemas()] == [
        "shared_name",
        "ext_recall",
        "ext_wrapped",
    ]
    assert json.loads(manager.handle_tool_call("memory", {})) == {
        "error": "No memory provider handles tool 'memory'"
    }
    json.loads(manager.handle_tool_call("shared_name", {}))
    assert builtin.named("handle_tool_call") and not external.named("handle_tool_call")


def test_provider_accessors():
    builtin, ext = BuiltinStandIn(), RecordingProvider("ext")
    manager = make_manager(builtin, ext)
    providers = manager.providers
    providers.clear()  # a copy
    assert manager.get_provider("ext") is ext and manager.get_provider("nope") is None
    assert len(manager.providers) == 2


# --- failure isolation ----------------------------------------------------------------------
def test_every_hook_survives_a_failing_provider(caplog):
    failing = FailingProvider("builtin")
    ext = RecordingProvider("ext")
    ext.prefetch_result = "ext recall"
    ext.recall = RecallStatus("Ext", 2)
    manager = make_manager(failing, ext)
    with caplog.at_level(logging.DEBUG, logger=MANAGER_LOGGER):
        manager.initialize_all("s1", platform="cli", hermes_home="/h")
        assert manager.build_system_prompt() == "ext block"
        assert manager.prefetch_all("the deploy") == "ext recall"
        assert manager.describe_recall() == "🧠 Ext — recalled 2 memories"
        manager.on_turn_start(1, "the deploy")
        manager.sync_all("the deploy", "done")
        manager.queue_prefetch_all("the deploy")
        assert manager.flush_pending(timeout=10)
        manager.on_session_end([{"role": "user", "content": "x"}])
        manager.on_delegation("task", "result")
        manager.shutdown_all()
    called = [call[0] for call in ext.calls]
    assert called == [
        "initialize", "prefetch", "on_turn_start", "sync_turn", "queue_prefetch",
        "on_session_end", "on_delegation", "shutdown",
    ]  # fmt: skip
    assert "Memory provider 'builtin' prefetch failed (non-fatal): prefetch exploded" in caplog.text
    assert "Memory provider 'builtin' sync_turn failed: sync_turn exploded" in caplog.text
    assert "Memory provider 'builtin' shutdown failed: shutdown exploded" in caplog.text
    assert "Memory provider 'builtin' initialize failed: initialize exploded" in caplog.text


def test_a_failing_tool_call_becomes_a_tool_error():
    failing = FailingProvider("ext", tools=[tool("ext_recall")])
    manager = make_manager(BuiltinStandIn(), failing)
    assert json.loads(manager.handle_tool_call("ext_recall", {"q": 1})) == {
        "error": "Memory tool 'ext_recall' failed: handle_tool_call exploded"
    }
    assert manager.tool_call_stats == {("ext", "ext_recall"): {"calls": 1, "errors": 1}}


def test_a_failing_memory_write_mirror_is_isolated():
    manager = make_manager(BuiltinStandIn(), FailingProvider("ext"))
    manager.on_memory_write("add", "memory", "fact")  # logged, not raised


# --- prefetch ---------------------------------------------------------------------------------
class HangingProvider(RecordingProvider):
    def __init__(self):
        super().__init__("hanger")
        self.release = threading.Event()

    def prefetch(self, query, *, session_id=""):
        self._record("prefetch", query, session_id)
        self.release.wait(30)
        return "HUNG PROVIDER DATA"


def test_a_hung_external_prefetch_times_out_and_is_skipped_while_stuck(caplog):
    builtin = BuiltinStandIn()
    builtin.prefetch_result = "builtin recall"
    hanger = HangingProvider()
    manager = make_manager(builtin, hanger, external_prefetch_timeout=0.2)
    try:
        with caplog.at_level(logging.WARNING, logger=MANAGER_LOGGER):
            started = time.monotonic()
            assert manager.prefetch_all("where is the config") == "builtin recall"
            assert time.monotonic() - started < 5
            # Still hung: the provider is skipped, not stacked with a second call.
            started = time.monotonic()
            assert manager.prefetch_all("and the logs") == "builtin recall"
            assert time.monotonic() - started < 5
        assert len(hanger.named("prefetch")) == 1
        assert "Memory provider 'hanger' prefetch timed out after 0.2s" in caplog.text
    finally:
        hanger.release.set()
        join_threads_named("memory-prefetch-")
    # Once the stuck call has returned, the provider takes part again.
    assert manager.prefetch_all("third question") == "builtin recall\n\nHUNG PROVIDER DATA"
    assert len(hanger.named("prefetch")) == 2


def test_prefetch_runs_the_external_provider_on_a_named_thread():
    class WhereAmI(RecordingProvider):
        def prefetch(self, query, *, session_id=""):
            return threading.current_thread().name

    manager = make_manager(BuiltinStandIn(), WhereAmI("ext"))
    assert manager.prefetch_all("q") == "memory-prefetch-ext"


def test_a_provider_exception_in_prefetch_is_swallowed():
    manager = make_manager(BuiltinStandIn(), FailingProvider("ext"))
    assert manager.prefetch_all("q") == ""


def test_prefetch_strips_skill_scaffolding():
    ext = RecordingProvider("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    bare = '[IMPORTANT: The user has invoked the "deploy" skill. The full skill content is loaded below.]\n\nbody'
    assert manager.prefetch_all(bare) == ""
    assert ext.named("prefetch") == []
    with_instruction = (
        bare + "\nThe user has provided the following instruction alongside the skill invocation: "
        "ship the hotfix\n\n[Runtime note: ignore]"
    )
    manager.prefetch_all(with_instruction)
    assert ext.named("prefetch") == [("prefetch", "ship the hotfix", "")]


def test_oversized_external_recall_is_spilled_to_a_private_file(home):
    ext = RecordingProvider("ext")
    ext.prefetch_result = "A" * 600 + "B" * 9_401  # 10,001 characters
    manager = make_manager(BuiltinStandIn(), ext, hermes_home=home)
    result = manager.prefetch_all("q", session_id="sess-1")
    first_line, rest = result.split("\n", 1)
    prefix = "[ext memory prefetch output truncated — 10,001 chars; full content saved to "
    assert first_line.startswith(prefix) and first_line.endswith("]")
    path = first_line[len(prefix) : -1]
    assert os.path.dirname(path) == str(home.path / "hook_outputs" / "sess-1")
    with open(path, encoding="utf-8") as handle:
        assert handle.read() == ext.prefetch_result + "\n"
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert rest == "--- head ---\n" + "A" * 500 + "\n--- tail ---\n" + "B" * 500


def test_describe_recall_wording():
    builtin, ext = BuiltinStandIn(), RecordingProvider("ext")
    manager = make_manager(builtin, ext)
    assert manager.describe_recall() == ""
    builtin.recall = RecallStatus("Notes", 1, "📒")
    ext.recall = RecallStatus("Ext", 0)
    assert (
        manager.describe_recall()
        == "📒 Notes — recalled 1 memory  🧠 Ext — recalled relevant memory"
    )


# --- background work --------------------------------------------------------------------------
class SlowSync(RecordingProvider):
    """Earlier turns take longer, so any parallelism would reorder them."""

    def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None):
        turn = int(user_content.split()[-1])
        time.sleep((5 - turn) * 0.01)
        self._record("sync_turn", turn, threading.current_thread().name)


def test_sync_runs_in_fifo_order_on_one_worker_thread():
    ext = SlowSync("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    for turn in range(5):
        manager.sync_all(f"turn {turn}", "reply")
    assert manager.flush_pending(timeout=10) is True
    assert ext.named("sync_turn") == [("sync_turn", turn, "mem-sync") for turn in range(5)]
    manager.shutdown_all()


def test_a_builtin_only_manager_starts_no_thread():
    builtin = BuiltinStandIn()
    manager = make_manager(builtin)
    before = threading.active_count()
    manager.sync_all("hello there", "hi")
    manager.queue_prefetch_all("next")
    assert threading.active_count() == before
    assert [call[0] for call in builtin.calls] == ["sync_turn", "queue_prefetch"]
    assert manager.flush_pending() is True
    manager.shutdown_all()
    assert manager.shutdown_drain_state["status"] == "drained"


def test_sync_skips_empty_turns_and_bare_skill_invocations():
    ext = RecordingProvider("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    manager.sync_all("", "reply")
    manager.sync_all(
        '[IMPORTANT: The user has invoked the "x" skill. The full skill content is loaded below.]',
        "r",
    )
    manager.flush_pending(timeout=10)
    assert ext.named("sync_turn") == []
    manager.shutdown_all()


def test_optional_sync_keywords_only_reach_providers_that_accept_them():
    class Narrow(RecordingProvider):
        def sync_turn(self, user_content, assistant_content, *, session_id=""):
            self._record("sync_turn", user_content, session_id)

    class Wide(RecordingProvider):
        def sync_turn(self, user_content, assistant_content, **kwargs):
            self._record("sync_turn", user_content, kwargs)

    narrow, wide = Narrow("builtin"), Wide("ext")
    manager = make_manager(narrow, wide)
    messages = [{"role": "user", "content": "hi"}]
    manager.sync_all("hello", "hi", session_id="s", messages=messages, turn_author={"id": "u1"})
    manager.flush_pending(timeout=10)
    manager.shutdown_all()
    assert narrow.named("sync_turn") == [("sync_turn", "hello", "s")]
    assert wide.named("sync_turn") == [
        (
            "sync_turn",
            "hello",
            {"session_id": "s", "messages": messages, "turn_author": {"id": "u1"}},
        )
    ]


def test_shutdown_drains_then_shuts_providers_down_in_reverse_order(caplog):
    log: list = []

    class SlowWriter(RecordingProvider):
        def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None):
            time.sleep(0.05)
            self._record("sync_turn", user_content)

    builtin = BuiltinStandIn(log=log)
    ext = SlowWriter("ext", log=log)
    manager = make_manager(builtin, ext)
    for turn in range(3):
        manager.sync_all(f"turn {turn}", "reply")
    manager.shutdown_all()
    assert log == [("builtin", "sync_turn"), ("ext", "sync_turn")] * 3 + [
        ("ext", "shutdown"),
        ("builtin", "shutdown"),
    ]
    assert manager.shutdown_drain_state == {
        "status": "drained", "abandoned_writes": 0, "abandoned_prefetches": 0, "active_tasks": 0,
    }  # fmt: skip
    with caplog.at_level(logging.WARNING, logger=MANAGER_LOGGER):
        manager.sync_all("too late", "reply")
    assert "Memory manager is shutting down; rejecting late write task" in caplog.text
    assert len(ext.named("sync_turn")) == 3


def test_a_drain_that_times_out_abandons_queued_work_and_still_shuts_down(caplog):
    release = threading.Event()
    log: list = []

    class Stuck(RecordingProvider):
        def sync_turn(self, user_content, assistant_content, *, session_id="", messages=None):
            self._record("sync_turn", user_content)
            release.wait(30)

    ext = Stuck("ext", log=log)
    manager = make_manager(BuiltinStandIn(log=log), ext, sync_drain_timeout=0.2)
    try:
        for turn in range(3):
            manager.sync_all(f"turn {turn}", "reply")
        manager.queue_prefetch_all("next question")
        with caplog.at_level(logging.WARNING, logger=MANAGER_LOGGER):
            started = time.monotonic()
            manager.shutdown_all()
            assert time.monotonic() - started < 5
        assert manager.shutdown_drain_state == {
            "status": "timed_out", "abandoned_writes": 2, "abandoned_prefetches": 1, "active_tasks": 1,
        }  # fmt: skip
        assert log[-2:] == [("ext", "shutdown"), ("builtin", "shutdown")]
        assert "abandoning 2 queued memory write(s) and 1 queued prefetch(es)" in caplog.text
    finally:
        release.set()
        join_threads_named("mem-sync")
    assert ext.named("sync_turn") == [("sync_turn", "turn 0")]


def test_session_boundary_runs_end_before_switch_in_the_background():
    ext = RecordingProvider("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    manager.commit_session_boundary_async(
        [{"role": "user", "content": "bye"}], new_session_id="s2", parent_session_id="s1"
    )
    manager.flush_pending(timeout=10)
    manager.shutdown_all()
    assert ext.calls[:2] == [
        ("on_session_end", [{"role": "user", "content": "bye"}]),
        ("on_session_switch", "s2", "s1", True, {"reason": "new_session", "rewound": False}),
    ]


def test_session_switch_forwards_rewound_only_when_set():
    class KwargsOnly(RecordingProvider):
        def on_session_switch(self, new_session_id, **kwargs):
            self._record("on_session_switch", new_session_id, kwargs)

    ext = KwargsOnly("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    manager.on_session_switch("")
    manager.on_session_switch("s2")
    manager.on_session_switch("s2", rewound=True)
    assert ext.named("on_session_switch") == [
        ("on_session_switch", "s2", {"parent_session_id": "", "reset": False}),
        ("on_session_switch", "s2", {"parent_session_id": "", "reset": False, "rewound": True}),
    ]


def test_turn_start_keywords_are_filtered_to_what_the_provider_declares():
    class Narrow(RecordingProvider):
        def on_turn_start(self, turn_number, message, model=None):
            self._record("on_turn_start", turn_number, message, model)

    narrow, wide = Narrow("builtin"), RecordingProvider("ext")
    manager = make_manager(narrow, wide)
    manager.on_turn_start(3, "hello", model="m", platform="cli")
    assert narrow.named("on_turn_start") == [("on_turn_start", 3, "hello", "m")]
    assert wide.named("on_turn_start") == [
        ("on_turn_start", 3, "hello", {"model": "m", "platform": "cli"})
    ]


def test_initialize_all_adds_the_home_when_missing():
    ext = RecordingProvider("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    manager.initialize_all("s1", platform="cli")
    assert ext.named("initialize") == [
        ("initialize", "s1", {"platform": "cli", "hermes_home": str(HermesHome.resolve().path)})
    ]


def test_system_prompt_joins_blocks_and_can_withhold_external_ones():
    manager = make_manager(BuiltinStandIn(), RecordingProvider("ext"))
    assert manager.build_system_prompt() == "BUILTIN BLOCK\n\next block"
    assert manager.build_system_prompt(include_external=False) == "BUILTIN BLOCK"


# --- pre-compress checkpoints --------------------------------------------------------------------
class V1(RecordingProvider):
    def on_pre_compress(self, messages):
        self._record("on_pre_compress", messages)
        return "v1 notes"


class V2(RecordingProvider):
    pre_compress_checkpoint_api_version = 2

    def __init__(self, name, fail=False):
        super().__init__(name)
        self.fail = fail

    def on_pre_compress(self, messages, *, require_checkpoint=False):
        self._record("on_pre_compress", messages, require_checkpoint)
        if self.fail:
            raise RuntimeError("checkpoint write failed")
        return "v2 checkpoint"


def test_pre_compress_hands_evidence_to_checkpoint_providers_only():
    v1, v2 = V1("builtin"), V2("ext")
    manager = make_manager(v1, v2)
    assert manager.supports_pre_compress_checkpoint() is True
    raw = [{"role": "tool", "content": "raw"}]
    evidence = [{"role": "user", "content": "evidence"}]
    assert (
        manager.on_pre_compress(raw, evidence_messages=evidence, require_checkpoint=True)
        == "v1 notes\n\nv2 checkpoint"
    )
    assert v1.named("on_pre_compress") == [("on_pre_compress", raw)]
    assert v2.named("on_pre_compress") == [("on_pre_compress", evidence, True)]


def test_a_required_checkpoint_fails_closed():
    manager = make_manager(V1("builtin"))
    assert manager.supports_pre_compress_checkpoint() is False
    assert manager.on_pre_compress([]) == "v1 notes"
    with pytest.raises(
        RuntimeError, match="^No active memory provider completed pre-compress checkpoint API v2$"
    ):
        manager.on_pre_compress([], require_checkpoint=True)
    failing = make_manager(V1("builtin"), V2("ext", fail=True))
    with pytest.raises(RuntimeError, match="checkpoint write failed"):
        failing.on_pre_compress([], require_checkpoint=True)
    assert failing.on_pre_compress([]) == "v1 notes"  # best effort when not required


# --- mirroring built-in writes -------------------------------------------------------------------
def test_notify_mirrors_committed_single_writes_to_external_providers_only():
    builtin, ext = BuiltinStandIn(), RecordingProvider("ext")
    manager = make_manager(builtin, ext)

    def metadata():
        return {"write_origin": "tool", "session_id": "s1", "previous_content": "forged"}

    manager.notify_memory_tool_write(
        json.dumps({"success": True, "message": "Entry added."}),
        {"action": "add", "target": "user", "content": "Prefers dark mode"},
        build_metadata=metadata,
    )
    manager.notify_memory_tool_write(
        {"success": True, "replaced_entry": "Uses npm"},
        {"action": "replace", "target": "memory", "old_text": "npm", "content": "Uses pnpm"},
        build_metadata=metadata,
    )
    assert builtin.named("on_memory_write") == []
    assert ext.named("on_memory_write") == [
        ("on_memory_write", "add", "user", "Prefers dark mode", {"write_origin": "tool", "session_id": "s1"}),
        (
            "on_memory_write", "replace", "memory", "Uses pnpm",
            {"write_origin": "tool", "session_id": "s1", "old_text": "npm", "previous_content": "Uses npm"},
        ),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "result",
    [
        {"success": True, "staged": True, "pending_id": 3},
        {"success": False, "error": "Blocked"},
        {"success": "true"},
        "not json",
        ["success"],
    ],
)
def test_notify_ignores_anything_but_a_committed_write(result):
    ext = RecordingProvider("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    payload = result if isinstance(result, str) else json.dumps(result)
    manager.notify_memory_tool_write(payload, {"action": "add", "target": "memory", "content": "x"})
    assert ext.named("on_memory_write") == []


def test_notify_expands_batches_and_takes_previous_content_from_the_result():
    ext = RecordingProvider("ext")
    manager = make_manager(BuiltinStandIn(), ext)
    manager.notify_memory_tool_write(
        {
            "success": True,
            "removed_entries": {"1": "Old fact"},
            "replaced_entries": {3: "Was blue"},
        },
        {
            "target": "memory",
            "operations": [
                {"action": "remove", "old_text": "Old"},
                {"action": "bogus", "content": "skip me"},
                {"action": "replace", "old_text": "blue", "content": "Is green"},
                {"action": "add", "content": "New fact"},
            ],
        },
    )
    assert ext.named("on_memory_write") == [
        (
            "on_memory_write",
            "remove",
            "memory",
            "",
            {"old_text": "Old", "previous_content": "Old fact"},
        ),
        (
            "on_memory_write",
            "replace",
            "memory",
            "Is green",
            {"old_text": "blue", "previous_content": "Was blue"},
        ),
        ("on_memory_write", "add", "memory", "New fact", {}),
    ]


def test_on_memory_write_matches_each_provider_signature():
    seen = []

    class Legacy(RecordingProvider):
        def on_memory_write(self, action, target, content):
            seen.append(("legacy", action, target, content))

    class Positional(RecordingProvider):
        def on_memory_write(self, action, target, content, extra):
            seen.append(("positional", extra))

    for provider in (Legacy("ext"), Positional("ext"), RecordingProvider("ext")):
        make_manager(BuiltinStandIn(), provider).on_memory_write(
            "add", "user", "likes tea", {"k": "v"}
        )
    assert seen == [("legacy", "add", "user", "likes tea"), ("positional", {"k": "v"})]


# --- tool exposure ------------------------------------------------------------------------------------
def test_the_memory_toolset_gates_provider_tools():
    assert memory_provider_tools_enabled(None) is True
    assert memory_provider_tools_enabled([]) is False
    assert memory_provider_tools_enabled(["web"]) is False
    assert memory_provider_tools_enabled(["web", "memory"]) is True
    assert memory_provider_tools_enabled(["hermes-cli"]) is True
    assert memory_provider_tools_enabled(["web"], memory_tool_present=True) is True
    assert memory_provider_tools_enabled(None, ["memory"], memory_tool_present=True) is False


def test_inject_memory_provider_tools_adds_each_new_tool_once():
    class Agent:
        pass

    agent = Agent()
    agent._memory_manager = make_manager(
        BuiltinStandIn(), RecordingProvider("ext", tools=[tool("ext_recall")])
    )
    agent.tools = [{"type": "function", "function": {"name": "memory"}}]
    agent.enabled_toolsets = ["memory"]
    assert inject_memory_provider_tools(agent) == 1
    assert inject_memory_provider_tools(agent) == 0
    assert agent.tools[-1] == {"type": "function", "function": tool("ext_recall")}
    assert agent.valid_tool_names == {"ext_recall"}
    agent.disabled_toolsets = ["memory"]
    agent.tools = []
    assert inject_memory_provider_tools(agent) == 0 and agent.tools == []
