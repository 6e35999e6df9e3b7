"""ssh:// addresses and the ssh command line built from them (no sshd needed)."""

from __future__ import annotations

import shlex

import pytest

from hermes_memory.remote.ssh import (
    RemoteAddressError,
    SshTarget,
    explain_failure,
    parse_ssh_url,
    remote_engine_argv,
    ssh_argv,
    strip_home_option,
)


@pytest.mark.parametrize("address, expected", [
    ("ssh://gateway", SshTarget("gateway")),
    ("SSH://dana@gateway:2222/home/dana/.hermes", SshTarget("gateway", "dana", 2222, "/home/dana/.hermes")),
    ("ssh://[fe80::1%eth0]:22/x", SshTarget("fe80::1%eth0", None, 22, "/x")),
    ("ssh://gw/~/.hermes", SshTarget("gw", None, None, "~/.hermes")),
    ("ssh://gw/srv/agent%20home/%24x", SshTarget("gw", None, None, "/srv/agent home/$x")),
    ("ssh://gw/", SshTarget("gw")),
])
def test_addresses_parse(address, expected):
    assert parse_ssh_url(address) == expected


@pytest.mark.parametrize("address", [
    "ssh://-oProxyCommand=touch /tmp/x/p", "ssh://%2DoProxyCommand=x/p", "ssh://-p/x",
    "ssh://-l@gw/x", "ssh://gw x/p", "ssh://gw;id/p", "ssh://$(id)/p", "ssh://`id`/p",
    "ssh://'gw'/p", 'ssh://"gw"/p', "ssh://gw\n/p", "ssh://user:pw@gw/p", "ssh://gw:0/p",
    "ssh://gw:http/p", "ssh://gw:/p", "ssh:///p", "ssh://[::1/p", "ssh://[::1]x/p",
    "ssh://gw/a%0Ab", "ssh://us er@gw/p",
])
def test_hostile_or_broken_addresses_are_refused(address):
    with pytest.raises(RemoteAddressError):
        parse_ssh_url(address)


def test_the_destination_follows_double_dash_and_every_argument_is_quoted(monkeypatch):
    monkeypatch.delenv("HERMES_MEMORY_SSH_OPTIONS", raising=False)
    monkeypatch.setenv("HERMES_MEMORY_REMOTE_COMMAND", "/opt/hm/bin/hermes-memory")
    target = parse_ssh_url("ssh://dana@gw:2222/srv/a%20b")
    arguments = ["add", "memory", "x'; touch /tmp/p; $(id) `id` \"q\""]
    argv = ssh_argv(target, remote_engine_argv(target, arguments))
    dash = argv.index("--")
    assert argv[dash + 1] == "dana@gw" and len(argv) == dash + 3
    assert "BatchMode=yes" in argv and argv[argv.index("-p") + 1] == "2222"
    words = shlex.split(argv[-1])  # what a POSIX remote shell makes of the command
    assert words == ["/opt/hm/bin/hermes-memory", "--home", "/srv/a b", *arguments]


def test_the_persons_ssh_options_come_first_so_theirs_win(monkeypatch):
    monkeypatch.setenv("HERMES_MEMORY_SSH_OPTIONS", "-F '/my config' -o LogLevel=DEBUG")
    argv = ssh_argv(SshTarget("gw"), ["status"])
    assert argv[1:5] == ["-F", "/my config", "-o", "LogLevel=DEBUG"]


@pytest.mark.parametrize("argv, expected", [
    (["--home", "ssh://gw/x", "status"], ["status"]),
    (["--home=ssh://gw/x", "--json", "status"], ["--json", "status"]),
    (["--ho", "ssh://gw/x", "show"], ["show"]),
    (["--profile", "w", "--home", "ssh://gw/x", "add", "memory", "--home"], ["--profile", "w", "add", "memory", "--home"]),
])
def test_the_home_option_is_taken_out_before_forwarding(argv, expected):
    assert strip_home_option(argv, "ssh://gw/x") == expected


@pytest.mark.parametrize("code, stderr, words", [
    (255, "ssh: Could not resolve hostname nope: Name or service not known", "unknown host gw"),
    (255, "dana@gw: Permission denied (publickey).", "refused the key"),
    (255, "ssh: connect to host gw port 22: Connection refused", "no SSH server answers on gw port 22"),
    (255, "Host key verification failed.", "host key of gw is unknown or has changed"),
    (255, "something new", "ssh to dana@gw failed: something new"),
    (127, "bash: line 1: hermes-memory: command not found", "hermes-memory is not installed on gw"),
])
def test_ssh_failures_in_plain_words(code, stderr, words):
    assert words in explain_failure(SshTarget("gw", "dana"), code, stderr)


@pytest.mark.parametrize("code", [0, 1, 2, 130])
def test_the_engines_own_exit_codes_are_left_alone(code):
    assert explain_failure(SshTarget("gw"), code, "hermes-memory: No Hermes home at /x.") is None
