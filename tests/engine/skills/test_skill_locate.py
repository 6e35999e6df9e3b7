"""A command on one skill finds it by name exactly as the full scan does, without reading
the other skills' SKILL.md files (:mod:`hermes_memory.skills.locate`).

Each behaviour test runs the action twice on two homes built alike: once with the lookup,
once with ``locate_skill`` answering from the full scan (the behaviour before the lookup),
and compares the results, messages and what is on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hermes_test_home_builder import HomeBuilder, skill_text, tree

from hermes_memory import fileio
from hermes_memory.home import HermesHome
from hermes_memory.learning.mutations import (
    delete_node,
    edit_node,
    node_detail,
    pin_node,
    restore_node,
    unpin_node,
)
from hermes_memory.learning.node_actions import archive, restore, set_pin
from hermes_memory.skills import lifecycle, locate
from hermes_memory.skills.index import SkillIndex
from hermes_memory.skills.lifecycle import find_skill, locate_skill
from hermes_memory.skills.roots import MAX_WALK_DEPTH
from hermes_memory.skills.shared_index import shared_index


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch):
    """Files a test wrote a moment ago count as settled, so the names cache keeps them (as
    it keeps the files of a home nobody is writing to)."""
    monkeypatch.setattr(fileio, "RACY_NS", 0)


# --- an odd home ---------------------------------------------------------------------
OUTSIDE_NAME = "outsider"


def odd_home(root: Path, outside: Path, external: Path) -> HermesHome:
    """Collisions across roots and within one, folders named otherwise than their skill,
    nested skills, support and excluded folders, links in and out of the root, a FIFO, a
    file that is not UTF-8, names YAML spells oddly, a skill too deep, archived copies."""
    (root / "memories").mkdir(parents=True)
    home = HermesHome.resolve(root)
    hb = HomeBuilder(home)
    base = root / "base"
    hb.config(f"skills:\n  base_dir: base\n  external_dirs:\n    - {external}\n")
    hb.skill("shared", root=base)  # wins over the profile's and the external one
    hb.skill("tools/base-only", root=base)
    hb.skill("shared")
    hb.skill("devops/twin")
    hb.skill("aaa/twin-copy", name="twin")  # listed first: the twin the scan keeps
    hb.skill("misnamed", name="other-skill")
    hb.skill("odd-folder", name="real-name")
    hb.skill("noname", name=None)  # no name: the folder's
    hb.skill("blank", text="---\nname: '  '\ndescription: blank name\n---\nbody\n")
    hb.skill("parent")
    hb.skill("parent/child")  # a skill inside a skill (not a support folder)
    hb.skill("withref")
    hb.skill("withref/references/doc", name="not-a-skill")  # under a support folder
    hb.skill("multi")  # two subfolders: listed, its support folder still skipped
    hb.skill("multi/references/doc", name="hidden-doc")
    hb.skill("multi/sub", name="multi-sub")
    hb.skill("withscripts/scripts/inner", name="scripted")  # support folder, no SKILL.md above
    hb.skill(".git/hidden", name="in-git")
    hb.skill("cat/node_modules/pkg", name="in-modules")
    hb.skill("esc", text='---\nname: "esc\\x61ped"\ndescription: escaped\n---\nbody\n')
    hb.skill("numeric", text="---\nname: 0x10\ndescription: a number\n---\nbody\n")
    hb.skill("folded", text="---\nname: >\n  folded-name\ndescription: folded\n---\nbody\n")
    hb.skill("latin", raw=b"---\nname: latin\ndescription: caf\xe9\n---\n")
    (home.skills_dir / "fifo-skill").mkdir()
    os.mkfifo(home.skills_dir / "fifo-skill" / "SKILL.md")
    hb.skill("linkmd-src", name="linked-md")
    (home.skills_dir / "a-linkmd").mkdir()
    os.symlink("../linkmd-src/SKILL.md", home.skills_dir / "a-linkmd" / "SKILL.md")
    os.symlink("devops", home.skills_dir / "zz-link")  # a folder link inside the root
    (home.skills_dir / "cat" / "deeper").mkdir(parents=True)
    os.symlink("..", home.skills_dir / "cat" / "deeper" / "up")  # a loop: never followed
    os.symlink(outside, home.skills_dir / "out-link")  # a folder link out of the home
    (home.skills_dir / "out-md").mkdir()
    os.symlink(outside / OUTSIDE_NAME / "SKILL.md", home.skills_dir / "out-md" / "SKILL.md")
    hb.skill("/".join(f"d{level}" for level in range(MAX_WALK_DEPTH + 1)) + "/deep", name="too-deep")
    hb.skill("ext-only", root=external)
    hb.skill("shared", root=external)
    hb.skill("gone", root=home.skills_archive_dir)
    hb.skill("gone-20260101120000", name="gone", root=home.skills_archive_dir)
    hb.skill("shadowed", root=home.skills_archive_dir)
    hb.skill("cat/shadowed")  # archived, and made again
    hb.manifest("seeded")
    hb.skill("seeded")
    hb.hub({"hubbed": {"install_path": "hubbed"}})
    hb.skill("hubbed")
    hb.usage({"real-name": {"pinned": True, "state": "active"}, "gone": {"state": "archived"}})
    return home


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    (folder / OUTSIDE_NAME).mkdir(parents=True)
    (folder / OUTSIDE_NAME / "SKILL.md").write_text(skill_text(OUTSIDE_NAME))
    return folder


@pytest.fixture
def external(tmp_path):
    folder = tmp_path / "external"
    folder.mkdir()
    return folder


@pytest.fixture
def make_home(tmp_path, outside, external):
    def make(label: str) -> HermesHome:
        return odd_home(tmp_path / label, outside, external)

    return make


NAMES = [
    "shared", "base-only", "twin", "twin-copy", "other-skill", "misnamed", "real-name", "odd-folder",
    "noname", "blank", "parent", "child", "withref", "not-a-skill", "scripted", "multi", "hidden-doc",
    "multi-sub", "in-git",
    "in-modules", "escaped", "esc", "16", "numeric", "folded-name", "folded", "latin",
    "fifo-skill", "linked-md", "a-linkmd", "linkmd-src", OUTSIDE_NAME, "out-md", "too-deep",
    "ext-only", "gone", "shadowed", "seeded", "hubbed", "absent", "Twin", "twin ",
]  # fmt: skip


def described(skill) -> tuple | None:
    if skill is None:
        return None
    return (
        skill.name, skill.source, skill.provenance, skill.root.label, str(skill.root.path),
        skill.directory, skill.rel_dir, skill.category, skill.description, skill.tags,
        skill.related, skill.frontmatter_text, skill.mtime_ns, skill.size, skill.frontmatter_check,
    )  # fmt: skip


# --- the lookup against the scan -------------------------------------------------------
def test_every_name_resolves_as_in_the_full_scan_with_and_without_the_cache(make_home):
    home = make_home("h")
    full = SkillIndex(home).scan()
    assert full.get("twin").directory.endswith("aaa/twin-copy")  # the home is as odd as meant
    assert full.get("shared").root.label == "base" and full.get("escaped") and full.get("16")
    for round_ in ("cold", "warm"):
        for name in NAMES:
            assert described(locate.lookup(home).get(name)) == described(full.get(name)), (round_, name)
    one = locate.lookup(home)
    assert (one.config, one.bundled, one.hub) == (full.config, full.bundled, full.hub)
    assert [(r.label, r.path) for r in one.roots] == [(r.label, r.path) for r in full.roots]


def test_the_walk_names_every_skill_in_the_scan_order(make_home):
    home = make_home("h")
    full = SkillIndex(home).scan()
    lookup = locate.lookup(home)
    assert lookup.winner("absent") is None  # walks to the end
    in_order = [item.directory for item in lookup._first.values()]
    assert in_order == [skill.directory for skill in full.skills]


def test_a_warm_lookup_reads_only_the_skill_asked_for(make_home, opened):
    home = make_home("h")
    locate.lookup(home).winner("absent")  # fills the names cache
    for name in ("real-name", "twin", "ext-only", "shared", "linked-md"):
        lookup = locate.lookup(home)
        with opened() as paths:
            skill = lookup.get(name)
        assert skill is not None
        assert paths == [skill.directory + os.sep + "SKILL.md"], (name, paths)
        assert lookup.files_read == 0
    with opened() as paths:
        assert locate.lookup(home).get("absent") is None
    assert paths == []


def test_the_walk_stops_at_the_first_skill_of_the_name(make_home):
    home = make_home("h")
    locate.lookup(home).winner("absent")
    early, late = locate.lookup(home), locate.lookup(home)
    early.get("shared")  # in the base root, first
    late.get("ext-only")  # in the external root, last
    assert early.walked < late.walked


def test_a_changed_file_is_read_again_even_with_its_old_time_and_size(make_home):
    home = make_home("h")
    assert locate.lookup(home).get("other-skill") is not None
    path = home.skills_dir / "misnamed" / "SKILL.md"
    info = path.stat()
    text = path.read_text()
    path.write_text(text.replace("name: other-skill", "name: other-skjll"))  # same size
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # and the old time
    assert path.stat().st_size == info.st_size
    assert locate.lookup(home).get("other-skill") is None
    assert locate.lookup(home).get("other-skjll").directory.endswith("misnamed")
    # a skill made since, earlier in the order, takes the name
    HomeBuilder(home).skill("aa-first", name="real-name")
    assert locate.lookup(home).get("real-name").directory.endswith("aa-first")
    assert described(locate.lookup(home).get("real-name")) == described(SkillIndex(home).scan().get("real-name"))


@pytest.mark.parametrize("damage", [
    b"", b"not json", b"[]", b'{"v": 2}', b'{"v": 2, "rules": "x", "files": {}}',
    "garbage entries", "a lying entry",
])  # fmt: skip
def test_a_damaged_or_lying_cache_changes_no_answer(make_home, damage):
    home = make_home("h")
    locate.lookup(home).winner("absent")
    path = locate.cache_path(home)
    data = json.loads(path.read_bytes())
    if damage == "garbage entries":
        data["files"] = {key: [1, "x", None] for key in data["files"]} | {"/nowhere": 5}
        path.write_text(json.dumps(data))
    elif damage == "a lying entry":  # claims the folder 'misnamed' holds 'real-name'
        key = str(home.skills_dir / "misnamed")
        data["files"][key][0] = "real-name"
        path.write_text(json.dumps(data))
    else:
        path.write_bytes(damage)
    full = SkillIndex(home).scan()
    # (a forged entry can hide the name of the file it stands for, 'other-skill' here, as
    # a forged history can: the cache is the user's own file, trusted like skill-stamps.json)
    for name in NAMES if damage != "a lying entry" else set(NAMES) - {"other-skill"}:
        assert described(locate.lookup(home).get(name)) == described(full.get(name)), name


def test_the_cache_is_kept_outside_the_home(make_home, tmp_path):
    home = make_home("h")
    before = tree(home.path)
    for name in NAMES:
        node_detail(home, name)
    assert tree(home.path) == before
    path = locate.cache_path(home)
    assert path.is_file() and not str(path).startswith(str(home.path))
    assert str(path).startswith(os.environ["XDG_CACHE_HOME"])


def test_a_kept_index_answers_in_the_app(make_home):
    home = make_home("h")
    kept = shared_index(home)
    kept.scan()
    assert locate_skill(home, "twin").__class__ is not locate.SkillLookup
    del kept
    assert locate_skill(home, "twin").__class__ is locate.SkillLookup


# --- the actions, both ways -------------------------------------------------------------
def full_scan(home, name):
    return SkillIndex(home).scan()


def normal(value, home: HermesHome):
    text = json.dumps(value, sort_keys=True, default=str)
    return json.loads(text.replace(str(home.path), "<HOME>"))


def usage_states(home: HermesHome) -> dict:
    try:
        data = json.loads(home.skills_usage_file.read_text())
    except FileNotFoundError:
        return {}
    return {name: {k: v for k, v in record.items() if not k.endswith("_at")} for name, record in data.items()}


def on_disk(home: HermesHome) -> tuple:
    files = [path for path in tree(home.path) if not path.startswith(".memory-studio/")]
    return files, usage_states(home)


STEPS = [
    ("show", lambda home, name: node_detail(home, name)),
    ("pin", lambda home, name: pin_node(home, name)),
    ("unpin", lambda home, name: unpin_node(home, name)),
    ("delete", lambda home, name: delete_node(home, name)),
    ("restore", lambda home, name: restore_node(home, name)),
    ("pin again", lambda home, name: set_pin(home, name, True)),
    ("archive", lambda home, name: archive(home, name)),
    ("restore again", lambda home, name: restore(home, name)),
    ("edit", lambda home, name: edit_node(home, name, skill_text(name, "Edited by a person"))),
    ("show again", lambda home, name: node_detail(home, name)),
]
HOSTILE = ["", " ", "../etc", "a/b", "..", "x\x00y", "memory:nothing", "C:thing", "twin\n"]


@pytest.mark.parametrize("name", NAMES + HOSTILE)
def test_each_action_does_what_it_did_with_the_full_scan(make_home, monkeypatch, name):
    fast, slow = make_home("fast"), make_home("slow")
    locate.lookup(fast).winner("absent")  # a warm cache, as after a first command
    for label, action in STEPS:
        got = action(fast, name)
        with monkeypatch.context() as patch:
            patch.setattr(lifecycle, "locate_skill", full_scan)
            expected = action(slow, name)
        assert normal(got, fast) == normal(expected, slow), (label, name)
        assert on_disk(fast) == on_disk(slow), (label, name)


def test_archive_and_restore_of_a_renamed_skill_read_only_its_files(make_home, opened):
    home = make_home("h")
    locate.lookup(home).winner("absent")
    skill_md = str(home.skills_dir / "odd-folder" / "SKILL.md")
    archived = str(home.skills_archive_dir / "odd-folder" / "SKILL.md")  # (its history is recorded there)
    for action in (node_detail, unpin_node, pin_node, unpin_node, delete_node):
        with opened() as paths:
            result = action(home, "real-name")
        assert result["ok"], result
        assert set(paths) <= {skill_md, archived}, (action.__name__, paths)
    with opened() as paths:
        result = restore_node(home, "real-name")
    assert result["ok"], result
    # the archived copies are read to know their names (as before); no active skill but it
    active = [path for path in paths if not path.startswith(str(home.skills_archive_dir))]
    assert set(active) <= {skill_md}, paths


def test_find_skill_keeps_its_answers_for_hostile_names(make_home):
    home = make_home("h")
    for name in HOSTILE:
        fast = find_skill(home, name)
        slow = find_skill(home, name, SkillIndex(home).scan())
        assert (fast[1], fast[2]) == (slow[1], slow[2]), name


# --- the next command after our own write ---------------------------------------------
def test_a_command_after_our_own_write_serialises_only_the_changed_record(hb, monkeypatch):
    from hermes_memory.skills import usage

    for number in range(30):
        hb.skill(f"s{number:02d}")
    hb.usage({f"s{number:02d}": {"use_count": number, "pinned": False} for number in range(30)})
    home = hb.home
    whole: list[int] = []
    real = usage.serialise
    monkeypatch.setattr(usage, "serialise", lambda data: whole.append(len(data)) or real(data))

    def new_process():
        monkeypatch.setattr(usage, "_WRITTEN", {})  # what a process remembers of its writes

    new_process()
    assert pin_node(home, "s03")["ok"]
    assert max(whole) == 30  # the first write after another writer: the whole object
    for action, name in ((unpin_node, "s03"), (pin_node, "s07"), (delete_node, "s11"), (restore_node, "s11")):
        new_process()
        whole.clear()
        assert action(home, name)["ok"]
        assert whole and max(whole) == 1, (action.__name__, whole)  # only the changed record
        text = home.skills_usage_file.read_text()
        assert text == real(json.loads(text))  # still exactly the agent's format
    # another writer changed the file: its bytes no longer match, so the whole object again
    data = json.loads(home.skills_usage_file.read_text())
    data["s09"]["use_count"] = 99
    home.skills_usage_file.write_text(real(data))
    new_process()
    whole.clear()
    assert pin_node(home, "s10")["ok"]
    assert max(whole) == 30
    assert json.loads(home.skills_usage_file.read_text())["s09"]["use_count"] == 99


def test_a_profile_and_its_root_home_resolve_apart(tmp_path):
    root = HermesHome.resolve(tmp_path / "root")
    (root.path / "memories").mkdir(parents=True)
    work = root.with_profile("work")
    (work.path / "memories").mkdir(parents=True)
    HomeBuilder(root).skill("general/helper")
    HomeBuilder(work).skill("aa/other-folder", name="helper")
    for _round in range(2):
        assert locate.lookup(root).get("helper").directory == str(root.skills_dir / "general" / "helper")
        assert locate.lookup(work).get("helper").directory == str(work.skills_dir / "aa" / "other-folder")
    assert locate.cache_path(root) != locate.cache_path(work)
    assert node_detail(work, "helper")["path"].startswith(str(work.skills_dir))
