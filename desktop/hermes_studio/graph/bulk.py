"""Bulk actions on the selection: pin, unpin, archive and restore skills, delete memories.

:func:`plan` sorts the selected nodes into what the action will change and what it skips
(and why), from the graph's own payload, and counts the selected nodes the filters hide
(left out, and said so); :func:`confirm_bulk` asks once, listing both;
:func:`engine_call` is the one engine-face call that does it (the engine is all or
nothing); :func:`undo_steps` are the two :class:`~hermes_studio.undo.FaceCall` that take
the whole batch back and do it again, one entry on the app's undo stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget

from ..undo import FaceCall

ACTIONS = ("pin", "unpin", "archive", "restore", "delete")
VERBS = {"pin": "Pin", "unpin": "Unpin", "archive": "Archive", "restore": "Restore", "delete": "Delete"}
PAST = {"pin": "pinned", "unpin": "unpinned", "archive": "archived", "restore": "restored", "delete": "deleted"}
INVERSE = {"pin": "unpin", "unpin": "pin", "archive": "restore", "restore": "archive"}
#: How many names the question lists before "… and N more" (all are under Details).
LISTED = 12


@dataclass
class BulkPlan:
    action: str
    targets: list[str] = field(default_factory=list)  # skill names or memory card ids
    labels: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (label, why)
    hidden: int = 0  # selected nodes the filters hide: left out, and said so

    @property
    def noun(self) -> str:
        count = len(self.targets)
        if self.action == "delete":
            return f"{count} memor{'y' if count == 1 else 'ies'}"
        return f"{count} skill{'' if count == 1 else 's'}"


def _why_not(action: str, node: dict[str, Any]) -> str | None:
    """Why ``action`` leaves this node alone, or None when it applies."""
    if action == "delete":
        return None if node.get("kind") == "memory" else "a skill (archive it instead)"
    if node.get("kind") == "memory":
        return "a memory card"
    if node.get("source") in ("base", "external") or node.get("provenance") in ("bundled", "hub"):
        return "bundled, hub or external: read-only"
    pinned = bool(node.get("pinned"))
    if action == "pin" and pinned:
        return "already pinned"
    if action == "unpin" and not pinned:
        return "not pinned"
    if action == "archive" and pinned:
        return "pinned — unpin it first"
    return None


def applies(action: str, node: dict[str, Any]) -> bool:
    return _why_not(action, node) is None


def hidden_text(count: int) -> str:
    return f"{count:,} selected hidden by the filters, left as they are"


def plan(action: str, nodes: list[dict[str, Any]], *, hidden: int = 0) -> BulkPlan:
    """What ``action`` does to these payload nodes (for restore: archived skill names);
    ``hidden`` selected nodes are not shown and are left out."""
    result = BulkPlan(action, hidden=hidden)
    for node in nodes:
        label = str(node.get("label") or node.get("id"))
        why = None if action == "restore" else _why_not(action, node)
        if why is None:
            result.targets.append(str(node.get("id")))
            result.labels.append(label)
        else:
            result.skipped.append((label, why))
    return result


def _listed(labels: list[str]) -> str:
    shown = "\n".join(f"• {label}" for label in labels[:LISTED])
    more = len(labels) - LISTED
    return shown + (f"\n… and {more:,} more" if more > 0 else "")


def question(bulk: BulkPlan) -> tuple[str, str, str]:
    """``(title, text, details)`` of the confirmation."""
    title = f"{VERBS[bulk.action]} {bulk.noun}?"
    after = {
        "pin": "Pinned skills are never archived by the curator.",
        "unpin": "The curator may archive them again when they go unused.",
        "archive": "They move to skills/.archive and can be restored (Undo, or Archived skills).",
        "restore": "They go back where they were archived from.",
        "delete": "The entries are removed from their files; Undo puts them back.",
    }[bulk.action]
    text = f"{_listed(bulk.labels)}\n\n{after}"
    if bulk.skipped:
        text += f"\n\n{len(bulk.skipped):,} selected left as they are (see Details)."
    if bulk.hidden:
        text += f"\n\n{hidden_text(bulk.hidden)} (relax the filters to include them)."
    details = "Will change:\n" + "\n".join(bulk.labels)
    if bulk.skipped:
        details += "\n\nLeft as they are:\n" + "\n".join(f"{label} — {why}" for label, why in bulk.skipped)
    return title, text, details


def confirm_bulk(parent: QWidget | None, bulk: BulkPlan) -> bool:
    """One question listing what changes; True only for the button naming the action."""
    title, text, details = question(bulk)
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning if bulk.action in ("archive", "delete") else QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(title)
    box.setInformativeText(text)
    box.setDetailedText(details)
    role = (QMessageBox.ButtonRole.DestructiveRole if bulk.action in ("archive", "delete")
            else QMessageBox.ButtonRole.AcceptRole)
    go = box.addButton(f"{VERBS[bulk.action]} {bulk.noun}", role)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    box.exec()
    return box.clickedButton() is go


def write_kind(bulk: BulkPlan) -> str:
    """The Workspace change kind of the batch."""
    if bulk.action != "delete":
        return "skills"
    return "memory" if any(t.startswith("memory:memory:") for t in bulk.targets) else "user"


def engine_call(bulk: BulkPlan) -> tuple[str, dict[str, Any]]:
    if bulk.action == "delete":
        return "memory_nodes_delete", {"ids": list(bulk.targets)}
    return "skills_bulk", {"action": bulk.action, "names": list(bulk.targets)}


def undo_steps(bulk: BulkPlan, result: dict[str, Any]) -> tuple[FaceCall, FaceCall] | None:
    """The steps that take the batch back and do it again, or None if it changed nothing."""
    kind = write_kind(bulk)
    label = str(result.get("message") or f"{bulk.action} {bulk.noun}")
    if bulk.action == "delete":
        stores = result.get("stores") or {}
        if not stores:
            return None
        back = {t: {"before": s["after"], "after": s["before"]} for t, s in stores.items()}
        again = {t: {"before": s["before"], "after": s["after"]} for t, s in stores.items()}
        return (FaceCall(f"put back {label[len('deleted '):]}", kind, "memory_stores_set", {"stores": back}),
                FaceCall(label, kind, "memory_stores_set", {"stores": again}))
    done = list(result.get("done") or [])
    if not done:
        return None
    return (FaceCall(f"{INVERSE[bulk.action]} {len(done)} skills", kind, "skills_bulk",
                     {"action": INVERSE[bulk.action], "names": done}),
            FaceCall(label, kind, "skills_bulk", {"action": bulk.action, "names": done}))
