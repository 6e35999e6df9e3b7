"""Shared data and helpers for the memory editor tests (imported by name: no package here)."""

from __future__ import annotations

ENTRIES = [
    "Project uses pnpm, not npm",
    "User runs macOS 14 with zsh",
    "CI runs on GitHub Actions with a nightly job",
    "Deploys go out from the release branch on Tuesdays",
]


def disk(home, target: str = "memory") -> str:
    return home.store_file(target).read_text(encoding="utf-8")
