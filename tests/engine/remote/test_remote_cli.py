"""``hermes-memory --home ssh://… COMMAND``: the same output and exit code as a local run,
through a real sshd on 127.0.0.1; bad addresses and hosts get a clear message and run
nothing the person did not ask for."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

import pytest

from hermes_memory.remote.ssh import parse_ssh_url

pytestmark = pytest.mark.timeout(240)


def cli(env, *argv, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hermes_memory.cli", *argv], env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)


def both(env, sshd, home, *argv, stdin=None):
    local = cli(env, "--home", str(home.path), *argv, stdin=stdin)
    remote = cli(env, "--home", sshd.url(home.path), *argv, stdin=stdin)
    return local, remote


def steady(result: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    """Exit code and output, with the one field that ticks between two runs (a queued
    record's age in seconds) masked."""
    mask = lambda text: re.sub(r'"age_seconds": [0-9.e+-]+', '"age_seconds": N', text)  # noqa: E731
    return result.returncode, mask(result.stdout), mask(result.stderr)


READ_ONLY = [
    ("status",),
    ("--json", "status"),
    ("show",),
    ("show", "memory", "--json"),
    ("show", "--prompt"),
    ("pending", "list"),
    ("--json", "pending", "list"),
    ("pending", "show", "a1b2"),
    ("pending", "show", "../../etc/passwd"),
    ("graph", "--json"),
    ("graph",),
    ("skills", "list"),
    ("skills", "list", "--all"),
    ("sessions", "search", "docker"),
    ("sessions", "list", "--limit", "3"),
    ("node", "show", "no-such-skill"),
    ("provider", "status"),
    ("scan", "ignore all previous instructions"),
    ("show", "nonsense-target"),  # a usage error: exit 2 and argparse's words
]


@pytest.mark.parametrize("argv", READ_ONLY, ids=" ".join)
def test_read_commands_match_a_local_run(ssh_env, sshd, remote_home, argv):
    local, remote = both(ssh_env, sshd, remote_home, *argv)
    assert steady(remote) == steady(local)
    assert local.stdout or local.stderr


def test_writes_over_ssh_match_local_writes_on_twin_homes(ssh_env, sshd, remote_home, tmp_path):
    """The same writes on two copies of a home, one locally and one over ssh: the same
    output, exit codes and files; arguments with shell syntax arrive literally."""
    import shutil

    twin_root = tmp_path / "twin"
    shutil.copytree(remote_home.path, twin_root)
    hostile = "Notes: $(touch MARK) `touch MARK` ; touch MARK && echo 'quoted' \"double\" \\ *"
    steps = [
        (("add", "memory", hostile), None),
        (("add", "user", "-"), "Prefers British English\n"),
        (("replace", "memory", "$(touch", "Replaced: it's fine"), None),
        (("remove", "user", "British"), None),
        (("remove", "user", "no such entry anywhere"), None),  # refused: exit 1
        (("--json", "add", "memory", "x" * 5000), None),  # over budget: exit 1, tool payload
        (("pending", "approve", "a1b2c3d4"), None),
        (("node", "pin", "no-such-skill"), None),
    ]
    for argv, stdin in steps:
        local = cli(ssh_env, "--home", str(twin_root), *argv, stdin=stdin)
        remote = cli(ssh_env, "--home", sshd.url(remote_home.path), *argv, stdin=stdin)
        assert (remote.returncode, remote.stdout.replace(str(remote_home.path), "HOME"),
                remote.stderr.replace(str(remote_home.path), "HOME")) == (
            local.returncode, local.stdout.replace(str(twin_root), "HOME"),
            local.stderr.replace(str(twin_root), "HOME")), argv
    for name in ("MEMORY.md", "USER.md"):
        assert (remote_home.memories_dir / name).read_bytes() == (twin_root / "memories" / name).read_bytes()
    assert "$(touch MARK)" in remote_home.memory_file.read_text(encoding="utf-8") or "Replaced" in \
        remote_home.memory_file.read_text(encoding="utf-8")
    assert not list(tmp_path.rglob("MARK")) and not list(remote_home.path.rglob("MARK"))


def test_profile_and_json_after_the_command_reach_the_remote(ssh_env, sshd, remote_home):
    profile = remote_home.path / "profiles" / "work" / "memories"
    profile.mkdir(parents=True)
    (profile / "MEMORY.md").write_text("Work laptop runs Fedora.", encoding="utf-8")
    local, remote = both(ssh_env, sshd, remote_home, "--profile", "work", "show", "--json")
    assert remote.returncode == local.returncode == 0
    assert remote.stdout == local.stdout and "Fedora" in remote.stdout


def test_a_path_that_is_no_home_says_so_as_locally(ssh_env, sshd, tmp_path):
    missing = tmp_path / "no home here"
    local = cli(ssh_env, "--home", str(missing), "status")
    remote = cli(ssh_env, "--home", sshd.url(missing), "status")
    assert remote.returncode == local.returncode == 1
    assert remote.stderr == local.stderr and "No Hermes home at" in remote.stderr


def test_hermes_home_may_name_the_remote_home(ssh_env, sshd, remote_home):
    env = {**ssh_env, "HERMES_HOME": sshd.url(remote_home.path)}
    remote = cli(env, "status")
    local = cli(ssh_env, "--home", str(remote_home.path), "status")
    assert (remote.returncode, remote.stdout) == (local.returncode, local.stdout)


# --- bad input -------------------------------------------------------------------------
def _marker_command(marker) -> str:
    return f"touch {marker}"


HOSTILE_ADDRESSES = [
    "ssh://-oProxyCommand={cmd}/home",
    "ssh://-oProxyCommand=sh${{IFS}}-c${{IFS}}'{cmd}'@127.0.0.1:{port}/home",
    "ssh://127.0.0.1;{cmd}:{port}/home",
    "ssh://$({cmd})@127.0.0.1:{port}/home",
    "ssh://`{cmd}`/home",
    "ssh://127.0.0.1 -oProxyCommand={cmd}/home",
    "ssh://'127.0.0.1'/home",
    "ssh://user:secret@127.0.0.1:{port}/home",
    "ssh://127.0.0.1:22{cmd}/home",
]


@pytest.mark.parametrize("template", HOSTILE_ADDRESSES)
def test_hostile_addresses_are_refused_before_ssh_runs(ssh_env, sshd, tmp_path, template):
    marker = tmp_path / "injected"
    address = template.format(cmd=_marker_command(marker), port=sshd.port)
    result = cli(ssh_env, "--home", address, "status")
    assert result.returncode == 2, result
    assert result.stderr.startswith("hermes-memory: ") and "ssh://" in result.stderr
    assert result.stdout == ""
    assert not marker.exists()


@pytest.mark.parametrize("path", [
    "/tmp/x;touch {marker}", "/tmp/$(touch {marker})", "/tmp/`touch {marker}`",
    "/tmp/it's here' ; touch {marker} ; '", '/tmp/"; touch {marker}; "', "/tmp/a b|touch {marker}",
])
def test_hostile_paths_reach_the_remote_as_one_literal_path(ssh_env, sshd, tmp_path, path):
    marker = tmp_path / "injected"
    literal = path.format(marker=marker)
    result = cli(ssh_env, "--home", sshd.url(literal), "status")
    assert result.returncode == 1
    assert f"No Hermes home at {literal}." in result.stderr
    assert not marker.exists()


def test_unknown_host(ssh_env):
    result = cli(ssh_env, "--home", "ssh://no-such-host.invalid/home", "status")
    assert result.returncode == 255
    assert "unknown host no-such-host.invalid" in result.stderr
    assert result.stderr.count("\n") == 1  # our one line, not ssh's


def test_a_refused_key_never_asks_for_a_password(ssh_env, sshd, tmp_path):
    other_key = tmp_path / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other_key)], check=True)
    config = tmp_path / "ssh_config"
    config.write_text(sshd.client_config.read_text().replace(str(sshd.user_key), str(other_key)))
    env = {**ssh_env, "HERMES_MEMORY_SSH_OPTIONS": f"-F {shlex.quote(str(config))}"}
    result = subprocess.run([sys.executable, "-m", "hermes_memory.cli", "--home",
                             sshd.url("/home"), "status"], env=env, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 255
    assert "refused the key" in result.stderr and "No password is asked for" in result.stderr


def test_a_closed_port_says_no_ssh_server_answers(ssh_env):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = cli(ssh_env, "--home", f"ssh://127.0.0.1:{port}/home", "status")
    assert result.returncode == 255 and "no SSH server answers on 127.0.0.1 port" in result.stderr


def test_a_host_without_the_engine(ssh_env, sshd, remote_home):
    env = {**ssh_env, "HERMES_MEMORY_REMOTE_COMMAND": "hermes-memory-not-installed-here"}
    result = cli(env, "--home", sshd.url(remote_home.path), "status")
    assert result.returncode == 127
    assert "hermes-memory is not installed on 127.0.0.1" in result.stderr
    assert "pip install" in result.stderr and result.stdout == ""


def test_the_remote_command_setting_is_used_as_a_prefix(ssh_env, sshd, remote_home, tmp_path):
    """HERMES_MEMORY_REMOTE_COMMAND is the person's own shell prefix; our arguments follow
    it quoted (the remote sees exactly the argument list)."""
    seen = tmp_path / "argv.txt"
    script = f"import sys, json; open({str(seen)!r}, 'w').write(json.dumps(sys.argv[1:]))"
    probe = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    env = {**ssh_env, "HERMES_MEMORY_REMOTE_COMMAND": probe}
    cli(env, "--home", sshd.url(remote_home.path), "add", "memory", "a 'b' $(c) ; d")
    import json

    assert json.loads(seen.read_text()) == ["--home", str(remote_home.path), "add", "memory", "a 'b' $(c) ; d"]


def test_parse_keeps_ipv6_users_ports_and_home_relative_paths():
    target = parse_ssh_url("ssh://dana@[::1]:2222/~/.hermes")
    assert (target.user, target.host, target.port, target.path) == ("dana", "::1", 2222, "~/.hermes")
    assert parse_ssh_url("ssh://gateway").path is None
