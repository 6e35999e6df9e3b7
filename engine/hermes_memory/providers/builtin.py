"""``BuiltinMemoryProvider``: the built-in MEMORY.md/USER.md store as a provider (spec §5).

Always registered first and always available. It contributes the frozen snapshot blocks
to the system prompt and nothing else: it does no per-turn recall, and its ``memory``
tool is intercepted by the agent loop rather than routed through the manager.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .base import BUILTIN_PROVIDER_NAME, MemoryProvider

if TYPE_CHECKING:  # the store module is only needed when a store is built here
    from ..home import HermesHome
    from ..memory.store import MemoryStore


class BuiltinMemoryProvider(MemoryProvider):
    def __init__(
        self,
        memory_store: MemoryStore | None = None,
        memory_enabled: bool = False,
        user_profile_enabled: bool = False,
    ) -> None:
        self._store = memory_store
        self._memory_enabled = memory_enabled
        self._user_profile_enabled = user_profile_enabled

    @classmethod
    def for_home(cls, home: HermesHome) -> BuiltinMemoryProvider:
        """A provider over a new store for ``home``, enable flags from its config.yaml."""
        from ..config import load_memory_config
        from ..memory.store import MemoryStore

        config = load_memory_config(home)
        return cls(MemoryStore(home, config), config.memory_enabled, config.user_profile_enabled)

    # --- legacy accessors ---------------------------------------------------------------
    @property
    def store(self) -> MemoryStore | None:
        return self._store

    @property
    def memory_enabled(self) -> bool:
        return self._memory_enabled

    @property
    def user_profile_enabled(self) -> bool:
        return self._user_profile_enabled

    # --- provider contract ------------------------------------------------------------------
    @property
    def name(self) -> str:
        return BUILTIN_PROVIDER_NAME

    def is_available(self) -> bool:
        return True

    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Load both stores and freeze the snapshot for this session."""
        if self._store is not None:
            self._store.load_from_disk()

    def system_prompt_block(self) -> str:
        if self._store is None:
            return ""
        blocks = []
        if self._memory_enabled:
            blocks.append(self._store.format_for_system_prompt("memory"))
        if self._user_profile_enabled:
            blocks.append(self._store.format_for_system_prompt("user"))
        return "\n\n".join(block for block in blocks if block)

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return []  # the memory tool is the agent loop's, not a routed provider tool

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        return json.dumps({"error": "Built-in memory tool is handled by the agent loop"})
