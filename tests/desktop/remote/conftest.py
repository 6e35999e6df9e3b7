"""The desktop over a real sshd on 127.0.0.1 (the engine tests' server and fixtures, reused):
a "remote" home in a temp dir, reached as ``ssh://127.0.0.1:PORT/…`` through the system's ssh."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "engine" / "remote"))

from remote_fixtures import remote_home, ssh_env, sshd  # noqa: E402

__all__ = ["remote_home", "ssh_env", "sshd"]


@pytest.fixture
def address(sshd, ssh_env, remote_home) -> str:
    return sshd.url(remote_home.path)
