"""What the graph's buttons need beside the engine calls: undo steps and text checks.

The actions themselves are engine-face calls (``graph_set_pin``, ``graph_edit``,
``graph_archive``, ``graph_delete_memory``, ``graph_restore``, ``graph_undo``,
``graph_node_detail``, ``graph_archived``) run through ``Workspace.call``; a change that
worked answers ``"undo"`` and ``"redo"`` steps as plain data, which :func:`with_steps`
turns into :class:`Undo` objects for the message bar and the app's undo stack, and
:meth:`Undo.step` turns back into the plain step ``graph_undo`` carries out.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

# The engine's checks are imported where they are used: a launch does not need their
# modules (the scanner's patterns, the store, YAML) before the graph's first frame.


@dataclass(frozen=True)
class Undo:
    """One step that undoes (or redoes) an action, carried out by the engine's ``graph_undo``."""

    #: restore | archive (a skill), pin | unpin, edit_skill (write ``other`` as SKILL.md),
    #: readd | remove (a memory entry ``text``), swap (memory ``text`` becomes ``other``)
    kind: str
    label: str  # for tooltips and the Edit menu ("restore 'x'")
    name: str = ""  # the skill
    target: str = ""  # "memory" or "user"
    position: int = 0
    text: str = ""
    other: str = ""

    @classmethod
    def from_step(cls, step: dict[str, Any]) -> Undo:
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in step.items() if key in known})

    def step(self) -> dict[str, Any]:
        return asdict(self)


def with_steps(result: dict[str, Any]) -> dict[str, Any]:
    """An action's answer with its plain ``undo``/``redo`` steps as :class:`Undo` objects."""
    result = dict(result)
    for key in ("undo", "redo"):
        if isinstance(result.get(key), dict):
            result[key] = Undo.from_step(result[key])
    return result


def write_kind(node_id: str) -> str:
    """The Workspace change kind a mutation of ``node_id`` produces."""
    from hermes_memory.learning import parse_node_kind
    from hermes_memory.learning.memory_cards import parse_memory_id

    if parse_node_kind(node_id) == "memory":
        try:
            return parse_memory_id(node_id).target
        except ValueError:
            return "memory"
    return "skills"


def skill_body(content: str) -> str:
    """The Markdown after a SKILL.md's frontmatter (the engine's own splitter)."""
    from hermes_memory.skills.frontmatter import split_frontmatter

    text = content.lstrip("\ufeff")
    yaml_text, body = split_frontmatter(text)
    return body if yaml_text is not None else text


def skill_problem(content: str, name: str) -> str | None:
    """Why the editor's text would be refused (the agent's SKILL.md rules), or None."""
    from hermes_memory.skills import skill_md_error

    return skill_md_error(content, allow_name=name)


def memory_problem(content: str) -> str | None:
    from hermes_memory.memory.edits import check_entry

    check = check_entry(content)
    if check.empty:
        return "empty memory — use delete to remove it"
    return check.problem
