"""A real OpenSSH server on 127.0.0.1 for the remote-home tests, and a "remote" home
(the fixtures live in ``remote_fixtures.py``, shared with the desktop's remote tests)."""

from remote_fixtures import remote_home, ssh_env, sshd

__all__ = ["remote_home", "ssh_env", "sshd"]
