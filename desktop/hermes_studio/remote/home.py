"""A Hermes home on another machine, named by an ``ssh://[user@]host[:port]/path`` address.

It stands where a :class:`~hermes_memory.home.HermesHome` stands in the app (label, root,
profile, profiles), but it has no local paths: everything about it is asked of the engine
on that host. Parsing is the engine's (:func:`~hermes_memory.remote.ssh.parse_ssh_url`), so
an address that could smuggle an ssh option or a shell word is refused before anything runs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from hermes_memory.home import HomeError, check_profile_name
from hermes_memory.remote.ssh import RemoteAddressError, SshTarget, is_ssh_url, parse_ssh_url

#: Profiles each remote root reported in its last handshake (root url → names).
_known_profiles: dict[str, list[str]] = {}
_profiles_lock = threading.Lock()


@dataclass(frozen=True)
class RemoteHome:
    target: SshTarget
    profile: str | None = None

    remote = True  # what the app checks to tell a remote home from a local one

    @classmethod
    def parse(cls, address: str, profile: str | None = None) -> RemoteHome:
        """The home an ``ssh://`` address names; :class:`RemoteAddressError` if unusable."""
        target = parse_ssh_url(address.strip())
        if profile:
            check_profile_name(profile)
        return cls(target, profile)

    @property
    def root(self) -> str:
        """The address of the home's root (what Recent remembers)."""
        return self.target.url

    @property
    def path(self) -> str:
        """Where the home is, for messages: its address (and profile folder)."""
        return f"{self.root.rstrip('/')}/profiles/{self.profile}" if self.profile else self.root

    @property
    def host(self) -> str:
        return self.target.label

    @property
    def label(self) -> str:
        return f"{self.root} (profile {self.profile})" if self.profile else self.root

    def with_profile(self, profile: str | None) -> RemoteHome:
        return RemoteHome(self.target, profile)

    def list_profiles(self) -> list[str]:
        """The profiles the remote engine listed when last connected (none before)."""
        with _profiles_lock:
            return list(_known_profiles.get(self.root, ()))

    def remember_profiles(self, profiles: list[str]) -> None:
        with _profiles_lock:
            _known_profiles[self.root] = sorted(str(p) for p in profiles)

    # The app checks local homes before opening them; a remote one is checked by its engine
    # when the connection is made (a path that is not a home is refused in the handshake).
    def exists(self) -> bool:
        return True

    def require(self) -> RemoteHome:
        return self

    def has_hermes_files(self) -> bool:
        return True


def is_remote(home: object) -> bool:
    return bool(getattr(home, "remote", False))


def home_from_text(text: str, profile: str | None = None):
    """A :class:`RemoteHome` for an ``ssh://`` address, else ``None`` (a local path)."""
    if not is_ssh_url(text.strip()):
        return None
    return RemoteHome.parse(text, profile)


def ssh_config_hosts(path=None) -> list[str]:
    """Host aliases from ``~/.ssh/config`` (no wildcards), to offer in Open home…."""
    from pathlib import Path

    config = Path(path) if path else Path.home() / ".ssh" / "config"
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    hosts: list[str] = []
    for line in text.splitlines():
        words = line.strip().split()
        if len(words) >= 2 and words[0].lower() == "host":
            for name in words[1:]:
                if not any(c in name for c in "*?!") and name not in hosts:
                    hosts.append(name)
    return hosts


__all__ = ["HomeError", "RemoteAddressError", "RemoteHome", "home_from_text", "is_remote", "ssh_config_hosts"]
