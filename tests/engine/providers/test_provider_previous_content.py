"""A mirrored replace or remove hands the external provider the whole entry it
overwrote as ``previous_content``, taken from the committed store result (spec §4.7)."""

from __future__ import annotations

import json

from provider_fakes import RecordingProvider

from hermes_memory.providers import BuiltinMemoryProvider, MemoryManager

FACTS = ["Project uses pnpm 8 with workspaces.", "Deploys run on Tuesdays.", "CI lives in GitHub Actions."]


def test_replace_remove_and_batches_mirror_the_previous_entry(home):
    home.memories_dir.mkdir(parents=True, exist_ok=True)
    manager = MemoryManager(hermes_home=home)
    manager.add_provider(BuiltinMemoryProvider.for_home(home))
    external = RecordingProvider("recorder")
    manager.add_provider(external)
    manager.initialize_all("s-turn")
    try:
        for fact in FACTS:
            manager.handle_memory_tool({"action": "add", "target": "memory", "content": fact})
        replaced = manager.handle_memory_tool(
            {"action": "replace", "target": "memory", "old_text": "pnpm", "content": "Project uses pnpm 9."})
        assert json.loads(replaced)["success"] is True
        manager.handle_memory_tool({"action": "remove", "target": "memory", "old_text": "Tuesdays"})
        manager.handle_memory_tool({"target": "memory", "operations": [
            {"action": "add", "content": "Releases are tagged."},
            {"action": "remove", "old_text": "GitHub"},
        ]})  # fmt: skip
        manager.flush_pending(5)
        mirrored = [(call[1], call[3], call[4].get("previous_content"))
                    for call in external.named("on_memory_write")][len(FACTS):]  # fmt: skip
        assert mirrored == [
            ("replace", "Project uses pnpm 9.", FACTS[0]),
            ("remove", "", FACTS[1]),
            ("add", "Releases are tagged.", None),
            ("remove", "", FACTS[2]),
        ]
    finally:
        manager.shutdown_all()
