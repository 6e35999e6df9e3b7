"""The tools a review's model may call, and nothing else (spec §4.3 step 6).

Offered: ``memory`` (when either built-in store is enabled), ``skills_list``,
``skill_view`` and ``skill_manage``. A call to any other name is refused with a message
naming the allowed tools, and recorded. ``skill_manage`` actions that destroy content
(``delete``, ``remove_file``) are denied automatically, as upstream's review denies every
dangerous command: nobody is there to confirm them.

Nothing here writes to disk. Memory calls run the engine's own ``memory`` dispatcher on a
:class:`PlanningMemoryStore`; skill calls go through :class:`SkillWorkspace`. Each planned
change becomes a proposal in the :class:`ChangeRecorder`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..config import load_memory_config
from ..home import HermesHome
from ..memory.store import StoreReadError
from ..memory.tool import MEMORY_TOOL_SCHEMA, dispatch
from .memory_changes import PlanningMemoryStore
from .proposals import MEMORY, SKILL
from .recorder import ChangeRecorder
from .skill_changes import (
    DANGEROUS_ACTIONS,
    SKILL_MD,
    SkillChange,
    SkillRefusal,
    SkillWorkspace,
    support_path_error,
)

APPLY = "apply"
PROPOSE = "propose"
MAX_LISTED_SKILLS = 200
SKILL_ACTIONS = ["create", "edit", "patch", "write_file", "remove_file", "delete"]

SKILLS_LIST_SCHEMA: dict[str, Any] = {
    "name": "skills_list",
    "description": "List the agent's skills: name, category, one-line description, and "
    "whether this review may change it.",
    "parameters": {
        "type": "object",
        "properties": {
            "category": {"type": "string", "description": "Only skills in this category."},
        },
    },
}

SKILL_VIEW_SCHEMA: dict[str, Any] = {
    "name": "skill_view",
    "description": "Read a skill's SKILL.md (and the list of its support files), or one "
    "support file. Viewing is required before editing, patching or overwriting that file.",
    "parameters": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name."},
            "file_path": {
                "type": "string",
                "description": "A support file such as references/api.md; omit for SKILL.md.",
            },
        },
        "required": ["name"],
    },
}

SKILL_MANAGE_SCHEMA: dict[str, Any] = {
    "name": "skill_manage",
    "description": (
        "Create or change a skill. create: a new skill from full SKILL.md content "
        "(frontmatter with name and description, then the body). edit: rewrite SKILL.md "
        "completely. patch: replace old_string with new_string in SKILL.md or in file_path. "
        "write_file: write a support file under references/, templates/, scripts/ or "
        "assets/. Deleting skills or files is not possible in a review."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": SKILL_ACTIONS},
            "name": {"type": "string", "description": "The skill's name (lowercase, hyphens)."},
            "content": {"type": "string", "description": "Full SKILL.md for create and edit."},
            "category": {"type": "string", "description": "Folder for a new skill (create)."},
            "file_path": {"type": "string", "description": "Support file for patch/write_file."},
            "file_content": {"type": "string", "description": "Content for write_file."},
            "old_string": {"type": "string", "description": "Exact text to replace (patch)."},
            "new_string": {"type": "string", "description": "Replacement text (patch)."},
            "replace_all": {"type": "boolean", "description": "Replace every occurrence."},
            "absorbed_into": {"type": "string"},
        },
        "required": ["action", "name"],
    },
}


def _function(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": schema}


class ReviewToolbox:
    def __init__(
        self,
        home: HermesHome,
        recorder: ChangeRecorder,
        mode: str = PROPOSE,
        needs_approval: frozenset[str] = frozenset(),
    ):
        self.home = home
        self.mode = mode
        self.recorder = recorder
        # what the model is told about each kind of change: staged for a person, or saved
        self.staged = {kind: mode == PROPOSE or kind in needs_approval for kind in (MEMORY, SKILL)}
        # The review queues its own changes; the tool's approval gate must not stage them again.
        config = dataclasses.replace(load_memory_config(home), write_approval=False)
        self.memory_available = config.memory_enabled or config.user_profile_enabled
        note = (
            "Recorded as a proposal; a person approves it later. Do not repeat it."
            if self.staged[MEMORY]
            else "Saved; it is written when this review finishes. Do not repeat it."
        )
        self.memory = PlanningMemoryStore(home, self._memory_changed, config, note=note)
        self.skills = SkillWorkspace(home)
        self.refused_tools: list[str] = []  # names outside the whitelist
        self.denied: list[str] = []  # dangerous actions auto-denied
        self._arguments: dict[str, Any] = {}

    # --- what the model sees -------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        skills = ("skills_list", "skill_view", "skill_manage")
        return (("memory",) if self.memory_available else ()) + skills

    def schemas(self) -> list[dict[str, Any]]:
        schemas = [SKILLS_LIST_SCHEMA, SKILL_VIEW_SCHEMA, SKILL_MANAGE_SCHEMA]
        if self.memory_available:
            schemas.insert(0, MEMORY_TOOL_SCHEMA)
        return [_function(schema) for schema in schemas]

    def memory_snapshot(self) -> dict[str, list[str]]:
        """Current entries per enabled store, for the review's system prompt."""
        snapshot = {}
        for target in ("memory", "user"):
            if self.memory.enabled(target):
                try:
                    snapshot[target] = self.memory.planned_entries(target)
                except StoreReadError as exc:  # show why instead of the entries
                    snapshot[target] = [f"[unreadable: {exc}]"]
        return snapshot

    # --- dispatch ----------------------------------------------------------------------------
    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run one tool call; always returns the tool's result payload."""
        if name not in self.names:
            self.refused_tools.append(name)
            return {
                "success": False,
                "error": f"Tool '{name}' is not available in a background review. Only these "
                f"tools can be called: {', '.join(self.names)}.",
            }
        self._arguments = {"tool": name, **arguments}
        if name == "memory":
            return self._memory(arguments)
        if name == "skills_list":
            return self._skills_list(arguments)
        if name == "skill_view":
            return self._skill_view(arguments)
        return self._skill_manage(arguments)

    def _memory(self, args: dict[str, Any]) -> dict[str, Any]:
        target = args.get("target", "memory")
        return dispatch(
            action=args.get("action"),
            target=target if isinstance(target, str) else repr(target),
            content=args.get("content") if isinstance(args.get("content"), str) else None,
            old_text=args.get("old_text") if isinstance(args.get("old_text"), str) else None,
            operations=args.get("operations"),
            store=self.memory,
        )

    def _memory_changed(self, target: str, removed: list[str], added: list[str]) -> dict:
        proposal = self.recorder.memory(target, removed, added, self._arguments)
        return {"staged": True, "pending_id": proposal.id} if self.staged[MEMORY] else {}

    def _skills_list(self, args: dict[str, Any]) -> dict[str, Any]:
        rows = self.skills.listing()
        category = args.get("category")
        if isinstance(category, str) and category.strip():
            rows = [row for row in rows if row["category"] == category.strip()]
        return {
            "success": True,
            "count": len(rows),
            "skills": rows[:MAX_LISTED_SKILLS],
            **({"truncated": True} if len(rows) > MAX_LISTED_SKILLS else {}),
        }

    def _skill_view(self, args: dict[str, Any]) -> dict[str, Any]:
        name = args.get("name")
        if not isinstance(name, str) or not self.skills.exists(name):
            return {"success": False, "error": f"skill '{name}' not found. Use skills_list."}
        file_path = args.get("file_path")
        file = SKILL_MD if file_path in (None, "", SKILL_MD) else file_path
        if file != SKILL_MD:
            error = support_path_error(file)
            if error:
                return {"success": False, "error": error}
        try:
            text = self.skills.text(name, file)
        except SkillRefusal as exc:
            return exc.payload
        if text is None:
            files = ", ".join([SKILL_MD, *self.skills.support_files(name)])
            return {"success": False, "error": f"'{file}' not found in '{name}'. Files: {files}"}
        self.skills.viewed.add((name, file))
        result: dict[str, Any] = {"success": True, "name": name, "file": file, "content": text}
        if file == SKILL_MD:
            result["support_files"] = self.skills.support_files(name)
        reason = self.skills.refusal(name)
        result["editable"] = reason is None
        if reason:
            result["read_only_reason"] = reason
        if self.skills.is_planned(name, file):
            result["note"] = "This text includes changes made earlier in this review."
        return result

    def _skill_manage(self, args: dict[str, Any]) -> dict[str, Any]:
        action, name = args.get("action"), args.get("name")
        if action in DANGEROUS_ACTIONS:
            self.denied.append(f"{action} {name}")
            return {
                "success": False,
                "denied": True,
                "error": f"'{action}' was denied automatically: a background review never "
                "removes skills or files. Leave removals to a person.",
            }
        try:
            change = self._plan(action, name, args)
        except SkillRefusal as exc:
            return exc.payload
        proposal = self.recorder.skill(change, self._arguments)
        result: dict[str, Any] = {"success": True, "message": change.message}
        if self.staged[SKILL]:
            result.update(staged=True, pending_id=proposal.id,
                          note="Recorded as a proposal; a person approves it later.")  # fmt: skip
        else:
            result["note"] = "Saved; it is written when this review finishes."
        return result

    def _plan(self, action: Any, name: Any, args: dict[str, Any]) -> SkillChange:
        workspace = self.skills
        if action == "create":
            return workspace.plan_create(name, args.get("content"), args.get("category"))
        if action == "edit":
            return workspace.plan_edit(name, args.get("content"))
        if action == "patch":
            return workspace.plan_patch(
                name, args.get("old_string"), args.get("new_string"),
                args.get("file_path"), args.get("replace_all", False),
            )  # fmt: skip
        if action == "write_file":
            return workspace.plan_write_file(name, args.get("file_path"), args.get("file_content"))
        raise SkillRefusal(
            f"Unknown action '{action}'. Use one of: create, edit, patch, write_file."
        )
