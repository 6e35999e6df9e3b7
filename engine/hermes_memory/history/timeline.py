"""Reading history: version chains, entry-level diffs, lineage, and the state at a date.

:class:`Timeline` is one read of the history folder and of upstream's curator ledger.
Each memory store (``memory``, ``user``) and each skill has a chain of versions ordered
by time; a version's parent is the one before it in its chain (the first has none, read
as empty). Diffs are entry-level: entries added, removed, and changed (a removed entry
paired with the added entry most like it, which is how a ``replace`` reads).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from operator import itemgetter
from typing import Any

from ..home import HermesHome
from ..memory.entries import TARGETS, char_count
from ..pausing import gc_paused
from .ledger import curator_blob, read_ledger
from .recording import ORIGIN_LABELS, SUMMARY_EXTRAS
from .storage import HistoryStore, materialise

#: Below this similarity a removed and an added entry are two changes, not one edit.
CHANGED_SIMILARITY = 0.5
NOW = "now"


def _similarity(a: str, b: str) -> float:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < CHANGED_SIMILARITY or matcher.quick_ratio() < CHANGED_SIMILARITY:
        return 0.0
    return matcher.ratio()


def pair_changes(removed: Sequence[str], added: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs ``(old, new)`` of removed and added entries that read as one edited entry,
    most alike first; each entry is in at most one pair."""
    scored = sorted(
        ((_similarity(old, new), i, j) for i, old in enumerate(removed) for j, new in enumerate(added)),
        reverse=True,
    )
    used_old, used_new, pairs = set(), set(), []
    for score, i, j in scored:
        if score < CHANGED_SIMILARITY:
            break
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        pairs.append((removed[i], added[j]))
    return pairs


def entry_diff(before: Sequence[str], after: Sequence[str]) -> dict[str, Any]:
    """What changed between two entry lists, entry by entry."""
    before_set, after_set = set(before), set(after)
    removed = [e for e in before if e not in after_set]
    added = [e for e in after if e not in before_set]
    pairs = pair_changes(removed, added)
    paired_old = {old for old, _ in pairs}
    paired_new = {new for _, new in pairs}
    kept_before = [e for e in before if e in after_set]
    kept_after = [e for e in after if e in before_set]
    return {
        "added": [e for e in added if e not in paired_new],
        "removed": [e for e in removed if e not in paired_old],
        "changed": [{"before": old, "after": new} for old, new in pairs],
        "unchanged": len(kept_after),
        "reordered": kept_before != kept_after,
        "empty": not removed and not added and kept_before == kept_after,
    }


class Timeline:
    """One read of a home's history (ours plus the curator ledger)."""

    def __init__(self, home: HermesHome, *, with_ledger: bool = True, lazy: bool = False):
        """``lazy`` leaves memory versions as stored edits until one is asked for (the log
        needs none of them); otherwise every version has its full entry list at once."""
        self.home = home
        self.store = HistoryStore(home)
        with gc_paused():
            log = self.store.read_events(full=False)
            imported = self.store.read_events(imported=True, full=False)
        self.problems = log.problems + imported.problems
        self._files = {0: imported.events, 1: log.events}
        self._whole: set[int] = set()
        for number, file_events in self._files.items():
            for event in file_events:
                event["_file"] = number
        events = imported.events + log.events
        if with_ledger:
            ledger, problems = read_ledger(home)
            events += ledger
            self.problems += problems
        self.events = sorted(events, key=itemgetter("ts"))  # stable: ties keep file order
        self.by_id = {event["id"]: event for event in self.events}
        self.chains: dict[tuple[str, str | None], list[dict[str, Any]]] = {}
        for event in self.events:
            chain = self.chains.setdefault(chain_key(event), [])
            event["_pos"] = len(chain)
            if event["kind"] == "skill":  # a ledger line has no pin: the one before holds
                before = chain[-1]["_pinned"] if chain else False
                event["_pinned"] = bool(event["pinned"]) if "pinned" in event else before
                if "md" not in event:  # a ledger line on support files only: SKILL.md as before
                    inherit(event, chain[-1] if chain else None)
            chain.append(event)
        self._blobs: dict[str, str] | None = None
        self._blobs_partial = False  # only the texts :meth:`prefetch` asked for
        if not lazy:
            self.rebuild_all()

    # --- content ----------------------------------------------------------------------
    def text(self, digest: str | None) -> str | None:
        if digest is None:
            return None
        if len(digest) == 64:
            return curator_blob(self.home, digest)
        if self._blobs is None or (self._blobs_partial and digest not in self._blobs):
            self._blobs, self._blobs_partial = self.store.read_blobs(), False
        return self._blobs.get(digest)

    def prefetch(self, events: Iterable[dict[str, Any]]) -> None:
        """Read only the texts these versions and their parents need (not every text
        ever recorded); any other text asked for later reads them all, as before."""
        wanted: set[str] = set()
        for event in events:
            for version in (event, self.parent(event)):
                if version is None:
                    continue
                if version["kind"] == "skill":
                    wanted.add(self.skill_fields(version)["md"] or "")
                else:
                    wanted.update(self.hashes(version))
        wanted = {digest for digest in wanted if digest and len(digest) != 64}
        if self._blobs is None and wanted:
            self._blobs, self._blobs_partial = self.store.read_blobs(wanted), True

    def hashes(self, event: dict[str, Any] | None) -> list[str]:
        """The entry hashes of a memory version (rebuilt from the edits on first use)."""
        if event is None:
            return []
        if "entries" not in event:
            self._rebuild(event["_file"])
        return event.get("entries") or []

    def _rebuild(self, number: int) -> None:
        if number in self._whole:
            return
        self._whole.add(number)
        events = self._files[number]
        self.problems += materialise(events)
        broken = [event for event in events if event.get("_broken")]
        if broken:  # drop the versions whose edits cannot be replayed
            gone = {id(event) for event in broken}
            self.events = [e for e in self.events if id(e) not in gone]
            for event in broken:
                self.by_id.pop(event["id"], None)
            for key, chain in list(self.chains.items()):
                kept = [e for e in chain if id(e) not in gone]
                for position, event in enumerate(kept):
                    event["_pos"] = position
                self.chains[key] = kept

    def rebuild_all(self) -> None:
        for number in self._files:
            self._rebuild(number)

    def entries(self, event: dict[str, Any] | None) -> list[str]:
        """The entry texts of a memory version (a lost text reads as a placeholder)."""
        if event is None:
            return []
        return [self.text(h) or f"(text {h} missing from history)" for h in self.hashes(event)]

    # --- navigation -------------------------------------------------------------------
    def get(self, event_id: str) -> dict[str, Any] | None:
        return self.by_id.get(event_id)

    def chain(self, kind: str, skill: str | None = None) -> list[dict[str, Any]]:
        return self.chains.get((kind, skill if kind == "skill" else None), [])

    def parent(self, event: dict[str, Any]) -> dict[str, Any] | None:
        position = event["_pos"]
        return self.chain(event["kind"], event.get("skill"))[position - 1] if position else None

    def latest(self, kind: str, skill: str | None = None, before: float | None = None) -> dict[str, Any] | None:
        chain = self.chain(kind, skill)
        if before is None:
            return chain[-1] if chain else None
        found = None
        for event in chain:
            if event["ts"] > before:
                break
            found = event
        return found

    def skill_names(self) -> list[str]:
        return sorted(skill for kind, skill in self.chains if kind == "skill" and skill)

    def skill_fields(self, event: dict[str, Any] | None) -> dict[str, Any]:
        """A skill's SKILL.md hash, state and pin at ``event`` (a ledger line carries no
        pin, so the pin is the last one recorded before it)."""
        if event is None:
            return {"md": None, "state": "missing", "pinned": False}
        return {"md": event.get("md"), "state": event.get("state") or "active", "pinned": event["_pinned"]}

    # --- summaries --------------------------------------------------------------------
    def summary(self, event: dict[str, Any]) -> dict[str, Any]:
        """One event as the log lists it: who, when, what, and how big the change was."""
        parent = self.parent(event)
        item = {
            "id": event["id"],
            "ts": event["ts"],
            "kind": event["kind"],
            "action": event.get("action") or "write",
            "origin": event.get("origin") or "unknown",
            "origin_label": ORIGIN_LABELS.get(event.get("origin") or "unknown", event.get("origin")),
            "session": event.get("session"),
            "sessions": event.get("sessions") or ([event["session"]] if event.get("session") else []),
        }
        for key in SUMMARY_EXTRAS:
            if event.get(key):
                item[key] = event[key]
        if event["kind"] == "skill":
            before, after = self.skill_fields(parent), self.skill_fields(event)
            item["skill"] = event["skill"]
            item["text_changed"] = (before["md"] or "")[:20] != (after["md"] or "")[:20]  # ledger: sha256
            item["state"] = after["state"]
            item["pinned"] = after["pinned"]
        else:
            first_in_file = parent is None or parent["_file"] != event["_file"]
            if "added" in event and not (first_in_file and parent is not None):
                item["added"], item["removed"] = event["added"], event["removed"]  # as stored
            else:
                old, new = set(self.hashes(parent)), set(self.hashes(event))
                item["added"], item["removed"] = len(new - old), len(old - new)
            item["entry_count"] = event.get("n", len(self.hashes(event)))
        return item

    # --- diffs ------------------------------------------------------------------------
    def diff(self, old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
        """What changed from ``old`` to ``new`` (two versions of one store or skill)."""
        if new["kind"] == "skill":
            before, after = self.skill_fields(old), self.skill_fields(new)
            old_text, new_text = self.text(before["md"]) or "", self.text(after["md"]) or ""
            lines = list(difflib.unified_diff(
                old_text.splitlines(keepends=True), new_text.splitlines(keepends=True),
                "a/SKILL.md", "b/SKILL.md",
            ))  # fmt: skip
            changes = {key: {"before": before[key], "after": after[key]}
                       for key in ("state", "pinned") if before[key] != after[key]}  # fmt: skip
            files = list(new.get("files") or ())  # support files it wrote or removed
            return {"kind": "skill", "skill": new["skill"], "unified_diff": "".join(lines),
                    "changes": changes, "files": files, "empty": not lines and not changes and not files}  # fmt: skip
        result = entry_diff(self.entries(old), self.entries(new))
        return {"kind": new["kind"], **result}

    # --- the state at a date ----------------------------------------------------------
    def state_at(self, when: float | None = None, *, texts: bool = False) -> dict[str, Any]:
        """Both stores and every skill as history knew them at ``when`` (default: now)."""
        result: dict[str, Any] = {"at": when}
        for target in TARGETS:
            event = self.latest(target, before=when)
            entries = self.entries(event)
            result[target] = {
                "version": event["id"] if event else None,
                "entry_count": len(entries),
                "chars": char_count(entries),
                **({"entries": entries} if texts else {}),
            }
        skills = []
        for name in self.skill_names():
            event = self.latest("skill", name, before=when)
            if event is None:
                continue
            fields = self.skill_fields(event)
            skills.append({"name": name, "version": event["id"], "state": fields["state"],
                           "pinned": fields["pinned"], "md": fields["md"]})  # fmt: skip
        result["skills"] = skills
        result["active_skills"] = sum(1 for s in skills if s["state"] not in ("missing", "archived"))
        return result

    def growth(self) -> list[dict[str, Any]]:
        """One point per recorded version, oldest first: both stores' size and the number
        of active skills right after it (for a growth chart or a date scrubber)."""
        sizes: dict[str, int] = {}
        current = {"memory": (0, 0), "user": (0, 0)}
        skills: dict[str, bool] = {}
        active = 0  # (kept as a count: summing every skill at every version was quadratic)
        self.prefetch(event for event in self.events if event["kind"] != "skill")
        points = []
        for event in self.events:
            if event["kind"] == "skill":
                alive = self.skill_fields(event)["state"] not in ("missing", "archived")
                active += alive - skills.get(event["skill"], False)
                skills[event["skill"]] = alive
            else:
                hashes = self.hashes(event)
                for digest in hashes:
                    if digest not in sizes:
                        sizes[digest] = len(self.text(digest) or "")
                chars = sum(sizes[h] for h in hashes) + 3 * max(len(hashes) - 1, 0)
                current[event["kind"]] = (len(hashes), chars)
            points.append({
                "ts": event["ts"], "version": event["id"], "kind": event["kind"],
                "memory_entries": current["memory"][0], "memory_chars": current["memory"][1],
                "user_entries": current["user"][0], "user_chars": current["user"][1],
                "active_skills": active,
            })  # fmt: skip
        return points

    # --- lineage ----------------------------------------------------------------------
    def find_entry(self, fingerprint: str) -> tuple[str, str] | None:
        """``(target, hash)`` of the newest version holding an entry with this fingerprint."""
        fingerprint = fingerprint.strip().lower()
        if not fingerprint:
            return None
        for event in reversed(self.events):
            if event["kind"] in TARGETS:
                for digest in self.hashes(event):
                    if digest.startswith(fingerprint):
                        return event["kind"], digest
        return None

    def _transition(self, chain: list[dict[str, Any]], position: int) -> list[tuple[str, str]]:
        """The (old hash, new hash) pairs read as edits between chain[position-1] and it."""
        if position == 0:
            return []
        old, new = self.hashes(chain[position - 1]), self.hashes(chain[position])
        old_set, new_set = set(old), set(new)
        removed = [h for h in old if h not in new_set]
        added = [h for h in new if h not in old_set]
        if not removed or not added:
            return []
        text = {h: self.text(h) or "" for h in removed + added}
        pairs = pair_changes([text[h] for h in removed], [text[h] for h in added])
        by_text_old = {text[h]: h for h in removed}
        by_text_new = {text[h]: h for h in added}
        return [(by_text_old[a], by_text_new[b]) for a, b in pairs]

    def _step(self, event: dict[str, Any], kind: str, digest: str, before: str | None = None) -> dict[str, Any]:
        step = {"version": event["id"], "ts": event["ts"], "kind": kind,
                "origin": event.get("origin") or "unknown", "session": event.get("session"),
                "action": event.get("action") or "write", "text": self.text(digest),
                "fingerprint": digest[:12]}  # fmt: skip
        if before is not None:
            step["before"] = self.text(before)
        return step

    def lineage(self, fingerprint: str) -> dict[str, Any] | None:
        """One entry's story: where it came from through its replaces, and what became of
        it (changed again, removed, or still current). ``None`` if history never saw it."""
        found = self.find_entry(fingerprint)
        if found is None:
            return None
        target, digest = found
        chain = self.chain(target)
        last = max(i for i, e in enumerate(chain) if digest in e["entries"])
        steps: list[dict[str, Any]] = []
        # backwards: the start of each segment, and the entry it was edited from
        current, end = digest, last
        while True:
            start = end
            while start > 0 and current in chain[start - 1]["entries"]:
                start -= 1
            origin = next((old for old, new in self._transition(chain, start) if new == current), None)
            if origin is not None:
                steps.insert(0, self._step(chain[start], "changed", current, origin))
                current, end = origin, start - 1
                continue
            earlier = next((i for i in range(start - 1, -1, -1) if current in chain[i]["entries"]), None)
            if earlier is None:
                steps.insert(0, self._step(chain[start], "added", current))
                break
            # the same text came back (a restore, an undo): its earlier life goes on before
            steps.insert(0, self._step(chain[start], "re-added", current))
            steps.insert(0, self._step(chain[earlier + 1], "removed", current))
            end = earlier
        # forwards: what the newest text became
        current, position = digest, last
        while position + 1 < len(chain):
            successor = next((new for old, new in self._transition(chain, position + 1) if old == current), None)
            if successor is None:
                steps.append(self._step(chain[position + 1], "removed", current))
                break
            steps.append(self._step(chain[position + 1], "changed", successor, current))
            current, position = successor, position + 1
            while position + 1 < len(chain) and current in chain[position + 1]["entries"]:
                position += 1
        alive = current in chain[-1]["entries"]
        return {"target": target, "fingerprint": digest[:12], "current": alive,
                "current_text": self.text(current) if alive else None, "steps": steps}  # fmt: skip


def inherit(event: dict[str, Any], before: dict[str, Any] | None) -> None:
    """Give a version that changed only a skill's support files the SKILL.md hash and
    state of the version ``before`` it (an unknown SKILL.md, and active, when none)."""
    event["md"] = before.get("md") if before is not None else None
    if "state" not in event:
        event["state"] = (before.get("state") or "active") if before is not None else "active"


def chain_key(event: dict[str, Any]) -> tuple[str, str | None]:
    return (event["kind"], event.get("skill") if event["kind"] == "skill" else None)


def public(event: dict[str, Any]) -> dict[str, Any]:
    """An event without the reader's bookkeeping keys."""
    return {key: value for key, value in event.items() if not key.startswith("_")}
