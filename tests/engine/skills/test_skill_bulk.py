"""skills_bulk: one action over many skills, all or nothing, through the engine face."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from hermes_memory import api
from hermes_memory.skills import read_usage, usage
from hermes_memory.skills.moves import CRASH_ENV, INTENT_FILE

ENGINE = Path(__file__).resolve().parents[3] / "engine"


def tree(home) -> dict[str, str]:
    """Every SKILL.md under skills/ (archive included) by path, with its digest."""
    return {
        str(p.relative_to(home.skills_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.skills_dir.rglob("SKILL.md"))
    }


def make(hb, count=5):
    names = [f"skill-{i}" for i in range(count)]
    for name in names:
        hb.skill(f"devops/{name}")
    hb.usage({name: {"created_by": "agent", "use_count": 1, "state": "active", "pinned": False}
              for name in names})
    return names


def test_archive_many_then_restore_them_puts_every_file_back(home, hb):
    names = make(hb)
    before = tree(home)
    result = api.skills_bulk(home, "archive", names[:3])
    assert result["ok"], result
    assert result["done"] == names[:3]
    assert {p.split("/")[0] for p in tree(home)} == {".archive", "devops"}
    assert sorted(p for p in tree(home) if p.startswith("devops")) == [f"devops/{n}/SKILL.md" for n in names[3:]]
    assert all(read_usage(home).record(n)["state"] == "archived" for n in names[:3])
    back = api.skills_bulk(home, "restore", result["done"])
    assert back["ok"], back
    assert tree(home) == before
    assert all(read_usage(home).record(n)["state"] == "active" for n in names)


def test_a_refusal_anywhere_changes_nothing(home, hb):
    names = make(hb)
    data = hb.usage_data()
    data[names[2]]["pinned"] = True  # archive refuses a pinned skill
    hb.usage(data)
    before, sidecar = tree(home), home.skills_usage_file.read_bytes()
    result = api.skills_bulk(home, "archive", names)
    assert not result["ok"]
    assert result["failed"] == names[2] and result["rolled_back"] is True
    assert "pinned" in result["message"] and "nothing was changed" in result["message"]
    assert tree(home) == before  # every skill checked before the first one moved
    assert home.skills_usage_file.read_bytes() == sidecar
    assert not (home.skills_dir / INTENT_FILE).exists()


def test_a_move_failing_half_way_is_taken_back(home, hb, monkeypatch):
    names = make(hb)
    before, sidecar = tree(home), home.skills_usage_file.read_bytes()
    real_rename, calls = os.rename, []

    def rename(source, dest):
        calls.append(source)
        if len(calls) == 3:  # the third folder cannot move (a full disk, a busy mount)
            raise OSError(28, "No space left on device")
        real_rename(source, dest)

    monkeypatch.setattr(os, "rename", rename)
    result = api.skills_bulk(home, "archive", names)
    monkeypatch.setattr(os, "rename", real_rename)
    assert not result["ok"] and result["rolled_back"] is True
    assert "No space left" in result["message"]
    assert tree(home) == before
    assert home.skills_usage_file.read_bytes() == sidecar
    assert not (home.skills_dir / INTENT_FILE).exists()


def test_a_batch_writes_the_usage_file_once_in_the_agents_format(home, hb, monkeypatch):
    names = make(hb, 6)
    writes = []
    real_write = usage.atomic_write_text

    def counting(path, text, *args, **kwargs):
        writes.append(path)
        real_write(path, text, *args, **kwargs)

    monkeypatch.setattr(usage, "atomic_write_text", counting)
    for action in ("pin", "unpin", "archive", "restore"):
        writes.clear()
        result = api.skills_bulk(home, action, names)
        assert result["ok"] and len(result["done"]) == 6, result
        assert writes == [home.skills_usage_file], action
        text = home.skills_usage_file.read_text()
        assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False)


def test_a_batch_killed_between_moves_is_settled_by_the_next_command(home, hb):
    names = make(hb, 4)
    script = f"from hermes_memory import api, home; api.skills_bulk(home.HermesHome.resolve({str(home.path)!r}), 'archive', {names!r})"
    env = {**os.environ, "PYTHONPATH": str(ENGINE), CRASH_ENV: "archive:moved"}
    killed = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL
    assert (home.skills_dir / INTENT_FILE).exists()  # the batch's intent names all four
    snapshot = read_usage(home)  # a plain read settles each move of it
    assert any(f"finished an interrupted archive of '{names[0]}'" in w for w in snapshot.warnings)
    assert sum("undid an interrupted archive" in w for w in snapshot.warnings) == 3
    assert not (home.skills_dir / INTENT_FILE).exists()
    assert snapshot.record(names[0])["state"] == "archived"
    assert snapshot.record(names[0])["archived_from"] == f"devops/{names[0]}"
    assert [snapshot.record(n)["state"] for n in names[1:]] == ["active"] * 3
    assert sorted(p for p in tree(home) if p.startswith("devops")) == [f"devops/{n}/SKILL.md" for n in names[1:]]
    back = api.skills_bulk(home, "restore", [names[0]])
    assert back["ok"] and (home.skills_dir / "devops" / names[0] / "SKILL.md").is_file()


def test_pin_skips_pinned_ones_so_undo_leaves_them_pinned(home, hb):
    names = make(hb, 3)
    api.skills_bulk(home, "pin", [names[0]])
    result = api.skills_bulk(home, "pin", names)
    assert result["ok"] and result["done"] == names[1:] and result["unchanged"] == [names[0]]
    undo = api.skills_bulk(home, "unpin", result["done"])
    assert undo["ok"]
    assert [read_usage(home).record(n)["pinned"] for n in names] == [True, False, False]


def test_bad_input_is_refused_with_nothing_changed(home, hb):
    names = make(hb, 2)
    before = tree(home)
    assert "unknown action" in api.skills_bulk(home, "explode", names)["message"]
    assert not api.skills_bulk(home, "archive", "skill-0")["ok"]  # not a list
    assert not api.skills_bulk(home, "archive", [None])["ok"]
    missing = api.skills_bulk(home, "archive", [names[0], "no-such-skill"])
    assert not missing["ok"] and "not found" in missing["message"]
    assert tree(home) == before  # the one archived before the refusal was put back
    assert read_usage(home).record(names[0])["state"] == "active"


def test_a_batch_records_each_skill_in_history(home, hb):
    from hermes_memory.history.storage import HistoryStore

    names = make(hb, 4)
    assert api.skills_bulk(home, "archive", names)["ok"]
    assert api.skills_bulk(home, "restore", names[:2])["ok"]
    store = HistoryStore(home)
    last = {name: store.last_event({"kind": "skill", "skill": name}) for name in names}
    assert [(last[n]["action"], last[n]["state"]) for n in names] == [
        ("restore", "active"), ("restore", "active"), ("archive", "archived"), ("archive", "archived"),
    ]
    assert all(last[n]["md"] for n in names)  # the SKILL.md text was found where it went
