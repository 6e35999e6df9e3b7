"""Builds realistic Hermes homes for the skills and learning-graph tests.

Loaded by path from both test folders' conftest files (the test tree has no packages).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from hermes_memory.home import HermesHome
from hermes_memory.memory.entries import ENTRY_DELIMITER

#: File times (epoch seconds) of the learning-graph tests' realistic home.
MEMORY_MTIME = 1_780_000_000
USER_MTIME = 1_780_000_500
SKILL_MTIME = 1_770_000_000
#: A time safely in the past, so the index's "racy mtime" re-checks do not kick in.
SETTLED_NS = (int(time.time()) - 3600) * 1_000_000_000


def skill_text(
    name: str | None,
    description: str = "Do the thing well",
    *,
    category: str | None = None,
    related: list[str] | None = None,
    tags: list[str] | None = None,
    extra: str = "",
    body: str = "# Title\n\nWhen to use: always.\n",
) -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if category is not None:
        lines.append(f"category: {category}")
    if related is not None or tags is not None:
        lines += ["metadata:", "  hermes:"]
        if tags is not None:
            lines.append(f"    tags: [{', '.join(tags)}]")
        if related is not None:
            lines.append(f"    related_skills: [{', '.join(related)}]")
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    return "\n".join(lines) + "\n" + body


class HomeBuilder:
    def __init__(self, home: HermesHome) -> None:
        self.home = home
        home.skills_dir.mkdir(parents=True, exist_ok=True)

    # --- skills ------------------------------------------------------------------------
    def skill(
        self,
        rel: str,
        name: str | None = "",
        *,
        root: Path | None = None,
        text: str | None = None,
        raw: bytes | None = None,
        **fields,
    ) -> Path:
        """Write ``<root>/<rel>/SKILL.md``; ``name=""`` means "the directory name"."""
        directory = (root or self.home.skills_dir) / rel
        directory.mkdir(parents=True, exist_ok=True)
        if raw is None:
            if text is None:
                text = skill_text(Path(rel).name if name == "" else name, **fields)
            raw = text.encode("utf-8")
        (directory / "SKILL.md").write_bytes(raw)
        return directory

    def usage(self, records: dict) -> None:
        self.home.skills_usage_file.write_text(
            json.dumps(records, indent=2, sort_keys=True), encoding="utf-8"
        )

    def usage_data(self) -> dict:
        return json.loads(self.home.skills_usage_file.read_text(encoding="utf-8"))

    def config(self, text: str) -> None:
        self.home.config_file.write_text(text, encoding="utf-8")

    def manifest(self, *names: str) -> None:
        self.home.bundled_manifest.write_text(
            "".join(f"{name}:0123abcd\n" for name in names), encoding="utf-8"
        )

    def hub(self, installed: dict) -> None:
        self.home.hub_lock_file.parent.mkdir(parents=True, exist_ok=True)
        self.home.hub_lock_file.write_text(json.dumps({"installed": installed}), encoding="utf-8")

    # --- memory ------------------------------------------------------------------------
    def memory(self, target: str, entries: list[str]) -> Path:
        path = self.home.store_file(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ENTRY_DELIMITER.join(entries), encoding="utf-8")
        return path

    # --- time --------------------------------------------------------------------------
    def settle(self, *roots: Path, offset_s: int = 0) -> None:
        """Move every mtime under the roots about an hour back (plus ``offset_s``), as on a
        home nobody is writing to."""
        stamp = SETTLED_NS + offset_s * 1_000_000_000
        for top in roots or (self.home.path,):
            for dirpath, dirnames, filenames in os.walk(top):
                for name in filenames + dirnames:
                    path = os.path.join(dirpath, name)
                    if not os.path.islink(path):
                        os.utime(path, ns=(stamp, stamp))
                os.utime(dirpath, ns=(stamp, stamp))


def tree(root: Path) -> list[str]:
    """Every path under ``root`` (relative, POSIX, directories marked with '/'), sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        for name in dirnames:
            out.append(os.path.normpath(os.path.join(rel, name)).replace(os.sep, "/") + "/")
        for name in filenames:
            out.append(os.path.normpath(os.path.join(rel, name)).replace(os.sep, "/"))
    return sorted(out)
