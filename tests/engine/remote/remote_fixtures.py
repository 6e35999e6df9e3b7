"""The fixtures every remote-home test folder uses (engine and desktop): a real OpenSSH
server on 127.0.0.1, the environment that reaches it, and a "remote" home.

The server runs as the current user from a temp dir (see :func:`remote_helpers.running_sshd`).
Without ``/usr/sbin/sshd`` the tests that need it skip, except under ``CI=true``, where
they fail: ``.ci/run`` installs openssh-server.
"""

from __future__ import annotations

import os
import shlex
import shutil

import pytest
from remote_helpers import (
    DEMO_HOME,
    ENGINE_DIR,
    SshdError,
    SshServer,
    remote_command,
    running_sshd,
    sshd_missing,
    write_pending,
)

from hermes_memory.home import HermesHome


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
    """This process's environment (and the returned copy, for subprocesses) set to reach
    the test server."""
    monkeypatch.setenv("HERMES_MEMORY_SSH_OPTIONS", f"-F {shlex.quote(str(sshd.client_config))}")
    monkeypatch.setenv("HERMES_MEMORY_REMOTE_COMMAND", remote_command())
    monkeypatch.setenv("PYTHONPATH", str(ENGINE_DIR))
    return dict(os.environ)


@pytest.fixture
def remote_home(tmp_path) -> HermesHome:
    """The demo home (memories, skills, state.db) plus a staged memory write, in a temp dir."""
    root = tmp_path / "remote home"
    shutil.copytree(DEMO_HOME, root)
    home = HermesHome.resolve(root)
    write_pending(home, "memory", "a1b2c3d4",
                  {"action": "add", "target": "memory", "content": "Staging runs on port 5433."})  # fmt: skip
    return home
