"""Skill health findings on crafted broken skills, via the engine, the CLI and the graph."""

from __future__ import annotations

import io
import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from hermes_memory import api
from hermes_memory.cli import main
from hermes_memory.learning.graph import build_learning_graph
from hermes_memory.skills.health import STALE_DAYS, check_skills, outlier_threshold


def _iso(days_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days_ago)).isoformat()


def _codes(home) -> dict[str, set[str]]:
    report = check_skills(home)
    codes: dict[str, set[str]] = {}
    for finding in report["findings"]:
        codes.setdefault(finding["skill"], set()).add(finding["code"])
    return codes


def _healthy(hb, count: int = 6) -> None:
    for n in range(count):
        hb.skill(f"tools/healthy-{n}", body="# Use\n\n" + "Run the tool with care.\n" * 20)


def test_a_healthy_home_has_no_findings(home, hb):
    _healthy(hb)
    report = check_skills(home)
    assert report["skills_checked"] == 6
    assert report["findings"] == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("---\nname: broken\ndescription: never closed\n# Body\n\nText.\n", "frontmatter-unclosed"),
        ("# Just a body\n\nNo frontmatter here.\n", "frontmatter-missing"),
        ("---\nname: broken\ndescription: [unclosed, list\n---\n# Body\n", "frontmatter-invalid"),
        ("---\n- just\n- a list\n---\n# Body\n", "frontmatter-invalid"),
        ("---\ndescription: has no name\n---\n# Body\n", "name-missing"),
        ("---\nname: broken\n---\n# Body\n", "description-missing"),
        ("---\nname: another-name\ndescription: d\n---\n# Body\n", "name-mismatch"),
    ],
)
def test_frontmatter_and_name_findings(home, hb, text, code):
    _healthy(hb)
    hb.skill("misc/broken", text=text)
    codes = _codes(home)
    broken = next(name for name in codes if name in ("broken", "another-name"))
    assert code in codes[broken]
    assert all(name in ("broken", "another-name") for name in codes), codes


def test_unclosed_frontmatter_is_not_also_reported_as_missing(home, hb):
    hb.skill("misc/broken", text="---\nname: broken\ndescription: x\nBody\n")
    assert _codes(home)["broken"] == {"frontmatter-unclosed"}


def test_related_skills_naming_no_skill(home, hb):
    _healthy(hb)
    hb.skill("tools/linker", related=["healthy-1", "ghost-skill", "old-one"])
    hb.skill("archived/old-one")
    (home.skills_archive_dir).mkdir(parents=True)
    (home.skills_dir / "archived" / "old-one").rename(home.skills_archive_dir / "old-one")
    report = check_skills(home)
    [finding] = report["findings"]
    assert (finding["skill"], finding["code"], finding["severity"]) == ("linker", "related-unknown", "warning")
    assert "'ghost-skill'" in finding["message"] and "'old-one' (archived)" in finding["message"]
    assert "healthy-1" not in finding["message"]


def test_oversized_outlier_and_absolute_cap(home, hb):
    _healthy(hb, 8)
    hb.skill("tools/huge", body="A line of reference material.\n" * 600)  # ~18 kB vs ~0.5 kB
    hb.skill("tools/enormous", body="x" * 101_000)
    codes = _codes(home)
    assert codes == {"huge": {"oversized"}, "enormous": {"over-limit"}}


def test_no_outlier_in_a_home_of_uniformly_large_skills(home, hb):
    for n in range(8):
        hb.skill(f"tools/big-{n}", body="y" * (20_000 + 100 * n))
    assert _codes(home) == {}
    assert outlier_threshold([10] * 4) is None  # too few skills for a distribution


def test_never_used_and_stale_follow_usage_dates(home, hb):
    for name in ("fresh", "unused-old", "unused-new", "stale", "stale-pinned", "recent"):
        hb.skill(f"tools/{name}")
    hb.usage(
        {
            "fresh": {"use_count": 3, "last_used_at": _iso(2), "created_at": _iso(200)},
            "unused-old": {"use_count": 0, "created_at": _iso(STALE_DAYS + 5)},
            "unused-new": {"use_count": 0, "created_at": _iso(3)},
            "stale": {"use_count": 4, "last_used_at": _iso(STALE_DAYS + 40)},
            "stale-pinned": {"use_count": 4, "last_used_at": _iso(400), "pinned": True},
            "recent": {"use_count": 1, "last_used_at": _iso(STALE_DAYS - 1)},
        }
    )
    codes = _codes(home)
    assert codes == {"unused-old": {"never-used"}, "stale": {"stale"}}
    stale = next(f for f in check_skills(home)["findings"] if f["skill"] == "stale")
    assert stale["severity"] == "info" and "70 days" in stale["message"]


def test_cli_lists_findings_and_exits_1_then_0_when_fixed(home, hb):
    _healthy(hb)
    broken = hb.skill("misc/broken", text="---\nname: broken\ndescription: x\nBody\n")
    out = io.StringIO()
    assert main(["--home", str(home.root), "skills", "check"], stdout=out) == 1
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("error   frontmatter-unclosed broken:")
    assert "Fix: Add a line with only '---'" in lines[0] and "4,000 characters" in lines[0]
    assert lines[-1].startswith("1 finding(s) in 1 of 7 skills")
    out = io.StringIO()
    assert main(["--home", str(home.root), "skills", "check", "--json"], stdout=out) == 1
    payload = json.loads(out.getvalue())
    assert payload["findings"][0]["code"] == "frontmatter-unclosed"
    assert payload["thresholds"]["stale_days"] == STALE_DAYS
    (broken / "SKILL.md").write_text("---\nname: broken\ndescription: x\n---\nBody\n", encoding="utf-8")
    out = io.StringIO()
    assert main(["--home", str(home.root), "skills", "check"], stdout=out) == 0
    assert "No problems found in 7 skills." in out.getvalue()


def test_api_and_graph_badges(home, hb):
    _healthy(hb)
    hb.skill("misc/broken", text="---\nname: broken\n---\nBody\n")
    hb.usage({"broken": {"created_by": "agent", "use_count": 1, "last_used_at": _iso(1)},
              "healthy-0": {"created_by": "agent", "use_count": 2, "last_used_at": _iso(1)}})
    assert api.skills_check(home)["findings"][0]["code"] == "description-missing"
    nodes = {n["id"]: n for n in build_learning_graph(home)["nodes"] if n["kind"] == "skill"}
    assert nodes["broken"]["healthCount"] == 1
    assert nodes["broken"]["healthCodes"] == ["description-missing"]
    assert nodes["healthy-0"]["healthCount"] == 0 and nodes["healthy-0"]["healthCodes"] == []


def test_graph_badges_follow_an_edit(home, hb):
    from hermes_memory.learning.graph import GraphBuilder

    path = hb.skill("misc/broken", text="---\nname: broken\n---\nBody\n")
    hb.usage({"broken": {"created_by": "agent", "use_count": 1, "last_used_at": _iso(1)}})
    builder = GraphBuilder(home)
    assert builder.build()["nodes"][0]["healthCodes"] == ["description-missing"]
    time.sleep(0.01)
    (path / "SKILL.md").write_text("---\nname: broken\ndescription: fixed now\n---\nBody\n", encoding="utf-8")
    assert builder.build()["nodes"][0]["healthCount"] == 0


def test_graph_badges_agree_with_the_check_and_follow_the_clock(home, hb):
    from hermes_memory.skills.health import annotate_nodes
    from hermes_memory.skills.index import SkillIndex
    from hermes_memory.skills.usage import read_usage

    _healthy(hb, 6)
    hb.skill("misc/broken", text="---\nname: broken\n---\nBody\n")
    hb.skill("tools/linker", related=["ghost"])
    hb.skill("tools/huge", body="Reference.\n" * 2000)
    hb.usage({"healthy-0": {"use_count": 1, "last_used_at": _iso(STALE_DAYS - 2)}})
    scan, usage = SkillIndex(home).scan(), read_usage(home)
    payloads = [{"id": skill.name} for skill in scan.skills]
    annotate_nodes(payloads, scan, usage)
    badges = {p["id"]: set(p["healthCodes"]) for p in payloads if p["healthCount"]}
    assert badges == _codes(home) == {
        "broken": {"description-missing"}, "linker": {"related-unknown"}, "huge": {"oversized"},
    }
    annotate_nodes(payloads, scan, usage, now=time.time() + 5 * 86400)  # five days on
    assert next(p for p in payloads if p["id"] == "healthy-0")["healthCodes"] == ["stale"]


def _count_skill_md_reads(monkeypatch) -> list[str]:
    """Record every open of a SKILL.md (the index opens them with os.open)."""
    import os

    opened: list[str] = []
    real_open = os.open

    def counting_open(path, *args, **kwargs):
        if str(path).endswith("SKILL.md"):
            opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    return opened


def test_a_graph_build_reads_each_skill_md_once_even_with_broken_frontmatter(home, hb, monkeypatch):
    _healthy(hb)
    hb.skill("misc/unclosed", text="---\nname: unclosed\ndescription: x\nBody\n")
    hb.skill("misc/bare", text="# Just a body\n\nNo frontmatter here.\n")
    hb.skill("misc/invalid", text="---\nname: invalid\ndescription: [unclosed, list\n---\n# Body\n")
    opened = _count_skill_md_reads(monkeypatch)
    payload = build_learning_graph(home, include_all=True)
    codes = {node["id"]: set(node["healthCodes"]) for node in payload["nodes"] if node["kind"] == "skill"}
    assert codes["unclosed"] == {"frontmatter-unclosed"}
    assert codes["bare"] == {"frontmatter-missing"}
    assert "frontmatter-invalid" in codes["invalid"]
    assert len(opened) == len(set(opened)) == 9, opened


def test_check_skills_reports_the_yaml_error_the_index_met(home, hb, monkeypatch):
    hb.skill("misc/invalid", text="---\nname: invalid\ndescription: [unclosed, list\n---\n# Body\n")
    import yaml

    calls = []
    real_load = yaml.load
    monkeypatch.setattr(yaml, "load", lambda *a, **k: calls.append(a) or real_load(*a, **k))
    [finding] = [f for f in check_skills(home)["findings"] if f["code"] == "frontmatter-invalid"]
    assert "not valid YAML (" in finding["message"] and "flow sequence" in finding["message"]
    assert len(calls) == 1  # the index's parse only; health did not load the YAML again


def test_a_name_that_is_not_text_is_shown_as_written(home, hb):
    hb.skill("misc/listed", text="---\nname: [a, b]\ndescription: d\n---\n# Body\n")
    hb.skill("misc/blank", text="---\nname: ''\ndescription: d\n---\n# Body\n")
    hb.skill("misc/numbered", text="---\nname: 42\ndescription: d\n---\n# Body\n")
    codes = _codes(home)
    assert codes["listed"] == {"name-mismatch"}  # the agent shows str() of the list
    assert codes["blank"] == {"name-missing"}
    assert codes["42"] == {"name-mismatch"}
    [listed] = [f for f in check_skills(home)["findings"] if f["skill"] == "listed"]
    assert "'['a', 'b']'" in listed["message"]


def test_graph_badges_follow_each_kind_of_change_on_hinted_rebuilds(home, hb):
    import json

    from hermes_memory.learning.graph import GraphBuilder

    _healthy(hb, 5)
    broken = hb.skill("misc/broken", text="---\nname: broken\n---\nBody\n")
    hb.skill("tools/linker", related=["ghost"])
    usage = {f"healthy-{n}": {"created_by": "agent", "use_count": 1, "last_used_at": _iso(1)} for n in range(5)}
    usage["healthy-0"]["last_used_at"] = _iso(STALE_DAYS + 5)
    usage.update(broken={"created_by": "agent", "use_count": 1, "last_used_at": _iso(1)},
                 linker={"created_by": "agent", "use_count": 1, "last_used_at": _iso(1)})  # fmt: skip
    hb.usage(usage)
    builder = GraphBuilder(home)

    def badges(changed=None):
        nodes = builder.build(changed=changed)["nodes"]
        return {n["id"]: n["healthCodes"] for n in nodes if n["kind"] == "skill" and n["healthCodes"]}

    expected = {"broken": ["description-missing"], "linker": ["related-unknown"], "healthy-0": ["stale"]}
    assert badges() == expected
    time.sleep(0.01)
    md = broken / "SKILL.md"
    md.write_text("---\nname: broken\ndescription: fixed\n---\nBody\n", encoding="utf-8")
    expected.pop("broken")
    assert badges(changed=[md]) == expected  # the edited skill only; the others keep theirs
    usage["healthy-0"]["pinned"] = True
    home.skills_usage_file.write_text(json.dumps(usage), encoding="utf-8")
    expected.pop("healthy-0")
    assert badges(changed=[home.skills_usage_file]) == expected  # a usage change
    hb.skill("misc/ghost")
    assert badges() == {}  # a new name: the link resolves
