"""Changes to a skill's support files: read from the curator ledger and recorded by the
engine as such, never as the skill going missing; and the engine's support-file and
create paths read ``.usage.json`` once."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

from history_helpers import events, write_skill

from hermes_memory.history import service
from hermes_memory.history.capture import capture
from hermes_memory.history.provenance import skill_provenance
from hermes_memory.history.timeline import Timeline
from hermes_memory.skills import usage
from hermes_memory.skills.writing import create_skill, remove_support_file, write_support_file

NOW = datetime.now(UTC)


def _blob(home, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()
    blobs = home.path / ".curator_backups" / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    (blobs / digest).write_bytes(data)
    return digest


def _ledger(home, lines: list[dict]) -> None:
    path = home.skills_dir / ".curator_ledger.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _line(number: int, action: str, skill: str, *, before=(), after=()) -> dict:
    return {"id": f"line{number:08d}", "ts": (NOW - timedelta(minutes=10 - number)).isoformat(),
            "actor": "agent", "action": action, "skill": skill, "evidence": {"session_id": f"s{number}"},
            "before": list(before), "after": list(after)}  # fmt: skip


def _agent_skill_with_support_file_lines(home) -> tuple[str, str]:
    """A skill the agent created, then gave a reference file and took it away again,
    as the ledger records it (absolute paths, SKILL.md named only by the create)."""
    directory = write_skill(home, "deploy-steps")
    skill_md = directory / "SKILL.md"
    md = _blob(home, skill_md.read_bytes())
    reference = directory / "references" / "checklist.md"
    ref = _blob(home, b"- check the tags\n")
    _ledger(home, [
        _line(1, "create", "deploy-steps", after=[{"path": str(skill_md), "sha256": md}]),
        _line(2, "write_file", "deploy-steps", after=[{"path": str(reference), "sha256": ref}]),
        _line(3, "remove_file", "deploy-steps", before=[{"path": str(reference), "sha256": ref}]),
    ])  # fmt: skip
    return md, "references/checklist.md"


def test_a_ledger_support_file_line_is_a_support_change_not_a_missing_skill(home):
    md, reference = _agent_skill_with_support_file_lines(home)
    timeline = Timeline(home)
    chain = timeline.chain("skill", "deploy-steps")
    assert [e["action"] for e in chain] == ["create", "write_file", "remove_file"]
    for event in chain[1:]:
        fields = timeline.skill_fields(event)
        assert (fields["state"], fields["md"]) == ("active", md)  # SKILL.md as the create left it
        summary = timeline.summary(event)
        assert (summary["state"], summary["text_changed"], summary["files"]) == ("active", False, [reference])
        diff = timeline.diff(timeline.parent(event), event)
        assert diff["unified_diff"] == "" and diff["changes"] == {}
        assert diff["files"] == [reference] and not diff["empty"]
    assert timeline.state_at()["active_skills"] == 1
    (row,) = skill_provenance(home, timeline)
    assert row["state"] == "active"


def test_the_history_log_index_reads_support_lines_as_the_timeline_does(home):
    _md, reference = _agent_skill_with_support_file_lines(home)
    logged = service.log(home, kind="skill")  # built from the log index
    assert logged["ok"]
    by_action = {item["action"]: item for item in logged["events"]}
    for action in ("write_file", "remove_file"):
        item = by_action[action]
        assert (item["state"], item["text_changed"], item["files"]) == ("active", False, [reference])
    again = service.log(home, kind="skill")  # read back from the index file
    assert [i["state"] for i in again["events"]] == [i["state"] for i in logged["events"]]


def test_a_capture_after_support_lines_records_nothing(home):
    """The skill on disk is the create's SKILL.md: the support lines must not read as a
    skill gone that has come back (which a capture would record on every run)."""
    _agent_skill_with_support_file_lines(home)
    assert capture(home)["recorded"] == 0
    assert events(home) == []


def test_a_support_line_first_in_a_chain_and_a_restore_read_as_active(home):
    directory = write_skill(home, "never-seen")
    ref = _blob(home, b"notes\n")
    path = {"path": str(directory / "templates" / "a.txt"), "sha256": ref}
    _ledger(home, [
        _line(1, "write_file", "never-seen", after=[path]),
        _line(2, "archive", "never-seen"),
        _line(3, "restore", "never-seen", after=[path]),
    ])  # fmt: skip
    timeline = Timeline(home)
    states = [timeline.skill_fields(e)["state"] for e in timeline.chain("skill", "never-seen")]
    assert states == ["active", "archived", "active"]


def test_engine_support_file_writes_record_their_files(home):
    write_skill(home, "with-refs")
    assert write_support_file(home, "with-refs", "references/a.md", "A\n").ok
    assert remove_support_file(home, "with-refs", "references/a.md").ok
    recorded = [e for e in events(home) if e["kind"] == "skill"]
    assert [(e["action"], e["state"], e.get("files")) for e in recorded] == [
        ("write_file", "active", ["references/a.md"]),
        ("remove_file", "active", ["references/a.md"]),
    ]


def _count_usage_reads(monkeypatch) -> list[str]:
    """Every read of a ``.usage.json`` (locked update or plain read) goes through
    ``usage._read_raw``; count them while still reading the real file."""
    reads: list[str] = []
    real = usage._read_raw
    monkeypatch.setattr(usage, "_read_raw", lambda path: reads.append(str(path)) or real(path))
    return reads


def test_create_and_support_file_changes_read_usage_once(home, monkeypatch):
    write_skill(home, "tracked")
    usage.update_usage(home, lambda data: data.update(tracked=usage.empty_record()))
    reads = _count_usage_reads(monkeypatch)
    steps = [
        lambda: create_skill(home, "fresh-skill", "---\nname: fresh-skill\ndescription: New\n---\n# Fresh\n"),
        lambda: write_support_file(home, "tracked", "references/a.md", "A\n"),
        lambda: remove_support_file(home, "tracked", "references/a.md"),
    ]
    for step in steps:
        reads.clear()
        outcome = step()
        assert outcome.ok, outcome.message
        assert len(reads) == 1, reads
    recorded = [e for e in events(home) if e["kind"] == "skill"]
    assert [(e["skill"], e["action"]) for e in recorded] == [
        ("fresh-skill", "create"), ("tracked", "write_file"), ("tracked", "remove_file"),
    ]  # fmt: skip
    assert usage.read_usage(home).record("tracked")["patch_count"] == 2


def test_a_support_file_change_is_listed_but_never_undone_by_archiving(home):
    """History keeps no copy of support files, so such a change is not undoable; and when
    it is the first version history has of a skill (its create predates the ledger),
    undoing it must not read as undoing a new skill, which archives it."""
    from hermes_memory.history.changes import since, undo_change

    directory = write_skill(home, "late-seen")
    ref = _blob(home, b"notes\n")
    _ledger(home, [_line(1, "write_file", "late-seen",
                         after=[{"path": str(directory / "references" / "n.md"), "sha256": ref}])])  # fmt: skip
    (change,) = [c for c in since(home)["changes"] if c["skill"] == "late-seen"]
    assert (change["verb"], change["undoable"], change["diff"]["files"]) == ("changed files", False, ["references/n.md"])
    assert not undo_change(home, change["id"])["ok"]
    assert (directory / "SKILL.md").is_file() and not home.skills_archive_dir.exists()

    _md, reference = _agent_skill_with_support_file_lines(home)  # create, then two support lines
    changes = [c for c in since(home)["changes"] if c["skill"] == "deploy-steps"]
    assert [(c["action"], c["verb"], c["undoable"]) for c in changes] == [
        ("remove_file", "changed files", False), ("write_file", "changed files", False), ("create", "created", True),
    ]  # fmt: skip
    result = undo_change(home, changes[0]["id"])
    assert not result["ok"] and "no copy" in result["error"], result
    assert (home.skills_dir / "deploy-steps" / "SKILL.md").is_file()


def test_the_history_commands_name_the_support_files(home, capsys):
    from hermes_memory.cli import main

    _agent_skill_with_support_file_lines(home)
    assert main(["--home", str(home.path), "history", "log", "skill", "deploy-steps"]) == 0
    lines = capsys.readouterr().out.splitlines()
    written = next(line for line in lines if "write_file" in line)
    assert "files references/checklist.md" in written and "missing" not in written
    assert main(["--home", str(home.path), "history", "diff", "ledger-line00000002"]) == 0
    out = capsys.readouterr().out
    assert "support file: references/checklist.md" in out and "(no differences)" not in out
