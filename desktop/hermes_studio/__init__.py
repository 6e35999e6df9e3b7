"""Hermes Memory Studio: the desktop app over the hermes_memory engine."""

# One version for the engine, the app and the package (pyproject reads the engine's).
from hermes_memory import __version__

__all__ = ["__version__"]
