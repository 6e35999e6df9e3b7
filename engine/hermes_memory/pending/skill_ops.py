"""What a staged skill write does, worked out from the disk, and writing it.

:func:`plan_skill` reads the skill as it is now and computes the file the write touches,
its text before and the text it would have after: the real result, so ``pending show``'s
diff is what approval writes (upstream's diff ignores ``replace_all``, spec §6.9). A record
we staged carries ``base_sha256``, the hash of the text it was planned against; a file that
no longer has it is stale. Upstream's records have no such pin, so for them a ``patch``
whose ``old_string`` is gone, or any change to a skill that no longer exists, is stale.

Writes go through the skills package (:mod:`..skills.editing`, :mod:`..skills.writing`,
:mod:`..skills.lifecycle`); the same guards hold as for a direct write, and a change the
background review staged also keeps the review's own guards (pinned, user-owned, bundled).
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from typing import Any

from ..home import HermesHome
from ..skills.editing import edit_refusal, edit_skill, revision_of
from ..skills.frontmatter import parse_frontmatter
from ..skills.index import Skill, SkillScan
from ..skills.lifecycle import archive_skill, find_skill
from ..skills.usage import read_usage
from ..skills.validation import name_error, skill_md_error
from ..skills.writing import (
    SKILL_MD,
    SkillFileError,
    create_skill,
    read_text_file,
    remove_support_file,
    support_content_error,
    support_file_path,
    support_path_error,
    write_support_file,
)
from .records import BACKGROUND_REVIEW, PendingRecord


def text_hash(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class SkillPlan:
    action: str
    name: str
    file: str = SKILL_MD
    before: str | None = None
    after: str | None = None  # None: the file (or, for delete, the skill) goes away
    error: str | None = None
    stale: bool = False
    category: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def unified_diff(self) -> str:
        if self.action == "delete":
            return f"delete skill '{self.name}' (archived, restorable)"
        if self.action == "remove_file":
            return f"remove file: {self.file} from skill '{self.name}'"
        path = f"{self.name}/{self.file}"
        lines = difflib.unified_diff(
            (self.before or "").splitlines(keepends=True),
            (self.after or "").splitlines(keepends=True),
            fromfile=f"a/{path}" if self.before is not None else "/dev/null",
            tofile=f"b/{path}",
        )
        text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                       for line in lines)  # fmt: skip
        return text or "(no textual change)"


def _string(payload: dict[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) else None


def _guard(home: HermesHome, record: PendingRecord, skill: Skill) -> str | None:
    refusal = edit_refusal(skill)
    if refusal or record.origin != BACKGROUND_REVIEW:
        return refusal
    from ..review.skill_changes import background_refusal  # the review's own guards

    usage = read_usage(home)
    if usage.error:
        return f"skill usage records cannot be read ({usage.error})"
    return background_refusal(skill, usage.record(skill.name))


def plan_skill(home: HermesHome, record: PendingRecord, scan: SkillScan | None = None) -> SkillPlan:
    """The change ``record`` would make now (reads only)."""
    payload = record.payload
    action = record.action
    name = _string(payload, "name") or ""
    plan = SkillPlan(action, name)

    def refuse(message: str, stale: bool = False) -> SkillPlan:
        plan.error, plan.stale = message, stale
        return plan

    error = name_error(name)
    if error:
        return refuse(error)
    if action == "batch":
        return refuse("This record stages a batch of skill changes, which this version cannot "
                      "replay one by one; nothing was applied. Reject it, or ask the agent to "
                      "make the changes one at a time.")  # fmt: skip
    _scan, skill, _why = find_skill(home, name, scan)
    if action == "create":
        if skill is not None:
            return refuse(f"a skill named '{name}' exists now (in {skill.rel_dir}).", stale=True)
        content = _string(payload, "content")
        error = skill_md_error(content) if content is not None else "content is required."
        if error:
            return refuse(error)
        category = _string(payload, "category")
        plan.after, plan.category = content, category or None
        return plan
    if skill is None:
        return refuse(f"skill '{name}' no longer exists (archived or deleted since this write "
                      "was staged); nothing can be applied to it.", stale=True)  # fmt: skip
    refusal = _guard(home, record, skill)
    if refusal:
        return refuse(refusal)
    if action in ("patch", "write_file", "remove_file"):
        file_path = _string(payload, "file_path")
        if action != "patch" or file_path not in (None, "", SKILL_MD):
            error = support_path_error(file_path)
            if error:
                return refuse(error)
            plan.file = file_path  # type: ignore[assignment]
    try:
        path = skill.skill_md if plan.file == SKILL_MD else support_file_path(skill.path, plan.file)
        plan.before = read_text_file(path)
    except SkillFileError as exc:
        return refuse(str(exc))
    if "base_sha256" in record.data and action != "create":
        if text_hash(plan.before) != record.data.get("base_sha256"):
            return refuse(f"{plan.file} of '{name}' changed since this write was staged.", stale=True)
    if action == "delete":
        return plan
    if action == "remove_file":
        if plan.before is None:
            return refuse(f"{plan.file} is not in skill '{name}' any more.", stale=True)
        return plan
    if action == "edit":
        plan.after = _string(payload, "content")
    elif action == "write_file":
        plan.after = _string(payload, "file_content")
        error = support_content_error(plan.after)
        if error:
            return refuse(error)
    else:  # patch
        old, new = _string(payload, "old_string"), _string(payload, "new_string")
        if not old or new is None:
            return refuse("A patch needs old_string and new_string.")
        if plan.before is None:
            return refuse(f"{plan.file} is not in skill '{name}' any more.", stale=True)
        count = plan.before.count(old)
        if count == 0:
            return refuse(f"the text this patch replaces is no longer in {plan.file} of '{name}'.",
                          stale=True)  # fmt: skip
        if count > 1 and payload.get("replace_all") is not True:
            return refuse(f"old_string occurs {count} times in {plan.file} of '{name}'; the patch "
                          "is ambiguous (edit it to include more context, or set replace_all).")  # fmt: skip
        all_of_them = payload.get("replace_all") is True
        plan.after = plan.before.replace(old, new) if all_of_them else plan.before.replace(old, new, 1)
    if plan.after is None:
        return refuse("The staged write has no new text.")
    if plan.file == SKILL_MD:
        error = skill_md_error(plan.after, allow_name=name)
        if error or parse_frontmatter(plan.after)[0].get("name") != name:
            return refuse(error or f"the new SKILL.md renames '{name}'; keep name: {name}.")
    return plan


def apply_skill_plan(home: HermesHome, plan: SkillPlan) -> dict[str, Any]:
    """Write a plan made by :func:`plan_skill`; the memory tool's payload shape."""
    if not plan.ok:
        return {"success": False, "error": plan.error, **({"stale": True} if plan.stale else {})}
    if plan.action == "create":
        outcome = create_skill(home, plan.name, plan.after or "", plan.category)
    elif plan.action == "delete":
        outcome = archive_skill(home, plan.name)
    elif plan.action == "remove_file":
        outcome = remove_support_file(home, plan.name, plan.file, expected=plan.before)
    elif plan.file != SKILL_MD:
        outcome = write_support_file(home, plan.name, plan.file, plan.after or "", expected=plan.before)
    else:
        revision = revision_of(plan.before) if plan.before is not None else None
        outcome = edit_skill(home, plan.name, plan.after or "", revision=revision, count_patch=True)
    if not outcome.ok:
        return {"success": False, "error": outcome.message}
    result: dict[str, Any] = {"success": True, "message": outcome.message}
    if plan.action == "remove_file":  # the text is gone from disk; the decision log keeps it
        result["removed_file"] = {"skill": plan.name, "path": plan.file, "text": plan.before}
    return result
