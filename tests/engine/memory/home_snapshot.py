"""Byte-level snapshots of a folder tree, to prove a command changed nothing on disk.

Every entry is recorded without following links: a regular file by its bytes and mode, a
link by its target, a folder, FIFO, socket or device by its kind (never opened, so a FIFO
cannot hang the snapshot). Two snapshots compare equal only if nothing was created,
removed, replaced or rewritten.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def snapshot(root: Path) -> dict[str, tuple]:
    root = Path(root)
    result: dict[str, tuple] = {}

    def record(path: Path) -> None:
        info = os.lstat(path)
        key = os.path.relpath(path, root)
        mode = info.st_mode
        if stat.S_ISLNK(mode):
            result[key] = ("link", os.readlink(path))
        elif stat.S_ISREG(mode):
            result[key] = ("file", stat.S_IMODE(mode), path.read_bytes())
        elif stat.S_ISDIR(mode):
            result[key] = ("dir", stat.S_IMODE(mode))
            for child in sorted(os.listdir(path)):
                record(path / child)
        else:
            result[key] = ("special", stat.S_IFMT(mode))

    record(root)
    return result


def differences(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """Human-readable list of what changed (empty when byte-identical)."""
    changes = []
    for key in sorted(set(before) | set(after)):
        if key not in after:
            changes.append(f"removed {key}")
        elif key not in before:
            changes.append(f"created {key}")
        elif before[key] != after[key]:
            changes.append(f"changed {key}")
    return changes
