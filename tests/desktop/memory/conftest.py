"""Fixtures for the memory editors: a seeded home, a Workspace, and a loaded editor."""

from __future__ import annotations

import pytest
from memory_editor_helpers import ENTRIES

from hermes_memory.memory.entries import serialise_entries
from hermes_studio.memory.editor import StoreEditor
from hermes_studio.workspace import Workspace


@pytest.fixture
def seeded_home(home):
    home.memory_file.write_text(serialise_entries(ENTRIES), encoding="utf-8")
    home.user_file.write_text("Name: Dana\n§\nPrefers British spelling", encoding="utf-8")
    return home


@pytest.fixture
def workspace(seeded_home, qtbot):
    ws = Workspace(seeded_home)
    yield ws
    ws.close()


@pytest.fixture
def make_editor(qtbot, workspace):
    """A loaded editor for ``target``, sized like the real window's."""

    def _make(target: str = "memory") -> StoreEditor:
        editor = StoreEditor(workspace, target)
        qtbot.addWidget(editor)
        editor.resize(1100, 700)
        with qtbot.waitSignal(editor.sig_loaded, timeout=5000):
            workspace.refresh_store(target)
        return editor

    return _make


@pytest.fixture
def editor(make_editor):
    return make_editor("memory")
