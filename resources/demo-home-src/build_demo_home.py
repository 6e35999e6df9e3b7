"""Write ``desktop/hermes_studio/resources/demo-home`` from the data here: skills, .usage.json, memories, state.db
(sessions that wrote entries and skills), the curator ledger of those skill writes, the
history of versions (``.memory-studio/history/``) and a few staged writes (``pending/``).

The committed demo home is plain files; this script is how they were made, and how to
remake them after changing the story. It writes through the engine wherever the engine
has a writer (sessions through :class:`SessionWriter`, memory files in the canonical
``\\n§\\n`` form), and checks the result with the engine's own readers: every skill
validates, every memory entry passes the threat scanner, budgets land near 80 % and 60 %.
History comes from the engine's own ``history import-sessions`` and ``history capture``,
and the staged writes from its queue; ids and clocks are fixed, so a rebuild is identical.

Run: ``.venv/bin/python resources/demo-home-src/build_demo_home.py [TARGET]``.
``config.yaml`` and ``skills/.gitkeep`` in the target are kept as they are.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import shutil
import sqlite3
import sys
from unittest import mock
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "engine"))
sys.path.insert(0, str(HERE))

from hermes_memory.home import HermesHome  # noqa: E402
from hermes_memory.memory.entries import char_count, serialise_entries  # noqa: E402
from hermes_memory.memory.scan import scan_findings  # noqa: E402
from hermes_memory.sessions.schema import create_modern_db  # noqa: E402
from hermes_memory.sessions.writer import SessionWriter  # noqa: E402
from hermes_memory.skills.validation import skill_md_error  # noqa: E402
from memory_data import MEMORY, PENDING, SESSIONS, USER  # noqa: E402
from skills_data import ARCHIVED, ARCHIVED_AT, BUNDLED, PINNED, SKILLS, STALE, Skill  # noqa: E402


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def _at(day: str, name: str, salt: str) -> datetime:
    """A stable time of day (08:00–18:59 UTC) for ``day``, different per skill and field."""
    h = _hash(name + salt)
    return datetime.fromisoformat(day).replace(
        hour=8 + h % 11, minute=(h >> 4) % 60, second=(h >> 10) % 60, tzinfo=UTC
    )


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def skill_text(skill: Skill) -> str:
    title = skill.name.replace("-", " ").capitalize()
    lines = [
        "---",
        f"name: {skill.name}",
        f"description: {skill.description}",
        "version: 1.0.0",
        "author: Hermes",
        "license: MIT",
        "metadata:",
        "  hermes:",
        f"    tags: [{', '.join(skill.tags)}]",
    ]
    if skill.related:
        lines.append(f"    related_skills: [{', '.join(skill.related)}]")
    lines += ["---", "", f"# {title}", "", skill.intro, "", "## When to Use", ""]
    lines.append(f"- {skill.description}.")
    if skill.related:
        lines.append("- Often used with: " + ", ".join(f"`{r}`" for r in skill.related) + ".")
    lines += ["", "## Procedure", ""]
    lines += [f"{i}. {step}" for i, step in enumerate(skill.steps, 1)]
    lines += ["", "## Pitfalls", "", f"- {skill.pitfall}", "", "## Verification", ""]
    lines.append("- Report the commands you ran and their output to the user.")
    return "\n".join(lines) + "\n"


VERIFICATION = "\n## Verification\n\n- Report the commands you ran and their output to the user.\n"


def first_text(skill: Skill, patched_later: bool) -> str:
    """The SKILL.md the agent created; a skill patched later lacked its Verification part."""
    text = skill_text(skill)
    return text.replace(VERIFICATION, "") if patched_later else text


def usage_record(skill: Skill, *, state: str = "active", pinned: bool = False) -> dict:
    born = _at(skill.born, skill.name, "born")
    last = max(_at(skill.last, skill.name, "used"), born + timedelta(minutes=5))
    h = _hash(skill.name)
    patches = h % 4 if skill.uses > 3 else 0
    patched = born + (last - born) * ((h % 7 + 2) / 10) if patches else None
    return {
        "archived_at": None,
        "created_at": _iso(born),
        "created_by": skill.by,
        "last_patched_at": _iso(patched) if patched else None,
        "last_used_at": _iso(last) if skill.uses else None,
        "last_viewed_at": _iso(last + timedelta(minutes=1)) if skill.uses else None,
        "patch_count": patches,
        "pinned": pinned,
        "state": state,
        "use_count": skill.uses,
        "view_count": skill.uses + h % 5,
    }


def write_skill(root: Path, skill: Skill) -> None:
    text = skill_text(skill)
    error = skill_md_error(text)
    if error:
        raise SystemExit(f"{skill.name}: {error}")
    directory = root / skill.category / skill.name
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(text, encoding="utf-8")


def check_entries(name: str, entries: list[str], limit: int, target_pct: int) -> None:
    for entry in entries:
        findings = scan_findings(entry)  # the strictest scope
        if findings:
            raise SystemExit(f"{name}: blocked by the scanner: {entry[:60]!r} {findings}")
    used = char_count(entries)
    pct = used * 100 // limit
    print(f"{name}: {len(entries)} entries, {used}/{limit} chars ({pct}%, aim {target_pct}%)")
    if abs(pct - target_pct) > 4:
        raise SystemExit(f"{name} is at {pct}%, not near {target_pct}%")


def write_sessions(path: Path) -> list[dict]:
    """Write state.db; the skill writes it holds, as curator ledger lines to write."""
    skills = {s.name: s for s in SKILLS}
    patched = {turn[2] for s in SESSIONS for turn in s["turns"] if turn[:2] == ("skill", "patch")}
    ledger: list[dict] = []
    if path.exists():
        path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    create_modern_db(path)  # a recent agent's schema: session titles, three-column index
    with SessionWriter(path) as writer:
        for number, session in enumerate(SESSIONS, 1):
            start = datetime.fromisoformat(session["start"]).replace(tzinfo=UTC).timestamp()
            sid = f"2026{session['start'][5:7]}{session['start'][8:10]}_{number:03d}"
            writer.create_session(
                sid, session.get("source", "cli"), model="hermes-4-70b",
                started_at=start, system_prompt="You are Hermes, Dana's coding agent.",
                extra={"title": session["title"]},
            )
            clock = start
            for turn in session["turns"]:
                clock += 40
                role = turn[0]
                if role == "memory":
                    _, target, content = turn
                    call_id = f"call_{_hash(sid + content) % 10**8:08d}"
                    arguments = {"action": "add", "target": target, "content": content}
                    writer.append_message(
                        sid, "assistant", content=None, timestamp=clock,
                        tool_calls=[{"id": call_id, "type": "function", "function": {
                            "name": "memory", "arguments": json.dumps(arguments)}}],
                    )
                    clock += 1
                    writer.append_message(
                        sid, "tool", tool_name="memory", tool_call_id=call_id, timestamp=clock,
                        content=json.dumps({"success": True, "target": target,
                                            "message": "Entry added."}),
                    )
                elif role == "skill":
                    _, action, name = turn
                    skill = skills[name]
                    before = first_text(skill, True) if action == "patch" else None
                    after = skill_text(skill) if action == "patch" else first_text(skill, name in patched)
                    call_id = f"call_{_hash(sid + action + name) % 10**8:08d}"
                    arguments = {"action": action, "name": name}
                    if action == "create":
                        arguments.update(category=skill.category, content=after)
                    else:
                        arguments.update(old_string=f"- {skill.pitfall}\n",
                                         new_string=f"- {skill.pitfall}\n{VERIFICATION}")
                    writer.append_message(
                        sid, "assistant", content=None, timestamp=clock,
                        tool_calls=[{"id": call_id, "type": "function", "function": {
                            "name": "skill_manage", "arguments": json.dumps(arguments)}}],
                    )
                    clock += 1
                    verb = "Created" if action == "create" else "Patched"
                    writer.append_message(
                        sid, "tool", tool_name="skill_manage", tool_call_id=call_id, timestamp=clock,
                        content=json.dumps({"success": True, "message": f"{verb} skill '{name}'."}),
                    )
                    ledger.append({"session": sid, "ts": clock, "action": action, "skill": skill,
                                   "before": before, "after": after})
                else:
                    writer.append_message(sid, role, content=turn[1], timestamp=clock)
            writer.end_session(sid, "user_exit", ended_at=clock + 30)
    # one self-contained file: no -wal/-shm next to it, so reading never adds files
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()
    return ledger


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_ledger(home: HermesHome, writes: list[dict]) -> None:
    """The curator ledger upstream appends for each skill write (``evidence.session_id``
    names the session), with its content blobs, and the curator's archive of the Jenkins skill."""
    blobs = home.path / ".curator_backups" / "blobs"
    blobs.mkdir(parents=True)
    lines = []

    def files(skill: Skill, text: str | None) -> list[dict]:
        if text is None:
            return []
        (blobs / _sha(text)).write_text(text, encoding="utf-8")
        return [{"path": f"/home/dana/.hermes/skills/{skill.category}/{skill.name}/SKILL.md",
                 "sha256": _sha(text)}]

    for write in writes:
        skill = write["skill"]
        lines.append({
            "id": f"{_hash(write['session'] + skill.name + write['action']):012x}"[-12:],
            "ts": datetime.fromtimestamp(write["ts"], UTC).isoformat(),
            "actor": "agent", "action": write["action"], "skill": skill.name,
            "evidence": {"session_id": write["session"]},
            "before": files(skill, write["before"]), "after": files(skill, write["after"]),
        })
    lines.append({
        "id": f"{_hash(ARCHIVED.name + 'archive'):012x}"[-12:], "ts": ARCHIVED_AT,
        "actor": "curator", "action": "archive", "skill": ARCHIVED.name,
        "evidence": {"archived": True}, "before": files(ARCHIVED, skill_text(ARCHIVED)), "after": [],
    })
    lines.sort(key=lambda line: line["ts"])
    (home.skills_dir / ".curator_ledger.jsonl").write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")


#: When the story ends: history's last capture and the staged writes are dated from here.
STORY_END = datetime(2026, 11, 20, 17, 40, tzinfo=UTC).timestamp()


@contextlib.contextmanager
def fixed_ids_and_clock(now: float):
    """History event ids from a counter and the clock at ``now``, so rebuilds are identical."""
    from hermes_memory.history import recording

    counter = itertools.count(1)
    ids = lambda: hashlib.sha256(f"demo-{next(counter)}".encode()).hexdigest()[:12]  # noqa: E731
    with mock.patch.object(recording, "new_id", ids), \
            mock.patch.object(recording, "time", SimpleNamespace(time=lambda: now)):
        yield


def write_history(home: HermesHome) -> None:
    """Versions across the months: the agent's memory writes imported from state.db, the
    ledger's skill writes, then one capture of the files as they are at the story's end."""
    from hermes_memory.history import service

    with fixed_ids_and_clock(STORY_END):
        imported = service.import_sessions(home)
        captured = service.capture(home)
    if not imported.get("ok") or not captured.get("ok"):
        raise SystemExit(f"history: {imported} {captured}")
    print(f"history: {imported['imported']} imported version(s), capture {captured}")


def write_pending(home: HermesHome) -> None:
    """The staged writes waiting at the story's end, in upstream's queue format."""
    from hermes_memory.pending import PendingQueue
    from hermes_memory.pending import records as pending_records
    from hermes_memory.pending.changes import skill_change_payload, summary_for

    queue = PendingQueue(home)
    skills = {s.name: s for s in SKILLS}
    for record_id, subsystem, origin, number, days, payload in PENDING:
        sid = next(f"2026{s['start'][5:7]}{s['start'][8:10]}_{n:03d}"
                   for n, s in enumerate(SESSIONS, 1) if n == number)
        extra = {}
        if isinstance(payload, str):  # a skill: add a pitfall to its SKILL.md
            skill = skills[payload]
            before = skill_text(skill)
            after = before.replace("## Verification", "- A stale `node_modules/.pnpm` store hides a "
                                   "wrong Node version: `pnpm store prune` first.\n\n## Verification")
            payload, extra = skill_change_payload("edit", skill.name, "SKILL.md", before, after)
        when = STORY_END - days * 86400
        with mock.patch.object(pending_records, "time", SimpleNamespace(time=lambda when=when: when)):
            queue.stage(subsystem, payload, summary_for(subsystem, payload), origin,
                        record_id=record_id, session_id=sid, **extra)
    print(f"pending: {len(PENDING)} staged write(s)")


def build(target: Path) -> None:
    home = HermesHome.resolve(target)
    skills_dir = home.skills_dir
    skills_dir.mkdir(parents=True, exist_ok=True)
    for generated in (".memory-studio", ".curator_backups", "pending"):
        shutil.rmtree(home.path / generated, ignore_errors=True)
    for child in skills_dir.iterdir():
        if child.name == ".gitkeep":
            continue
        shutil.rmtree(child) if child.is_dir() else child.unlink()

    names = {s.name for s in SKILLS} | {s.name for s in BUNDLED}
    for skill in SKILLS + BUNDLED:
        missing = [r for r in skill.related if r not in names]
        if missing:
            raise SystemExit(f"{skill.name}: unknown related skills {missing}")
        write_skill(skills_dir, skill)
    archived = skills_dir / ".archive"
    archived.mkdir()
    (archived / ARCHIVED.name).mkdir()
    (archived / ARCHIVED.name / "SKILL.md").write_text(skill_text(ARCHIVED), encoding="utf-8")

    usage = {
        s.name: usage_record(
            s, state="stale" if s.name in STALE else "active", pinned=s.name in PINNED
        )
        for s in SKILLS + BUNDLED
    }
    record = usage_record(ARCHIVED, state="archived")
    record["archived_at"] = ARCHIVED_AT
    record["archived_from"] = f"{ARCHIVED.category}/{ARCHIVED.name}"
    usage[ARCHIVED.name] = record
    (skills_dir / ".usage.json").write_text(
        json.dumps(usage, indent=2, sort_keys=True, ensure_ascii=False), encoding="utf-8"
    )
    (skills_dir / ".bundled_manifest").write_text(
        "".join(f"{s.name}:{hashlib.sha256(skill_text(s).encode()).hexdigest()[:16]}\n"
                for s in BUNDLED),
        encoding="utf-8",
    )

    check_entries("MEMORY.md", MEMORY, 2200, 80)
    check_entries("USER.md", USER, 1375, 60)
    home.memories_dir.mkdir(exist_ok=True)
    home.memory_file.write_text(serialise_entries(MEMORY), encoding="utf-8")
    home.user_file.write_text(serialise_entries(USER), encoding="utf-8")

    written = {turn[2] for s in SESSIONS for turn in s["turns"] if turn[0] == "memory"}
    for entry in MEMORY + USER:
        if entry not in written:
            print(f"note: no session wrote {entry[:50]!r}")
    write_ledger(home, write_sessions(home.state_db))
    write_history(home)
    write_pending(home)
    for lock in home.path.rglob("*.lock"):  # left by the engine's writes; made again on use
        lock.unlink()
    print(f"wrote {len(SKILLS)} learned + {len(BUNDLED)} bundled skills, 1 archived, "
          f"{len(SESSIONS)} sessions to {target}")


if __name__ == "__main__":
    default = REPO / "desktop" / "hermes_studio" / "resources" / "demo-home"
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else default)
