"""One change a review wants to make, as a record a person can read, approve or reject.

A proposal pins what it changes, so approving it later can tell whether the target moved:

* memory (``kind="memory"``, ``target`` = ``"memory"`` or ``"user"``): ``before`` lists the
  exact entries the change rewrites or removes, ``after`` the entries it writes in their
  place (an add has ``before == []``). Approval refuses as stale unless every ``before``
  entry is still in the file, word for word.
* skills (``kind="skill"``, ``target`` = the skill name, ``file`` = ``"SKILL.md"`` or a
  support file such as ``"references/api.md"``): ``before`` is the file's full text (None
  for a file or skill that does not exist yet), ``after`` the full new text. Approval
  refuses as stale unless the file still holds exactly ``before``.

``depends_on`` names earlier proposals of the same review whose result this one builds on
(approve those first).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

RECORD_FORMAT = 1
MEMORY = "memory"
SKILL = "skill"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def new_review_id(when: datetime | None = None) -> str:
    """``YYYYMMDD-HHMMSS-xxxx``: sorts by time, and is short enough to type."""
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(2)}"


@dataclass
class Proposal:
    id: str
    kind: str  # MEMORY or SKILL
    target: str  # "memory" / "user", or a skill name
    operation: str  # add|replace|remove|batch, or create|edit|patch|write_file
    before: Any
    after: Any
    session_id: str
    created_at: str
    file: str | None = None  # skills: "SKILL.md" or a support file path
    category: str | None = None  # skills: the category a create puts the skill in
    summary: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)  # the tool call, for reference
    depends_on: list[str] = field(default_factory=list)
    review_id: str = ""

    @property
    def label(self) -> str:
        """``user``, ``memory``, ``skill docker-logs`` or ``skill docker-logs/references/x.md``."""
        if self.kind == MEMORY:
            return self.target
        if self.file and self.file != "SKILL.md":
            return f"skill {self.target}/{self.file}"
        return f"skill {self.target}"

    def to_record(self) -> dict[str, Any]:
        return {"format": RECORD_FORMAT, **asdict(self)}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Proposal:
        """Raises ``ValueError`` for a record that is not a proposal we understand."""
        if not isinstance(record, dict):
            raise ValueError("not a JSON object")
        if record.get("format") != RECORD_FORMAT:
            raise ValueError(f"unknown record format {record.get('format')!r}")
        missing = [k for k in ("id", "kind", "target", "operation", "session_id", "created_at")
                   if not isinstance(record.get(k), str)]  # fmt: skip
        if missing:
            raise ValueError(f"missing {', '.join(missing)}")
        if record["kind"] not in (MEMORY, SKILL):
            raise ValueError(f"unknown kind {record['kind']!r}")
        known = {name for name in cls.__dataclass_fields__}
        values = {k: v for k, v in record.items() if k in known}
        values.setdefault("before", None)
        values.setdefault("after", None)
        proposal = cls(**values)
        if proposal.kind == MEMORY and not (
            isinstance(proposal.before, list) and isinstance(proposal.after, list)
        ):
            raise ValueError("a memory proposal needs before and after lists")
        return proposal
