"""Finding skills: roots, layouts, ownership, exclusions, links, bad files, the cache."""

from __future__ import annotations

import os

import pytest

from hermes_memory.skills import index as index_module
from hermes_memory.skills.index import SkillIndex, scan_skills


@pytest.fixture
def roots(hb, tmp_path):
    """A profile with every layout, plus a base and an external root."""
    base = tmp_path / "agent-repo" / "skills"
    external = tmp_path / "shared-skills"
    hb.config(f"skills:\n  base_dir: {base}\n  external_dirs:\n    - {external}\n")
    hb.skill("core/base-tool", root=base, related=["docker-logs"])
    hb.skill("core/docker-logs", root=base, description="The bundled copy wins")
    hb.skill("team/ext-skill", root=external)
    hb.skill("devops/docker-logs", related=["k8s-basics"], tags=["docker", "logs"])
    hb.skill("devops/k8s-basics", category="cloud")
    hb.skill("flat-skill")
    hb.skill("research/papers/arxiv-digest")
    hb.skill("writing/blog", extra="metadata:\n  hermes:\n    category: content")
    hb.skill("misc/old-dir-name", name="new-name")
    hb.skill("misc/nameless", name=None)
    hb.skill("scripts/backup-db")
    hb.skill("plan")  # seeded by the agent: in the manifest
    hb.manifest("plan")
    hb.skill("tools/hub-skill")
    hb.hub({"hub-skill": {"install_path": "tools/hub-skill", "source": "github"}})
    return base, external


def test_each_skill_knows_its_name_root_category_and_owner(hb, roots):
    base, external = roots
    scan = scan_skills(hb.home)
    got = {
        s.name: (s.source, s.provenance, s.root.label, s.rel_dir, s.category)
        for s in scan.skills
    }
    assert got == {
        "base-tool": ("base", "bundled", "base", "core/base-tool", "core"),
        "docker-logs": ("base", "bundled", "base", "core/docker-logs", "core"),
        "backup-db": ("profile", "local", "profile", "scripts/backup-db", "scripts"),
        "k8s-basics": ("profile", "local", "profile", "devops/k8s-basics", "cloud"),
        "flat-skill": ("profile", "local", "profile", "flat-skill", "general"),
        "nameless": ("profile", "local", "profile", "misc/nameless", "misc"),
        "new-name": ("profile", "local", "profile", "misc/old-dir-name", "misc"),
        "plan": ("base", "bundled", "profile", "plan", "general"),
        "arxiv-digest": ("profile", "local", "profile", "research/papers/arxiv-digest", "papers"),
        "hub-skill": ("profile", "hub", "profile", "tools/hub-skill", "tools"),
        "blog": ("profile", "local", "profile", "writing/blog", "content"),
        "ext-skill": ("external", "external", "external", "team/ext-skill", "team"),
    }
    # base first, then profile sorted by path, then external
    assert [s.name for s in scan.skills] == [
        "base-tool", "docker-logs", "k8s-basics", "flat-skill", "nameless", "new-name",
        "plan", "arxiv-digest", "backup-db", "hub-skill", "blog", "ext-skill",
    ]
    # the profile's docker-logs is hidden by the bundled one: first seen wins
    assert [d.directory for d in scan.duplicates] == [str(hb.home.skills_dir / "devops/docker-logs")]
    assert scan.warnings == []
    assert scan.get("base-tool").related == ("docker-logs",)
    assert scan.get("docker-logs").description == "The bundled copy wins"
    assert scan.get("base-tool").directory == str(base / "core/base-tool")


def test_tags_and_related_come_from_metadata_or_top_level(hb):
    hb.skill("a", related=["b", " c "], tags=["x"])
    hb.skill("b", extra="related_skills: [a]\ntags: [top]")
    hb.skill("c", extra="related_skills: a, b")
    scan = scan_skills(hb.home)
    assert (scan.get("a").related, scan.get("a").tags) == (("b", "c"), ("x",))
    assert (scan.get("b").related, scan.get("b").tags) == (("a",), ("top",))
    assert scan.get("c").related == ("a", "b")


def test_malformed_yaml_still_gives_name_category_and_related(hb):
    hb.skill(
        "ops/broken",
        text="---\nname: broken-yaml\ndescription: Use when: it breaks\ncategory: ops-x\n"
        "related_skills: [alpha, 'beta'\n---\nbody\n",
    )
    skill = scan_skills(hb.home).get("broken-yaml")
    assert skill.category == "ops-x"
    assert skill.description == "Use when: it breaks"
    assert skill.related == ("alpha", "beta")


def test_bom_and_crlf_files_are_read(hb):
    hb.skill("win/bom-skill", raw=b"\xef\xbb\xbf---\nname: bom-skill\ndescription: d\n---\nbody\n")
    hb.skill("win/crlf-skill", raw=b"---\r\nname: crlf-skill\r\ndescription: d\r\n---\r\nbody\r\n")
    scan = scan_skills(hb.home)
    assert sorted(scan.by_name) == ["bom-skill", "crlf-skill"]
    assert scan.get("crlf-skill").description == "d"


def test_excluded_and_support_directories_hold_no_skills(hb):
    keep = hb.skill("devops/real")
    for rel in ("references/old", "templates/t", "scripts/s", "assets/a"):
        hb.skill(f"devops/real/{rel}", name=f"support-{rel.split('/')[0]}", root=hb.home.skills_dir)
    (keep / "references" / "SKILL.md").write_text("---\nname: ref-doc\n---\nx\n")
    for rel in (".git/x", ".github/x", ".hub/x", ".archive/x", "node_modules/x", "venv/x",
                ".venv/x", "site-packages/x", "__pycache__/x", ".locks/x", ".tox/x"):
        hb.skill(rel, name="hidden-" + rel.split("/")[0].strip("."))
    hb.skill("devops/real/nested-skill")  # a skill inside a skill that is not a support dir
    assert sorted(scan_skills(hb.home).by_name) == ["nested-skill", "real"]


def test_a_link_out_of_the_root_is_not_followed(hb, tmp_path):
    outside = tmp_path / "elsewhere"
    hb.skill("outside-skill", root=outside)
    os.symlink(outside, hb.home.skills_dir / "linked-dir")
    hb.skill("inside")
    os.symlink(outside / "outside-skill" / "SKILL.md", hb.skill("file-link") / "SKILL.md.tmp")
    os.replace(hb.home.skills_dir / "file-link" / "SKILL.md.tmp", hb.home.skills_dir / "file-link" / "SKILL.md")
    scan = scan_skills(hb.home)
    assert sorted(scan.by_name) == ["inside"]
    real_root = os.path.realpath(hb.home.skills_dir)
    assert sorted(scan.warnings) == [
        f"Skipped {hb.home.skills_dir / 'file-link' / 'SKILL.md'}: it links outside {real_root}.",
        f"Skipped {hb.home.skills_dir / 'linked-dir'}: it links outside {real_root}.",
    ]


def test_special_files_named_skill_md_are_not_opened_as_skills(hb):
    # A folder without subfolders has its SKILL.md opened directly (no listing); a FIFO
    # there must neither hang the scan nor count, and a link still gets its check.
    fifo_dir = hb.home.skills_dir / "cat" / "fifo-skill"
    fifo_dir.mkdir(parents=True)
    os.mkfifo(fifo_dir / "SKILL.md")
    hb.skill("cat/real-skill")
    target = hb.home.skills_dir / "cat" / "linked-skill.md"
    target.write_text("---\nname: linked-skill\ndescription: Kept beside its link\n---\nBody\n")
    linked = hb.home.skills_dir / "cat" / "linked-skill"
    linked.mkdir()
    os.symlink(target, linked / "SKILL.md")
    scan = scan_skills(hb.home)
    assert sorted(scan.by_name) == ["linked-skill", "real-skill"]
    assert scan.get("linked-skill").directory == str(linked)
    assert scan.warnings == []


def test_links_inside_the_root_are_followed_once_and_loops_end(hb):
    hb.skill("cat/real-skill")
    os.symlink(hb.home.skills_dir / "cat", hb.home.skills_dir / "alias")
    os.symlink(hb.home.skills_dir, hb.home.skills_dir / "cat" / "loop")
    scan = scan_skills(hb.home)
    assert sorted(scan.by_name) == ["real-skill"]
    # found once more through the alias link, and the loop link is never entered
    assert [d.directory for d in scan.duplicates] == [str(hb.home.skills_dir / "cat" / "real-skill")]
    assert scan.get("real-skill").directory == str(hb.home.skills_dir / "alias" / "real-skill")


def test_a_non_utf8_skill_is_skipped_with_a_warning(hb):
    hb.skill("good")
    hb.skill("bad", raw=b"---\nname: bad\ndescription: caf\xe9\n---\nbody\n")
    scan = scan_skills(hb.home)
    assert sorted(scan.by_name) == ["good"]
    path = hb.home.skills_dir / "bad" / "SKILL.md"
    assert scan.warnings == [
        f"{path} is not UTF-8 text (bad byte at offset 30); skipped. Re-save it as UTF-8."
    ]


def test_an_unreadable_skill_is_skipped_with_a_warning(hb, monkeypatch):
    hb.skill("good")
    bad = hb.skill("locked")
    real = index_module.read_head

    def read_head(path, **options):
        if path.startswith(str(bad)):
            raise PermissionError(13, "Permission denied")
        return real(path, **options)

    monkeypatch.setattr(index_module, "read_head", read_head)
    scan = scan_skills(hb.home)
    assert sorted(scan.by_name) == ["good"]
    assert scan.warnings == [f"Could not read {bad / 'SKILL.md'}: Permission denied; skipped."]


def test_two_skills_with_one_name_in_a_root_are_reported(hb):
    hb.skill("a/same", name="twin")
    hb.skill("b/same", name="twin")
    scan = scan_skills(hb.home)
    assert scan.get("twin").rel_dir == "a/same"
    assert scan.warnings == [
        f"Two skills are named 'twin': {hb.home.skills_dir / 'a/same'} and "
        f"{hb.home.skills_dir / 'b/same'}; only the first is used."
    ]


def test_only_the_first_4000_characters_are_read(hb):
    long_fm = "---\nname: long\ndescription: " + "x" * 4000 + "\n---\nbody\n"
    hb.skill("long-one", text=long_fm)
    wide = "---\nname: wide\ndescription: " + "é" * 1900 + "\n---\nbody\n"  # > 4000 bytes
    hb.skill("wide-one", text=wide)
    scan = scan_skills(hb.home)
    assert sorted(scan.by_name) == ["long-one", "wide"]  # unclosed within 4000 → dir name
    assert scan.get("wide").description == "é" * 1900


def test_missing_roots_are_fine(hb, tmp_path):
    hb.config(f"skills:\n  base_dir: {tmp_path / 'nope'}\n  external_dirs: {tmp_path / 'none'}\n")
    assert scan_skills(hb.home).skills == []


def test_rescans_reparse_only_what_changed(hb):
    for i in range(5):
        hb.skill(f"cat/skill-{i}")
    hb.settle()
    index = SkillIndex(hb.home)
    first = index.scan()
    assert index.files_parsed == 5
    second = index.scan()
    assert index.files_parsed == 0
    assert all(a is b for a, b in zip(first.skills, second.skills, strict=True))

    path = hb.home.skills_dir / "cat/skill-2/SKILL.md"
    path.write_text(path.read_text().replace("Do the thing well", "Changed"))
    os.utime(path, ns=(hb_settled(1), hb_settled(1)))
    third = index.scan()
    assert index.files_parsed == 1
    assert third.get("skill-2").description == "Changed"
    assert third.get("skill-1") is first.get("skill-1")

    hb.skill("cat/skill-new")
    (hb.home.skills_dir / "cat/skill-0/SKILL.md").unlink()
    d = hb.home.skills_dir
    for path in (d / "cat", d / "cat/skill-0", d / "cat/skill-new", d / "cat/skill-new/SKILL.md"):
        os.utime(path, ns=(hb_settled(60), hb_settled(60)))  # later, as a real clock has it
    fourth = index.scan()
    assert sorted(fourth.by_name) == ["skill-1", "skill-2", "skill-3", "skill-4", "skill-new"]
    assert index.files_parsed == 1


def test_recently_written_files_are_checked_again(hb):
    hb.skill("fresh")  # mtime now: inside the racy window
    index = SkillIndex(hb.home)
    index.scan()
    index.scan()
    assert index.files_parsed == 1


def hb_settled(offset_s: int) -> int:
    from hermes_test_home_builder import SETTLED_NS

    return SETTLED_NS + offset_s * 1_000_000_000


def test_a_watchers_changed_paths_are_trusted_to_be_the_only_changes(hb):
    for name in ("a", "b"):
        hb.skill(f"cat/{name}")
    hb.settle()
    index = SkillIndex(hb.home)
    index.scan()
    for name in ("a", "b"):
        path = hb.home.skills_dir / f"cat/{name}/SKILL.md"
        path.write_text(path.read_text().replace("Do the thing well", f"{name} changed"))
        os.utime(path, ns=(hb_settled(5), hb_settled(5)))
    hinted = index.scan(changed=[hb.home.skills_dir / "cat/a/SKILL.md"])
    assert (hinted.get("a").description, hinted.get("b").description) == ("a changed", "Do the thing well")
    assert index.files_parsed == 1
    checked = index.scan()  # without a hint every file is checked again
    assert checked.get("b").description == "b changed"
    new_dir = hb.skill("cat/c")
    assert "c" in index.scan(changed=[new_dir]).by_name


def test_a_hinted_scan_of_a_hidden_duplicate_replaces_it_where_it_was(hb):
    hb.skill("a/dup", name="dup")
    hb.skill("b/dup", name="dup", description="The hidden one")
    hb.skill("c/other")
    hb.settle()
    index = SkillIndex(hb.home)
    first = index.scan()
    assert [skill.directory for skill in first.duplicates] == [str(hb.home.skills_dir / "b/dup")]
    for step, (rel, text) in enumerate([("b/dup", "hidden, edited"), ("a/dup", "shown, edited")], start=1):
        path = hb.home.skills_dir / rel / "SKILL.md"
        path.write_text(path.read_text().replace("Do the thing well", text).replace("The hidden one", text))
        os.utime(path, ns=(hb_settled(step), hb_settled(step)))
        hinted = index.scan(changed=[path])
        fresh = SkillIndex(hb.home).scan()
        assert index.files_parsed == 1
        assert hinted.base is not None  # patched, not walked
        for got, expected in ((hinted.skills, fresh.skills), (hinted.duplicates, fresh.duplicates)):
            assert [(s.directory, s.name, s.description) for s in got] == [
                (s.directory, s.name, s.description) for s in expected
            ]
        assert hinted.by_name.keys() == fresh.by_name.keys()
        assert all(hinted.by_name[name] is skill for name, skill in zip(hinted.by_name, hinted.skills, strict=True))
    # a rename is no patch: the names a scan's users rely on would move
    path = hb.home.skills_dir / "c/other/SKILL.md"
    path.write_text(path.read_text().replace("name: other", "name: renamed"))
    os.utime(path, ns=(hb_settled(9), hb_settled(9)))
    renamed = index.scan(changed=[path])
    assert renamed.base is None and "renamed" in renamed.by_name


def test_the_full_frontmatter_is_available_on_demand(hb):
    hb.skill("x", extra="version: 2.0\nplatforms: [linux]")
    skill = scan_skills(hb.home).get("x")
    assert skill.frontmatter == {
        "name": "x", "description": "Do the thing well", "version": 2.0, "platforms": ["linux"],
    }


def test_a_skill_folder_with_one_support_folder_is_read_without_listing_it(hb, monkeypatch):
    """One subdirectory that is a support folder: SKILL.md is opened directly; any other
    single subdirectory (a nested skill) is still walked, and a rescan sees a new one."""
    skills = hb.home.skills_dir
    for support in ("references", "scripts"):
        directory = hb.skill(f"tools/with-{support}")
        (directory / support).mkdir()
        (directory / support / "notes.md").write_text("notes\n", encoding="utf-8")
    hb.skill("tools/outer")
    hb.skill("tools/outer/inner")  # a single subdirectory that is a skill of its own
    listed: list[str] = []
    real_scandir = os.scandir

    def counting_scandir(path="."):
        listed.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    index = SkillIndex(hb.home)
    scan = index.scan()
    assert {skill.name for skill in scan.skills} == {"with-references", "with-scripts", "outer", "inner"}
    assert not [path for path in listed if os.path.basename(path).startswith("with-")]
    hb.skill("tools/with-references/references/nested")  # support folders never hold skills
    hb.skill("tools/with-scripts/extra")  # a second subdirectory: listed, and found
    os.utime(skills / "tools/with-scripts", ns=(1, 1))
    assert {skill.name for skill in index.scan().skills} == {
        "with-references", "with-scripts", "outer", "inner", "extra",
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_support_folder_beside_a_special_or_linked_skill_md_is_looked_for_once(hb, tmp_path, monkeypatch):
    """A skill folder with one support folder is read in line; when its SKILL.md is a
    FIFO or a link, the general path takes over without looking for the support folder
    again: the FIFO is not a skill (and never blocks), a link inside the root is read
    through the listing, a link out of it is refused with a warning."""
    skills = hb.home.skills_dir
    fifo_dir = skills / "cat" / "fifo-skill"
    (fifo_dir / "references").mkdir(parents=True)
    os.mkfifo(fifo_dir / "SKILL.md")
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: outsider\n---\n", encoding="utf-8")
    out_dir = skills / "cat" / "link-out"
    (out_dir / "scripts").mkdir(parents=True)
    os.symlink(outside, out_dir / "SKILL.md")
    kept = skills / "cat" / "kept.md"
    kept.write_text("---\nname: linked-inside\n---\n", encoding="utf-8")
    in_dir = skills / "cat" / "link-in"
    (in_dir / "references").mkdir(parents=True)
    os.symlink(kept, in_dir / "SKILL.md")
    (hb.skill("cat/plain") / "references").mkdir()
    looked: list[str] = []
    real_stat = os.stat

    def counting_stat(path, *args, **kwargs):
        # a look for a support folder: "<skill folder>/<support folder>", relative to
        # the open folder above them (a walk into the folder itself stats its name alone)
        parts = os.fspath(path).split(os.sep)
        if len(parts) == 2 and parts[1] in ("references", "scripts", "templates", "assets"):
            looked.append("/".join(parts))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting_stat)
    scan = SkillIndex(hb.home).scan()
    assert sorted(scan.by_name) == ["linked-inside", "plain"]
    assert scan.warnings == [f"Skipped {out_dir / 'SKILL.md'}: it links outside {os.path.realpath(skills)}."]
    # each folder's support folder looked for once ("references" first, then the rest in
    # order until one is found)
    assert sorted(looked) == sorted(
        ["fifo-skill/references", "link-in/references", "plain/references", "link-out/references",
         "link-out/assets", "link-out/scripts"]
    )


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files through /proc")
def test_a_scan_closes_the_folders_it_keeps_open_even_when_it_fails(hb, monkeypatch):
    """A walk opens each listed folder to stat and open its subfolders relative to it;
    every one is closed again, also when the walk stops early or fails half way."""
    for n in range(6):
        hb.skill(f"cat-{n % 3}/skill-{n}")
    hb.skill("cat-0/skill-0/nested")  # a skill folder with a subfolder of its own
    before = _open_fds()
    assert len(SkillIndex(hb.home).scan().skills) == 7
    assert _open_fds() == before
    monkeypatch.setattr(index_module, "MAX_WALK_DIRS", 4)  # stops with folders still queued
    SkillIndex(hb.home).scan()
    assert _open_fds() == before
    monkeypatch.undo()
    real = index_module.read_head
    calls = []

    def failing_read_head(path, **options):
        calls.append(path)
        if len(calls) == 3:
            raise RuntimeError("disk on fire")
        return real(path, **options)

    monkeypatch.setattr(index_module, "read_head", failing_read_head)
    with pytest.raises(RuntimeError):
        SkillIndex(hb.home).scan()
    assert _open_fds() == before
