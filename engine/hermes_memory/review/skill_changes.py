"""Skill changes during a review: the ``skill_manage`` rules, planned first, written on commit.

:class:`SkillWorkspace` is the skill library as one review sees it: the disk plus the
changes the review planned so far. Its ``plan_*`` methods apply upstream's
``skill_manage`` checks (spec §5.3) including the ones that only hold for a background
review: pinned, bundled, hub-installed, external, protected built-in and user-owned skills
are refused, and an existing file must have been read with ``skill_view`` in this review
before it is rewritten. Each accepted call yields a :class:`SkillChange` holding the
file's full text before and after; the staged-write queue writes it later.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..home import HermesHome
from ..skills import writing
from ..skills.editing import SkillTextError, edit_refusal, read_skill_text
from ..skills.frontmatter import parse_frontmatter
from ..skills.index import BUNDLED, HUB, Skill, SkillIndex
from ..skills.roots import BASE, EXTERNAL, PROTECTED_SKILLS, SUPPORT_DIRS
from ..skills.usage import is_curator_managed, read_usage
from ..skills.validation import MAX_SKILL_CHARS, NAME_PATTERN, name_error, skill_md_error

SKILL_MD = "SKILL.md"
MAX_LISTED_FILES = 200
PREVIEW_CHARS = 500
#: skill_manage actions that destroy content: a background review is always denied them.
DANGEROUS_ACTIONS = frozenset({"delete", "remove_file"})


class SkillRefusal(Exception):
    """A planned skill change the rules refuse; ``payload`` is the tool result."""

    def __init__(self, error: str, **extra: Any):
        super().__init__(error)
        self.payload = {"success": False, "error": error, **extra}


@dataclass(frozen=True)
class SkillChange:
    operation: str  # create | edit | patch | write_file
    name: str
    file: str  # SKILL_MD or a support file path
    before: str | None  # the full text it was planned against (None: did not exist)
    after: str
    category: str | None = None
    message: str = ""


# --- rules --------------------------------------------------------------------------------
def background_refusal(skill: Skill, record: dict[str, Any]) -> str | None:
    """Why a background review must not change ``skill`` (spec §5.3), or None."""
    name = skill.name
    if record.get("pinned"):
        return (
            f"skill '{name}' is pinned; a pin blocks every automatic change. Tell the user what "
            f"you would change instead (they can unpin it with: hermes curator unpin {name})."
        )
    if skill.provenance == EXTERNAL:
        return f"skill '{name}' lives in skills.external_dirs; external skills are read-only here."
    if skill.provenance == HUB:
        return f"skill '{name}' is hub-installed; it is updated through the hub, never here."
    if skill.root.label == BASE or skill.provenance == BUNDLED:
        return f"skill '{name}' is a bundled built-in; the review never edits bundled skills."
    if name in PROTECTED_SKILLS:
        return f"skill '{name}' is a protected built-in; the review never edits it."
    if record and not is_curator_managed(record):
        return (
            f"skill '{name}' belongs to the user (not created by the agent). Suggest the change "
            f"to them instead, or that they hand it over with: hermes curator adopt {name}."
        )
    return edit_refusal(skill)


def support_path_error(file_path: Any) -> str | None:
    return writing.support_path_error(file_path)


def check_support_content(text: Any) -> str | None:
    return writing.support_content_error(text)


def _frontmatter_name(content: str) -> Any:
    return parse_frontmatter(content)[0].get("name")


def read_text_file(path: Path) -> str | None:
    try:
        return writing.read_text_file(path)
    except writing.SkillFileError as exc:
        raise SkillRefusal(str(exc)) from None


def support_file_path(skill_dir: Path, file_path: str) -> Path:
    """The support file's path, refusing links out of the skill directory."""
    try:
        return writing.support_file_path(skill_dir, file_path)
    except writing.SkillFileError as exc:
        raise SkillRefusal(str(exc)) from None


# --- the review's view of the library -----------------------------------------------------
class SkillWorkspace:
    """Skills on disk plus the changes planned in this review (nothing is written)."""

    def __init__(self, home: HermesHome):
        self.home = home
        self.scan = SkillIndex(home).scan()
        self.usage = read_usage(home)
        self._texts: dict[tuple[str, str], str | None] = {}
        self._created: dict[str, str | None] = {}  # name -> category
        self.viewed: set[tuple[str, str]] = set()

    # --- reading --------------------------------------------------------------------------
    def skill(self, name: str) -> Skill | None:
        return self.scan.get(name) if isinstance(name, str) else None

    def exists(self, name: str) -> bool:
        return name in self._created or self.skill(name) is not None

    def is_planned(self, name: str, file: str) -> bool:
        return (name, file) in self._texts

    def refusal(self, name: str) -> str | None:
        if name in self._created:
            return None  # made by this review, so the agent's own
        skill = self.skill(name)
        if skill is None:
            return f"skill '{name}' not found. Use skills_list to see the available skills."
        if self.usage.error:
            return f"skill usage records cannot be read ({self.usage.error}); no skill changes now."
        return background_refusal(skill, self.usage.record(name))

    def text(self, name: str, file: str = SKILL_MD) -> str | None:
        """The file's text with planned changes; None when it does not exist."""
        if (name, file) in self._texts:
            return self._texts[(name, file)]
        skill = self.skill(name)
        if skill is None:
            return None
        if file == SKILL_MD:
            try:
                return read_skill_text(skill)
            except SkillTextError as exc:
                raise SkillRefusal(str(exc)) from None
        return read_text_file(support_file_path(skill.path, file))

    def support_files(self, name: str) -> list[str]:
        found: set[str] = {f for (n, f) in self._texts if n == name and f != SKILL_MD}
        skill = self.skill(name)
        if skill is not None:
            for folder in sorted(SUPPORT_DIRS):
                top = skill.path / folder
                if not top.is_dir() or top.is_symlink():
                    continue
                for dirpath, dirnames, filenames in os.walk(top):
                    dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                    for filename in filenames:
                        rel = os.path.relpath(os.path.join(dirpath, filename), skill.path)
                        found.add(rel.replace(os.sep, "/"))
                    if len(found) >= MAX_LISTED_FILES:
                        break
        return sorted(found)[:MAX_LISTED_FILES]

    def listing(self) -> list[dict[str, Any]]:
        rows = []
        for skill in self.scan.skills:
            if skill.name in self._created:
                continue
            rows.append({
                "name": skill.name,
                "category": skill.category,
                "description": skill.description,
                "editable": self.refusal(skill.name) is None,
            })  # fmt: skip
        for name, category in self._created.items():
            content = self._texts.get((name, SKILL_MD)) or ""
            description = parse_frontmatter(content)[0].get("description")
            rows.append({"name": name, "category": category or "general",
                         "description": str(description or ""), "editable": True})  # fmt: skip
        return rows

    # --- planning ---------------------------------------------------------------------------
    def _require_editable(self, name: Any) -> None:
        if not isinstance(name, str) or not name:
            raise SkillRefusal("name is required.")
        reason = self.refusal(name)
        if reason:
            raise SkillRefusal(reason)

    def _require_read(self, name: str, file: str) -> None:
        if (name, file) not in self.viewed:
            target = "SKILL.md" if file == SKILL_MD else file
            hint = f"skill_view(name='{name}'" + ("" if file == SKILL_MD else f", file_path='{file}'")
            raise SkillRefusal(
                f"Read before write: view {target} of '{name}' in this review before changing "
                f"it ({hint})). Quotes from the conversation do not count.",
                _read_before_write_required=True,
            )

    def _plan(self, change: SkillChange) -> SkillChange:
        self._texts[(change.name, change.file)] = change.after
        self.viewed.add((change.name, change.file))  # the review wrote it, so it knows it
        return change

    def plan_create(self, name: Any, content: Any, category: Any = None) -> SkillChange:
        error = name_error(name)
        if error:
            raise SkillRefusal(error)
        if category is not None and category != "":
            if not isinstance(category, str) or not NAME_PATTERN.match(category) or len(category) > 64:
                raise SkillRefusal(f"Invalid category {category!r}: one lowercase folder name.")
        else:
            category = None
        error = skill_md_error(content) if isinstance(content, str) else "content is required."
        if error:
            raise SkillRefusal(error)
        if _frontmatter_name(content) != name:
            raise SkillRefusal(f"The frontmatter name must be '{name}', the skill's name.")
        if self.exists(name):
            raise SkillRefusal(
                f"A skill named '{name}' already exists. View it with skill_view and patch or "
                "edit it instead."
            )
        directory = self.home.skills_dir.joinpath(*(p for p in (category, name) if p))
        if os.path.lexists(directory):
            raise SkillRefusal(f"{directory} already exists; choose another name.")
        self._created[name] = category
        return self._plan(
            SkillChange("create", name, SKILL_MD, None, content, category, f"Skill '{name}' created.")
        )

    def plan_edit(self, name: Any, content: Any) -> SkillChange:
        self._require_editable(name)
        if not isinstance(content, str):
            raise SkillRefusal("content is required.")
        self._require_read(name, SKILL_MD)
        error = skill_md_error(content, allow_name=name)
        if error:
            raise SkillRefusal(error)
        if _frontmatter_name(content) != name:
            raise SkillRefusal(f"Keep 'name: {name}' in the frontmatter; renaming is not supported.")
        before = self.text(name)
        if before == content:
            raise SkillRefusal(f"No change: SKILL.md of '{name}' already has this text.")
        return self._plan(SkillChange(
            "edit", name, SKILL_MD, before, content,
            message=f"Skill '{name}' updated (full rewrite).",
        ))  # fmt: skip

    def plan_patch(
        self,
        name: Any,
        old_string: Any,
        new_string: Any,
        file_path: Any = None,
        replace_all: Any = False,
    ) -> SkillChange:
        self._require_editable(name)
        file = SKILL_MD if file_path in (None, "", SKILL_MD) else file_path
        if file != SKILL_MD:
            error = support_path_error(file)
            if error:
                raise SkillRefusal(error)
        if not isinstance(old_string, str) or not old_string:
            raise SkillRefusal("old_string is required (the exact text to replace).")
        if not isinstance(new_string, str):
            raise SkillRefusal("new_string is required (it may be empty).")
        before = self.text(name, file)
        if before is None:
            raise SkillRefusal(f"'{file}' does not exist in skill '{name}'. Files: "
                               f"{', '.join([SKILL_MD, *self.support_files(name)])}")  # fmt: skip
        self._require_read(name, file)
        count = before.count(old_string)
        if count == 0:
            raise SkillRefusal(
                f"old_string was not found in {file} of '{name}'. The file begins:\n"
                f"{before[:PREVIEW_CHARS]}"
            )
        if count > 1 and replace_all is not True:
            raise SkillRefusal(
                f"old_string occurs {count} times in {file} of '{name}'. Include more context "
                "to make it unique, or set replace_all."
            )
        after = before.replace(old_string, new_string) if replace_all is True else (
            before.replace(old_string, new_string, 1)
        )
        if file == SKILL_MD:
            if len(after) > MAX_SKILL_CHARS:
                raise SkillRefusal(f"The patched SKILL.md would exceed {MAX_SKILL_CHARS:,} characters.")
            error = skill_md_error(after, allow_name=name)
            if error or _frontmatter_name(after) != name:
                raise SkillRefusal(
                    f"Patch would break SKILL.md structure: {error or 'it renames the skill'}"
                )
        else:
            error = check_support_content(after)
            if error:
                raise SkillRefusal(f"The patched file is not acceptable: {error}")
        replaced = count if replace_all is True else 1
        return self._plan(SkillChange(
            "patch", name, file, before, after,
            message=f"Patched {file} in skill '{name}' ({replaced} "
            f"replacement{'s' if replaced != 1 else ''}).",
        ))  # fmt: skip

    def plan_write_file(self, name: Any, file_path: Any, file_content: Any) -> SkillChange:
        self._require_editable(name)
        error = support_path_error(file_path) or check_support_content(file_content)
        if error:
            raise SkillRefusal(error)
        before = self.text(name, file_path)
        if before is not None:
            self._require_read(name, file_path)
            if before == file_content:
                raise SkillRefusal(f"No change: {file_path} already has this text.")
        return self._plan(SkillChange(
            "write_file", name, file_path, before, file_content,
            message=f"File '{file_path}' written in skill '{name}'.",
        ))  # fmt: skip
