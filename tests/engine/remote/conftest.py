"""A real OpenSSH server on 127.0.0.1 for the remote-home tests, and a "remote" home.

The server runs as the current user from a temp dir: host and user keys made there with
ssh-keygen, its own authorized_keys, known_hosts and client config. Without
``/usr/sbin/sshd`` the tests that need it skip, except under ``CI=true``, where they fail:
``.ci/run`` installs openssh-server.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from remote_helpers import DEMO_HOME, ENGINE_DIR, remote_command, write_pending

from hermes_memory.home import HermesHome

SSHD = Path("/usr/sbin/sshd")


@dataclass
class SshServer:
    port: int
    dir: Path
    client_config: Path
    user_key: Path

    def url(self, path: str | Path | None = None, host: str = "127.0.0.1") -> str:
        suffix = quote(str(path)) if path else ""
        return f"ssh://{host}:{self.port}{suffix}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", str(path)],
                   check=True)


@pytest.fixture(scope="session")
def sshd(tmp_path_factory) -> SshServer:
    if not SSHD.exists() or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        message = "openssh-server (/usr/sbin/sshd) and the ssh client are needed"
        if os.environ.get("CI") == "true":
            pytest.fail(message + "; .ci/run installs them", pytrace=False)
        pytest.skip(message)
    work = tmp_path_factory.mktemp("sshd")
    _keygen(work / "host_key")
    _keygen(work / "user_key")
    shutil.copy(work / "user_key.pub", work / "authorized_keys")
    port = _free_port()
    (work / "sshd_config").write_text(
        f"ListenAddress 127.0.0.1\nHostKey {work}/host_key\nAuthorizedKeysFile {work}/authorized_keys\n"
        f"PidFile {work}/sshd.pid\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
        "AcceptEnv none\nMaxStartups 50\nMaxSessions 50\nLogLevel ERROR\n",
        encoding="utf-8",
    )
    host_key = (work / "host_key.pub").read_text(encoding="utf-8").split()
    (work / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n",
                                      encoding="utf-8")
    client_config = work / "ssh_config"
    client_config.write_text(
        f"Host *\n  IdentityFile {work}/user_key\n  IdentitiesOnly yes\n"
        f"  UserKnownHostsFile {work}/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
        "  StrictHostKeyChecking yes\n  BatchMode yes\n",
        encoding="utf-8",
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
    server = subprocess.Popen([str(SSHD), "-D", "-e", "-f", str(work / "sshd_config"), "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=open(work / "sshd.log", "wb"))
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                log = (work / "sshd.log").read_text(errors="replace")
                pytest.fail(f"sshd did not start: {log}", pytrace=False)
            time.sleep(0.05)
    yield SshServer(port=port, dir=work, client_config=client_config, user_key=work / "user_key")
    server.terminate()
    server.wait(timeout=10)


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
    """The demo home (memories, skills, state.db) plus a staged write, in a temp dir."""
    root = tmp_path / "remote home"
    shutil.copytree(DEMO_HOME, root)
    home = HermesHome.resolve(root)
    write_pending(home, "memory", "a1b2c3d4",
                  {"action": "add", "target": "memory", "content": "Staging runs on port 5433."})
    return home
