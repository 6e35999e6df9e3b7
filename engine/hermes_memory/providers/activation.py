"""Session start (spec §6 step 1): a manager with the built-in provider and the configured one.

``memory.provider`` in config.yaml names at most one external provider. A provider that
cannot be found, fails to load, or reports itself unavailable is skipped with a warning;
the built-in memory keeps working either way.
"""

from __future__ import annotations

import logging

from ..config import get_config_value, load_memory_config
from ..home import HermesHome
from .base import BUILTIN_PROVIDER_NAME, MemoryProvider
from .builtin import BuiltinMemoryProvider
from .discovery import ProviderLoadError, find_provider, load_provider
from .manager import DEFAULT_EXTERNAL_PREFETCH_TIMEOUT_S, MemoryManager

logger = logging.getLogger(__name__)

EXTERNAL_PREFETCH_TIMEOUT_KEY = "memory.external_prefetch_timeout"


def load_external_prefetch_timeout(home: HermesHome) -> float:
    """``memory.external_prefetch_timeout`` in seconds; the 8 s default when unset or invalid.

    A too-short timeout silently disables recall (issue #61800), so it is configurable
    rather than fixed, and a bad value falls back to the default with a warning.
    """
    value = get_config_value(home, EXTERNAL_PREFETCH_TIMEOUT_KEY)
    if value is None:
        return DEFAULT_EXTERNAL_PREFETCH_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        logger.warning(
            "%s should be a positive number of seconds, not %r; using %.0f.",
            EXTERNAL_PREFETCH_TIMEOUT_KEY,
            value,
            DEFAULT_EXTERNAL_PREFETCH_TIMEOUT_S,
        )
        return DEFAULT_EXTERNAL_PREFETCH_TIMEOUT_S
    return float(value)


def load_configured_provider(home: HermesHome, name: str | None = None) -> MemoryProvider | None:
    """The external provider named by ``name`` (default: ``memory.provider``), ready to add.

    ``None``, with a warning that says why, when none is configured, it is not found,
    it fails to load, or it is not available.
    """
    name = load_memory_config(home).provider if name is None else name.strip()
    if not name or name == BUILTIN_PROVIDER_NAME:
        return None
    info = find_provider(name, home)
    if info is None:
        logger.warning(
            "Memory provider '%s' is configured but was not found; using built-in memory only.",
            name,
        )
        return None
    try:
        provider = load_provider(info, home)
    except ProviderLoadError as exc:
        logger.warning("%s; using built-in memory only.", exc)
        return None
    try:
        available = provider.is_available()
        reason = "" if available else provider.unavailable_reason()
    except Exception as exc:  # a provider's own check must not stop the session
        available, reason = False, str(exc)
    if not available:
        hint = f" ({reason})" if reason else ""
        logger.warning(
            "Memory provider '%s' is not available%s; using built-in memory only.", name, hint
        )
        return None
    return provider


def create_memory_manager(
    home: HermesHome, *, builtin: BuiltinMemoryProvider | None = None
) -> MemoryManager:
    """A manager for ``home``: the built-in provider first, then the configured external one.

    Call ``initialize_all(session_id, platform=...)`` on the result to start the session.
    """
    manager = MemoryManager(
        external_prefetch_timeout=load_external_prefetch_timeout(home), hermes_home=home
    )
    manager.add_provider(builtin or BuiltinMemoryProvider.for_home(home))
    external = load_configured_provider(home)
    if external is not None:
        try:
            manager.add_provider(external)
        except Exception as exc:  # a schema failure leaves built-in memory working
            logger.warning("Memory provider '%s' could not be registered: %s", external.name, exc)
    return manager
