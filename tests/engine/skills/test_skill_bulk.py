"""skills_bulk: one action over many skills, all or nothing, through the engine face."""

from __future__ import annotations

import hashlib

from hermes_memory import api
from hermes_memory.skills import read_usage


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


def test_a_refusal_half_way_rolls_back_what_was_done(home, hb):
    names = make(hb)
    data = hb.usage_data()
    data[names[2]]["pinned"] = True  # archive refuses a pinned skill
    hb.usage(data)
    before = tree(home)
    result = api.skills_bulk(home, "archive", names)
    assert not result["ok"]
    assert result["failed"] == names[2] and result["rolled_back"] is True
    assert "pinned" in result["message"] and "put back" in result["message"]
    assert tree(home) == before
    assert all(read_usage(home).record(n)["state"] == "active" for n in names)


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
