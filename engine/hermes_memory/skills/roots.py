"""Where skills live, who owns them, and the path rules that keep us inside a root.

Three kinds of root, scanned in this order (the first skill seen with a name wins):

``base``
    The agent's bundled skills (``<agent repo>/skills``). We cannot know where the agent
    is installed, so the directory is a setting: ``skills.base_dir`` in config.yaml
    (``~`` and ``$VARS`` expanded, relative paths taken from the home). Unset means none.
``profile``
    ``<home>/skills``: everything the agent or the person created, plus copies of the
    bundled skills the agent seeded there (listed in ``.bundled_manifest``; those count
    as base too) and hub installs (listed in ``.hub/lock.json``).
``external``
    ``skills.external_dirs`` from config.yaml: read-only to us, as to the curator.

A configured root that would make a scan walk far more than skills (the filesystem
root, the user's home folder, or any folder that holds it or the Hermes home) is
refused with a warning, and every walk is bounded (:data:`MAX_WALK_DEPTH` folders deep,
:data:`MAX_WALK_DIRS` folders per root): a mistyped setting must not make every command
crawl the disk.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..home import HermesHome
from ..safe_load import RECORD_LIMITS, UnsafeDocument, load_json_file, read_bounded

BASE = "base"
PROFILE = "profile"
EXTERNAL = "external"

#: Directories never scanned for skills (the agent's list, plus its newer ``.locks``).
EXCLUDED_DIRS = frozenset(
    {
        ".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules",
        "site-packages", "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache",
        ".ruff_cache", ".locks",
        ".worktrees",  # git worktrees of a skill under development: copies, not skills
    }
)
#: A skill's own support folders: their SKILL.md files are documents, not skills.
SUPPORT_DIRS = frozenset({"references", "templates", "scripts", "assets"})
#: Built-ins that back agent features and are never archived.
PROTECTED_SKILLS = frozenset({"plan"})

BASE_DIR_KEY = "skills.base_dir"
EXTERNAL_DIRS_KEY = "skills.external_dirs"
#: Skills sit at ``[<category>/...]<skill>/SKILL.md``; nothing real is deeper than this.
MAX_WALK_DEPTH = 10
#: External skill folders scanned at most (each is a root walked on every scan).
MAX_EXTERNAL_DIRS = 64
#: Folders one scan visits per root before it stops with a warning.
MAX_WALK_DIRS = 200_000


@dataclass(frozen=True)
class SkillRoot:
    label: str  # BASE, PROFILE or EXTERNAL
    path: Path

    @property
    def real(self) -> str:
        return os.path.realpath(self.path)


def _section(config: dict[str, Any], name: str) -> dict[str, Any]:
    section = config.get(name) if isinstance(config, dict) else None
    return section if isinstance(section, dict) else {}


def _configured_path(home: HermesHome, value: Any) -> Path | None:
    if not isinstance(value, str) or not value.strip():
        return None
    path = Path(os.path.expandvars(os.path.expanduser(value.strip())))
    return path if path.is_absolute() else home.path / path


def skill_roots(home: HermesHome, config: dict[str, Any]) -> list[SkillRoot]:
    """The roots to scan, in priority order, without duplicates (by real path)."""
    return skill_roots_checked(home, config)[0]


def broad_root_reason(home: HermesHome, path: Path) -> str | None:
    """Why ``path`` is too broad to scan for skills, or None."""
    real = os.path.realpath(path)
    if os.path.dirname(real) == real:
        return f"{path} is the root of the filesystem"
    user_home = os.path.realpath(os.path.expanduser("~"))
    for other, label in ((user_home, "your home folder"), (os.path.realpath(home.path), "the Hermes home")):
        if other == real:
            return f"{path} is {label} itself"
        if is_strictly_inside(other, real):
            return f"{path} holds {label} ({other})"
    return None


def skill_roots_checked(home: HermesHome, config: dict[str, Any]) -> tuple[list[SkillRoot], list[str]]:
    """:func:`skill_roots` and a warning for each configured root refused as too broad."""
    warnings: list[str] = []
    skills = _section(config, "skills")
    candidates: list[SkillRoot] = []
    base = _configured_path(home, skills.get("base_dir"))
    if base is not None:
        candidates.append(SkillRoot(BASE, base))
    candidates.append(SkillRoot(PROFILE, home.skills_dir))
    external = skills.get("external_dirs") or []
    if isinstance(external, str):
        external = [external]
    if isinstance(external, list):
        if len(external) > MAX_EXTERNAL_DIRS:
            warnings.append(
                f"{EXTERNAL_DIRS_KEY} lists {len(external):,} folders; only the first "
                f"{MAX_EXTERNAL_DIRS} are scanned."
            )
            external = external[:MAX_EXTERNAL_DIRS]
        for value in external:
            path = _configured_path(home, value)
            if path is not None:
                candidates.append(SkillRoot(EXTERNAL, path))
    roots: list[SkillRoot] = []
    seen: set[str] = set()
    for root in candidates:
        if root.label != PROFILE:
            reason = broad_root_reason(home, root.path)
            if reason:
                key = BASE_DIR_KEY if root.label == BASE else EXTERNAL_DIRS_KEY
                warnings.append(
                    f"{key}: {reason}; scanning it would walk far more than skills, so it "
                    "is skipped. Point it at a folder of skills."
                )
                continue
        if root.real not in seen:
            seen.add(root.real)
            roots.append(root)
    return roots, warnings


def prune_builtins_enabled(config: dict[str, Any]) -> bool:
    """``curator.prune_builtins``. Off unless set: we never touch bundled skills unasked.

    (The agent defaults it to true; a companion app that archives built-ins nobody asked
    it to is the worse surprise.)
    """
    return _section(config, "curator").get("prune_builtins") is True


def read_bundled_manifest(home: HermesHome) -> frozenset[str]:
    """Names in ``.bundled_manifest`` (one ``name:hash`` per line); empty if unreadable."""
    try:
        text = read_bounded(home.bundled_manifest, RECORD_LIMITS.max_bytes).decode("utf-8", "replace")
    except (OSError, UnsafeDocument):
        return frozenset()
    names = (line.split(":", 1)[0].strip() for line in text.splitlines())
    return frozenset(name for name in names if name)


@dataclass(frozen=True)
class HubLock:
    names: frozenset[str]  # keys of "installed"
    install_dirs: frozenset[str]  # normalised install_path dirs inside the skills dir


def read_hub_lock(home: HermesHome) -> HubLock:
    try:
        data = load_json_file(home.hub_lock_file, RECORD_LIMITS)
    except (OSError, UnsafeDocument):
        return HubLock(frozenset(), frozenset())
    installed = data.get("installed") if isinstance(data, dict) else None
    if not isinstance(installed, dict):
        return HubLock(frozenset(), frozenset())
    dirs = set()
    for entry in installed.values():
        value = entry.get("install_path") if isinstance(entry, dict) else None
        if isinstance(value, str) and value.strip():
            path = Path(value)
            if not path.is_absolute():
                path = home.skills_dir / path
            norm = os.path.normpath(path)
            if is_strictly_inside(norm, os.path.normpath(home.skills_dir)):
                dirs.add(norm)
    return HubLock(frozenset(str(name) for name in installed), frozenset(dirs))


# --- path safety ------------------------------------------------------------------------
def is_strictly_inside(real_path: str, real_root: str) -> bool:
    """Both arguments are real paths; True when the path is below (not at) the root."""
    return real_path != real_root and real_path.startswith(real_root.rstrip(os.sep) + os.sep)


def unsafe_name_reason(name: str) -> str | None:
    """Why an identifier from outside (a node id, a CLI argument) cannot name a skill."""
    if not isinstance(name, str) or not name.strip():
        return "a skill name is required"
    if name != name.strip() or name in (".", "..") or "\x00" in name:
        return f"'{name}' is not a skill name"
    if "/" in name or "\\" in name or os.path.isabs(name) or ":" in name:
        return f"'{name}' is not a skill name (no paths or ':' in skill names)"
    return None


def directory_escape_reason(directory: Path, root: Path) -> str | None:
    """Why we must not move or rewrite ``directory``, or None when it is a plain folder
    strictly inside ``root``."""
    if directory.is_symlink():
        return f"{directory} is a symbolic link; refusing to move or rewrite through it"
    real_root = os.path.realpath(root)
    real = os.path.realpath(directory)
    if real == real_root:
        return f"{directory} is the skills root itself; refusing"
    if not is_strictly_inside(real, real_root):
        return f"{directory} is outside {root}; refusing"
    return None
