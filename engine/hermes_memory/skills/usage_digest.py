"""What a command learned about a home's ``.usage.json``, kept for the next command.

A write of ``.usage.json`` serialises the whole object again (10,000 records: about
0.2 s), unless this process knows that the file holds exactly the text it wrote last:
then only the changed records are serialised and the rest copied as text (see
:func:`.usage.update_usage`). A ``hermes-memory`` command is a process of its own, so the
digest of the text it wrote is kept in the user's cache folder (beside the names cache of
:mod:`.locate`) for the next command. Only a hint: a file whose bytes do not hash to it
(the agent wrote since) is serialised whole, as before. It is tied to the engine's
version and to the module that writes the file, since both decide the text.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .. import __version__
from ..home import HermesHome
from . import usage
from .locate import cache_folder, home_key, read_cache_file, write_cache_file

VERSION = 1


def _path(home: HermesHome) -> Path | None:
    folder = cache_folder()
    return None if folder is None else folder / "usage-written" / home_key(home)


def _rules(home: HermesHome) -> str:
    try:
        info = os.stat(usage.__file__ or "")
        writer = f"{info.st_size}:{info.st_mtime_ns}"
    except (OSError, TypeError):
        writer = "?"
    return f"{__version__}/{writer}/{home.skills_usage_file}"


def adopt(home: HermesHome) -> None:
    """Tell :mod:`.usage` the digest the last command kept for this home, if any."""
    path = _path(home)
    raw = read_cache_file(path, 4096) if path is not None else None
    try:
        data = json.loads(raw) if raw is not None else None
        if type(data) is dict and data.get("v") == VERSION and data.get("rules") == _rules(home):
            usage.adopt_written_digest(home.skills_usage_file, bytes.fromhex(data["digest"]))
    except (ValueError, TypeError, KeyError):
        pass  # a damaged hint is no hint


def keep(home: HermesHome) -> None:
    """Keep the digest of what this process last wrote to the home's ``.usage.json``."""
    path = _path(home)
    digest = usage.written_digest(home.skills_usage_file)
    if path is None or digest is None:
        return
    data = {"v": VERSION, "rules": _rules(home), "digest": digest.hex()}
    write_cache_file(path, json.dumps(data).encode())
