"""The memory-provider contract (spec §3): the ``MemoryProvider`` ABC and its helpers.

A provider gives the agent recall beyond the built-in MEMORY.md/USER.md stores. The
:class:`~hermes_memory.providers.manager.MemoryManager` fans every hook out to the
built-in provider plus at most one external provider. Only ``name``, ``is_available``,
``initialize`` and ``get_tool_schemas`` are abstract; every other hook has a no-op default
so a provider overrides only what it needs.
"""

from __future__ import annotations

import contextvars
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: The fail-closed pre-compress checkpoint contract a provider may opt into.
PRE_COMPRESS_CHECKPOINT_API_VERSION = 2

#: The glyph that leads the "recalled N memories" line unless a provider brings its own.
INDICATOR_GLYPH = "🧠"

#: The name reserved for the adapter over the built-in store.
BUILTIN_PROVIDER_NAME = "builtin"


@dataclass(frozen=True)
class RecallStatus:
    """What the last ``prefetch`` injected. ``count <= 0`` means "content, no discrete count"."""

    provider_label: str
    count: int
    glyph: str = INDICATOR_GLYPH


_TRIVIAL_WORDS = (
    "yes|no|ok|okay|sure|thanks|thank you|y|n|yep|nope|yeah|nah|hi|hey|hello|yo|sup|"
    "continue|go ahead|do it|proceed|got it|cool|nice|great|done|next|lgtm|k"
)
# After the word only whitespace and punctuation may follow (curly quotes, dashes, the
# ellipsis and NBSP included), so "k8s" or "note" never count as trivial.
_TRIVIAL_TAIL = (
    r"""[\s!?.:;,"'~`()\[\]{}<>*&^%$#@+=\-_/\\|\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00a0]*"""
)
TRIVIAL_PROMPT_RE = re.compile(rf"^(?:{_TRIVIAL_WORDS}){_TRIVIAL_TAIL}$", re.IGNORECASE)


def is_trivial_prompt(text: str | None) -> bool:
    """True for prompts with no recall signal: blank, slash commands, bare acknowledgements."""
    stripped = (text or "").strip()
    if not stripped or stripped.startswith("/"):
        return True
    return TRIVIAL_PROMPT_RE.match(stripped) is not None


def ctx_bound(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` bound to a copy of the caller's contextvars.

    The active home and the per-turn secret scope live in contextvars; work handed to
    another thread without them would silently act on the default profile.
    """
    context = contextvars.copy_context()

    def run_in_callers_context(*args: Any, **kwargs: Any) -> Any:
        return context.run(fn, *args, **kwargs)

    return run_in_callers_context


def spawn_context_thread(
    target: Callable[..., Any],
    *,
    name: str,
    daemon: bool = True,
    args: tuple = (),
    kwargs: dict[str, Any] | None = None,
) -> threading.Thread:
    """An unstarted thread running ``target`` under the spawner's contextvars."""
    return threading.Thread(
        target=ctx_bound(target), args=args, kwargs=kwargs or {}, name=name, daemon=daemon
    )


class MemoryProvider(ABC):
    """Base class for memory providers; see spec §3 for each hook's contract."""

    #: 1 = best-effort ``on_pre_compress``; 2 = the fail-closed checkpoint contract.
    pre_compress_checkpoint_api_version = 1

    # --- required ---------------------------------------------------------------------
    @property
    @abstractmethod
    def name(self) -> str:
        """Short identifier; ``"builtin"`` is reserved for the built-in store adapter."""

    @abstractmethod
    def is_available(self) -> bool:
        """Configured and ready. Check config and dependencies only, never the network."""

    @abstractmethod
    def initialize(self, session_id: str, **kwargs: Any) -> None:
        """Prepare for a session. ``kwargs`` always carry ``hermes_home`` and ``platform``."""

    @abstractmethod
    def get_tool_schemas(self) -> list[dict[str, Any]]:
        """Bare ``{name, description, parameters}`` schemas; ``[]`` for context-only providers."""

    # --- optional, with defaults --------------------------------------------------------
    def initialize_for_inspection(self, session_id: str, **kwargs: Any) -> None:
        """Load static state for prompt/schema inspection; by default a normal initialise."""
        self.initialize(session_id, **kwargs)

    def unavailable_reason(self) -> str:
        return ""

    def system_prompt_block(self) -> str:
        return ""

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        return ""

    def queue_prefetch(self, query: str, *, session_id: str = "") -> None:
        return None

    def recall_status(self) -> RecallStatus | None:
        return None

    def sync_turn(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
    ) -> None:
        return None

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        raise NotImplementedError(f"Provider {self.name} does not handle tool {tool_name}")

    def shutdown(self) -> None:
        return None

    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        return None

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        return None

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        return None

    def on_pre_compress(self, messages: list[dict[str, Any]]) -> str:
        return ""

    def on_delegation(
        self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any
    ) -> None:
        return None

    def get_config_schema(self) -> list[dict[str, Any]]:
        return []

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        return None

    def on_memory_write(
        self,
        action: str,
        target: str,
        content: str,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        return None

    def backup_paths(self) -> list[str]:
        return []
