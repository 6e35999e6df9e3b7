"""``ssh://`` home addresses and running the engine on the host they name.

The system's ``ssh`` does the connecting, so the person's keys, agent and ``~/.ssh/config``
apply. We never ask for or keep a password: ssh runs with ``BatchMode=yes`` and a refused
key is reported, not prompted for. The remote command is one string for the remote login
shell (POSIX sh, bash or zsh), with every argument quoted by :func:`shlex.quote`; host and
user names are checked before ssh sees them and follow ``--``, so an address can never
become an ssh option (``ssh://-oProxyCommand=…``).

Settings (environment variables):

* ``HERMES_MEMORY_REMOTE_COMMAND`` — how to start the engine on the remote host, as a shell
  command prefix (default ``hermes-memory``; e.g. ``~/.venvs/hermes/bin/hermes-memory``).
* ``HERMES_MEMORY_SSH`` — the ssh program (default ``ssh``).
* ``HERMES_MEMORY_SSH_OPTIONS`` — extra ssh options, split like a shell would (``-F file``,
  ``-J jumphost``); they come before ours, so they win where both set the same ``-o``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from typing import TextIO
from urllib.parse import quote, unquote

from ..home import HomeError

SCHEME = "ssh://"
DEFAULT_REMOTE_COMMAND = "hermes-memory"
INSTALL_HINT = "pip install 'hermes-memory-studio'"
#: ssh's own failures (it cannot connect, authenticate, …) exit with 255.
SSH_FAILED = 255
#: The remote shell found no such command / found it but could not run it.
COMMAND_NOT_FOUND = 127
COMMAND_NOT_EXECUTABLE = 126

# Names as DNS, /etc/hosts and ~/.ssh/config aliases spell them; never a leading "-".
# Always used with fullmatch: "$" would let a trailing newline through.
_HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,252}")
_IPV6 = re.compile(r"[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?")
_USER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,63}\$?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class RemoteAddressError(HomeError):
    """An ``ssh://`` address that cannot be used, with a message for a person."""


def is_ssh_url(text: str | None) -> bool:
    return bool(text) and text[: len(SCHEME)].lower() == SCHEME


@dataclass(frozen=True)
class SshTarget:
    """Where a remote home lives: ``host`` (and ``user``, ``port``) and the home's ``path``
    on that host (``None``: the remote engine's default home)."""

    host: str
    user: str | None = None
    port: int | None = None
    path: str | None = None

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.host}" if self.user else self.host

    @property
    def label(self) -> str:
        """``user@host:port`` as a person would recognise it in a message."""
        return self.destination + (f":{self.port}" if self.port else "")

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        netloc = (f"{self.user}@" if self.user else "") + host + (f":{self.port}" if self.port else "")
        path = quote(self.path or "", safe="/~")  # parses back to the same path, % and all
        return f"{SCHEME}{netloc}{'' if path.startswith('/') or not path else '/'}{path}"


def parse_ssh_url(text: str) -> SshTarget:
    """``ssh://[user@]host[:port][/path]`` → :class:`SshTarget`, or :class:`RemoteAddressError`.

    The path is percent-decoded; ``/~/x`` and ``/~user/x`` mean a path relative to a home
    directory on the remote host (as git's ``ssh://`` URLs do)."""
    if not is_ssh_url(text):
        raise RemoteAddressError(f"{text!r} is not an ssh:// address.")
    rest = text[len(SCHEME):]
    netloc, slash, raw_path = rest.partition("/")
    userinfo, at, hostport = netloc.rpartition("@")
    user = None
    if at:
        if ":" in userinfo:
            raise RemoteAddressError(
                "An ssh:// address never carries a password: drop ':…' after the user name and "
                "let ssh use your key or ssh-agent."
            )
        user = unquote(userinfo)
        if not _USER.fullmatch(user):
            raise RemoteAddressError(
                f"{user!r} is not a usable user name in an ssh:// address: use letters, digits, "
                "'.', '_' or '-' (not first)."
            )
    host, port = _split_host_port(hostport, text)
    path = None
    if slash:
        path = unquote(raw_path, errors="strict") if raw_path else None
        if path is not None:
            if _CONTROL.search(path):
                raise RemoteAddressError("The home path in an ssh:// address contains control characters.")
            path = path if path.startswith("~") else "/" + path
    return SshTarget(host=host, user=user, port=port, path=path)


def _split_host_port(hostport: str, text: str) -> tuple[str, int | None]:
    port_text = ""
    if hostport.startswith("["):
        host, bracket, after = hostport[1:].partition("]")
        if not bracket or not _IPV6.fullmatch(host) or (after and not after.startswith(":")):
            raise RemoteAddressError(f"{text!r}: the [IPv6] host is malformed.")
        port_text = after[1:]
    else:
        host, colon, port_text = hostport.partition(":")
        if colon and not port_text:
            raise RemoteAddressError(f"{text!r}: a ':' after the host needs a port number.")
        if not host:
            raise RemoteAddressError(f"{text!r} names no host: use ssh://[user@]host[:port]/path.")
        if not _HOST.fullmatch(host):
            raise RemoteAddressError(
                f"{host!r} is not a usable host name in an ssh:// address: use a name from DNS or "
                "~/.ssh/config (letters, digits, '.', '_', '-'; not starting with '-'), or an IP address."
            )
    port = None
    if port_text:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise RemoteAddressError(f"{port_text!r} is not a port number (1–65535) in the ssh:// address.")
        port = int(port_text)
    return host, port


# --- the ssh command line -----------------------------------------------------------
def remote_command_prefix() -> str:
    """How the engine is started on the remote host: a shell command prefix the person
    chose (so it is used as written), followed by our quoted arguments."""
    return os.environ.get("HERMES_MEMORY_REMOTE_COMMAND", "").strip() or DEFAULT_REMOTE_COMMAND


def remote_engine_argv(target: SshTarget, arguments: list[str]) -> list[str]:
    """The engine's arguments on the remote host: ``--home PATH`` first when the address
    names a path, then ``arguments`` unchanged."""
    return (["--home", target.path] if target.path else []) + list(arguments)


def ssh_argv(target: SshTarget, engine_arguments: list[str], *, keepalive: bool = False) -> list[str]:
    """The full local command: ``ssh [options] -- destination 'hermes-memory' 'arg' …``."""
    program = os.environ.get("HERMES_MEMORY_SSH", "").strip() or "ssh"
    argv = [program, *shlex.split(os.environ.get("HERMES_MEMORY_SSH_OPTIONS", ""))]
    argv += ["-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "-o", "LogLevel=ERROR", "-T"]
    if keepalive:  # a long-lived serve: notice a dead link within about a minute
        argv += ["-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4"]
    if target.port:
        argv += ["-p", str(target.port)]
    command = " ".join([remote_command_prefix(), *(shlex.quote(a) for a in engine_arguments)])
    return [*argv, "--", target.destination, command]


# --- ssh's failures in plain words --------------------------------------------------
_SSH_PROBLEMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Could not resolve hostname|Name or service not known|nodename nor servname|"
                r"Temporary failure in name resolution", re.I),
     "unknown host {host}: ssh could not find it. Check the name, or add a Host entry for it "
     "to ~/.ssh/config."),
    (re.compile(r"Permission denied", re.I),
     "{destination} refused the key. No password is asked for: load your key into ssh-agent "
     "or name it in ~/.ssh/config (IdentityFile), and add its public key to "
     "~/.ssh/authorized_keys on {host}."),
    (re.compile(r"Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED", re.I),
     "the host key of {host} is unknown or has changed. Connect once with 'ssh {destination}' "
     "to check it and accept it."),
    (re.compile(r"Connection refused", re.I),
     "no SSH server answers on {host} port {port} (connection refused)."),
    (re.compile(r"timed out|No route to host|Network is unreachable", re.I),
     "cannot reach {host} port {port}: {line}"),
)


def explain_failure(target: SshTarget, returncode: int, stderr_text: str) -> str | None:
    """A message for a person when ssh, or the remote shell, failed; ``None`` when the
    exit code is the engine's own (its output then stands as it is)."""
    lines = [line.strip() for line in stderr_text.splitlines() if line.strip()]
    last = lines[-1] if lines else "no message"
    words = {"host": target.host, "destination": target.destination, "port": target.port or 22,
             "line": last}
    if returncode == COMMAND_NOT_FOUND:
        return (
            f"hermes-memory is not installed on {target.host} (its shell found no "
            f"'{remote_command_prefix()}'). Install the engine there: {INSTALL_HINT}; or set "
            "HERMES_MEMORY_REMOTE_COMMAND to where it is."
        )
    if returncode == COMMAND_NOT_EXECUTABLE:
        return (
            f"'{remote_command_prefix()}' on {target.host} cannot be run ({last}). Check "
            "HERMES_MEMORY_REMOTE_COMMAND, or install the engine there: " + INSTALL_HINT
        )
    if returncode != SSH_FAILED:
        return None
    for pattern, message in _SSH_PROBLEMS:
        if pattern.search(stderr_text):
            return message.format(**words)
    return f"ssh to {target.label} failed: {last}"


# --- `hermes-memory --home ssh://… COMMAND …` ---------------------------------------
def strip_home_option(argv: list[str], home_text: str) -> list[str]:
    """``argv`` without the ``--home ADDRESS`` option that named the remote home (also
    ``--home=ADDRESS`` and argparse's abbreviations such as ``--ho``)."""
    for index, token in enumerate(argv):
        name, equals, value = token.partition("=")
        if len(name) < 4 or not "--home".startswith(name):
            continue
        if equals and value == home_text:
            return argv[:index] + argv[index + 1:]
        if not equals and index + 1 < len(argv) and argv[index + 1] == home_text:
            return argv[:index] + argv[index + 2:]
    return list(argv)


def _reads_stdin(arguments: list[str]) -> bool:
    """Only commands given ``-`` (and ``serve``) read standard input; the others get none,
    so a remote command never swallows what a local script meant for the next one."""
    return "-" in arguments or "serve" in arguments


def run_remote_cli(home_text: str, argv: list[str], stdout: TextIO, stderr: TextIO) -> int:
    """Run ``hermes-memory ARGV`` on the host of ``home_text``: its standard output and
    error and its exit code are the remote run's own. 2 for an unusable address, 255 when
    ssh failed (with ssh's reason in plain words), 127 when the host has no engine."""
    try:
        target = parse_ssh_url(home_text)
    except RemoteAddressError as exc:
        print(f"hermes-memory: {exc}", file=stderr)
        return 2
    arguments = remote_engine_argv(target, strip_home_option(argv, home_text))
    command = ssh_argv(target, arguments, keepalive="serve" in arguments)
    direct = _real_stream(stdout)
    stdout.flush()
    try:
        process = subprocess.Popen(
            command,
            stdin=None if _reads_stdin(arguments) else subprocess.DEVNULL,
            stdout=direct if direct is not None else subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as exc:
        print(f"hermes-memory: cannot run {command[0]!r} (the OpenSSH client): {exc.strerror or exc}",
              file=stderr)
        return SSH_FAILED
    try:
        out, err = process.communicate()
    except KeyboardInterrupt:
        process.kill()
        process.wait()
        print("hermes-memory: interrupted", file=stderr)
        return 130
    if out:
        _write(stdout, out)
    message = explain_failure(target, process.returncode, err.decode("utf-8", "replace"))
    if message:
        print(f"hermes-memory: {message}", file=stderr)
    elif err:
        _write(stderr, err)
    return process.returncode


def _real_stream(stream: TextIO) -> int | None:
    """The file descriptor behind ``stream`` when it is a real one (the process's own
    stdout): the remote output then streams straight through, byte for byte."""
    try:
        return stream.fileno() if stream is sys.stdout or stream is sys.__stdout__ else None
    except (OSError, ValueError, AttributeError):
        return None


def _write(stream: TextIO, data: bytes) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(data)
        buffer.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))
