"""Hermes memory engine: an independent implementation of Hermes Agent's memory system."""

__version__ = "0.1.0"
