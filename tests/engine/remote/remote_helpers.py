"""Shared pieces of the remote-home tests (and bench/remote_graph.py): a real sshd on
127.0.0.1, where this tree's engine is, and how the "remote" side starts it."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from hermes_memory.home import HermesHome

REPO = Path(__file__).resolve().parents[3]
ENGINE_DIR = REPO / "engine"
DEMO_HOME = REPO / "desktop" / "hermes_studio" / "resources" / "demo-home"
SSHD = Path("/usr/sbin/sshd")


class SshdError(RuntimeError):
    pass


@dataclass
class SshServer:
    port: int
    dir: Path
    client_config: Path
    user_key: Path

    def url(self, path: str | Path | None = None, host: str = "127.0.0.1") -> str:
        suffix = quote(str(path)) if path else ""
        return f"ssh://{host}:{self.port}{suffix}"


def sshd_missing() -> str | None:
    if not SSHD.exists() or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        return "openssh-server (/usr/sbin/sshd) and the ssh client are needed"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", str(path)],
                   check=True)


@contextlib.contextmanager
def running_sshd(work: Path) -> Iterator[SshServer]:
    """``sshd -D`` as the current user on a free port of 127.0.0.1, with host and user keys,
    authorized_keys, known_hosts and a client config (BatchMode) made in ``work``."""
    keygen(work / "host_key")
    keygen(work / "user_key")
    shutil.copy(work / "user_key.pub", work / "authorized_keys")
    port = _free_port()
    (work / "sshd_config").write_text(
        f"ListenAddress 127.0.0.1\nHostKey {work}/host_key\nAuthorizedKeysFile {work}/authorized_keys\n"
        f"PidFile {work}/sshd.pid\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
        "MaxStartups 50\nMaxSessions 50\nLogLevel ERROR\n",
        encoding="utf-8",
    )
    key_type, key = (work / "host_key.pub").read_text(encoding="utf-8").split()[:2]
    (work / "known_hosts").write_text(f"[127.0.0.1]:{port} {key_type} {key}\n", encoding="utf-8")
    client_config = work / "ssh_config"
    client_config.write_text(
        f"Host *\n  IdentityFile {work}/user_key\n  IdentitiesOnly yes\n"
        f"  UserKnownHostsFile {work}/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
        "  StrictHostKeyChecking yes\n  BatchMode yes\n",
        encoding="utf-8",
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
    with open(work / "sshd.log", "wb") as log:
        server = subprocess.Popen(
            [str(SSHD), "-D", "-e", "-f", str(work / "sshd_config"), "-p", str(port)],
            stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SshdError("sshd did not start: "
                                    + (work / "sshd.log").read_text(errors="replace")) from None
                time.sleep(0.05)
        yield SshServer(port=port, dir=work, client_config=client_config, user_key=work / "user_key")
    finally:
        server.terminate()
        server.wait(timeout=10)


def remote_command(extra_env: str = "") -> str:
    """How the "remote" side starts this tree's engine with this interpreter."""
    return (f"env -u HERMES_HOME PYTHONPATH={shlex.quote(str(ENGINE_DIR))} {extra_env}"
            f"{shlex.quote(sys.executable)} -m hermes_memory.cli")


def write_pending(home: HermesHome, subsystem: str, record_id: str, payload: dict) -> Path:
    """A staged write as the agent leaves it in ``pending/<subsystem>/``."""
    record = {"id": record_id, "subsystem": subsystem, "action": payload.get("action", ""),
              "summary": f"{payload.get('action')} staged", "origin": "foreground",
              "created_at": 1_790_000_000.0, "payload": payload}  # fmt: skip
    path = home.path / "pending" / subsystem / f"{record_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")
    return path
