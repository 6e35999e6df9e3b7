"""The desktop over a real sshd on 127.0.0.1 (the engine tests' server, reused): a "remote"
home in a temp dir, reached as ``ssh://127.0.0.1:PORT/…`` through the system's ssh."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "engine" / "remote"))

from remote_helpers import (  # noqa: E402
    DEMO_HOME,
    ENGINE_DIR,
    SshdError,
    SshServer,
    remote_command,
    running_sshd,
    sshd_missing,
    write_pending,
)

from hermes_memory.home import HermesHome  # noqa: E402


@pytest.fixture(scope="session")
def sshd(tmp_path_factory) -> SshServer:
    missing = sshd_missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(missing + "; .ci/run installs them", pytrace=False)
        pytest.skip(missing)
    try:
        with running_sshd(tmp_path_factory.mktemp("sshd")) as server:
            yield server
    except SshdError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture
def ssh_env(sshd, monkeypatch) -> dict[str, str]:
    monkeypatch.setenv("HERMES_MEMORY_SSH_OPTIONS", f"-F {shlex.quote(str(sshd.client_config))}")
    monkeypatch.setenv("HERMES_MEMORY_REMOTE_COMMAND", remote_command())
    monkeypatch.setenv("PYTHONPATH", str(ENGINE_DIR))
    return dict(os.environ)


@pytest.fixture
def remote_home(tmp_path) -> HermesHome:
    """The demo home plus one staged memory write, where the "remote" engine reads it."""
    root = tmp_path / "remote home"
    shutil.copytree(DEMO_HOME, root)
    home = HermesHome.resolve(root)
    write_pending(home, "memory", "a1b2c3d4",
                  {"action": "add", "target": "memory", "content": "Staging runs on port 5433."})
    return home


@pytest.fixture
def address(sshd, ssh_env, remote_home) -> str:
    return sshd.url(remote_home.path)
