"""Node actions: show, edit, delete, pin, unpin, restore; every refusal and success."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hermes_test_home_builder import skill_text, tree

from hermes_memory.learning import mutations
from hermes_memory.learning.graph import build_learning_graph
from hermes_memory.learning.mutations import (
    delete_node,
    edit_node,
    node_detail,
    parse_node_kind,
    pin_node,
    restore_node,
    unpin_node,
)
from hermes_memory.memory.entries import ENTRY_DELIMITER, fingerprint

ENGINE = Path(__file__).resolve().parents[3] / "engine"
STALE = "memory node id is stale — refresh the graph"


@pytest.fixture
def mem(hb):
    hb.memory("memory", ["alpha note", "beta note", "gamma note"])
    hb.memory("user", ["likes tea"])
    return hb


def ids(hb) -> dict[str, str]:
    """Entry text -> node id, from a fresh graph."""
    payload = build_learning_graph(hb.home)
    return {card["body"]: card["id"] for card in payload["memory"]}


def memory_text(hb) -> str:
    return hb.home.memory_file.read_text(encoding="utf-8")


def run_writer(home, code: str) -> None:
    """Another process writing MEMORY.md through the memory store, as the agent would."""
    script = textwrap.dedent(
        f"""
        from hermes_memory.home import HermesHome
        from hermes_memory.memory.store import MemoryStore
        store = MemoryStore(HermesHome.resolve({str(home.path)!r}))
        """
    ) + textwrap.dedent(code)
    env = {**os.environ, "PYTHONPATH": str(ENGINE)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# --- memory ------------------------------------------------------------------------------
def test_parse_node_kind():
    assert parse_node_kind("memory:memory:0:abcdef012345") == "memory"
    assert parse_node_kind("docker-logs") == "skill"


def test_memory_detail(mem):
    node_id = ids(mem)["beta note"]
    assert node_detail(mem.home, node_id) == {
        "ok": True,
        "kind": "memory",
        "id": node_id,
        "label": "beta note",
        "content": "beta note",
        "fingerprint": fingerprint("beta note"),
        "memorySource": "memory",
        "file": "MEMORY.md",
        "limit": 2200,
    }
    assert node_detail(mem.home, "memory:memory:1")["content"] == "beta note"  # legacy id
    assert node_detail(mem.home, "memory:profile:3")["content"] == "likes tea"
    assert node_detail(mem.home, "memory:profile:1") == {"ok": False, "message": STALE}


def test_legacy_three_part_ids_delete_by_position_is_refused(mem):
    """Issue 10: ``node delete memory:memory:0`` twice deleted two different entries,
    both "successful". A positional id cannot prove which entry the caller saw, so edit
    and delete refuse it, naming the full id of the entry now at that position."""
    before = memory_text(mem)
    for _ in range(2):
        result = delete_node(mem.home, "memory:memory:0")
        assert result["ok"] is False
        assert f"memory:memory:0:{fingerprint('alpha note')}" in result["message"]
        assert "'alpha note'" in result["message"]
    result = edit_node(mem.home, "memory:memory:2", "gamma, via an old id")
    assert result["ok"] is False and f"memory:memory:2:{fingerprint('gamma note')}" in result["message"]
    assert delete_node(mem.home, "memory:profile:3")["ok"] is False
    assert memory_text(mem) == before
    assert mem.home.user_file.read_text(encoding="utf-8") == "likes tea"
    # the full id it names does the change, once
    full_id = f"memory:memory:0:{fingerprint('alpha note')}"
    assert delete_node(mem.home, full_id)["ok"] is True
    assert delete_node(mem.home, full_id) == {"ok": False, "message": STALE}
    assert memory_text(mem) == ENTRY_DELIMITER.join(["beta note", "gamma note"])


def test_legacy_three_part_ids_are_refused_by_the_cli_too(mem):
    import io

    from hermes_memory.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["--home", str(mem.home.path), "node", "delete", "memory:memory:0"], stdout=out, stderr=err)
    assert code == 1 and "use its full id: memory:memory:0:" in err.getvalue()
    assert memory_text(mem) == ENTRY_DELIMITER.join(["alpha note", "beta note", "gamma note"])


def test_memory_edit_and_delete(mem):
    node_id = ids(mem)["beta note"]
    result = edit_node(mem.home, node_id, "  beta note, revised  \n")
    assert result == {
        "ok": True,
        "message": "updated memory in MEMORY.md",
        "id": f"memory:memory:1:{fingerprint('beta note, revised')}",
    }
    assert memory_text(mem) == ENTRY_DELIMITER.join(["alpha note", "beta note, revised", "gamma note"])
    assert edit_node(mem.home, result["id"], "beta note, revised")["message"] == (
        "no changes to the memory in MEMORY.md"
    )
    assert delete_node(mem.home, result["id"]) == {"ok": True, "message": "deleted memory from MEMORY.md"}
    assert memory_text(mem) == ENTRY_DELIMITER.join(["alpha note", "gamma note"])
    user_id = ids(mem)["likes tea"]
    assert delete_node(mem.home, user_id) == {"ok": True, "message": "deleted memory from USER.md"}


def test_memory_refusals_change_nothing(mem, write_config):
    before = memory_text(mem)
    node_id = ids(mem)["beta note"]
    assert edit_node(mem.home, node_id, "  \n") == {
        "ok": False, "message": "empty memory — use delete to remove it"
    }
    # id problems come before the empty-content message
    assert edit_node(mem.home, "memory:memory:x", "") == {
        "ok": False, "message": "bad memory node id: 'memory:memory:x'"
    }
    assert edit_node(mem.home, "memory:memory:9", "x") == {
        "ok": False, "message": "memory index 9 out of range"
    }
    assert delete_node(mem.home, "memory:profile:0") == {"ok": False, "message": STALE}
    assert pin_node(mem.home, node_id)["message"] == "memory entries cannot be pinned; only skills can"
    assert unpin_node(mem.home, node_id)["ok"] is False
    assert restore_node(mem.home, node_id)["ok"] is False
    write_config("memory:\n  memory_char_limit: 60\n")
    result = edit_node(mem.home, node_id, "b" * 80)
    assert result["ok"] is False
    assert result["message"] == (  # the store's numbers, with advice for a person
        "Replacement would put memory at 106/60 chars. Shorten the new text, or shorten or "
        "remove other entries to make room."
    )
    assert memory_text(mem) == before


def test_a_stale_fingerprint_is_refused_never_retargeted(mem):
    node_id = ids(mem)["beta note"]
    mem.memory("memory", ["alpha note", "beta note (changed by hand)", "gamma note"])
    for result in (edit_node(mem.home, node_id, "mine"), delete_node(mem.home, node_id),
                   node_detail(mem.home, node_id)):
        assert result["ok"] is False
        assert result["message"].startswith(STALE)
    assert memory_text(mem) == ENTRY_DELIMITER.join(
        ["alpha note", "beta note (changed by hand)", "gamma note"]
    )


def test_after_another_process_inserts_entries_the_id_still_hits_its_own_entry(mem):
    """Upstream's positional ids hit the neighbour after an insertion (PR 64687)."""
    graph_ids = ids(mem)
    run_writer(
        mem.home,
        """
        from hermes_memory.fileio import file_lock, atomic_write_text
        from hermes_memory.memory.entries import serialise_entries
        path = store.path("memory")
        with file_lock(path):  # an insertion at the top, as a hand edit or another tool
            entries = store.read_entries("memory")
            atomic_write_text(path, serialise_entries(["new first", *entries]), ".mem_")
        print(store.add("memory", "new last"))
        """,
    )
    assert delete_node(mem.home, graph_ids["beta note"])["ok"] is True
    assert memory_text(mem) == ENTRY_DELIMITER.join(
        ["new first", "alpha note", "gamma note", "new last"]
    )
    # the index in the old id is now wrong, but only its fingerprint counts
    assert edit_node(mem.home, graph_ids["gamma note"], "gamma, edited")["ok"] is True
    assert "new last" in memory_text(mem) and "gamma, edited" in memory_text(mem)


def test_after_another_process_rewrites_the_entry_the_id_is_stale(mem):
    graph_ids = ids(mem)
    run_writer(mem.home, 'print(store.replace("memory", "beta note", "beta note v2"))')
    result = edit_node(mem.home, graph_ids["beta note"], "my edit")
    assert result["ok"] is False and result["message"].startswith(STALE)
    assert memory_text(mem) == ENTRY_DELIMITER.join(["alpha note", "beta note v2", "gamma note"])


def test_an_unreadable_memory_file_is_reported(mem):
    node_id = ids(mem)["beta note"]
    mem.home.memory_file.write_bytes(b"caf\xe9")
    result = node_detail(mem.home, node_id)
    assert result == {
        "ok": False,
        "message": "MEMORY.md is not valid UTF-8 (bad byte at offset 3). It was not loaded "
        "and will not be written; re-save it as UTF-8.",
    }


# --- skills ------------------------------------------------------------------------------
@pytest.fixture
def skills(hb):
    hb.skill("devops/docker-logs")
    hb.skill("misc/dir-name", name="front-name")
    hb.skill("pinned-one")
    hb.skill("seeded")
    hb.manifest("seeded")
    hb.usage({"pinned-one": {"pinned": True, "created_by": "agent"}})
    return hb


def test_node_ids_and_detail_edit_lookups_use_the_same_frontmatter_name(skills):
    """Upstream looked skills up by directory name, so the graph's id (the frontmatter
    name) missed whenever the two differ."""
    detail = node_detail(skills.home, "front-name")
    assert detail["ok"] is True
    assert detail["path"] == str(skills.home.skills_dir / "misc/dir-name/SKILL.md")
    assert edit_node(skills.home, "front-name", skill_text("front-name", "New words"))["ok"]
    assert node_detail(skills.home, "dir-name") == {"ok": False, "message": "skill 'dir-name' not found"}


def test_skill_detail(skills):
    path = skills.home.skills_dir / "devops/docker-logs/SKILL.md"
    detail = node_detail(skills.home, "docker-logs")
    content = path.read_text()
    assert detail == {
        "ok": True,
        "kind": "skill",
        "id": "docker-logs",
        "label": "docker-logs",
        "content": content,
        "path": str(path),
        "revision": detail["revision"],
        "readOnly": None,
        "pinned": False,
        "source": "profile",
        "provenance": "local",
    }
    assert len(detail["revision"]) == 16
    assert node_detail(skills.home, "seeded")["readOnly"].startswith("skill 'seeded' is a bundled built-in")


def test_skill_edit_validates_and_honours_the_revision(skills):
    detail = node_detail(skills.home, "docker-logs")
    bad = edit_node(skills.home, "docker-logs", "no frontmatter")
    assert bad == {"ok": False, "message": "SKILL.md must start with YAML frontmatter (---).", "name": "docker-logs"}
    new = skill_text("docker-logs", "Tail logs")
    good = edit_node(skills.home, "docker-logs", new, revision=detail["revision"])
    assert good["ok"] is True and good["message"] == "updated 'docker-logs'"
    again = edit_node(skills.home, "docker-logs", skill_text("docker-logs", "x"), revision=detail["revision"])
    assert again["ok"] is False
    assert again["message"] == "'docker-logs' changed on disk since it was opened; reload it and edit again"


def test_pinned_skills_refuse_delete_but_accept_edits(skills):
    result = delete_node(skills.home, "pinned-one")
    assert result == {
        "ok": False,
        "message": "'pinned-one' is pinned — unpin it first (hermes curator unpin pinned-one)",
        "name": "pinned-one",
    }
    assert edit_node(skills.home, "pinned-one", skill_text("pinned-one", "Edited"))["ok"] is True


def test_delete_archives_and_restore_brings_back_exactly(skills):
    skills_dir = skills.home.skills_dir
    (skills_dir / ".usage.json.lock").touch()
    before_tree = tree(skills_dir)
    before_usage = json.loads(skills.home.skills_usage_file.read_text())
    result = delete_node(skills.home, "docker-logs")
    assert result == {
        "ok": True,
        "message": "archived 'docker-logs' — restore with: hermes curator restore docker-logs",
        "name": "docker-logs",
        "path": str(skills_dir / ".archive/docker-logs"),
    }
    assert node_detail(skills.home, "docker-logs") == {
        "ok": False,
        "message": "skill 'docker-logs' is archived — restore it first (node restore docker-logs)",
    }
    restored = restore_node(skills.home, "docker-logs")
    assert restored["ok"] is True
    assert restored["message"] == f"restored 'docker-logs' to {skills_dir / 'devops/docker-logs'}"
    assert tree(skills_dir) == sorted([*before_tree, ".archive/"])
    record = json.loads(skills.home.skills_usage_file.read_text())
    created_at = record["docker-logs"]["created_at"]
    assert record == {
        **before_usage,
        "docker-logs": {
            "created_by": None, "use_count": 0, "view_count": 0, "last_used_at": None,
            "last_viewed_at": None, "patch_count": 0, "last_patched_at": None,
            "created_at": created_at, "state": "active", "pinned": False, "archived_at": None,
        },
    }


def test_pin_and_unpin_round_trip(skills):
    before = skills.home.skills_usage_file.read_text()
    assert pin_node(skills.home, "pinned-one") == {
        "ok": True, "message": "'pinned-one' is already pinned", "name": "pinned-one",
        "path": str(skills.home.skills_dir / "pinned-one"),
    }
    assert unpin_node(skills.home, "pinned-one")["message"] == "unpinned 'pinned-one'"
    assert pin_node(skills.home, "pinned-one")["message"].startswith("pinned 'pinned-one'")
    assert json.loads(skills.home.skills_usage_file.read_text()) == json.loads(before)
    assert pin_node(skills.home, "seeded")["ok"] is False


@pytest.mark.parametrize("bad_id", [None, 42, "", "   "])
def test_garbage_ids_never_raise(skills, bad_id):
    for action in (node_detail, delete_node, pin_node, unpin_node, restore_node):
        assert action(skills.home, bad_id) == {"ok": False, "message": "a node id is required"}
    assert edit_node(skills.home, bad_id, "x") == {"ok": False, "message": "a node id is required"}


def test_path_like_ids_are_refused(skills):
    for node_id in ("../docker-logs", "/etc/passwd", "devops/docker-logs"):
        result = delete_node(skills.home, node_id)
        assert result["ok"] is False
        assert "is not a skill name" in result["message"]
    assert tree(skills.home.skills_dir).count("devops/docker-logs/SKILL.md") == 1


def test_unexpected_errors_become_refusals(skills, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(mutations, "archive_skill", boom)
    assert delete_node(skills.home, "docker-logs") == {
        "ok": False, "message": "delete_node failed: disk on fire"
    }
    assert edit_node(skills.home, "docker-logs", 5) == {"ok": False, "message": "new content must be text"}
