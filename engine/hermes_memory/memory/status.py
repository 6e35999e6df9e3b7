"""A read-only picture of one store for displays: entries, usage, drift, read errors.

Used by the CLI ``status`` command and the desktop's capacity meters, so both count
exactly as the agent does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import entries as fmt

if TYPE_CHECKING:
    from ..config import MemoryConfig
    from ..home import HermesHome


@dataclass(frozen=True)
class StoreStatus(fmt.BudgetUse):
    target: str
    path: Path
    limit: int
    enabled: bool
    exists: bool = False
    entries: tuple[str, ...] = ()
    raw: str = ""
    error: str | None = None
    drift: str | None = None
    damage: str | None = None  # entries holding characters no entry may hold
    identity: tuple[int, int] | None = None

    @property
    def used(self) -> int:
        return fmt.char_count(self.entries)

    @property
    def file_name(self) -> str:
        return fmt.FILE_NAMES[self.target]

    def as_dict(self) -> dict:
        summary = {
            "file": str(self.path),
            "enabled": self.enabled,
            "limit": self.limit,
            "exists": self.exists,
        }
        if self.error:
            return {**summary, "error": self.error}
        return {
            **summary,
            "entries": len(self.entries),
            "used": self.used,
            "percent": self.percent,
            "over_budget": self.over_budget,
            "drift": self.drift,
            "damage": self.damage,
        }


def read_store_status(
    home: HermesHome, target: str, config: MemoryConfig | None = None
) -> StoreStatus:
    """Read one store now. Never raises for a bad file: the error is in the status."""
    # Imported here: the desktop's views hold StoreStatus values without reading a store
    # themselves, and need not load the config reader and the store on start-up.
    from ..config import load_memory_config
    from .store import StoreReadError, damage_message, detect_drift, read_store_file

    config = config if config is not None else load_memory_config(home)
    base = StoreStatus(
        target=target,
        path=home.store_file(target),
        limit=config.limit_for(target),
        enabled=config.enabled_for(target),
    )
    try:
        store_file = read_store_file(base.path)
    except StoreReadError as exc:
        return StoreStatus(**{**base.__dict__, "exists": True, "error": str(exc)})
    return StoreStatus(
        **{
            **base.__dict__,
            "exists": store_file.exists,
            "entries": tuple(store_file.entries),
            "raw": store_file.raw,
            "drift": detect_drift(store_file, base.limit),
            "damage": damage_message(store_file),
            "identity": store_file.identity,
        }
    )
