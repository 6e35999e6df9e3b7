"""Finding and loading memory providers (spec §7.1).

Providers are looked for in four places, and the first one seen under a name wins:

1. bundled with this engine: ``hermes_memory/providers/plugins/<name>/``;
2. the home: ``<home>/plugins/<name>/``;
3. the project: ``./.hermes/plugins/<name>/``, only with ``HERMES_ENABLE_PROJECT_PLUGINS=1``;
4. installed packages: entry points in the group ``hermes_agent.memory_providers``.

A folder counts as a provider when its ``__init__.py`` mentions ``register_memory_provider``
or ``MemoryProvider``; ``plugin.yaml`` beside it may give ``name``, ``version`` and
``description``. A folder laid out as an installed package (``plugin.yaml`` at its root,
the code in a package subfolder such as ``plugins/mimir/hermes_mimir/__init__.py``, no
root ``__init__.py``) counts too: the subfolder named after the plugin (``-`` read as
``_``, optionally ``hermes_`` first) is preferred, else the first one in name order
that declares a provider. The provider keeps the plugin folder's name. A folder that
is neither (no ``__init__.py``, no ``plugin.yaml``) is a category, as the agent's plugin
loader reads ``plugins/<category>/<name>/``, and is looked into one level. Discovery only
reads files: no plugin code runs until :func:`load_provider` is asked for one by name.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import logging
import os
import re
import sys
import types
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from ..home import HermesHome
from ..safe_load import PLUGIN_LIMITS, UnsafeDocument, load_yaml_file
from .base import MemoryProvider

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hermes_agent.memory_providers"
PROJECT_PLUGINS_ENV = "HERMES_ENABLE_PROJECT_PLUGINS"
BUNDLED_PLUGINS_DIR = Path(__file__).resolve().parent / "plugins"
_BUNDLED_PACKAGE = __package__ + ".plugins"
_PROVIDER_MARKERS = ("register_memory_provider", "MemoryProvider")
#: How much of an ``__init__.py`` is searched for the markers.
_MARKER_BYTES = 64 * 1024
_SOURCES = ("bundled", "user", "project", "entry_point")


class ProviderLoadError(RuntimeError):
    """A discovered provider could not be imported or instantiated."""


@dataclass(frozen=True)
class ProviderInfo:
    """One discovered provider, before any of its code has run."""

    name: str
    source: str  # bundled | user | project | entry_point
    path: Path | None = None
    entry_point: str | None = None  # "module:attr" for pip-installed providers
    version: str = ""
    description: str = ""
    package: Path | None = None  # the folder whose __init__.py is imported, when not path

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path) if self.path else None
        data["package"] = str(self.package) if self.package else None
        return data

    @property
    def code_dir(self) -> Path | None:
        return self.package or self.path


def _project_plugins_enabled() -> bool:
    return os.environ.get(PROJECT_PLUGINS_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def _read_plugin_yaml(folder: Path) -> dict[str, Any]:
    path = folder / "plugin.yaml"
    try:
        data = load_yaml_file(path, PLUGIN_LIMITS)
    except FileNotFoundError:
        return {}
    except (UnsafeDocument, Exception) as exc:  # bad metadata must not hide the provider
        logger.warning("Ignoring unreadable %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _is_provider_folder(folder: Path) -> bool:
    try:
        with open(folder / "__init__.py", "rb") as handle:
            head = handle.read(_MARKER_BYTES)
    except OSError:
        return False
    text = head.decode("utf-8", errors="replace")
    return any(marker in text for marker in _PROVIDER_MARKERS)


def _provider_code_dir(folder: Path) -> Path | None:
    """The folder holding the provider's ``__init__.py``: the plugin folder itself, or,
    with no root ``__init__.py``, a package subfolder (see the module docstring)."""
    if (folder / "__init__.py").exists():
        return folder if _is_provider_folder(folder) else None
    if not (folder / "plugin.yaml").is_file():
        return None  # a package layout has its plugin.yaml at the root
    try:
        packages = sorted(
            child
            for child in folder.iterdir()
            if child.is_dir() and not child.name.startswith((".", "_")) and _is_provider_folder(child)
        )
    except OSError:
        return None
    if not packages:
        return None
    stem = folder.name.replace("-", "_")
    preferred = {stem, f"hermes_{stem}"}
    return next((child for child in packages if child.name in preferred), packages[0])


def _scan_folder(root: Path, source: str, *, nested: bool = True) -> list[ProviderInfo]:
    """Providers in ``root``; with ``nested``, a folder that is neither a plugin nor has
    a ``plugin.yaml`` is a category (``plugins/memory/<name>/``, as the agent's plugin
    loader reads them) and its folders are looked at too, one level down."""
    try:
        children = sorted(child for child in root.iterdir() if child.is_dir())
    except OSError:
        return []
    found = []
    for folder in children:
        if folder.name.startswith((".", "_")):
            continue
        code_dir = _provider_code_dir(folder)
        if code_dir is None:
            if nested and not (folder / "plugin.yaml").exists() and not (folder / "__init__.py").exists():
                # a category folder, not a plugin
                found += _scan_folder(folder, source, nested=False)
            continue
        meta = _read_plugin_yaml(folder)
        found.append(
            ProviderInfo(
                name=folder.name,
                source=source,
                path=folder,
                version=_meta_text(meta.get("version")),
                description=_meta_text(meta.get("description")),
                package=None if code_dir == folder else code_dir,
            )
        )
    return found


def _meta_text(value: Any) -> str:
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value)[:1000]


def _entry_points() -> list[Any]:
    try:
        return list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # a broken install must not break discovery
        logger.warning("Could not read %s entry points: %s", ENTRY_POINT_GROUP, exc)
        return []


def _scan_entry_points() -> list[ProviderInfo]:
    found = []
    for entry_point in _entry_points():
        dist = getattr(entry_point, "dist", None)
        found.append(
            ProviderInfo(
                name=entry_point.name,
                source="entry_point",
                entry_point=entry_point.value,
                version=str(getattr(dist, "version", "") or ""),
            )
        )
    return found


def discover_providers(
    home: HermesHome | None = None, *, cwd: str | os.PathLike[str] | None = None
) -> list[ProviderInfo]:
    """Every discoverable provider, first-seen wins, in precedence order."""
    home = home or HermesHome.resolve()
    candidates = _scan_folder(BUNDLED_PLUGINS_DIR, "bundled")
    candidates += _scan_folder(home.plugins_dir, "user")
    if _project_plugins_enabled():
        project = Path(cwd) if cwd is not None else Path.cwd()
        candidates += _scan_folder(project / ".hermes" / "plugins", "project")
    candidates += _scan_entry_points()
    seen: dict[str, ProviderInfo] = {}
    for info in candidates:
        if info.name in seen:
            logger.debug(
                "Memory provider '%s' from %s is shadowed by the %s one",
                info.name,
                info.source,
                seen[info.name].source,
            )
            continue
        seen[info.name] = info
    return list(seen.values())


def find_provider(
    name: str, home: HermesHome | None = None, *, cwd: str | os.PathLike[str] | None = None
) -> ProviderInfo | None:
    return next((info for info in discover_providers(home, cwd=cwd) if info.name == name), None)


# --- loading --------------------------------------------------------------------------------
class ProviderRegistrationContext:
    """What a plugin's ``register(ctx)`` receives.

    Only memory providers are collected; other ``register_*`` calls a general-purpose
    plugin may make (hooks, commands) are accepted and ignored.
    """

    def __init__(self, home: HermesHome) -> None:
        self.home = home
        self.hermes_home = str(home.path)
        self.providers: list[MemoryProvider] = []

    def register_memory_provider(self, provider: MemoryProvider) -> None:
        if not isinstance(provider, MemoryProvider):
            raise TypeError(f"{provider!r} is not a MemoryProvider")
        self.providers.append(provider)

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("register_"):
            return lambda *args, **kwargs: None
        raise AttributeError(attribute)


def _first_provider_class(module: types.ModuleType) -> type[MemoryProvider] | None:
    prefix = module.__name__ + "."
    for value in vars(module).values():
        if (
            inspect.isclass(value)
            and issubclass(value, MemoryProvider)
            and value is not MemoryProvider
            and not inspect.isabstract(value)
            and (value.__module__ == module.__name__ or value.__module__.startswith(prefix))
        ):
            return value
    return None


def _provider_from(obj: Any, home: HermesHome, label: str) -> MemoryProvider:
    """A provider from a module, a provider class or instance, or a ``register`` function."""
    if isinstance(obj, MemoryProvider):
        return obj
    if inspect.isclass(obj) and issubclass(obj, MemoryProvider):
        return obj()
    register = getattr(obj, "register", None) if isinstance(obj, types.ModuleType) else obj
    if callable(register):
        ctx = ProviderRegistrationContext(home)
        returned = register(ctx)
        if ctx.providers:
            return ctx.providers[0]
        if isinstance(returned, MemoryProvider):
            return returned
    if isinstance(obj, types.ModuleType):
        cls = _first_provider_class(obj)
        if cls is not None:
            return cls()
    raise ProviderLoadError(f"{label} does not register or define a memory provider")


#: Folder plugins are imported under this prefix, one namespace per folder.
PLUGIN_MODULE_PREFIX = "_hermes_memory_plugin_"


def _module_name_for(info: ProviderInfo) -> str:
    # The folder's path is part of the name: two homes (profiles) may hold different
    # plugins of the same name, and their submodules must not share sys.modules entries.
    digest = hashlib.sha1(str(info.path).encode(), usedforsecurity=False).hexdigest()[:10]
    safe_name = re.sub(r"[^A-Za-z0-9_]", "_", info.name)
    return f"{PLUGIN_MODULE_PREFIX}{info.source}_{safe_name}_{digest}"


def _import_folder(info: ProviderInfo) -> types.ModuleType:
    code_dir = info.code_dir
    assert code_dir is not None
    module_name = _module_name_for(info)
    init_file = code_dir / "__init__.py"
    loaded = sys.modules.get(module_name)
    if loaded is not None and Path(getattr(loaded, "__file__", "") or "") == init_file:
        return loaded
    spec = importlib.util.spec_from_file_location(
        module_name, init_file, submodule_search_locations=[str(code_dir)]
    )
    if spec is None or spec.loader is None:
        raise ProviderLoadError(f"Cannot import the memory provider at {info.path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # before exec, so relative imports inside resolve
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _load_target(info: ProviderInfo) -> Any:
    if info.source == "bundled":
        return importlib.import_module(f"{_BUNDLED_PACKAGE}.{info.name}")
    if info.source in ("user", "project"):
        return _import_folder(info)
    if info.source == "entry_point":
        entry_point = next((ep for ep in _entry_points() if ep.name == info.name), None)
        if entry_point is None:
            raise ProviderLoadError(f"Entry point '{info.name}' is no longer installed")
        return entry_point.load()
    raise ProviderLoadError(f"Unknown provider source {info.source!r}")


def load_provider(info: ProviderInfo | str, home: HermesHome | None = None) -> MemoryProvider:
    """Import and instantiate one discovered provider; :class:`ProviderLoadError` on failure."""
    home = home or HermesHome.resolve()
    if isinstance(info, str):
        found = find_provider(info, home)
        if found is None:
            raise ProviderLoadError(f"No memory provider named '{info}' was found")
        info = found
    label = f"Memory provider '{info.name}' ({info.source})"
    try:
        return _provider_from(_load_target(info), home, label)
    except ProviderLoadError:
        raise
    except Exception as exc:  # plugin code can fail in any way
        raise ProviderLoadError(f"{label} failed to load: {exc}") from exc
