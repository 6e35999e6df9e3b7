"""Hostile and broken files a home may hold (issue 10, availability): YAML bombs, hostile
values, deep nesting, huge files and special files in config.yaml, SKILL.md frontmatter
and skills/.usage.json. Every command answers quickly with defaults plus a warning, and
the home is left byte-identical.

The command-line checks run the real CLI in a subprocess with a timeout, so a hang fails
the test instead of stalling the run.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_memory.cli import main
from hermes_memory.config import (
    DEFAULT_MEMORY_CHAR_LIMIT,
    DEFAULT_USER_CHAR_LIMIT,
    ConfigError,
    load_config,
    load_memory_config,
    set_config_value,
)
from hermes_memory.learning.graph import build_learning_graph
from hermes_memory.safe_load import (
    Limits,
    UnsafeDocument,
    check_structure,
    load_json,
    load_yaml,
    read_bounded,
)
from hermes_memory.skills import SkillIndex, edit_skill, pin_skill, read_usage

COMMAND_TIMEOUT = 30  # seconds; each command below takes well under one


def bomb_lines(levels: int = 12, width: int = 9) -> list[str]:
    """A "billion laughs": ``width ** levels`` values once the aliases are expanded."""
    lines = ["l0: &l0 [" + ",".join(['"x"'] * width) + "]"]
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * width) + "]" for i in range(1, levels)]
    return lines


def skill_md(name: str, extra: list[str] = ()) -> str:
    return "\n".join(["---", f"name: {name}", "description: Does things", *extra, "---", "# Body", ""])


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under the home with its bytes (locks excluded)."""
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and not path.name.endswith(".lock"):
            files[str(path.relative_to(root))] = path.read_bytes()
    return files


def cli(home, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).parents[2] / "engine"), env.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "hermes_memory.cli", "--home", str(home.path), *args],
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        env=env,
    )


def run(home, *args: str) -> tuple[int, str]:
    """The CLI in this process (faster; a hang is caught by the test timeout)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["--home", str(home.path), *args], stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


@pytest.fixture
def skills_home(home):
    (home.skills_dir / "ok-skill").mkdir(parents=True)
    (home.skills_dir / "ok-skill" / "SKILL.md").write_text(skill_md("ok-skill"))
    home.memory_file.write_text("Project uses pnpm")
    return home


# --- YAML bombs ------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["tags", "related_skills"])
def test_yaml_bomb_in_skill_frontmatter_does_not_hang_list_graph_or_node(skills_home, where):
    home = skills_home
    lines = [*bomb_lines(), "metadata:", "  hermes:", f"    {where}: *l11"]
    (home.skills_dir / "bomb").mkdir()
    (home.skills_dir / "bomb" / "SKILL.md").write_text(skill_md("bomb", lines))
    before = snapshot(home.path)
    for args in (["skills", "list"], ["--json", "graph", "--all"], ["node", "show", "bomb"],
                 ["node", "show", "ok-skill"]):
        result = cli(home, *args)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
    listing = cli(home, "skills", "list")
    assert "bomb" in listing.stdout and "ok-skill" in listing.stdout
    assert "billion laughs" in listing.stdout
    payload = json.loads(cli(home, "--json", "graph", "--all").stdout)
    assert {node["id"] for node in payload["nodes"]} >= {"bomb", "ok-skill"}
    assert any("bomb/SKILL.md" in warning for warning in payload["warnings"])
    assert snapshot(home.path) == before


def test_yaml_bomb_in_config_yaml_gives_defaults_and_a_warning_everywhere(skills_home):
    home = skills_home
    lines = [*bomb_lines(), "memory:", "  provider: *l11", "  memory_char_limit: *l11",
             "skills:", "  external_dirs: *l11"]
    home.config_file.write_text("\n".join(lines) + "\n")
    before = snapshot(home.path)
    for args in (["status"], ["show"], ["skills", "list"], ["graph"], ["node", "show", "ok-skill"]):
        result = cli(home, *args)
        assert result.returncode == 0, (args, result.stderr)
    status = cli(home, "status")
    assert "billion laughs" in status.stdout + status.stderr
    assert "2,200" in status.stdout  # the default budget
    assert snapshot(home.path) == before
    with pytest.raises(ConfigError, match="billion laughs"):
        set_config_value(home, "memory.provider", "holographic")
    assert snapshot(home.path) == before


def test_a_skill_edit_holding_a_yaml_bomb_is_refused(skills_home):
    content = skill_md("ok-skill", [*bomb_lines(), "tags: *l11"])
    outcome = edit_skill(skills_home, "ok-skill", content)
    assert not outcome.ok and "billion laughs" in outcome.message
    assert (skills_home.skills_dir / "ok-skill" / "SKILL.md").read_text() == skill_md("ok-skill")


def test_a_recursive_alias_is_refused():
    with pytest.raises(UnsafeDocument, match="refers to itself"):
        load_yaml("a: &a [1, *a]\n")


def test_shared_aliases_are_measured_once_so_the_check_is_linear():
    # 9 ** 40 values expanded, 40 distinct lists: refused at once, never expanded
    with pytest.raises(UnsafeDocument, match="billion laughs"):
        load_yaml("\n".join(bomb_lines(levels=40)) + "\n")
    shared = ["x"] * 10
    check_structure([shared] * 100, Limits(max_bytes=1, max_nodes=1_200))
    with pytest.raises(UnsafeDocument):
        check_structure([shared] * 100, Limits(max_bytes=1, max_nodes=1_000))


# --- depth ------------------------------------------------------------------------------
def test_deep_nesting_in_config_and_usage_gives_defaults_and_a_warning(skills_home):
    home = skills_home
    home.config_file.write_text("memory:\n  x: " + "[" * 3000 + "]" * 3000 + "\n")
    deep = "[" * 5000 + "]" * 5000
    home.skills_usage_file.write_text('{"ok-skill": {"use_count": 2, "x": ' + deep + "}}")
    before = snapshot(home.path)
    config = load_memory_config(home)
    assert config.memory_char_limit == DEFAULT_MEMORY_CHAR_LIMIT
    assert any("nested too deeply" in warning for warning in config.warnings)
    assert "nested too deeply" in read_usage(home).error
    for args in (["status"], ["skills", "list"], ["graph"], ["node", "pin", "ok-skill"]):
        result = cli(home, *args)
        assert "Traceback" not in result.stderr, (args, result.stderr)
    assert cli(home, "node", "pin", "ok-skill").returncode == 1
    assert snapshot(home.path) == before


def test_json_nesting_is_bounded_even_below_the_interpreters_limit():
    with pytest.raises(UnsafeDocument, match="levels deep"):
        load_json("[" * 100 + "]" * 100)


# --- hostile values ---------------------------------------------------------------------
HOSTILE_YAML_NUMBERS = [".inf", "-.inf", ".nan", "1e400", "1" * 5000, "0x" + "f" * 5000]


@pytest.mark.parametrize("value", HOSTILE_YAML_NUMBERS, ids=lambda v: v[:8])
def test_hostile_config_values_fall_back_per_key_with_a_warning(home, value):
    home.config_file.write_text(
        f"memory:\n  memory_char_limit: {value}\n  user_char_limit: 900\n"
        f"auxiliary:\n  background_review:\n    timeout: {value}\n"
    )
    config = load_memory_config(home)
    assert config.memory_char_limit == DEFAULT_MEMORY_CHAR_LIMIT
    assert config.user_char_limit == 900  # the rest of the file still applies
    assert any("memory.memory_char_limit" in warning for warning in config.warnings)
    # dropped everywhere, so every other reader falls back to its own default too
    assert "timeout" not in load_config(home).data["auxiliary"]["background_review"]
    assert all(len(warning) < 400 for warning in config.warnings)
    assert run(home, "status")[0] == 0


@pytest.mark.parametrize("value", [0, -5, 10**9, True, "many", [1, 2]])
def test_config_char_limits_are_range_checked(home, value):
    home.config_file.write_text(f"memory:\n  user_char_limit: {json.dumps(value)}\n")
    config = load_memory_config(home)
    assert config.user_char_limit == DEFAULT_USER_CHAR_LIMIT
    assert any("memory.user_char_limit" in warning for warning in config.warnings)


HOSTILE_JSON_NUMBERS = ["Infinity", "-Infinity", "NaN", "1e400", "1" * 5000, "[[1]]", '{"a": 1}']


@pytest.mark.parametrize("value", HOSTILE_JSON_NUMBERS, ids=lambda v: v[:8])
def test_hostile_usage_values_are_ignored_per_key_with_a_warning(skills_home, value):
    home = skills_home
    record = f'"use_count": {value}, "last_used_at": {value}, "view_count": 4, "state": "active"'
    text = '{"ok-skill": {' + record + '}, "other": {"use_count": 3}}'

    home.skills_usage_file.write_text(text)
    usage = read_usage(home)
    assert usage.error is None
    assert "use_count" not in usage.record("ok-skill")
    assert usage.record("ok-skill")["view_count"] == 4
    assert usage.record("other")["use_count"] == 3
    assert usage.warnings and "use_count of 'ok-skill'" in usage.warnings[0]
    payload = build_learning_graph(home, include_all=True)
    node = next(node for node in payload["nodes"] if node["id"] == "ok-skill")
    assert node["useCount"] == 0 and node["viewCount"] == 4
    assert any("unusable value" in warning for warning in payload["warnings"])
    for args in (["skills", "list"], ["graph"]):
        assert run(home, *args)[0] == 0


def test_an_overlong_number_in_usage_refuses_writes_instead_of_rewriting_it(skills_home):
    """Also the old ``AttributeError: 'ValueError' object has no attribute 'msg'``."""
    home = skills_home
    home.skills_usage_file.write_text('{"ok-skill": {"use_count": ' + "9" * 5000 + "}}")
    before = snapshot(home.path)
    outcome = pin_skill(home, "ok-skill")
    assert not outcome.ok and "too long to read" in outcome.message
    result = cli(home, "node", "pin", "ok-skill")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert snapshot(home.path) == before


# --- size and special files -------------------------------------------------------------
def test_a_20_mb_usage_file_and_config_are_refused_without_parsing(skills_home):
    home = skills_home
    padding = " " * (20 * 1024 * 1024)
    home.skills_usage_file.write_text('{"ok-skill": {"use_count": 1}}' + padding)
    home.config_file.write_text("memory:\n  memory_char_limit: 100\n" + "#" + padding + "\n")
    before = snapshot(home.path)
    assert "is over 8,388,608 bytes" in read_usage(home).error
    config = load_memory_config(home)
    assert config.memory_char_limit == DEFAULT_MEMORY_CHAR_LIMIT
    assert any("is over" in warning and "not read" in warning for warning in config.warnings)
    assert not pin_skill(home, "ok-skill").ok
    for args in (["status"], ["skills", "list"], ["graph"]):
        assert run(home, *args)[0] == 0
    assert snapshot(home.path) == before


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_config_or_usage_is_refused_without_blocking(skills_home):
    home = skills_home
    os.mkfifo(home.config_file)
    os.mkfifo(home.skills_usage_file)
    assert any("not a regular file" in warning for warning in load_memory_config(home).warnings)
    assert "not a regular file" in read_usage(home).error
    with pytest.raises(UnsafeDocument):
        read_bounded(home.config_file, 100)
    for args in (["status"], ["skills", "list"], ["graph"]):
        assert cli(home, *args).returncode == 0


# --- roots and walks (issue 10: base_dir or external_dirs set to /) ---------------------
@pytest.mark.parametrize("setting", ["base_dir: /", "external_dirs: [/]", "base_dir: '~'",
                                     "external_dirs: ['~/..']", "external_dirs: ['.']"])
def test_skills_roots_that_would_walk_the_whole_disk_are_refused_with_a_reason(skills_home, setting):
    home = skills_home
    home.config_file.write_text(f"skills:\n  {setting}\n")
    scan = SkillIndex(home).scan()
    assert [skill.name for skill in scan.skills] == ["ok-skill"]
    assert any("would walk far more than skills" in warning for warning in scan.warnings)
    code, output = run(home, "skills", "list", "--all")
    assert code == 0 and "would walk far more than skills" in output


def test_the_walk_is_bounded_in_depth_and_in_folders(skills_home, monkeypatch, tmp_path):
    home = skills_home
    deep = home.skills_dir / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "h" / "i" / "j" / "k" / "deep"
    deep.mkdir(parents=True)
    (deep / "SKILL.md").write_text(skill_md("deep"))
    scan = SkillIndex(home).scan()
    assert "deep" not in scan.by_name
    assert any("levels below" in warning for warning in scan.warnings)
    external = tmp_path / "wide"
    for index in range(30):
        (external / f"d{index:02}").mkdir(parents=True)
    home.config_file.write_text(f"skills:\n  external_dirs: [{external}]\n")
    monkeypatch.setattr("hermes_memory.skills.index.MAX_WALK_DIRS", 10)
    scan = SkillIndex(home).scan()
    assert any(f"Stopped scanning {external} after 10 folders" in w for w in scan.warnings)


# --- issue 11 §4 ------------------------------------------------------------------------
def test_skills_under_worktrees_are_development_copies_not_skills(skills_home):
    home = skills_home
    copy = home.skills_dir / ".worktrees" / "ok-skill-feature" / "ok-skill"
    copy.mkdir(parents=True)
    (copy / "SKILL.md").write_text(skill_md("ok-skill-dev"))
    nested = home.skills_dir / "devops" / ".worktrees" / "wip"
    nested.mkdir(parents=True)
    (nested / "SKILL.md").write_text(skill_md("wip"))
    scan = SkillIndex(home).scan()
    assert sorted(scan.by_name) == ["ok-skill"]
    assert not scan.duplicates


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_skill_md_swapped_for_a_fifo_after_the_scan_is_refused_without_blocking(skills_home):
    from hermes_memory.skills import read_skill_text
    from hermes_memory.skills.editing import SkillTextError

    skill = SkillIndex(skills_home).scan().get("ok-skill")
    skill.skill_md.unlink()
    os.mkfifo(skill.skill_md)
    with pytest.raises(SkillTextError, match="not a regular file"):
        read_skill_text(skill)
    outcome = edit_skill(skills_home, "ok-skill", skill_md("ok-skill"))
    assert not outcome.ok  # the fresh scan no longer sees a skill there


def test_many_unusable_config_values_give_a_bounded_warning_list(home):
    home.config_file.write_text("extra: [" + ", ".join([".inf"] * 5000) + "]\n")
    warnings = load_config(home).warnings
    assert len(warnings) == 6 and "4,995 more unusable values" in warnings[-1]
    assert load_config(home).data["extra"] == []


def test_a_huge_external_dirs_list_is_cut_with_a_warning(skills_home, tmp_path):
    dirs = [str(tmp_path / f"ext{index}") for index in range(5000)]
    skills_home.config_file.write_text("skills:\n  external_dirs: [" + ", ".join(dirs) + "]\n")
    scan = SkillIndex(skills_home).scan()
    assert len(scan.roots) == 1 + 64
    assert any("lists 5,000 folders; only the first 64" in warning for warning in scan.warnings)
