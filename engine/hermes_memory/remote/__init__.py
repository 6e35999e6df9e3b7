"""Homes on other machines, reached with the system's OpenSSH client.

* :mod:`.ssh` — ``ssh://[user@]host[:port]/path`` addresses, the ``ssh`` command line built
  from them without shell injection, ssh's failures in plain words, and the CLI's
  ``--home ssh://…`` forwarding (the same command runs on the remote host).
* :mod:`.protocol` — the line-delimited JSON protocol of ``hermes-memory serve --stdio``.
* :mod:`.serve` — the serving engine process: one home, the engine face's calls, change events.
* :mod:`.client` — a Python client of ``serve`` (over ssh, or a local subprocess).

No file syncing and no transport of our own: the remote engine reads and writes its own
disk, under its own locks, next to its agent.
"""
