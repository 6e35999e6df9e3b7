"""Where a Hermes home lives and where each file inside it is.

Resolution order: an explicit path, then ``$HERMES_HOME``, then the platform default
(``~/.hermes``; ``%LOCALAPPDATA%\\hermes`` on Windows). Named profiles live under
``<root>/profiles/<name>/`` and each is a complete home of its own.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .fileio import register_home

_PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class HomeError(ValueError):
    """A home or profile that cannot be used, with a message for a person."""


def default_root() -> Path:
    """The platform's default Hermes home, ignoring ``$HERMES_HOME``."""
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        if local:
            return Path(local) / "hermes"
    return Path.home() / ".hermes"


def resolve_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("HERMES_HOME", "").strip()
    if env:
        return Path(env).expanduser()
    return default_root()


def check_profile_name(name: str) -> str:
    if not _PROFILE_NAME.match(name or ""):
        raise HomeError(
            f"Invalid profile name {name!r}: use letters, digits, '.', '_' or '-' "
            "(at most 64 characters, no path separators)."
        )
    return name


@dataclass(frozen=True)
class HermesHome:
    """One Hermes home directory (the root home or a named profile)."""

    path: Path
    root: Path
    profile: str | None = None

    def __post_init__(self) -> None:
        register_home(self.root)  # writes under it follow links only within it (fileio)

    @classmethod
    def resolve(
        cls, explicit: str | os.PathLike[str] | None = None, profile: str | None = None
    ) -> HermesHome:
        root = resolve_root(explicit)
        if profile:
            return cls(root / "profiles" / check_profile_name(profile), root, profile)
        return cls(root, root, None)

    # --- profiles ---------------------------------------------------------------------
    def list_profiles(self) -> list[str]:
        """Names of the profiles under this home's root, sorted."""
        profiles_dir = self.root / "profiles"
        try:
            return sorted(
                entry.name
                for entry in profiles_dir.iterdir()
                if entry.is_dir() and _PROFILE_NAME.match(entry.name)
            )
        except OSError:
            return []

    def with_profile(self, profile: str | None) -> HermesHome:
        return HermesHome.resolve(self.root, profile)

    # --- state ------------------------------------------------------------------------
    def exists(self) -> bool:
        return self.path.is_dir()

    def require(self) -> HermesHome:
        """Raise :class:`HomeError` unless the home exists as a directory."""
        if not self.path.exists():
            raise HomeError(
                f"No Hermes home at {self.path}. Pass --home PATH, set HERMES_HOME, "
                "or run the agent once to create it."
            )
        if not self.path.is_dir():
            raise HomeError(f"{self.path} is not a directory, so it cannot be a Hermes home.")
        return self

    def has_hermes_files(self) -> bool:
        """True when the folder holds anything a Hermes agent keeps there (memories/,
        skills/, config.yaml, state.db, .env): to catch a folder opened by mistake."""
        return any(
            path.exists()
            for path in (self.memories_dir, self.skills_dir, self.config_file, self.state_db, self.env_file)
        )

    @property
    def label(self) -> str:
        return f"{self.root} (profile {self.profile})" if self.profile else str(self.path)

    # --- paths named by the specs -----------------------------------------------------
    @property
    def memories_dir(self) -> Path:
        return self.path / "memories"

    @property
    def memory_file(self) -> Path:
        return self.memories_dir / "MEMORY.md"

    @property
    def user_file(self) -> Path:
        return self.memories_dir / "USER.md"

    @property
    def memory_archive(self) -> Path:
        return self.memories_dir / "ARCHIVE.jsonl"

    @property
    def config_file(self) -> Path:
        return self.path / "config.yaml"

    @property
    def env_file(self) -> Path:
        return self.path / ".env"

    @property
    def state_db(self) -> Path:
        return self.path / "state.db"

    @property
    def memory_store_db(self) -> Path:
        return self.path / "memory_store.db"

    @property
    def skills_dir(self) -> Path:
        return self.path / "skills"

    @property
    def skills_usage_file(self) -> Path:
        return self.skills_dir / ".usage.json"

    @property
    def skills_archive_dir(self) -> Path:
        return self.skills_dir / ".archive"

    @property
    def hub_lock_file(self) -> Path:
        return self.skills_dir / ".hub" / "lock.json"

    @property
    def bundled_manifest(self) -> Path:
        return self.skills_dir / ".bundled_manifest"

    @property
    def curator_suppressed(self) -> Path:
        return self.skills_dir / ".curator_suppressed"

    @property
    def skill_bundles_dir(self) -> Path:
        return self.path / "skill-bundles"

    @property
    def skills_prompt_snapshot(self) -> Path:
        return self.path / ".skills_prompt_snapshot.json"

    @property
    def plugins_dir(self) -> Path:
        return self.path / "plugins"

    def store_file(self, target: str) -> Path:
        """The file behind a memory tool target (``memory`` or ``user``)."""
        if target == "memory":
            return self.memory_file
        if target == "user":
            return self.user_file
        raise HomeError(f"Invalid target '{target}'. Use 'memory' or 'user'.")
