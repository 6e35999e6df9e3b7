"""Fixtures for the skills tests: a :class:`HomeBuilder` over the shared ``home``."""

import importlib.util
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
