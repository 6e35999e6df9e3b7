"""Hermes Memory Studio: the desktop app over the hermes_memory engine."""

__version__ = "0.1.0"
