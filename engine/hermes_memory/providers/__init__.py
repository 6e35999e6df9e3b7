"""Memory providers: the contract, the manager that fans hooks out, fencing and discovery.

* :mod:`.base` — ``MemoryProvider`` ABC, ``RecallStatus``, trivial-prompt test (spec §3).
* :mod:`.manager` — ``MemoryManager``: builtin + one external provider (spec §4).
* :mod:`.fencing` — ``<memory-context>`` blocks and the streaming scrubber (spec §4.5).
* :mod:`.redaction` — secret scrubbing before provider egress (spec §4.6).
* :mod:`.builtin` — ``BuiltinMemoryProvider`` over the MEMORY.md/USER.md store (spec §5).
* :mod:`.discovery`, :mod:`.activation` — finding, loading and activating providers (spec §6, §7).
* :mod:`.plugins.holographic` — the bundled local fact-store provider (spec §10).
* :mod:`.commands` — ``hermes-memory provider status|list|setup|off``.
"""

from __future__ import annotations

from .activation import (
    create_memory_manager,
    load_configured_provider,
    load_external_prefetch_timeout,
)
from .base import (
    INDICATOR_GLYPH,
    PRE_COMPRESS_CHECKPOINT_API_VERSION,
    TRIVIAL_PROMPT_RE,
    MemoryProvider,
    RecallStatus,
    ctx_bound,
    is_trivial_prompt,
    spawn_context_thread,
)
from .builtin import BuiltinMemoryProvider
from .discovery import (
    ENTRY_POINT_GROUP,
    ProviderInfo,
    ProviderLoadError,
    discover_providers,
    find_provider,
    load_provider,
)
from .fencing import (
    SYSTEM_NOTE,
    StreamingContextScrubber,
    build_memory_context_block,
    sanitize_context,
)
from .manager import MemoryManager
from .redaction import EgressRedactor, redact_for_egress, redact_for_provider
from .tools import (
    CORE_TOOL_NAMES,
    inject_memory_provider_tools,
    memory_provider_tools_enabled,
    memory_provider_tools_exposed,
    normalize_tool_schema,
    tool_error,
)

__all__ = [
    "CORE_TOOL_NAMES",
    "ENTRY_POINT_GROUP",
    "INDICATOR_GLYPH",
    "PRE_COMPRESS_CHECKPOINT_API_VERSION",
    "SYSTEM_NOTE",
    "TRIVIAL_PROMPT_RE",
    "BuiltinMemoryProvider",
    "EgressRedactor",
    "MemoryManager",
    "MemoryProvider",
    "ProviderInfo",
    "ProviderLoadError",
    "RecallStatus",
    "StreamingContextScrubber",
    "build_memory_context_block",
    "create_memory_manager",
    "ctx_bound",
    "discover_providers",
    "find_provider",
    "inject_memory_provider_tools",
    "is_trivial_prompt",
    "load_configured_provider",
    "load_external_prefetch_timeout",
    "load_provider",
    "memory_provider_tools_enabled",
    "memory_provider_tools_exposed",
    "normalize_tool_schema",
    "redact_for_egress",
    "redact_for_provider",
    "sanitize_context",
    "spawn_context_thread",
    "tool_error",
]
