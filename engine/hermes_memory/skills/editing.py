"""Reading a whole SKILL.md and replacing it with a person's edit.

An edit passes the agent's own SKILL.md rules, keeps the skill's name (renaming would
orphan its ``.usage.json`` record and every ``related_skills`` link to it), is written
atomically, read back, and rolled back to the exact previous bytes if the read-back does
not match. Bundled, hub and external skills are read-only. Pinned skills accept edits: a
pin is a person's consent rule against automatic removal, not against their own hand.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path

from ..fileio import atomic_write_bytes
from ..history.recording import record_skill_change
from ..home import HermesHome
from ..safe_load import UnsafeDocument, read_bounded
from .frontmatter import parse_frontmatter
from .index import BUNDLED, Skill, SkillScan
from .lifecycle import SkillOutcome, after_change, find_skill
from .roots import directory_escape_reason
from .validation import skill_md_error
from .writing import mark_usage_record

#: The largest SKILL.md shown or replaced (the agent's limit is 100,000 characters).
MAX_SKILL_BYTES = 4 * 1024 * 1024


class SkillTextError(RuntimeError):
    """A SKILL.md that cannot be shown as text; the message is for a person."""


def revision_of(text: str) -> str:
    """A short content hash: pass it back to :func:`edit_skill` to refuse on drift."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def read_skill_text(skill: Skill) -> str:
    path = skill.skill_md
    try:
        raw = read_bounded(path, MAX_SKILL_BYTES)
    except FileNotFoundError:
        raise SkillTextError(f"SKILL.md missing for '{skill.name}'") from None
    except UnsafeDocument as exc:
        raise SkillTextError(str(exc)) from None
    except OSError as exc:
        raise SkillTextError(f"could not read {path}: {exc.strerror}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SkillTextError(
            f"{path} is not UTF-8 text (bad byte at offset {exc.start}); open it in an "
            "editor and re-save it as UTF-8"
        ) from None


def edit_refusal(skill: Skill) -> str | None:
    reason = skill.read_only_reason
    if reason:
        return reason
    if skill.provenance == BUNDLED:
        return (
            f"skill '{skill.name}' is a bundled built-in the agent seeded into this profile; "
            "it is read-only here (the agent's updates would conflict with an edit)"
        )
    return directory_escape_reason(skill.path, skill.root.path) or (
        f"{skill.skill_md} is a symbolic link; refusing to write through it"
        if skill.skill_md.is_symlink()
        else None
    )


def _write_bytes_atomically(path: Path, data: bytes) -> None:
    atomic_write_bytes(path, data, ".SKILL.md.")  # the home's link and file-type policy


def edit_skill(
    home: HermesHome,
    name: str,
    content: str,
    *,
    revision: str | None = None,
    scan: SkillScan | None = None,
    count_patch: bool = False,
) -> SkillOutcome:
    """Replace ``name``'s SKILL.md with ``content``.

    ``revision`` (from :func:`revision_of` of the text the person started from) makes the
    edit refuse when the file changed on disk in the meantime. ``count_patch``: count it
    in ``.usage.json`` as the agent's patch (an approved staged write), in the same read
    of that file history takes the skill's record from.
    """
    _scan, skill, error = find_skill(home, name, scan)
    if skill is None:
        return SkillOutcome(False, error or f"skill '{name}' not found", name)
    refusal = edit_refusal(skill)
    if refusal:
        return SkillOutcome(False, refusal, name)
    refusal = skill_md_error(content, allow_name=skill.name)
    if refusal:
        return SkillOutcome(False, refusal, name)
    new_name = parse_frontmatter(content)[0].get("name")
    if new_name != skill.name:
        return SkillOutcome(
            False,
            f"the frontmatter renames '{skill.name}' to '{new_name}'; renaming is not "
            f"supported here (keep name: {skill.name})",
            name,
        )
    path = skill.skill_md
    try:
        original = read_bounded(path, MAX_SKILL_BYTES)
    except UnsafeDocument as exc:
        return SkillOutcome(False, str(exc), name)
    except OSError as exc:
        return SkillOutcome(False, f"could not read {path}: {exc.strerror}", name)
    if revision is not None:
        current = original.decode("utf-8", "replace")
        if revision_of(current) != revision:
            return SkillOutcome(
                False,
                f"'{name}' changed on disk since it was opened; reload it and edit again",
                name,
            )
    new_bytes = content.encode("utf-8")
    if new_bytes == original:
        return SkillOutcome(True, f"no changes to '{name}'", name, str(path))
    try:
        _write_bytes_atomically(path, new_bytes)
        if path.read_bytes() != new_bytes:
            raise OSError("the file read back differs from what was written")
    except OSError as exc:
        with contextlib.suppress(OSError):
            _write_bytes_atomically(path, original)
        return SkillOutcome(False, f"edit of '{name}' failed and was rolled back: {exc}", name)
    after_change(home, "edit", name)
    record, note = None, ""
    if count_patch:
        warning, record = mark_usage_record(home, name, created=False)
        note = f". Note: {warning}" if warning else ""
    record_skill_change(home, name, "edit", path.parent, before_text=original.decode("utf-8", "replace"),
                        record=record)  # fmt: skip
    return SkillOutcome(True, f"updated '{name}'{note}", name, str(path))
