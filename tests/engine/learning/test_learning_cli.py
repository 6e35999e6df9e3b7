"""``hermes-memory graph``, ``skills list`` and ``node ...``: output and exit codes."""

from __future__ import annotations

import io
import json

from hermes_test_home_builder import skill_text

from hermes_memory.cli import main
from hermes_memory.learning.commands import EMPTY_STATE


def run(*argv, stdin=None, monkeypatch=None):
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_graph_json_is_the_payload(learning_home):
    from hermes_memory.learning.graph import build_learning_graph

    code, out, err = run("--home", str(learning_home.home.path), "--json", "graph")
    assert (code, err) == (0, "")
    assert json.loads(out) == build_learning_graph(learning_home.home)
    code, out, _ = run("--home", str(learning_home.home.path), "--json", "graph", "--all")
    assert json.loads(out)["stats"]["nodes"] == 11


def test_graph_summary(learning_home):
    code, out, _ = run("--home", str(learning_home.home.path), "graph")
    assert code == 0
    lines = out.splitlines()
    assert lines[:5] == [
        f"Learning graph of {learning_home.home.path}",
        "  7 learned skills (7 shown), 5 memory cards",
        "  edges: 3 related, 4 memory→skill; 0.429 per skill; 3 linked, 57.1% isolated",
        "  4 agent-created, 3 used, 7 categories",
        "  clusters: memory 5, devops 1, cloud 1, general 1, misc 1, ops 1, tools 1, win 1",
    ]
    assert "  ● docker-logs  [devops]  uses 3  2026-06-01 pinned" in lines
    assert "  ● k8s-basics  [cloud]  uses 1  2026-02-02 stale" in lines
    assert "  ◆ memory:profile:4:6fae46c15b97  Name: Dana.  2026-05-28" in lines
    assert lines[-1].startswith("warning: ") and lines[-1].endswith("Re-save it as UTF-8.")


def test_graph_of_an_empty_home(home):
    code, out, _ = run("--home", str(home.path), "graph")
    assert (code, out) == (0, EMPTY_STATE + "\n")


def test_a_missing_home_is_refused(tmp_path):
    code, out, err = run("--home", str(tmp_path / "nope"), "graph")
    assert code == 1
    assert "No Hermes home at" in err


def test_skills_list(learning_home):
    home = str(learning_home.home.path)
    code, out, _ = run("--home", home, "--json", "skills", "list")
    assert code == 0
    assert [row["name"] for row in json.loads(out)["skills"]] == [
        "docker-logs", "k8s-basics", "flat-notes", "new-name", "yaml-broken", "arxiv-digest",
        "hub-skill", "bom-crlf",
    ]
    _, out, _ = run("--home", home, "--json", "skills", "list", "--learned")
    assert len(json.loads(out)["skills"]) == 7
    _, out, _ = run("--home", home, "--json", "skills", "list", "--all")
    rows = json.loads(out)["skills"]
    assert [(r["name"], r["source"]) for r in rows if r["source"] != "profile"] == [
        ("base-tool", "base"), ("plan", "base"), ("ext-skill", "external"), ("old-skill", "archive")
    ]
    _, out, _ = run("--home", home, "skills", "list")
    assert out.splitlines()[0].split() == ["docker-logs", "devops", "local", "uses", "3", "pinned", "learned"]
    assert run("--home", home, "skills", "list", "--learned", "--all")[0] == 2


def test_node_show_edit_delete_restore(learning_home, tmp_path, monkeypatch):
    home = str(learning_home.home.path)
    code, out, _ = run("--home", home, "node", "show", "flat-notes")
    assert code == 0
    assert out.splitlines()[:2] == [
        "skill flat-notes — flat-notes",
        f"path: {learning_home.home.skills_dir / 'flat-notes' / 'SKILL.md'}",
    ]
    new_file = tmp_path / "new.md"
    new_file.write_text(skill_text("flat-notes", "Edited from a file"), encoding="utf-8")
    assert run("--home", home, "node", "edit", "flat-notes", str(new_file))[:2] == (0, "updated 'flat-notes'\n")
    code, out, _ = run(
        "--home", home, "node", "edit", "flat-notes", "-",
        stdin=skill_text("flat-notes", "From stdin"), monkeypatch=monkeypatch,
    )
    assert (code, out) == (0, "updated 'flat-notes'\n")
    assert "From stdin" in (learning_home.home.skills_dir / "flat-notes/SKILL.md").read_text()

    code, out, _ = run("--home", home, "--json", "node", "delete", "flat-notes")
    assert code == 0 and json.loads(out)["ok"] is True
    code, _, err = run("--home", home, "node", "delete", "flat-notes")
    assert (code, err) == (1, "hermes-memory: skill 'flat-notes' is archived — restore it first (node restore flat-notes)\n")
    assert run("--home", home, "node", "restore", "flat-notes")[0] == 0
    assert run("--home", home, "node", "pin", "flat-notes")[0] == 0
    code, _, err = run("--home", home, "node", "delete", "flat-notes")
    assert code == 1 and "is pinned" in err
    assert run("--home", home, "node", "unpin", "flat-notes")[0] == 0


def test_node_memory_commands(learning_home, monkeypatch):
    home = str(learning_home.home.path)
    node_id = "memory:profile:4:6fae46c15b97"
    code, out, _ = run("--home", home, "node", "show", node_id)
    assert code == 0
    assert out.splitlines() == ["memory memory:profile:4:6fae46c15b97 — Name: Dana.",
                                "file: USER.md  (11 chars)", "", "Name: Dana."]
    code, out, _ = run("--home", home, "--json", "node", "edit", node_id, "-", stdin="", monkeypatch=monkeypatch)
    assert code == 1
    assert json.loads(out) == {"ok": False, "message": "empty memory — use delete to remove it"}
    assert run("--home", home, "node", "delete", node_id)[:2] == (0, "deleted memory from USER.md\n")
    code, _, err = run("--home", home, "node", "delete", node_id)
    assert code == 1 and "refresh the graph" in err


def test_usage_errors_exit_2(learning_home, tmp_path):
    home = str(learning_home.home.path)
    code, _, err = run("--home", home, "node", "edit", "flat-notes", str(tmp_path / "missing.md"))
    assert code == 2 and "cannot read" in err
    assert run("--home", home, "node")[0] == 2
    assert run("--home", home, "node", "frobnicate", "x")[0] == 2
