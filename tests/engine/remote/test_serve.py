"""``serve --stdio``: the handshake, the engine face's calls, change events, bad lines;
locally as a subprocess and over a real sshd."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from remote_helpers import ENGINE_DIR, write_pending

from hermes_memory import api
from hermes_memory.memory.store import MemoryStore
from hermes_memory.remote import protocol
from hermes_memory.remote.client import (
    CallError,
    ConnectionLost,
    EngineClient,
    RemoteError,
    RemoteTimeout,
)

pytestmark = pytest.mark.timeout(240)


class RawServe:
    """A serve process spoken to line by line, to send what no client would."""

    def __init__(self, home_path):
        env = {**os.environ, "PYTHONPATH": str(ENGINE_DIR)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hermes_memory.cli", "--home", str(home_path), "serve", "--stdio"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)

    def send(self, data: bytes) -> dict:
        self.process.stdin.write(data)
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def request(self, method, **params) -> dict:
        return self.send(json.dumps({"id": 7, "method": method, "params": params}).encode() + b"\n")

    def close(self) -> tuple[int, bytes, bytes]:
        out, err = self.process.communicate(timeout=30)
        return self.process.returncode, out, err


@pytest.fixture
def raw(remote_home):
    serve = RawServe(remote_home.path)
    yield serve
    if serve.process.poll() is None:
        serve.close()


def test_hello_first_then_the_engine_face_by_name(raw, remote_home):
    assert raw.request("store_status")["error"]["code"] == protocol.HELLO_FIRST
    hello = raw.request("hello", protocol=protocol.PROTOCOL_VERSION)["result"]
    assert hello["protocol"] == protocol.PROTOCOL_VERSION and hello["engine"]
    assert hello["home"]["path"] == str(remote_home.path) and hello["home"]["hermes_files"]
    # every public function of the face whose first parameter is the home, and no helper
    expected = {name for name, fn in vars(api).items() if callable(fn) and not name.startswith("_")
                and getattr(fn, "__module__", "") == api.__name__}
    assert set(hello["methods"]) - {"hello", "ping"} == expected
    assert raw.request("store_status")["result"] == api.store_status(remote_home)
    assert raw.request("pending_list")["result"]["count"] == 4  # the demo home's three, and one staged here
    graph = raw.request("graph_build")["result"]
    assert graph["nodes"] and graph == json.loads(json.dumps(api.graph_build(remote_home)))


@pytest.mark.parametrize("line, code", [
    (b"not json\n", protocol.PARSE_ERROR),
    (b"\xff\xfe garbage\n", protocol.PARSE_ERROR),
    (b"[1, 2]\n", protocol.INVALID_REQUEST),
    (b'{"id": {"x": 1}, "method": "ping"}\n', protocol.INVALID_REQUEST),
    (b'{"id": 1, "method": 5}\n', protocol.INVALID_REQUEST),
    (b'{"id": 1, "method": "ping", "params": [1]}\n', protocol.INVALID_REQUEST),
    (b'{"id": 1, "method": "__import__"}\n', protocol.UNKNOWN_METHOD),
    (b'{"id": 1, "method": "_pending_call"}\n', protocol.UNKNOWN_METHOD),
    (b'{"id": 1, "method": "HermesHome"}\n', protocol.UNKNOWN_METHOD),
    (b'{"id": 1, "method": "store_entries", "params": {"home": "/etc"}}\n', protocol.INVALID_PARAMS),
    (b'{"id": 1, "method": "store_entries", "params": {"nope": 1}}\n', protocol.INVALID_PARAMS),
    (b'{"id": 1, "method": "store_entries", "params": {"target": "passwd"}}\n', protocol.FAILED),
    (b'{"id": 1, "method": "pending_show", "params": {"pending_id": 5}}\n', None),
    (b"[" * 100_000 + b"\n", protocol.PARSE_ERROR),
])
def test_bad_lines_get_an_error_and_the_server_carries_on(raw, remote_home, line, code):
    raw.request("hello", protocol=protocol.PROTOCOL_VERSION)
    before = {p: p.read_bytes() for p in remote_home.path.rglob("*") if p.is_file()}
    answer = raw.send(line)
    if code is None:  # a wrong type the function itself copes with: an answer, no crash
        assert "result" in answer or answer["error"]["code"] == protocol.FAILED
    else:
        assert answer["error"]["code"] == code and answer["error"]["message"]
    assert raw.request("ping")["result"] == {"pong": True}
    assert {p: p.read_bytes() for p in remote_home.path.rglob("*") if p.is_file()} == before


def test_a_huge_line_is_refused_unread_and_the_next_one_answered(raw):
    raw.request("hello", protocol=protocol.PROTOCOL_VERSION)
    huge = b'{"id": 1, "method": "ping", "params": {"x": "' + b"a" * (protocol.MAX_LINE_BYTES + 10) + b'"}}\n'
    answer = raw.send(huge)
    assert answer == {"id": None, "error": {"code": protocol.TOO_LARGE, "message": answer["error"]["message"]}}
    assert raw.request("ping")["result"] == {"pong": True}


NOISY_ENGINE = """
import os, sys
from hermes_memory import api
def noisy(home):
    print("printed by a library")
    os.write(1, b"written to fd 1 by C code\\n")
    return {"done": True}
noisy.__module__ = api.__name__
api.noisy = noisy
from hermes_memory.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_stdout_carries_only_protocol_lines_even_when_code_prints(remote_home):
    env = {**os.environ, "PYTHONPATH": str(ENGINE_DIR)}
    requests = [{"id": 1, "method": "hello", "params": {"protocol": protocol.PROTOCOL_VERSION}},
                {"id": 2, "method": "noisy"}]
    result = subprocess.run(
        [sys.executable, "-c", NOISY_ENGINE, "--home", str(remote_home.path), "serve", "--stdio"],
        input="".join(json.dumps(r) + "\n" for r in requests).encode(), capture_output=True,
        env=env, timeout=60)
    assert result.returncode == 0
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert answers[-1] == {"id": 2, "result": {"done": True}}
    assert b"printed by a library" in result.stderr and b"written to fd 1" in result.stderr


@pytest.mark.parametrize("version, upgrade", [(protocol.PROTOCOL_VERSION + 1, "upgrade the engine"),
                                              (protocol.OLDEST_PROTOCOL - 1, "upgrade the app")])
def test_a_peer_of_another_protocol_is_told_what_to_upgrade(raw, version, upgrade):
    error = raw.request("hello", protocol=version, engine="9.9")["error"]
    assert error["code"] == protocol.PROTOCOL_MISMATCH and upgrade in error["message"]
    assert raw.request("ping")["error"]["code"] == protocol.HELLO_FIRST


def test_the_client_checks_an_old_or_new_server_too():
    assert "upgrade this app" in protocol.check_server_hello({"protocol": 99, "engine": "9"}, "gw")
    assert "upgrade it there" in protocol.check_server_hello({"protocol": 0}, "gw")
    assert "did not answer the handshake" in protocol.check_server_hello(None, "gw")
    assert protocol.check_server_hello({"protocol": protocol.PROTOCOL_VERSION}, "gw") is None


def test_not_a_home_fails_the_handshake_clearly(tmp_path):
    client = EngineClient.local(tmp_path / "nothing here", timeout=20)
    with pytest.raises(RemoteError, match="not a Hermes home on this machine: No Hermes home at"):
        client.connect()


def agent_write(home_path, text: str) -> subprocess.Popen:
    """An agent process writing through the engine's store, as Hermes would."""
    code = ("import sys; from hermes_memory.home import HermesHome; "
            "from hermes_memory.memory.store import MemoryStore; "
            "print(MemoryStore(HermesHome.resolve(sys.argv[1])).add('memory', sys.argv[2]))")
    return subprocess.Popen([sys.executable, "-c", code, str(home_path), text],
                            env={**os.environ, "PYTHONPATH": str(ENGINE_DIR)}, stdout=subprocess.DEVNULL)


def _expect_event(client, what: str, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            event = client.events.get(timeout=deadline - time.monotonic())
        except Exception:
            break
        if what in event["what"]:
            return event
    raise AssertionError(f"no {what} change event within {timeout} s")


def test_local_client_calls_and_events(remote_home):
    seen = []
    with EngineClient.local(remote_home.path, timeout=30, on_event=seen.append) as client:
        assert client.call("ping") == {"pong": True}
        agent_write(remote_home.path, "The agent learned: CI runs on Fridays.").wait(30)
        event = _expect_event(client, "memory")
        assert event["paths"] == ["memories/MEMORY.md"] and seen
        entries = client.call("store_entries", target="memory")["memory"]["entries"]
        assert "The agent learned: CI runs on Fridays." in [e["text"] for e in entries]
        write_pending(remote_home, "skills", "feedbeef", {"action": "create", "name": "x", "content": "y"})
        assert _expect_event(client, "pending")["what"] == ["pending"]
        with pytest.raises(CallError) as info:
            client.call("no_such_method")
        assert info.value.code == protocol.UNKNOWN_METHOD


# --- over ssh ---------------------------------------------------------------------------
def test_serve_over_ssh_handshake_calls_events_and_a_lost_connection(ssh_env, sshd, remote_home):
    client = EngineClient.over_ssh(sshd.url(remote_home.path), timeout=60)
    hello = client.connect()
    assert hello["home"]["path"] == str(remote_home.path)
    assert client.call("store_status") == api.store_status(remote_home)
    result = client.call("store_write", target="user", action="add", content="Uses fish; $(not run)")
    assert result["success"] and "Uses fish; $(not run)" in remote_home.user_file.read_text()
    _expect_event(client, "user")
    agent_write(remote_home.path, "Remote agent: deploys at 18:00.").wait(30)
    assert _expect_event(client, "memory")["paths"] == ["memories/MEMORY.md"]
    assert client.call("pending_approve", pending_id="a1b2c3d4")["ok"]
    # the link dies: waiting and new calls say so, and a reconnect works again
    client._process.kill()
    with pytest.raises(ConnectionLost, match="lost the connection|closed"):
        for _ in range(50):
            client.call("ping")
            time.sleep(0.05)
    assert not client.connected
    client.reconnect()
    assert client.call("ping") == {"pong": True}
    client.close()


def test_serve_over_ssh_reports_unknown_hosts_and_missing_engines(ssh_env, sshd, remote_home, monkeypatch):
    with pytest.raises(RemoteError, match="unknown host no-such-host.invalid"):
        EngineClient.over_ssh("ssh://no-such-host.invalid/x", connect_timeout=30).connect()
    monkeypatch.setenv("HERMES_MEMORY_REMOTE_COMMAND", "no-hermes-memory-here")
    with pytest.raises(RemoteError, match="hermes-memory is not installed on 127.0.0.1"):
        EngineClient.over_ssh(sshd.url(remote_home.path), connect_timeout=30).connect()


def test_killing_the_connection_mid_save_leaves_the_file_old_or_new(ssh_env, sshd, remote_home):
    """Big saves over ssh, the ssh client killed at staggered moments: the remote
    MEMORY.md always reads as a whole old or a whole new version."""
    store = MemoryStore(remote_home)
    for round_ in range(6):
        client = EngineClient.over_ssh(sshd.url(remote_home.path), timeout=60)
        client.connect()
        old = [e["text"] for e in client.call("store_entries", target="memory")["memory"]["entries"]]
        new = [f"Round {round_}: " + "x" * 300, *old[-2:]]
        operations = [{"action": "remove", "old_text": e[:40]} for e in old]
        operations += [{"action": "add", "content": text} for text in new]
        line = protocol.encode({"id": 99, "method": "store_write",
                                "params": {"target": "memory", "operations": operations}})
        client._process.stdin.write(line)
        client._process.stdin.flush()
        time.sleep(0.02 * round_)
        client._process.send_signal(signal.SIGKILL)
        client.close()
        time.sleep(0.5)
        now = store.read_entries("memory")
        assert now in (old, new), now


SLOW_ENGINE = """
import sys, time
from hermes_memory import api
def slow(home, seconds: float = 1.5):
    time.sleep(seconds)
    return {"slept": seconds}
slow.__module__ = api.__name__
api.slow = slow
from hermes_memory.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_slow_answer_times_out_and_the_late_answer_is_dropped(remote_home):
    argv = [sys.executable, "-c", SLOW_ENGINE, "--home", str(remote_home.path), "serve", "--stdio"]
    client = EngineClient(argv, label="a slow engine", timeout=0.3,
                          env={**os.environ, "PYTHONPATH": str(ENGINE_DIR)})
    with client:
        with pytest.raises(RemoteTimeout, match="slow on a slow engine: no answer within 0.3 s"):
            client.call("slow")
        assert client.request("ping", {}, 10) == {"pong": True}  # answered after the late one
        assert client.request("slow", {"seconds": 0.01}, 10) == {"slept": 0.01}
