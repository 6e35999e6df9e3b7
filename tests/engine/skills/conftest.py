"""Fixtures for the skills tests: a :class:`HomeBuilder` over the shared ``home``, and a
recorder of the SKILL.md files code opens."""

import contextlib
import importlib.util
import os
import sys
from pathlib import Path

import pytest


def _load_builder():
    name = "hermes_test_home_builder"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("home_builder.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


builder_module = _load_builder()


@pytest.fixture
def hb(home):
    return builder_module.HomeBuilder(home)


_OPENED: list[list[str]] = []  # the recorders listening now


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _OPENED and isinstance(args[0], str | bytes):
        path = os.fsdecode(args[0])
        if path.endswith("SKILL.md"):
            for paths in _OPENED:
                paths.append(path)


sys.addaudithook(_audit)  # (a hook stays for the process; it records only inside opened())


@contextlib.contextmanager
def _recording():
    paths: list[str] = []
    _OPENED.append(paths)
    try:
        yield paths
    finally:
        _OPENED.remove(paths)


@pytest.fixture
def opened():
    """``with opened() as paths:`` every SKILL.md the code inside opens, by any route
    (the interpreter's audit hook)."""
    return _recording
