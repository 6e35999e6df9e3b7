"""The queue of proposals waiting for a person: ``<home>/review/pending/<id>.json``.

One JSON file per proposal (see :mod:`.proposals` for the fields), written atomically so
a reader never sees half a record. Approving applies the change through the engine and
then removes the file; a stale proposal stays queued, with the reason, until a person
rejects it. Rejecting removes the file. Every decision is appended to
``<home>/review/history.jsonl``, so what was accepted or turned down stays on record.
Approvals and rejections hold the queue's lock, so two people (or an app and a script)
cannot apply the same proposal twice.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fileio import LockTimeout, append_text, atomic_write_text, file_lock
from ..home import HermesHome
from .applying import apply_proposal, staleness
from .proposals import Proposal, now_iso

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$")
ALL = "all"


class PendingError(RuntimeError):
    """A queue operation that cannot go ahead; the message is for a person."""


@dataclass(frozen=True)
class Decision:
    id: str
    decision: str  # "approved" | "rejected"
    ok: bool
    message: str
    stale: bool = False
    proposal: Proposal | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        result = {"id": self.id, "decision": self.decision, "ok": self.ok, "message": self.message}
        if self.stale:
            result["stale"] = True
        return result


@dataclass(frozen=True)
class Listing:
    proposals: list[Proposal]
    problems: list[str]  # files in the queue that are not readable proposals


def queue_dir(home: HermesHome) -> Path:
    return home.path / "review" / "pending"


def history_file(home: HermesHome) -> Path:
    return home.path / "review" / "history.jsonl"


class PendingQueue:
    def __init__(self, home: HermesHome):
        self.home = home
        self.directory = queue_dir(home)
        self.history = history_file(home)

    # --- reading --------------------------------------------------------------------------
    def _path(self, proposal_id: str) -> Path:
        return self.directory / f"{proposal_id}.json"

    def _load(self, path: Path) -> Proposal:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise PendingError(f"{path.name} is not a readable proposal ({exc}).") from None
        try:
            proposal = Proposal.from_record(record)
        except (TypeError, ValueError) as exc:
            raise PendingError(f"{path.name} is not a proposal this version understands ({exc}).") from None
        if proposal.id != path.stem:
            raise PendingError(f"{path.name} holds proposal '{proposal.id}', not '{path.stem}'.")
        return proposal

    def list(self) -> Listing:
        """Every queued proposal, oldest first (ids sort by time, then by order in a run)."""
        try:
            paths = sorted(p for p in self.directory.iterdir() if p.suffix == ".json")
        except FileNotFoundError:
            return Listing([], [])
        except OSError as exc:
            return Listing([], [f"Could not list {self.directory}: {exc.strerror}"])
        proposals, problems = [], []
        for path in paths:
            try:
                proposals.append(self._load(path))
            except FileNotFoundError:
                continue  # decided while we listed
            except PendingError as exc:
                problems.append(str(exc))
        return Listing(proposals, problems)

    def resolve(self, proposal_id: str) -> str:
        """The full id for an id or a unique prefix of one."""
        if not isinstance(proposal_id, str) or not _ID.match(proposal_id):
            raise PendingError(f"'{proposal_id}' is not a proposal id.")
        if self._path(proposal_id).exists():
            return proposal_id
        matches = [p.id for p in self.list().proposals if p.id.startswith(proposal_id)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise PendingError(f"No pending proposal '{proposal_id}'. See: hermes-memory pending list")
        raise PendingError(f"'{proposal_id}' matches {len(matches)} proposals; give more of the id.")

    def get(self, proposal_id: str) -> Proposal:
        full = self.resolve(proposal_id)
        try:
            return self._load(self._path(full))
        except FileNotFoundError:
            raise PendingError(f"Proposal '{full}' was decided meanwhile.") from None

    def staleness(self, proposal: Proposal) -> str | None:
        return staleness(self.home, proposal)

    # --- writing --------------------------------------------------------------------------
    def add(self, proposals: Iterable[Proposal]) -> list[Path]:
        """Queue the proposals; all or none (a failure removes the ones already written)."""
        proposals = list(proposals)
        if not proposals:
            return []
        self.home.require()
        written: list[Path] = []
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            for proposal in proposals:
                if not _ID.match(proposal.id):
                    raise PendingError(f"'{proposal.id}' is not a usable proposal id.")
                path = self._path(proposal.id)
                if path.exists():
                    raise PendingError(f"A proposal with id '{proposal.id}' is already queued.")
                text = json.dumps(proposal.to_record(), ensure_ascii=False, indent=2)
                atomic_write_text(path, text + "\n", temp_prefix=".proposal_")
                written.append(path)
        except (OSError, PendingError):
            for path in written:
                with contextlib.suppress(OSError):
                    path.unlink()
            raise
        return written

    def _locked(self):
        self.directory.mkdir(parents=True, exist_ok=True)
        return file_lock(self.directory / ".queue")

    def _record_decision(self, decision: Decision) -> None:
        entry = {**decision.as_dict(), "decided_at": now_iso()}
        if decision.proposal is not None:
            entry["proposal"] = decision.proposal.to_record()
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        # Appending one short line is atomic enough here; the queue lock keeps writers apart.
        append_text(self.history, line)

    def decide(self, proposal_id: str, approve: bool) -> Decision:
        """Approve (apply, then dequeue) or reject (dequeue) one proposal."""
        verb = "approved" if approve else "rejected"
        full = self.resolve(proposal_id)
        try:
            with self._locked():
                try:
                    proposal = self._load(self._path(full))
                except FileNotFoundError:
                    raise PendingError(f"Proposal '{full}' was decided meanwhile.") from None
                if approve:
                    result = apply_proposal(self.home, proposal)
                    if not result.get("success"):
                        return Decision(full, verb, False, str(result.get("error", "refused")),
                                        bool(result.get("stale")), proposal)  # fmt: skip
                    message = str(result.get("message") or "Applied.")
                else:
                    message = "Rejected; nothing was changed."
                decision = Decision(full, verb, True, message, False, proposal)
                self._path(full).unlink()
                with contextlib.suppress(OSError):
                    self._record_decision(decision)
                return decision
        except LockTimeout as exc:
            raise PendingError(str(exc)) from None

    def approve(self, proposal_id: str) -> Decision:
        return self.decide(proposal_id, True)

    def reject(self, proposal_id: str) -> Decision:
        return self.decide(proposal_id, False)

    def decide_all(self, approve: bool) -> list[Decision]:
        """Every queued proposal in order (so one a later one builds on goes first)."""
        decisions = []
        for proposal in self.list().proposals:
            try:
                decisions.append(self.decide(proposal.id, approve))
            except PendingError as exc:
                decisions.append(Decision(proposal.id, "approved" if approve else "rejected",
                                          False, str(exc)))  # fmt: skip
        return decisions
