"""Editing primitives for a person curating MEMORY.md or USER.md (the desktop editors).

An editor holds a *draft*: the entries it loaded from disk (the *base*) after the person
added, edited, removed, reordered and merged some of them. This module checks such a draft
while it is typed, and saves it without ever overwriting what someone else wrote meanwhile:

- :func:`check_entry` / :func:`check_draft`: what is wrong with each draft entry (scanner
  findings with plain explanations, invisible characters, a bare ``§`` line, exact
  duplicates) and what the file would use after saving, counted exactly as the agent counts;
- :func:`merge_entries`: a three-way, entry-level merge of ``base`` (what the editor loaded),
  ``ours`` (the draft) and ``theirs`` (what is on disk now), as a :class:`MergeProposal` of
  items a person can accept or flip;
- :func:`save_draft`: under the store's lock, re-read the file; if it still holds ``base``,
  write the draft (after the content and budget checks); if it changed, refuse with a merge
  proposal instead of overwriting. :func:`apply_merge` saves the person's choices, again under
  the lock, folding in anything that arrived while they chose;
- :func:`prompt_preview`: the frozen prompt block the agent will see next session.

Identity is the exact (stripped) entry text, as in the store. Because an edited entry has new
text, a draft entry may carry its *origins*: the base entries it was made from (one for an
edit, several for a merge, none for a new entry). When origins are not given they are
inferred: an unchanged entry is its own origin, and a changed one is paired with the most
similar base entry that disappeared from the draft.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from . import entries as fmt
from .render import render_block, sanitise_entry
from .scan import Finding, find_invisible, scan_findings
from .store import (
    ROUND_TRIP_DRIFT,
    MemoryStore,
    StoreFile,
    StoreRefusal,
    clean_content,
    content_problem,
    detect_drift,
)

#: How similar (difflib ratio) a changed entry must be to a vanished one to count as its edit.
SIMILARITY = 0.55
#: Above this many candidate pairs, similarity pairing is skipped (changes become add+remove).
_MAX_PAIRS = 4000

CHOICES = ("mine", "theirs", "both")

# Saving is blocked by ROUND_TRIP_DRIFT until the file is normalised, not by
# OVERSIZED_ENTRY_DRIFT: the editor is where a person splits or shortens that entry, and
# the budget check refuses anything still too big.


# --- checking a draft --------------------------------------------------------------------
@dataclass(frozen=True)
class EntryCheck:
    """What the engine thinks of one draft entry."""

    text: str  # stripped, as it would be saved
    chars: int
    findings: tuple[Finding, ...] = ()
    invisible: tuple[tuple[int, str], ...] = ()  # (offset in ``text``, char)
    delimiter_line: bool = False
    duplicate_of: int | None = None  # index of an earlier identical entry in the draft
    problem: str | None = None  # the engine's refusal message, if saving it would be refused

    @property
    def empty(self) -> bool:
        return not self.text

    @property
    def blocked(self) -> bool:
        """True when the store would refuse this text (a threat or a delimiter line)."""
        return self.problem is not None

    @property
    def pattern_findings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.kind == "pattern")


def check_entry(text: str) -> EntryCheck:
    """Check one entry as the store would check it on save."""
    stripped = clean_content(text)
    if not stripped:
        return EntryCheck("", 0)
    return EntryCheck(
        text=stripped,
        chars=len(stripped),
        findings=tuple(scan_findings(stripped, "strict")),
        invisible=tuple(find_invisible(stripped)),
        delimiter_line=fmt.has_delimiter_line(stripped),
        problem=content_problem(stripped),
    )


@dataclass(frozen=True)
class DraftCheck(fmt.BudgetUse):
    """The whole draft: a check per entry and the usage the file would have after saving."""

    target: str
    limit: int
    entries: tuple[EntryCheck, ...]
    saved_entries: tuple[str, ...]  # stripped, empties dropped, duplicates dropped
    changed: tuple[bool, ...]  # per draft entry: new or edited relative to ``base``

    @property
    def used(self) -> int:
        return fmt.char_count(self.saved_entries)

    def blocking(self) -> list[tuple[int, str]]:
        """``(index, message)`` for each changed entry the store would refuse."""
        return [
            (index, check.problem)
            for index, check in enumerate(self.entries)
            if check.problem and self.changed[index]
        ]

    def budget_message(self) -> str | None:
        if not self.over_budget:
            return None
        return over_budget_message(self.target, self.used, self.limit)


def over_budget_message(target: str, used: int, limit: int) -> str:
    name = fmt.FILE_NAMES[target]
    return (
        f"Saving would put {name} at {used:,}/{limit:,} chars, {used - limit:,} over the "
        "limit. Shorten or remove entries (or merge overlapping ones), then save again. "
        "Nothing was written."
    )


def check_draft(
    target: str,
    draft: Sequence[str],
    limit: int,
    base: Iterable[str] = (),
    cache: dict[str, EntryCheck] | None = None,
) -> DraftCheck:
    """Check every draft entry; ``cache`` (text -> check) avoids re-scanning unchanged text."""
    base_set = set(base)
    checks: list[EntryCheck] = []
    first_index: dict[str, int] = {}
    for index, text in enumerate(draft):
        check = cache.get(text) if cache is not None else None
        if check is None:
            check = check_entry(text)
            if cache is not None:
                cache[text] = check
        if check.text:
            if check.text in first_index:
                check = EntryCheck(**{**check.__dict__, "duplicate_of": first_index[check.text]})
            else:
                first_index[check.text] = index
        checks.append(check)
    saved = tuple(first_index)  # dict keeps insertion order: first occurrences
    changed = tuple(bool(check.text) and check.text not in base_set for check in checks)
    return DraftCheck(target, limit, tuple(checks), saved, changed)


def prepare_draft(draft: Iterable[str]) -> list[str]:
    """The entries a draft saves as: stripped, empties dropped, duplicates dropped."""
    return fmt.dedupe(clean for text in draft if (clean := clean_content(text)))


def prompt_preview(target: str, entries: Sequence[str], limit: int) -> str:
    """The frozen prompt block for these entries, exactly as the agent renders it."""
    name = fmt.FILE_NAMES[target]
    return render_block(target, [sanitise_entry(entry, name) for entry in entries], limit)


# --- three-way merge ---------------------------------------------------------------------
@dataclass(frozen=True)
class DraftEntry:
    """A draft entry and the base entries it was made from (``()`` for a new one)."""


    text: str
    origins: tuple[str, ...] | None = None  # None: infer from the text


def _similarity(a: str, b: str) -> float:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < SIMILARITY or matcher.quick_ratio() < SIMILARITY:
        return 0.0
    return matcher.ratio()


def _pair_by_similarity(gone: Sequence[str], new: Sequence[str]) -> dict[str, str]:
    """``{new_text: gone_text}`` for the best-matching pairs above :data:`SIMILARITY`."""
    if not gone or not new or len(gone) * len(new) > _MAX_PAIRS:
        return {}
    scored = sorted(
        (
            (-score, new_index, gone_index)
            for new_index, text in enumerate(new)
            for gone_index, old in enumerate(gone)
            if (score := _similarity(old, text)) >= SIMILARITY
        ),
    )
    pairs: dict[str, str] = {}
    used: set[int] = set()
    for _, new_index, gone_index in scored:
        if new[new_index] in pairs or gone_index in used:
            continue
        pairs[new[new_index]] = gone[gone_index]
        used.add(gone_index)
    return pairs


def as_drafts(base: Sequence[str], ours: Sequence[str | DraftEntry]) -> list[DraftEntry]:
    """Draft entries with origins: given ones kept (within ``base``), missing ones inferred.

    Texts are stripped, empties dropped, and duplicates folded into the first occurrence
    (their origins joined). A plain string, or a :class:`DraftEntry` whose origins are
    ``None``, has its origins inferred: an unchanged text is its own origin, and a changed
    one pairs with the most similar base entry that no draft entry claims.
    """
    base_set = set(base)
    texts: list[str] = []
    origins: dict[str, tuple[str, ...] | None] = {}
    for item in ours:
        given = item if isinstance(item, DraftEntry) else None
        text = clean_content(given.text if given else str(item))
        if not text:
            continue
        mine = (
            tuple(o for o in given.origins if o in base_set)
            if given is not None and given.origins is not None
            else None
        )
        if text not in origins:
            texts.append(text)
            origins[text] = mine
        elif mine is not None:  # a duplicate: join what both copies were made from
            origins[text] = tuple(dict.fromkeys((*(origins[text] or ()), *mine)))
    claimed = {o for known in origins.values() if known is not None for o in known}
    claimed |= base_set.intersection(texts)
    unknown = [t for t in texts if origins[t] is None and t not in base_set]
    gone = [b for b in base if b not in claimed]
    pairs = _pair_by_similarity(gone, unknown)
    result = []
    for text in texts:
        known = origins[text]
        if known is None:
            if text in base_set:
                known = (text,)
            else:
                known = (pairs[text],) if text in pairs else ()
        result.append(DraftEntry(text, known))
    return result


MERGE_KINDS = (
    "same",
    "added_by_agent",
    "removed_by_agent",
    "edited_by_agent",
    "edited_by_person",
    "conflict",
)


@dataclass(frozen=True)
class MergeItem:
    """One change in a three-way merge, with the texts each choice keeps.

    ``mine`` is what the person's draft holds for these entries, ``theirs`` what the file on
    disk holds now, ``base`` what both started from. ``kind`` is one of :data:`MERGE_KINDS`;
    ``action`` says what the side that changed did (added, removed, edited, merged).
    """

    id: str
    kind: str
    action: str
    base: tuple[str, ...]
    mine: tuple[str, ...]
    theirs: tuple[str, ...]
    default: str
    pos_ours: int | None = None
    pos_theirs: int | None = None

    @property
    def options(self) -> tuple[str, ...]:
        return CHOICES if self.kind == "conflict" else ("mine", "theirs")

    def texts(self, choice: str | None = None) -> tuple[str, ...]:
        choice = choice or self.default
        if choice not in self.options:
            raise ValueError(f"{choice!r} is not a choice for {self.kind}; use {self.options}.")
        if choice == "mine":
            return self.mine
        if choice == "theirs":
            return self.theirs
        return tuple(dict.fromkeys((*self.mine, *self.theirs)))

    def describe(self) -> str:
        """A short summary for a person ("Added on disk", "You edited it; ...")."""
        if self.kind == "same":
            return "Unchanged" if self.mine == self.base else "Both sides made the same change"
        if self.kind == "conflict":
            mine, theirs = self.action.split("|")
            return f"You {mine} it; the file on disk {theirs} it. Choose what to keep."
        if self.kind == "edited_by_person":
            if self.action == "merged":
                return f"You merged {len(self.base)} entries"
            return f"You {self.action} an entry"
        if self.action == "merged":
            return f"{len(self.base)} entries merged on disk"
        return f"{self.action.capitalize()} on disk"

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "action": self.action,
            "base": list(self.base),
            "mine": list(self.mine),
            "theirs": list(self.theirs),
            "default": self.default,
        }


@dataclass(frozen=True)
class MergeProposal:
    """A three-way merge of entry lists; :meth:`resolve` applies the person's choices."""

    target: str
    base: tuple[str, ...]
    ours: tuple[DraftEntry, ...]
    theirs: tuple[str, ...]
    items: tuple[MergeItem, ...]
    primary: str = "ours"  # whose order the result follows ("theirs" when only they reordered)
    notes: tuple[str, ...] = field(default=())

    def by_kind(self, kind: str) -> list[MergeItem]:
        return [item for item in self.items if item.kind == kind]

    @property
    def changes(self) -> list[MergeItem]:
        """Every item except the unchanged ones, in result order."""
        return [item for item in self.items if item.kind != "same"]

    @property
    def added_by_agent(self) -> list[MergeItem]:
        return self.by_kind("added_by_agent")

    @property
    def removed_by_agent(self) -> list[MergeItem]:
        return self.by_kind("removed_by_agent")

    @property
    def edited_by_agent(self) -> list[MergeItem]:
        return self.by_kind("edited_by_agent")

    @property
    def edited_by_person(self) -> list[MergeItem]:
        return self.by_kind("edited_by_person")

    @property
    def conflicts(self) -> list[MergeItem]:
        return self.by_kind("conflict")

    def _choices(self, choices: Mapping[str, str] | None) -> dict[str, str]:
        chosen = {item.id: item.default for item in self.items}
        for key, value in (choices or {}).items():
            if key not in chosen:
                raise KeyError(f"No merge item {key!r}; the proposal may be out of date.")
            chosen[key] = value
        return chosen

    def resolve(self, choices: Mapping[str, str] | None = None) -> list[DraftEntry]:
        """The merged draft, in order; each entry's origins are the disk entries it replaces.

        ``choices`` maps item ids to ``mine``/``theirs``/``both``; missing ids use defaults.
        """
        chosen = self._choices(choices)
        result: list[DraftEntry] = []
        seen: set[str] = set()
        for item in self.items:
            kept = item.texts(chosen[item.id])
            # What replaces the disk entries of this item: if every disk text is kept, the
            # person's texts are additions; otherwise they replace the disk texts dropped.
            replaced = tuple(text for text in item.theirs if text not in kept)
            for text in kept:
                if text in seen:
                    continue
                seen.add(text)
                result.append(DraftEntry(text, (text,) if text in item.theirs else replaced))
        return result

    def resolved_texts(self, choices: Mapping[str, str] | None = None) -> list[str]:
        return [draft.text for draft in self.resolve(choices)]

    def summary(self) -> str:
        """``"2 added on disk, 1 removed on disk, 1 conflict"`` (empty when nothing changed)."""
        parts = []
        for kind, label in (
            ("added_by_agent", "added on disk"),
            ("removed_by_agent", "removed on disk"),
            ("edited_by_agent", "edited on disk"),
            ("edited_by_person", "changed by you"),
            ("conflict", "conflict"),
        ):
            count = len(self.by_kind(kind))
            if count:
                plural = "s" if kind == "conflict" and count != 1 else ""
                parts.append(f"{count} {label}{plural}")
        return ", ".join(parts)

    def as_dict(self) -> dict:
        return {
            "target": self.target,
            "primary": self.primary,
            "summary": self.summary(),
            "items": [item.as_dict() for item in self.changes],
        }


def _reordered(order: Sequence[str], base_index: Mapping[str, int]) -> bool:
    positions = [base_index[text] for text in order if text in base_index]
    return any(a > b for a, b in zip(positions, positions[1:], strict=False))


class _Components:
    """A tiny union-find over hashable nodes."""

    def __init__(self) -> None:
        self.parent: dict[object, object] = {}

    def add(self, node: object) -> None:
        self.parent.setdefault(node, node)

    def find(self, node: object) -> object:
        root = node
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[node] != root:
            self.parent[node], node = root, self.parent[node]
        return root

    def union(self, a: object, b: object) -> None:
        self.add(a)
        self.add(b)
        self.parent[self.find(a)] = self.find(b)


def merge_entries(
    target: str,
    base: Sequence[str],
    ours: Sequence[str | DraftEntry],
    theirs: Sequence[str],
) -> MergeProposal:
    """Three-way merge of entry lists: what each side changed since ``base``.

    Entries present in both the draft and on disk are settled. The rest are grouped: each
    vanished base entry is joined with the draft entries made from it and with the disk
    entry that replaced it (paired by similarity, as an agent's ``replace`` keeps most of the
    text). A group only one side changed takes that side's version by default; a group both
    changed differently is a conflict, which by default keeps both versions (nothing is lost
    until the person decides). The result follows the draft's order, unless only the file
    on disk was reordered; entries from the other side go before their nearest following
    neighbour, or at the end (where an agent appends).
    """
    base = fmt.dedupe(text.strip() for text in base if text.strip())
    theirs_list = fmt.dedupe(text.strip() for text in theirs if text.strip())
    drafts = as_drafts(base, ours)
    base_set, ours_texts, theirs_set = set(base), [d.text for d in drafts], set(theirs_list)
    common = set(ours_texts) & theirs_set
    # Settled: base entries both sides still hold, and those the draft turned into a text
    # the disk also holds instead (both sides made the same edit).
    settled_base = common & base_set
    for draft in drafts:
        if draft.text in common:
            settled_base.update(o for o in draft.origins or () if o not in theirs_set)

    # The disk side: each vanished base entry may have become one new disk entry.
    theirs_new = [t for t in theirs_list if t not in base_set and t not in common]
    theirs_gone = [b for b in base if b not in theirs_set and b not in settled_base]
    agent_pairs = _pair_by_similarity(theirs_gone, theirs_new)  # new text -> base text

    groups = _Components()
    for text in base:
        if text not in settled_base:
            groups.add(("b", text))
    for index, draft in enumerate(drafts):
        if draft.text in common:
            continue
        groups.add(("o", index))
        for origin in draft.origins or ():
            if origin not in settled_base:
                groups.union(("o", index), ("b", origin))
        if draft.text in base_set and draft.text not in settled_base:
            groups.union(("o", index), ("b", draft.text))
    for index, text in enumerate(theirs_list):
        if text in common:
            continue
        groups.add(("t", index))
        if text in base_set and text not in settled_base:
            groups.union(("t", index), ("b", text))
        elif text in agent_pairs:
            groups.union(("t", index), ("b", agent_pairs[text]))

    members: dict[object, list[tuple[str, object]]] = {}
    for node in groups.parent:
        members.setdefault(groups.find(node), []).append(node)  # type: ignore[arg-type]

    theirs_index = {text: i for i, text in enumerate(theirs_list)}
    base_index = {text: i for i, text in enumerate(base)}
    items: list[MergeItem] = []
    for text in (d.text for d in drafts if d.text in common):
        items.append(
            _item(
                "same", "kept", (text,) if text in base_set else (), (text,), (text,),
                ours_texts.index(text), theirs_index[text],
            )
        )
    for nodes in members.values():
        xs = tuple(sorted((n[1] for n in nodes if n[0] == "b"), key=base_index.__getitem__))
        o_idx = sorted(n[1] for n in nodes if n[0] == "o")
        t_idx = sorted(n[1] for n in nodes if n[0] == "t")
        mine = tuple(drafts[i].text for i in o_idx)
        theirs_texts = tuple(theirs_list[i] for i in t_idx)
        items.append(
            _classify(
                xs, mine, theirs_texts, o_idx[0] if o_idx else None, t_idx[0] if t_idx else None
            )
        )

    person_reordered = _reordered(ours_texts, base_index)
    agent_reordered = _reordered(theirs_list, base_index)
    primary = "theirs" if agent_reordered and not person_reordered else "ours"
    ordered = _order(items, primary)
    # Unique ids: the kind and a fingerprint of the texts, numbered on a collision.
    unique: list[MergeItem] = []
    seen_ids: set[str] = set()
    for item in ordered:
        item_id = item.id
        suffix = 2
        while item_id in seen_ids:
            item_id, suffix = f"{item.id}-{suffix}", suffix + 1
        seen_ids.add(item_id)
        unique.append(MergeItem(**{**item.__dict__, "id": item_id}))
    notes = ()
    if person_reordered and agent_reordered:
        notes = ("Both sides reordered entries; the editor's order was kept.",)
    return MergeProposal(
        target, tuple(base), tuple(drafts), tuple(theirs_list), tuple(unique), primary, notes
    )


def _item(
    kind: str,
    action: str,
    base: tuple[str, ...],
    mine: tuple[str, ...],
    theirs: tuple[str, ...],
    pos_ours: int | None,
    pos_theirs: int | None,
) -> MergeItem:
    default = {"conflict": "both", "edited_by_person": "mine", "same": "mine"}.get(kind, "theirs")
    key = fmt.fingerprint("\x00".join((*base, "\x01", *mine, "\x01", *theirs)))
    return MergeItem(f"{kind}:{key}", kind, action, base, mine, theirs, default, pos_ours, pos_theirs)


def _action(base: tuple[str, ...], changed: tuple[str, ...]) -> str:
    if not base:
        return "added"
    if not changed:
        return "removed"
    if len(base) > 1 and len(changed) == 1:
        return "merged"
    return "edited"


def _classify(
    xs: tuple[str, ...],
    mine: tuple[str, ...],
    theirs: tuple[str, ...],
    pos_ours: int | None,
    pos_theirs: int | None,
) -> MergeItem:
    person = set(mine) != set(xs)
    agent = set(theirs) != set(xs)
    if set(mine) == set(theirs):
        kind, action = "same", ("kept" if not person else _action(xs, mine))
    elif person and agent:
        kind, action = "conflict", f"{_action(xs, mine)}|{_action(xs, theirs)}"
    elif person:
        kind, action = "edited_by_person", _action(xs, mine)
    else:
        action = _action(xs, theirs)
        kind = {"added": "added_by_agent", "removed": "removed_by_agent"}.get(
            action, "edited_by_agent"
        )
    return _item(kind, action, xs, mine, theirs, pos_ours, pos_theirs)


def _order(items: list[MergeItem], primary: str) -> list[MergeItem]:
    """Items in result order: by the primary side's position, the rest slotted in."""

    def primary_pos(item: MergeItem) -> int | None:
        return item.pos_ours if primary == "ours" else item.pos_theirs

    def secondary_pos(item: MergeItem) -> int | None:
        return item.pos_theirs if primary == "ours" else item.pos_ours

    placed = sorted((i for i in items if primary_pos(i) is not None), key=primary_pos)
    others = sorted(
        (i for i in items if primary_pos(i) is None and secondary_pos(i) is not None),
        key=secondary_pos,
    )
    for item in others:
        position = secondary_pos(item)
        following = [
            (secondary_pos(p), n)
            for n, p in enumerate(placed)
            if secondary_pos(p) is not None and secondary_pos(p) > position
        ]
        if following:
            placed.insert(min(following)[1], item)
        else:
            placed.append(item)
    placed.extend(i for i in items if primary_pos(i) is None and secondary_pos(i) is None)
    return placed


# --- saving --------------------------------------------------------------------------------
def _numbers(entries: Sequence[str], limit: int) -> dict:
    used = fmt.char_count(entries)
    return {"used": used, "limit": limit, "usage": fmt.usage_counts(used, limit)}


def save_draft(
    store: MemoryStore,
    target: str,
    base: Sequence[str],
    draft: Sequence[str | DraftEntry],
    *,
    auto_merge: bool = False,
) -> dict:
    """Save the person's draft, made from ``base``, without losing anyone's writes.

    Under the store's lock the file is re-read. A file that does not round-trip is refused
    (normalise it first); one entry larger than the budget is not, since the editor is where it
    gets split, and the budget check refuses a result still too big. If the file holds ``base``
    the draft is written; if someone changed it meanwhile the save is refused with a
    ``"merge"`` :class:`MergeProposal` (``"conflict": True``) for the person to resolve, or,
    with ``auto_merge``, a merge without conflicts is written at once with default choices.
    New or changed entries must pass :func:`content_problem`; a result over the budget is
    refused with the numbers. Success payloads carry the saved ``"entries"``.
    """
    base = prepare_draft(base)
    drafts = as_drafts(base, draft)
    base_set = set(base)
    for position, item in enumerate(drafts, start=1):
        if item.text not in base_set:
            problem = content_problem(item.text)
            if problem:
                return {
                    "success": False,
                    "error": f"Entry {position}: {problem}",
                    "entry": item.text,
                    "entry_index": position - 1,
                }
    limit = store.limit(target)
    merged: list[MergeProposal] = []

    def refuse_round_trip_drift(on_disk: StoreFile) -> None:
        if detect_drift(on_disk, limit) == ROUND_TRIP_DRIFT:
            raise StoreRefusal(_drift_refusal(target))

    def change(current: list[str]) -> tuple[list[str], str]:
        if current == base:
            new_entries = [d.text for d in drafts]
            message = "Saved."
        else:
            proposal = merge_entries(target, base, drafts, current)
            if proposal.conflicts or not auto_merge:
                raise StoreRefusal(_merge_refusal(target, proposal, limit, current))
            merged.append(proposal)
            new_entries = proposal.resolved_texts()
            message = f"Saved, with the changes made on disk meanwhile ({proposal.summary()})."
        current_set = set(current)
        for text in new_entries:
            if text not in current_set and text not in base_set:
                problem = content_problem(text)
                if problem:
                    raise StoreRefusal({"success": False, "error": problem, "entry": text})
        if new_entries == current:
            return current, "No changes to save: the file already holds these entries."
        used = fmt.char_count(new_entries)
        if used > limit:
            raise StoreRefusal(
                {
                    "success": False,
                    "error": over_budget_message(target, used, limit),
                    "over_budget": True,
                    **_numbers(new_entries, limit),
                }
            )
        return new_entries, message

    result = store.mutate(target, change, drift_guard=False, check_file=refuse_round_trip_drift)
    if result.get("success"):
        result = {**result, "entries": store.entries(target)}
        if merged:
            result["merged"] = merged[-1]  # the one made under the lock
    return result


def _drift_refusal(target: str) -> dict:
    name = fmt.FILE_NAMES[target]
    return {
        "success": False,
        "drift": ROUND_TRIP_DRIFT,
        "error": (
            f"Refusing to write {name}: the file on disk is not a clean §-separated list of "
            "entries (it would not round-trip), so saving could drop text you cannot see in "
            "the editor. Normalise it first (a backup is kept), then save again. Nothing was "
            "written."
        ),
    }


def _merge_refusal(target: str, proposal: MergeProposal, limit: int, current: list[str]) -> dict:
    name = fmt.FILE_NAMES[target]
    conflicts = len(proposal.conflicts)
    tail = (
        f" {conflicts} conflict{'s' if conflicts != 1 else ''} need{'s' if conflicts == 1 else ''}"
        " your choice."
        if conflicts
        else ""
    )
    return {
        "success": False,
        "conflict": True,
        "error": (
            f"{name} changed on disk since the editor loaded it "
            f"({proposal.summary() or 'entries changed'}). Nothing was overwritten: review the "
            f"merge, then save it.{tail}"
        ),
        "merge": proposal,
        "current_entries": list(current),
        **_numbers(current, limit),
    }


def apply_merge(
    store: MemoryStore,
    proposal: MergeProposal,
    choices: Mapping[str, str] | None = None,
) -> dict:
    """Save a merge with the person's choices, under the lock.

    The choices were made against ``proposal.theirs``; whatever was written after that is
    folded in automatically when it does not conflict (an agent appending entries), and
    refused with a fresh proposal when it does.
    """
    resolved = proposal.resolve(choices)
    return save_draft(store, proposal.target, proposal.theirs, resolved, auto_merge=True)


def merge_problems(
    proposal: MergeProposal, choices: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """``(entry, reason)`` for each entry the merged result would bring into the file that
    the store refuses (a scanner hit, a bare ``§`` line): :func:`apply_merge` would refuse
    such a result, so a merge view can say so before the person saves."""
    on_disk = set(proposal.theirs)
    problems = []
    for text in proposal.resolved_texts(choices):
        if text not in on_disk:
            problem = content_problem(text)
            if problem:
                problems.append((text, problem))
    return problems


def recreate_file(store: MemoryStore, target: str, draft: Sequence[str | DraftEntry]) -> dict:
    """Write the draft to a store file that was deleted (merging with a new one if any)."""
    plain = [d.text if isinstance(d, DraftEntry) else d for d in draft]
    return save_draft(store, target, [], plain, auto_merge=True)




def describe_change(old: Sequence[str], new: Sequence[str]) -> str:
    """What changed between two reads of a store, for a short note ("1 entry added, ...")."""
    old, new = list(old), list(new)
    if old == new:
        return "nothing changed"
    proposal = merge_entries("memory", old, old, new)
    counts = [
        (len(proposal.added_by_agent), "added"),
        (len(proposal.edited_by_agent), "edited"),
        (len(proposal.removed_by_agent), "removed"),
    ]
    parts = [f"{count} {verb}" for count, verb in counts if count]
    if not parts:
        return "entries reordered"
    first_count = next(count for count, _ in counts if count)
    noun = "entry" if first_count == 1 else "entries"
    head, *rest = parts
    number, verb = head.split(" ", 1)
    return ", ".join([f"{number} {noun} {verb}", *rest])
