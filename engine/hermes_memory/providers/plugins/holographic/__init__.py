"""The ``holographic`` memory provider, compatible with upstream's bundled plugin (spec §10).

A local structured fact store: SQLite with FTS5, entity resolution, trust feedback and
holographic (HRR) vectors for entity-level recall, with a keyword fallback when NumPy is
missing. Discovery finds this folder as a bundled provider; ``register(ctx)`` hands a
``MemoryProvider`` to ``ctx.register_memory_provider``.
"""

from __future__ import annotations

from typing import Any

from .provider import (
    CONFIG_KEY,
    FACT_FEEDBACK_SCHEMA,
    FACT_STORE_SCHEMA,
    PROVIDER_NAME,
    HolographicMemoryProvider,
    is_truthy_value,
    load_plugin_config,
    resolve_db_path,
)
from .retrieval import FactRetriever
from .store import FactStore


def register(ctx: Any) -> None:
    """Plugin entry point: register one provider for the context's home."""
    ctx.register_memory_provider(HolographicMemoryProvider(home=getattr(ctx, "home", None)))


__all__ = [
    "CONFIG_KEY",
    "FACT_FEEDBACK_SCHEMA",
    "FACT_STORE_SCHEMA",
    "PROVIDER_NAME",
    "FactRetriever",
    "FactStore",
    "HolographicMemoryProvider",
    "is_truthy_value",
    "load_plugin_config",
    "register",
    "resolve_db_path",
]
