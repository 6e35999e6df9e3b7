"""Provider tool schemas and when they are exposed to the model (spec §4.1, §4.8).

Core tool names are reserved: the agent's built-ins always win, so a provider tool with
a core name would linger in the routing table and hijack dispatch. Provider tools (and,
with them, the provider's system-prompt block) are shown only when the ``memory``
toolset is enabled for the session.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

logger = logging.getLogger(__name__)

#: The agent's core tools (upstream ``toolsets._HERMES_CORE_TOOLS``); providers may not reuse them.
CORE_TOOL_NAMES = frozenset(
    {
        "web_search", "web_extract", "terminal", "process",
        "read_file", "write_file", "patch", "search_files",
        "vision_analyze", "image_generate",
        "skills_list", "skill_view", "skill_manage",
        "browser_navigate", "browser_snapshot", "browser_click", "browser_type",
        "browser_scroll", "browser_back", "browser_press", "browser_close",
        "browser_get_images", "browser_vision", "browser_console",
        "text_to_speech", "todo", "memory", "session_search", "clarify",
        "execute_code", "delegate_task", "cronjob", "send_message",
        "ha_list_entities", "ha_get_state", "ha_list_services", "ha_call_service",
    }
)  # fmt: skip


def tool_error(message: str, **extra: Any) -> str:
    """A tool result reporting failure: ``{"error": message, **extra}`` as JSON."""
    return json.dumps({"error": message, **extra}, ensure_ascii=False)


def normalize_tool_schema(schema: Any) -> dict[str, Any] | None:
    """The bare ``{name, description, parameters}`` form, unwrapping the OpenAI wrapper.

    ``None`` when there is no non-empty string name: wrapping such a schema would send a
    nameless function, and strict backends reject the whole request for it.
    """
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "function" and isinstance(schema.get("function"), dict):
        schema = schema["function"]
    name = schema.get("name")
    return schema if isinstance(name, str) and name else None


def _toolset_includes_memory(toolset: str) -> bool:
    """Whether a toolset name brings the memory tool with it.

    ``memory`` itself, the catch-all aliases, and the per-platform ``hermes-*`` sets
    (which all carry the core tools) do.
    """
    return toolset in {"memory", "all", "*"} or toolset.startswith("hermes-")


def memory_provider_tools_enabled(
    enabled_toolsets: Iterable[str] | None,
    disabled_toolsets: Iterable[str] | None = None,
    *,
    memory_tool_present: bool = False,
    toolset_includes_memory: Callable[[str], bool] = _toolset_includes_memory,
) -> bool:
    """The exposure gate of spec §4.8."""
    if disabled_toolsets and "memory" in set(disabled_toolsets):
        return False
    if memory_tool_present or enabled_toolsets is None:
        return True
    enabled = list(enabled_toolsets)
    if not enabled:
        return False
    try:
        return any(toolset_includes_memory(name) for name in enabled)
    except Exception:  # an unresolvable toolset never opens the gate
        logger.debug(
            "Could not resolve toolsets %r for memory-provider tools", enabled, exc_info=True
        )
        return False


def _tool_name(tool: Any) -> Any:
    if not isinstance(tool, dict):
        return None
    function = tool.get("function")
    return function.get("name") if isinstance(function, dict) else None


def memory_provider_tools_exposed(agent: Any) -> bool:
    """The gate applied to an agent-like object (``tools``, ``enabled_toolsets``, ``disabled_toolsets``)."""
    tools = getattr(agent, "tools", None)
    present = isinstance(tools, (list, tuple)) and any(_tool_name(t) == "memory" for t in tools)
    return memory_provider_tools_enabled(
        getattr(agent, "enabled_toolsets", None),
        getattr(agent, "disabled_toolsets", None),
        memory_tool_present=present,
    )


def inject_memory_provider_tools(agent: Any) -> int:
    """Append the manager's provider tools to ``agent.tools``; return how many were added.

    The agent-like object carries ``tools`` (OpenAI-style list), ``_memory_manager`` and
    optionally ``valid_tool_names``. When the gate is closed nothing is added and the
    reason is logged once per call at INFO, so a provider never looks "half on" silently.
    """
    manager = getattr(agent, "_memory_manager", None)
    tools = getattr(agent, "tools", None)
    if manager is None or tools is None:
        return 0
    if not memory_provider_tools_exposed(agent):
        external = [p.name for p in manager.providers if p.name != "builtin"]
        if external:
            logger.info(
                "Memory provider(s) %s configured but the 'memory' toolset is off for this "
                "session; their tools and system-prompt block are withheld.",
                external,
            )
        return 0
    if getattr(agent, "valid_tool_names", None) is None:
        agent.valid_tool_names = set()
    present = {_tool_name(tool) for tool in tools}
    added = 0
    for schema in manager.get_all_tool_schemas():
        if schema["name"] in present:
            continue
        tools.append({"type": "function", "function": schema})
        agent.valid_tool_names.add(schema["name"])
        present.add(schema["name"])
        added += 1
    return added
