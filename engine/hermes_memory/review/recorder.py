"""Turns each change a review plans into a :class:`Proposal`, in order, with dependencies."""

from __future__ import annotations

from typing import Any

from ..memory.entries import FILE_NAMES
from ..pending.records import new_id
from .proposals import MEMORY, SKILL, Proposal, now_iso
from .skill_changes import SKILL_MD, SkillChange


def _short(text: str, width: int = 70) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def memory_operation(removed: list[str], added: list[str]) -> str:
    if not removed:
        return "add"
    if not added:
        return "remove"
    if len(removed) == 1 and len(added) == 1:
        return "replace"
    return "batch"


def memory_summary(target: str, removed: list[str], added: list[str]) -> str:
    where = FILE_NAMES.get(target, target)
    operation = memory_operation(removed, added)
    if operation == "add":
        return f"add to {where}: \"{_short(added[0])}\"" + (
            f" (+{len(added) - 1} more)" if len(added) > 1 else ""
        )
    if operation == "remove":
        return f"remove from {where}: \"{_short(removed[0])}\"" + (
            f" (+{len(removed) - 1} more)" if len(removed) > 1 else ""
        )
    if operation == "replace":
        return f"replace in {where}: \"{_short(removed[0], 40)}\" -> \"{_short(added[0], 40)}\""
    return f"update {where}: {len(removed)} entries out, {len(added)} in"


class ChangeRecorder:
    def __init__(self, review_id: str, session_id: str):
        self.review_id = review_id
        self.session_id = session_id
        self.proposals: list[Proposal] = []
        self._memory_sources: dict[tuple[str, str], str] = {}  # (target, entry) -> proposal id
        self._skill_sources: dict[tuple[str, str], str] = {}  # (skill, file) -> proposal id
        self._created: dict[str, str] = {}  # skill -> id of the proposal creating it

    def _new(self, **fields: Any) -> Proposal:
        proposal = Proposal(
            id=new_id({p.id for p in self.proposals}),  # the id it will have in the queue
            session_id=self.session_id,
            created_at=now_iso(),
            review_id=self.review_id,
            **fields,
        )
        self.proposals.append(proposal)
        return proposal

    def memory(self, target: str, removed: list[str], added: list[str],
               arguments: dict[str, Any]) -> Proposal:  # fmt: skip
        depends = sorted({self._memory_sources[(target, e)] for e in removed
                          if (target, e) in self._memory_sources})  # fmt: skip
        proposal = self._new(
            kind=MEMORY, target=target, operation=memory_operation(removed, added),
            before=list(removed), after=list(added), arguments=dict(arguments),
            depends_on=depends, summary=memory_summary(target, removed, added),
        )  # fmt: skip
        for entry in added:
            self._memory_sources[(target, entry)] = proposal.id
        return proposal

    def skill(self, change: SkillChange, arguments: dict[str, Any]) -> Proposal:
        # a change builds on the last change to the same file, and on the skill's creation
        sources = {self._skill_sources.get((change.name, change.file)),
                   self._created.get(change.name)}  # fmt: skip
        depends = sorted(source for source in sources if source)
        where = change.name if change.file == SKILL_MD else f"{change.name}/{change.file}"
        proposal = self._new(
            kind=SKILL, target=change.name, operation=change.operation,
            before=change.before, after=change.after, file=change.file,
            category=change.category, arguments=dict(arguments), depends_on=depends,
            summary=f"{change.operation} skill {where}",
        )  # fmt: skip
        self._skill_sources[(change.name, change.file)] = proposal.id
        if change.operation == "create":
            self._created[change.name] = proposal.id
        return proposal
