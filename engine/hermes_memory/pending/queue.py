"""The queue itself: the record files under ``<home>/pending/``, claimed before use.

Upstream keeps no lock around approve or reject, so two processes can replay one record
twice (spec §6.2). Here every decision first *claims* the record by renaming
``<id>.json`` to ``<id>.json.claim.<pid>.<token>``: a rename succeeds for exactly one
process, and upstream's readers only look at ``*.json``, so a claimed record is invisible
to them too. The claim is removed only after the outcome is on disk:

* approved: the write is made, the decision appended to ``.decisions.jsonl`` (naming the
  claim), then the claim removed; a partial approval first writes the remaining ops back
  as ``<id>.json``;
* refused: the record goes back as ``<id>.json`` with ``status: "failed"``, ``last_error``
  and ``attempts``, so it is not replayed forever and ``approve all`` skips it (spec §6.3);
* rejected: the decision (with the whole record, so it can be recreated) is appended, then
  the claim removed. A broken file is moved to ``.rejected/`` instead.

A claim left by a process that died (or older than :data:`CLAIM_TIMEOUT`) is recovered when
the queue is next listed: dropped if its decision was logged or the record is back, else
renamed back to ``<id>.json``. A crash between the write and the log leaves the record
queued again; approving it a second time is then a no-op or refused as stale (an add that
is already there is not added twice; a pinned replace finds its entry gone).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..fileio import append_text, atomic_write_text
from ..home import HermesHome
from ..memory.store import MemoryStore
from .applying import APPROVED_ORIGIN, Context, apply_record, pin_memory_write, preview
from .memory_ops import MemoryPlan
from .records import (
    DECISIONS,
    KIND,
    MEMORY,
    NEW_ID,
    SKILLS,
    SUBSYSTEMS,
    PendingRecord,
    encode,
    make_record,
    new_id,
    read_record,
    shape_problem,
)
from .skill_ops import plan_skill, text_hash
from .summaries import memory_summary, skill_gist

CLAIM = ".json.claim."
CLAIM_TIMEOUT = 15 * 60
REJECTED = ".rejected"
ALL = "all"
_BAD_ID = re.compile(r"[/\\\x00]|^\.|^$")


class PendingError(RuntimeError):
    """A queue operation that cannot go ahead; the message is for a person."""


@dataclass(frozen=True)
class Decision:
    id: str
    kind: str
    decision: str  # approved | partly approved | rejected | edited
    ok: bool
    message: str
    stale: bool = False
    summary: str = ""
    details: dict[str, Any] = field(default_factory=dict)  # e.g. replaced_entry

    def as_dict(self) -> dict[str, Any]:
        result = {"id": self.id, "kind": self.kind, "decision": self.decision, "ok": self.ok,
                  "message": self.message, "stale": self.stale, "summary": self.summary}  # fmt: skip
        result.update(self.details)
        return result


@dataclass
class Listing:
    records: list[PendingRecord]  # oldest first; broken ones included, with ``problem`` set
    problems: list[str]  # about the queue's folders rather than one record


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


class PendingQueue:
    def __init__(self, home: HermesHome):
        self.home = home
        self.root = home.path / "pending"

    def directory(self, subsystem: str) -> Path:
        return self.root / subsystem

    # --- reading -------------------------------------------------------------------------
    def list(self) -> Listing:
        from .legacy import migrate_review_queue  # the old review/pending/ records, once

        problems = migrate_review_queue(self)
        records: list[PendingRecord] = []
        for subsystem in SUBSYSTEMS:
            directory = self.directory(subsystem)
            try:
                names = os.listdir(directory)
            except FileNotFoundError:
                continue
            except OSError as exc:
                problems.append(f"Could not list {directory}: {exc.strerror}")
                continue
            if any(CLAIM in name for name in names):
                self._recover_claims(subsystem, names)
                names = os.listdir(directory)
            for name in names:
                if name.endswith(".json") and not name.startswith("."):
                    with contextlib.suppress(FileNotFoundError):  # decided while we listed
                        records.append(read_record(directory / name, subsystem))
        records.sort(key=lambda r: (r.created_at, r.id))
        return Listing(records, problems)

    def count(self) -> dict[str, int]:
        """How many records wait, per subsystem, without reading them."""
        counts = {}
        for subsystem in SUBSYSTEMS:
            try:
                names = os.listdir(self.directory(subsystem))
            except OSError:
                names = []
            counts[subsystem] = sum(1 for n in names if n.endswith(".json") and not n.startswith("."))
        return counts

    def find(self, ident: Any) -> PendingRecord:
        """The record with this id (or a unique prefix of one); only names the queue's own
        folders list are ever opened, so ``../x`` cannot reach outside them."""
        if not isinstance(ident, str) or len(ident) > 128 or _BAD_ID.search(ident) or ".." in ident:
            raise PendingError(f"'{ident}' is not a pending id. See: hermes-memory pending list")
        for subsystem in SUBSYSTEMS:
            path = self.directory(subsystem) / f"{ident}.json"
            with contextlib.suppress(FileNotFoundError):
                return read_record(path, subsystem, ident)
        matches = [r for r in self.list().records if r.id == ident or r.id.startswith(ident)]
        exact = [r for r in matches if r.id == ident]
        if exact or len(matches) == 1:
            return (exact or matches)[0]
        if not matches:
            raise PendingError(f"No pending write with id '{ident}'. See: hermes-memory pending list")
        raise PendingError(f"'{ident}' matches {len(matches)} pending writes; give more of the id.")

    # --- claims --------------------------------------------------------------------------
    def _claim(self, record: PendingRecord) -> Path:
        path = self.directory(record.subsystem) / f"{record.id}.json"
        claim = path.with_name(f"{record.id}{CLAIM}{os.getpid()}.{secrets.token_hex(4)}")
        try:
            os.rename(path, claim)
        except FileNotFoundError:
            raise PendingError(
                f"Pending {record.subsystem} write '{record.id}' was just decided (or is being "
                "decided) by another process; nothing was done."
            ) from None
        return claim

    def _put_back(self, claim: Path, record: PendingRecord) -> None:
        path = self.directory(record.subsystem) / f"{record.id}.json"
        with contextlib.suppress(OSError):
            os.rename(claim, path)

    def _decided_claims(self, subsystem: str) -> set[str]:
        try:
            with open(self.directory(subsystem) / DECISIONS, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - 4 * 1024 * 1024))
                tail = handle.read().decode("utf-8", "replace")
        except OSError:
            return set()
        claims = set()
        for line in tail.splitlines():
            with contextlib.suppress(ValueError, AttributeError):
                claims.add(json.loads(line).get("claim"))
        return claims

    def _recover_claims(self, subsystem: str, names: list[str]) -> None:
        directory = self.directory(subsystem)
        decided: set[str] | None = None
        for name in names:
            if CLAIM not in name or name.startswith("."):
                continue
            stem, _, owner = name.partition(CLAIM)
            claim = directory / name
            try:
                age = time.time() - os.lstat(claim).st_ctime
            except OSError:
                continue
            pid = owner.split(".")[0]
            if pid.isdigit() and _alive(int(pid)) and age < CLAIM_TIMEOUT:
                continue  # being decided right now
            if decided is None:
                decided = self._decided_claims(subsystem)
            record = directory / f"{stem}.json"
            with contextlib.suppress(OSError):
                if name in decided or record.exists():
                    claim.unlink()
                else:
                    os.rename(claim, record)

    # --- the decision log ------------------------------------------------------------------
    def _log(self, subsystem: str, entry: dict[str, Any]) -> None:
        """Append one line to ``.decisions.jsonl`` (outside upstream's ``*.json`` glob)."""
        line = json.dumps({"at": _now_iso(), "by": APPROVED_ORIGIN, **entry})  # ASCII: any text survives
        with contextlib.suppress(OSError):  # the audit line must never undo a decision
            append_text(self.directory(subsystem) / DECISIONS, line + "\n")

    def _write(self, record: PendingRecord, data: dict[str, Any]) -> None:
        atomic_write_text(self.directory(record.subsystem) / f"{record.id}.json", encode(data),
                          temp_prefix=".pending_")  # fmt: skip

    # --- staging ---------------------------------------------------------------------------
    def stage(self, subsystem: str, payload: dict[str, Any], summary: str, origin: str, *,
              record_id: str | None = None, **extra: Any) -> PendingRecord:  # fmt: skip
        """Write a new record; ``extra`` keys (``session_id``, ``base_sha256`` …) are added."""
        self.home.require()
        directory = self.directory(subsystem)
        directory.mkdir(parents=True, exist_ok=True)
        taken = {name.split(".json", 1)[0] for name in os.listdir(directory)}
        if record_id is not None and (not NEW_ID.match(record_id) or record_id in taken):
            raise PendingError(f"'{record_id}' is not a free pending id.")
        record = make_record(subsystem, record_id or new_id(taken), payload, summary, origin, **extra)
        record.path = directory / f"{record.id}.json"
        self._write(record, record.data)
        return record

    # --- deciding --------------------------------------------------------------------------
    def approve(self, ident: str, ops: list[int] | None = None) -> Decision:
        record = self.find(ident)
        if record.problem:
            raise PendingError(f"Pending {record.subsystem} write '{record.id}' cannot be approved: "
                               f"{record.problem}. Reject it to set it aside.")  # fmt: skip
        claim = self._claim(record)
        try:
            fresh = read_record(claim, record.subsystem, record.id)
            if fresh.problem:
                raise PendingError(f"Pending write '{record.id}' cannot be approved: {fresh.problem}.")
            payload, rest = self._selection(fresh, ops)
            result = apply_record(self.home, fresh, payload)
            ok = bool(result.get("success"))
            if ok and rest:
                remaining = {**fresh.data, "payload": rest, "summary": memory_summary(rest),
                             "action": rest["action"]}  # fmt: skip
                self._write(fresh, self._cleared(remaining))
            elif not ok:
                attempts = fresh.data.get("attempts")
                self._write(fresh, {**fresh.data, "status": "failed",
                                    "last_error": str(result.get("error") or "refused"),
                                    "attempts": (attempts if isinstance(attempts, int) else 0) + 1,
                                    "failed_at": time.time()})  # fmt: skip
        except BaseException:
            self._put_back(claim, record)
            raise
        verb = "partly approved" if ok and rest else "approved"
        message = str(result.get("message") or "") if ok else str(result.get("error") or "refused")
        # what the write overwrote or removed, in full: kept in the log so it can be restored
        details = {k: v for k, v in result.items() if k.endswith(("_entry", "_entries", "_file"))}
        if ok:
            self._log(fresh.subsystem, {"id": fresh.id, "decision": verb, "claim": claim.name,
                                        "ops": ops, "record": fresh.data, **details})  # fmt: skip
            if rest:
                message += f" {len(rest['operations'])} op(s) stay queued as '{fresh.id}'."
        with contextlib.suppress(FileNotFoundError):
            claim.unlink()
        return Decision(fresh.id, KIND[fresh.subsystem], verb, ok, message,
                        bool(result.get("stale")), fresh.summary, details)  # fmt: skip

    @staticmethod
    def _cleared(data: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in data.items() if k not in ("status", "last_error", "attempts", "failed_at")}

    @staticmethod
    def _selection(record: PendingRecord, ops: list[int] | None):
        """The payload to apply now and, for a partial approval, the one that stays."""
        if not ops:
            return record.payload, None
        if record.subsystem != MEMORY or record.action != "batch":
            raise PendingError(f"'{record.id}' is not a batch; approve it whole (without --ops).")
        operations = record.operations()
        bad = [n for n in ops if not 1 <= n <= len(operations)]
        if bad or len(set(ops)) != len(ops):
            raise PendingError(f"--ops must name distinct operations between 1 and {len(operations)} "
                               f"of '{record.id}'.")  # fmt: skip
        chosen = sorted(ops)
        now = {**record.payload, "operations": [operations[n - 1] for n in chosen]}
        left = [op for n, op in enumerate(operations, start=1) if n not in chosen]
        return now, ({**record.payload, "operations": left} if left else None)

    def reject(self, ident: str) -> Decision:
        record = self.find(ident)
        what = f"pending {record.subsystem} write '{record.id}'"
        if record.problem:
            return self._set_aside(record)
        claim = self._claim(record)
        fresh = read_record(claim, record.subsystem, record.id)
        self._log(record.subsystem, {"id": record.id, "decision": "rejected", "claim": claim.name,
                                     "record": fresh.data or None})  # fmt: skip
        with contextlib.suppress(FileNotFoundError):
            claim.unlink()
        return Decision(record.id, record.kind, "rejected", True, f"Rejected {what}.",
                        summary=fresh.summary)  # fmt: skip

    def _set_aside(self, record: PendingRecord) -> Decision:
        """A broken record is moved to ``.rejected/`` (not deleted: it may matter to someone)."""
        aside = self.directory(record.subsystem) / REJECTED
        source = self.directory(record.subsystem) / f"{record.id}.json"
        try:
            aside.mkdir(exist_ok=True)
            target = aside / source.name
            while os.path.lexists(target):
                target = aside / f"{record.id}.{secrets.token_hex(2)}.json"
            os.rename(source, target)
        except FileNotFoundError:
            raise PendingError(f"'{record.id}' was just decided by another process.") from None
        except OSError as exc:
            raise PendingError(f"Could not set '{record.id}' aside: {exc}") from None
        self._log(record.subsystem, {"id": record.id, "decision": "rejected", "moved_to": str(target),
                                     "problem": record.problem})  # fmt: skip
        return Decision(record.id, record.kind, "rejected", True,
                        f"Set aside unreadable record '{record.id}' in {target}.")  # fmt: skip

    def decide_all(self, approve: bool) -> list[Decision]:
        """Every record in order; ``approve all`` skips broken and failed records."""
        decisions = []
        for record in self.list().records:
            if approve and (record.problem or record.failed):
                continue
            try:
                decisions.append(self.approve(record.id) if approve else self.reject(record.id))
            except PendingError as exc:
                decisions.append(Decision(record.id, record.kind, "approved" if approve else "rejected",
                                          False, str(exc), summary=record.summary))  # fmt: skip
        return decisions

    # --- editing ---------------------------------------------------------------------------
    def edit(self, ident: str, text: str) -> Decision:
        """Replace what a record writes, validated as a new staged write would be."""
        record = self.find(ident)
        if record.problem:
            raise PendingError(f"'{record.id}' cannot be edited: {record.problem}. Reject it instead.")
        claim = self._claim(record)
        try:
            fresh = read_record(claim, record.subsystem, record.id)
            payload = edited_payload(fresh, text)
            data = self._cleared({**fresh.data, "payload": payload, "action": payload.get("action", ""),
                                  "edited_at": time.time()})  # fmt: skip
            if record.subsystem == MEMORY:
                plan = pin_memory_write(MemoryStore(self.home), payload)
                if not isinstance(plan, MemoryPlan):
                    raise PendingError(f"The edit was not saved: {plan.get('error')}")
                data.update(payload=plan.payload, summary=memory_summary(plan.payload))
            else:
                candidate = PendingRecord(record.id, SKILLS, {**data, "payload": payload}, claim)
                candidate.data.pop("base_sha256", None)
                plan = plan_skill(self.home, candidate)
                if not plan.ok:
                    raise PendingError(f"The edit was not saved: {plan.error}")
                data["summary"] = skill_gist(payload, exists=plan.action != "create")
                if payload.get("action") != "create":
                    data["base_sha256"] = text_hash(plan.before)  # reviewed against today's file
            self._write(fresh, data)
        except BaseException:
            self._put_back(claim, record)
            raise
        self._log(record.subsystem, {"id": record.id, "decision": "edited", "claim": claim.name,
                                     "record": fresh.data})  # fmt: skip
        with contextlib.suppress(FileNotFoundError):
            claim.unlink()
        return Decision(record.id, record.kind, "edited", True,
                        f"Edited pending {record.subsystem} write '{record.id}'; it stays queued.",
                        summary=str(data.get("summary", "")))  # fmt: skip

    # --- dry runs --------------------------------------------------------------------------
    def preview(self, record: PendingRecord, context: Context | None = None) -> dict[str, Any]:
        return preview(context or Context(self.home), record)


_TEXT_FIELDS = {("memory", "add"): "content", ("memory", "replace"): "content",
                ("skills", "create"): "content", ("skills", "edit"): "content",
                ("skills", "write_file"): "file_content"}  # fmt: skip


def edited_payload(record: PendingRecord, text: str) -> dict[str, Any]:
    """The new payload from an edit: a JSON payload (or whole record), or plain text that
    replaces the one text a single add/replace/create/edit/write_file writes."""
    if not isinstance(text, str) or not text.strip():
        raise PendingError("The edit is empty; nothing was changed.")
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise PendingError(f"The edit is not valid JSON ({exc}); nothing was changed.") from None
        if isinstance(value, dict) and isinstance(value.get("payload"), dict):
            value = value["payload"]
        probe = shape_problem(record.subsystem, {"subsystem": record.subsystem, "payload": value})
        if probe:
            raise PendingError(f"The edit cannot be staged: {probe}; nothing was changed.")
        return value
    field_name = _TEXT_FIELDS.get((record.subsystem, record.action))
    if field_name is None:
        raise PendingError(
            f"'{record.id}' ({record.action}) has no single text to replace; give the whole payload "
            "as JSON instead (see: hermes-memory --json pending show ID)."
        )
    return {**record.payload, field_name: text.strip() if record.subsystem == MEMORY else text}
