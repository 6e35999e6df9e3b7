"""The bounded memory store: MEMORY.md and USER.md as a Hermes agent reads and writes them.

Every mutation follows the agent's cycle so the two can run side by side: take the
``<file>.lock`` lock, re-read the file under it, mutate a copy, check the budget, then
write atomically (temp file + fsync + ``os.replace``). Operations return the ``memory``
tool's payload dicts (spec §2.4–2.6) so the tool, the CLI and the desktop share one
behaviour.

Where upstream has known defects we keep the format and fix the behaviour:
- a file that is not UTF-8 (or binary, or huge) is refused, never read as empty and
  overwritten;
- the drift guard compares after normalising line endings and whitespace around
  delimiters (issue 107270), so only real structure problems are refused;
- legacy ``##``-sectioned files are adopted as entries (PR 99258), with a backup before
  the first rewrite in canonical form.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import MemoryConfig, load_memory_config
from ..fileio import (
    DEFAULT_LOCK_TIMEOUT,
    FileTooLarge,
    LockTimeout,
    UnsafeFileError,
    atomic_write_text,
    file_lock,
    lock_path_for,
    read_regular_bytes,
    resolve_write_target,
)
from ..history.recording import record_memory_write
from ..home import HermesHome
from . import entries as fmt
from .render import cross_entry_problem, render_block, sanitise_entry
from .scan import first_threat_message

#: A store file this large is not a memory file (the default budgets are ~2 KB).
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_CONSOLIDATION_FAILURES_PER_TURN = 3
SUCCESS_NOTE = "Write saved. This update is complete — do not repeat it."


class StoreReadError(RuntimeError):
    """A store file exists but cannot be used; the message says what to do."""


@dataclass(frozen=True)
class StoreFile:
    """One read of a store file: the raw text, its entries, and its identity on disk."""

    path: Path
    exists: bool
    raw: str
    entries: list[str]
    legacy_sections: bool = False
    identity: tuple[int, int] | None = None  # (mtime_ns, size)
    damaged: tuple[int, ...] = ()  # indices of entries holding unstorable characters


_NUL_RUN = b"\x00" * 8


def read_store_file(path: Path) -> StoreFile:
    """Read and parse a store file; a missing file is empty, an unusable one raises.

    Only a regular file is read (never a FIFO or a device, which would hang or never
    end), and at most :data:`MAX_FILE_BYTES`. A file that holds a few control characters
    inside otherwise readable text (a NUL written by an older tool) still loads, with the
    damaged entries listed in :attr:`StoreFile.damaged`, so it can be repaired by removing
    or replacing them; a file with runs of NUL bytes (zero-filled blocks) is refused as
    binary.
    """
    try:
        stat = path.stat()  # before reading: a change after it shows as a new identity
        data = read_regular_bytes(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        return StoreFile(path, False, "", [])
    except NotADirectoryError as exc:
        raise StoreReadError(
            f"{path.parent} is not a folder, so {path.name} cannot be read. Move that file "
            "aside; the memories folder is recreated on the next write."
        ) from exc
    except FileTooLarge as exc:
        raise StoreReadError(
            f"{path.name} is {exc.size:,} bytes or more, far larger than any memory store. "
            "It was not loaded; move it aside or trim it by hand."
        ) from exc
    except UnsafeFileError as exc:
        raise StoreReadError(f"{exc} Move it aside; nothing was changed.") from exc
    except PermissionError as exc:
        raise StoreReadError(f"{path.name} cannot be read (permission denied).") from exc
    except OSError as exc:
        raise StoreReadError(f"{path.name} cannot be read: {exc.strerror or exc}.") from exc
    if _NUL_RUN in data:
        raise StoreReadError(
            f"{path.name} looks like a binary file (it holds runs of NUL bytes). It was not "
            "loaded and will not be written; restore it from a backup."
        )
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreReadError(
            f"{path.name} is not valid UTF-8 (bad byte at offset {exc.start}). It was not "
            "loaded and will not be written; re-save it as UTF-8."
        ) from exc
    entries = fmt.parse_entries(raw)
    return StoreFile(
        path=path,
        exists=True,
        raw=raw,
        entries=entries,
        legacy_sections=fmt.is_legacy_sectioned(raw),
        identity=(stat.st_mtime_ns, stat.st_size),
        damaged=tuple(i for i, entry in enumerate(entries) if fmt.unstorable_character(entry)),
    )


def damage_message(store_file: StoreFile) -> str | None:
    """What to do about entries holding characters no entry may hold, or ``None``."""
    if not store_file.damaged:
        return None
    numbers = ", ".join(str(index + 1) for index in store_file.damaged)
    which = f"entry {numbers} holds" if len(store_file.damaged) == 1 else f"entries {numbers} hold"
    first = store_file.entries[store_file.damaged[0]]
    offset, char = fmt.unstorable_character(first)
    return (
        f"{store_file.path.name}: {which} characters a memory entry cannot "
        f"hold (first: {fmt.describe_character(char)} at position {offset + 1} of entry "
        f"{store_file.damaged[0] + 1}). The store still works; replace or remove "
        f"{'that entry' if len(store_file.damaged) == 1 else 'those entries'} to repair it."
    )


_SPACE_BEFORE_NEWLINE = re.compile(r"[ \t]+\n")
_BLANK_LINES_AROUND_DELIMITER = re.compile(r"\n\s*\n§\n\s*\n|\n\s*\n§\n|\n§\n\s*\n")


def _normalise_for_drift(text: str) -> str:
    """Whitespace the parser ignores anyway, so it cannot hide lost content (issue 107270)."""
    text = fmt.normalise_newlines(text)
    text = _SPACE_BEFORE_NEWLINE.sub("\n", text.strip() + "\n").strip()
    previous = None
    while previous != text:
        previous = text
        text = _BLANK_LINES_AROUND_DELIMITER.sub("\n§\n", text)
    return text


#: The two reasons :func:`detect_drift` gives.
ROUND_TRIP_DRIFT = "round-trip mismatch"
OVERSIZED_ENTRY_DRIFT = "entry larger than the whole budget"


def detect_drift(store_file: StoreFile, limit: int) -> str | None:
    """Why this file would not survive a rewrite by the tool, or ``None``.

    Two signals, as upstream: the text does not round-trip through parse+serialise
    (compared after normalising insignificant whitespace and duplicates), or one entry
    is larger than the whole budget (a free-form blob appended by hand or a tool).
    """
    if not store_file.exists or not store_file.raw.strip():
        return None
    pieces = (
        fmt.split_legacy_sections(store_file.raw)
        if store_file.legacy_sections
        else fmt.split_pieces(store_file.raw)
    )
    if not store_file.legacy_sections:
        if _normalise_for_drift(store_file.raw) != _normalise_for_drift(
            fmt.serialise_entries(pieces)
        ):
            return ROUND_TRIP_DRIFT
    if pieces and max(len(piece) for piece in pieces) > limit:
        return OVERSIZED_ENTRY_DRIFT
    return None


def clean_content(text: str | None) -> str:
    """An entry as it will be stored: line endings as LF (how the file reads back), stripped."""
    return fmt.normalise_line_endings(text).strip() if isinstance(text, str) else ""


def content_problem(content: str) -> str | None:
    """Why ``content`` cannot be stored as one entry, or ``None``.

    Characters that cannot round-trip through the file are refused (a NUL would make the
    file read as binary; lone surrogates cannot be written as UTF-8). Upstream accepts an
    entry containing a bare ``§`` line and then reads it back as two entries; we refuse it
    instead. Threat patterns are checked at the strict scope.
    """
    content = fmt.normalise_line_endings(content)
    bad = fmt.unstorable_character(content)
    if bad:
        offset, char = bad
        return (
            f"Content contains {fmt.describe_character(char)} at position {offset + 1}, "
            "which a memory file cannot hold and read back as the same text. Remove it "
            "and try again."
        )
    if fmt.has_delimiter_line(content):
        return (
            "Content contains a line with only '§', the entry delimiter, so it would be "
            "saved as separate entries. Remove that line, or add the parts as separate entries."
        )
    return first_threat_message(content, "strict")


def _round_trip_error(target: str, read_back: list[str]) -> str:
    name = fmt.FILE_NAMES[target]
    if len(read_back) > 1 and all(piece.startswith("## ") for piece in read_back[1:]):
        reason = (
            f"the only entry has {len(read_back)} '## ' headings, so {name} would read back "
            "as one entry per heading (hand-written sectioned files are read that way). "
            "Add the sections as separate entries, or keep one heading per entry"
        )
    else:
        reason = f"{name} would not read back as the same entries"
    return f"Refusing to write: {reason}. Nothing was written."


def _with_previous(result: dict, previous: dict[str, Any]) -> dict:
    """A committed write's payload with the full text of each entry it overwrote or removed
    (``replaced_entry``/``removed_entry``; in a batch ``replaced_entries``/``removed_entries``
    by 1-based op position), which mirrored provider writes pass on as ``previous_content``."""
    if result.get("success") and previous:
        result.update(previous)
    return result


class StoreRefusal(Exception):
    """Raise inside :meth:`MemoryStore.mutate` to abort with a payload; nothing is written.

    ``counts_as_failure`` marks the consolidation failures of spec §2.6.
    """

    def __init__(self, payload: dict, counts_as_failure: bool = False):
        super().__init__(payload.get("error", ""))
        self.payload = payload
        self.counts_as_failure = counts_as_failure


# The budget refusals end with advice for the agent (upstream's words, kept in the tool's
# payloads); a person reading them in the CLI or the app gets advice meant for them.
_ADD_ADVICE_FOR_AGENT = (
    " Consolidate now: use 'replace' to merge overlapping entries into shorter ones or "
    "'remove' stale or less important entries (see current_entries below), then retry this "
    "add — all in this turn."
)
_REPLACE_ADVICE_FOR_AGENT = (
    " Shorten the new content, or 'remove' other stale or less important entries to make "
    "room (see current_entries below), then retry — all in this turn."
)
_BATCH_ADVICE_FOR_AGENT = (
    " Remove or shorten more entries in the same batch (see current_entries below), then "
    "retry."
)
_ADVICE_FOR_PEOPLE = {
    _ADD_ADVICE_FOR_AGENT: " Shorten or remove other entries to make room, then add it again.",
    _REPLACE_ADVICE_FOR_AGENT: " Shorten the new text, or shorten or remove other entries "
    "to make room.",
    _BATCH_ADVICE_FOR_AGENT: " Shorten or remove more entries, then try again.",
}


def for_people(error: str) -> str:
    """A store error with the agent-directed advice of a budget refusal reworded for a
    person (the numbers stay); other errors unchanged."""
    for agent_advice, advice in _ADVICE_FOR_PEOPLE.items():
        if error.endswith(agent_advice):
            return error[: -len(agent_advice)] + advice
    return error


class MemoryStore:
    """The two built-in stores of one Hermes home.

    ``load_from_disk()`` freezes the system-prompt snapshot for a session; every
    mutation re-reads from disk under the lock, so in-memory state is never trusted
    for writes.
    """

    def __init__(
        self,
        home: HermesHome,
        config: MemoryConfig | None = None,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    ):
        self.home = home
        self.config = config if config is not None else load_memory_config(home)
        self.lock_timeout = lock_timeout
        self.memory_entries: list[str] = []
        self.user_entries: list[str] = []
        self.read_errors: dict[str, str] = {}
        self._system_prompt_snapshot = {"memory": "", "user": ""}
        self._consolidation_failures = 0

    # --- basics ---------------------------------------------------------------------
    def path(self, target: str) -> Path:
        return self.home.store_file(target)

    def limit(self, target: str) -> int:
        return self.config.limit_for(target)

    def enabled(self, target: str) -> bool:
        return self.config.enabled_for(target)

    def disabled_refusal(self, target: str) -> dict | None:
        """The refusal for writing a store that config.yaml disables, or ``None``."""
        if self.enabled(target):
            return None
        setting = "memory_enabled" if target == "memory" else "user_profile_enabled"
        return {
            "success": False,
            "error": f"The {fmt.FILE_NAMES[target]} store is disabled in config.yaml "
            f"(memory.{setting}: false), so it cannot be written.",
        }

    def entries(self, target: str) -> list[str]:
        """The live entries as of the last read or write by this store."""
        return list(self.memory_entries if target == "memory" else self.user_entries)

    def _set_entries(self, target: str, entries: list[str]) -> None:
        if target == "memory":
            self.memory_entries = list(entries)
        else:
            self.user_entries = list(entries)

    def read_file(self, target: str) -> StoreFile:
        """Read the target's file now (no lock: the agent replaces files atomically)."""
        return read_store_file(self.path(target))

    def read_entries(self, target: str) -> list[str]:
        """Fresh entries from disk; raises :class:`StoreReadError` for unusable files."""
        entries = self.read_file(target).entries
        self._set_entries(target, entries)
        return entries

    def char_count(self, target: str) -> int:
        return fmt.char_count(self.entries(target))

    # --- session snapshot -----------------------------------------------------------
    def load_from_disk(self) -> None:
        """Read both stores and freeze the prompt blocks for this session.

        A store that cannot be read is recorded in :attr:`read_errors` and rendered as
        empty; the other store still loads.
        """
        self.read_errors = {}  # reading creates nothing: the first write makes memories/
        for target in fmt.TARGETS:
            try:
                self.read_entries(target)
            except StoreReadError as exc:
                self.read_errors[target] = str(exc)
                self._set_entries(target, [])
            self._system_prompt_snapshot[target] = render_block(
                target, [sanitise_entry(e, fmt.FILE_NAMES[target]) for e in self.entries(target)],
                self.limit(target),
            )

    def format_for_system_prompt(self, target: str) -> str | None:
        return self._system_prompt_snapshot.get(target) or None

    def system_prompt_blocks(self) -> str:
        """Memory block then user block, each only when enabled and non-empty."""
        blocks = [
            self.format_for_system_prompt(target)
            for target in fmt.TARGETS
            if self.enabled(target)
        ]
        return "\n\n".join(block for block in blocks if block)

    # --- per-turn failure cap -------------------------------------------------------
    def reset_consolidation_failures(self) -> None:
        self._consolidation_failures = 0

    def _count_failure(self, payload: dict) -> dict:
        self._consolidation_failures += 1
        if self._consolidation_failures > MAX_CONSOLIDATION_FAILURES_PER_TURN:
            return {
                "success": False,
                "done": True,
                "error": (
                    f"Memory consolidation failed {self._consolidation_failures} times this "
                    "turn. Stop retrying memory calls — leave memory unchanged for now and "
                    "continue with your reply to the user. The fact can be saved in a later "
                    "turn."
                ),
            }
        return payload

    # --- payloads -------------------------------------------------------------------
    def _success(self, target: str, message: str) -> dict:
        self._consolidation_failures = 0
        current = self.entries(target)
        return {
            "success": True,
            "done": True,
            "target": target,
            "usage": fmt.usage_summary(fmt.char_count(current), self.limit(target)),
            "entry_count": len(current),
            "message": message,
            "note": SUCCESS_NOTE,
        }

    def inventory(self, target: str, entries: list[str]) -> dict:
        """``current_entries`` (sanitised, so poisoned text never re-enters a prompt) and usage."""
        file_name = fmt.FILE_NAMES[target]
        return {
            "current_entries": [sanitise_entry(entry, file_name) for entry in entries],
            "usage": fmt.usage_counts(fmt.char_count(entries), self.limit(target)),
        }

    def _failure(self, target: str, error: str, entries: list[str]) -> StoreRefusal:
        return StoreRefusal({"success": False, "error": error, **self.inventory(target, entries)}, True)

    # --- the locked mutation cycle --------------------------------------------------
    def mutate(
        self,
        target: str,
        change: Callable[[list[str]], tuple[list[str], str]],
        *,
        drift_guard: bool = True,
        check_file: Callable[[StoreFile], None] | None = None,
    ) -> dict:
        """Lock, re-read, apply ``change`` to the fresh entries, write atomically, report.

        ``change`` gets a copy of the entries on disk and returns ``(new_entries,
        success_message)``, or raises :class:`StoreRefusal`. Returning the very list it was
        given means "nothing to write" (a duplicate add). The result is dedupe'd and
        written canonically; the payload is the memory tool's success or error dict.
        Callers check content (:func:`content_problem`) and budgets inside ``change``.
        ``check_file`` sees the file as read under the lock (raw text, drift) and may raise
        :class:`StoreRefusal` too, for callers with their own drift policy.
        """
        refusal = self.disabled_refusal(target)
        if refusal:
            return refusal
        if not self.home.path.is_dir():
            return {
                "success": False,
                "error": f"No Hermes home at {self.home.path}; nothing was written.",
            }
        path = self.path(target)
        try:
            unlocked = read_store_file(path)  # an unusable file: refused before anything
            drifted = drift_guard and detect_drift(unlocked, self.limit(target)) is not None
            if not lock_path_for(path).exists() and not drifted:
                # A first write: a refusal seen without the lock leaves the home exactly as
                # it was (no new lock file); anything else is decided again under the lock.
                if check_file is not None:
                    check_file(unlocked)
                self._plan(target, unlocked, change)
            self._make_memories_dir(path)
            with file_lock(path, self.lock_timeout):
                current = read_store_file(path)
                self._set_entries(target, current.entries)
                if check_file is not None:
                    check_file(current)
                if drift_guard:
                    refusal = self._drift_refusal(target, current)
                    if refusal:
                        return refusal
                new_entries, message = self._plan(target, current, change)
                if new_entries is not None:
                    self._commit(target, current, new_entries)
                    self._set_entries(target, new_entries)
        except StoreRefusal as refusal:
            if refusal.counts_as_failure:
                return self._count_failure(refusal.payload)
            return refusal.payload
        except (StoreReadError, LockTimeout, UnsafeFileError) as exc:
            return {"success": False, "error": str(exc)}
        except OSError as exc:
            return {"success": False, "error": f"Failed to write memory file {path}: {exc}"}
        return self._success(target, message)

    @staticmethod
    def _make_memories_dir(path: Path) -> None:
        folder = path.parent
        if folder.exists() and not folder.is_dir():
            raise UnsafeFileError(
                f"{folder} is a file, not the memories folder; nothing was written. Move it "
                "aside and try again."
            )
        # Through an in-home link the real folder is made; a link out of the home refuses.
        resolve_write_target(path).parent.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def _plan(
        target: str,
        current: StoreFile,
        change: Callable[[list[str]], tuple[list[str], str]],
    ) -> tuple[list[str] | None, str]:
        """``(entries to write, message)`` for ``current``; ``None`` when nothing is to be
        written. Raises :class:`StoreRefusal`, also when the text would not read back as
        exactly these entries (so no accepted write changes what the next read sees)."""
        working = list(current.entries)
        new_entries, message = change(working)
        if new_entries is working and not current.legacy_sections:
            return None, message
        new_entries = fmt.dedupe(new_entries)
        read_back = fmt.parse_entries(fmt.serialise_entries(new_entries))
        if read_back != new_entries:
            raise StoreRefusal({"success": False, "error": _round_trip_error(target, read_back)})
        # A phrase split across entries is a threat once they are rendered.
        problem = cross_entry_problem(current.entries, new_entries, fmt.FILE_NAMES[target])
        if problem:
            raise StoreRefusal({"success": False, "error": problem})
        return new_entries, message

    def _commit(self, target: str, current: StoreFile, new_entries: list[str]) -> None:
        """Write ``new_entries`` over ``current``. Every store write passes here, under the
        lock, with the file as read (``current``) and the entries it becomes both known."""
        if current.legacy_sections:
            self._backup(current)  # first canonical rewrite of a legacy file
        atomic_write_text(current.path, fmt.serialise_entries(new_entries), ".mem_")
        record_memory_write(self.home, target, current, new_entries)

    def _backup(self, store_file: StoreFile) -> Path:
        """Copy the raw text to ``<file>.bak.<unix_ts>`` (never overwriting an older one)."""
        stamp = int(time.time())
        backup = store_file.path.with_name(f"{store_file.path.name}.bak.{stamp}")
        while os.path.lexists(backup):
            with contextlib.suppress(OSError):  # a FIFO or a folder there is never read
                if read_regular_bytes(backup, MAX_FILE_BYTES) == store_file.raw.encode(
                    "utf-8", "surrogatepass"
                ):
                    return backup
            stamp += 1
            backup = store_file.path.with_name(f"{store_file.path.name}.bak.{stamp}")
        atomic_write_text(backup, store_file.raw, ".mem_")
        return backup

    def _drift_refusal(self, target: str, current: StoreFile) -> dict | None:
        if detect_drift(current, self.limit(target)) is None:
            return None
        try:
            backup = str(self._backup(current))
        except OSError:
            backup = (
                f"{current.path}.bak.{int(time.time())} (BACKUP FAILED — file unchanged on disk)"
            )
        name = fmt.FILE_NAMES[target]
        return {
            "success": False,
            "error": (
                f"Refusing to write {name}: file on disk has content that wouldn't round-trip "
                "through the memory tool (likely added by the patch tool, a shell append, a "
                "manual edit, or a concurrent session). A snapshot was saved to "
                f"{backup}. Resolve the drift first — either rewrite the file as a clean "
                "§-delimited list of entries, or move the extra content out — then retry. "
                "This guard exists to prevent silent data loss (issue #26045)."
            ),
            "drift_backup": backup,
            "remediation": (
                "Open the .bak file, integrate the missing entries into the memory tool one at "
                "a time via memory(action=add, content=...), then remove or rewrite the "
                "original file to a clean state."
            ),
        }

    # --- matching -------------------------------------------------------------------
    @staticmethod
    def _match(entries: list[str], old_text: str) -> list[int]:
        """Indices the text selects: an exact entry wins, else every substring match."""
        for index, entry in enumerate(entries):
            if entry == old_text:
                return [index]
        return [index for index, entry in enumerate(entries) if old_text in entry]

    def _resolve_single(self, target: str, entries: list[str], old_text: str, verb: str) -> int:
        matches = self._match(entries, old_text)
        if not matches:
            raise self._failure(
                target,
                f"No entry matched '{old_text}'. Check current_entries below and retry with "
                f"the exact text of the entry you want to {verb}.",
                entries,
            )
        if len({entries[i] for i in matches}) > 1:
            raise StoreRefusal(
                {
                    "success": False,
                    "error": f"Multiple entries matched '{old_text}'. Be more specific.",
                    "matches": [fmt.preview(entries[i]) for i in matches],
                }
            )
        return matches[0]

    # --- operations (spec §2.4) -----------------------------------------------------
    def add(self, target: str, content: str | None) -> dict:
        content = clean_content(content)
        if not content:
            return {"success": False, "error": "Content cannot be empty."}
        problem = content_problem(content)
        if problem:
            return {"success": False, "error": problem}
        limit = self.limit(target)

        def change(entries: list[str]) -> tuple[list[str], str]:
            if content in entries:
                return entries, "Entry already exists (no duplicate added)."
            proposed = [*entries, content]
            if fmt.char_count(proposed) > limit:
                current = fmt.char_count(entries)
                raise self._failure(
                    target,
                    f"Memory at {current:,}/{limit:,} chars. Adding this entry "
                    f"({len(content)} chars) would exceed the limit.{_ADD_ADVICE_FOR_AGENT}",
                    entries,
                )
            return proposed, "Entry added."

        return self.mutate(target, change, drift_guard=False)

    def replace(self, target: str, old_text: str | None, new_content: str | None) -> dict:
        old_text = clean_content(old_text)
        new_content = clean_content(new_content)
        if not old_text:
            return {"success": False, "error": "old_text cannot be empty."}
        if not new_content:
            return {
                "success": False,
                "error": "new_content cannot be empty. Use 'remove' to delete entries.",
            }
        problem = content_problem(new_content)
        if problem:
            return {"success": False, "error": problem}

        previous: dict[str, Any] = {}

        def change(entries: list[str]) -> tuple[list[str], str]:
            index = self._resolve_single(target, entries, old_text, "replace")
            previous["replaced_entry"] = entries[index]
            return self._replaced(target, entries, index, new_content), "Entry replaced."

        return _with_previous(self.mutate(target, change, drift_guard=True), previous)

    def _replaced(self, target: str, entries: list[str], index: int, new_content: str) -> list[str]:
        proposed = list(entries)
        proposed[index] = new_content
        projected = fmt.char_count(fmt.dedupe(proposed))
        limit = self.limit(target)
        if projected > limit:
            raise self._failure(
                target,
                f"Replacement would put memory at {projected:,}/{limit:,} chars."
                f"{_REPLACE_ADVICE_FOR_AGENT}",
                entries,
            )
        return proposed

    def remove(self, target: str, old_text: str | None) -> dict:
        old_text = clean_content(old_text)
        if not old_text:
            return {"success": False, "error": "old_text cannot be empty."}

        previous: dict[str, Any] = {}

        def change(entries: list[str]) -> tuple[list[str], str]:
            index = self._resolve_single(target, entries, old_text, "remove")
            previous["removed_entry"] = entries[index]
            return entries[:index] + entries[index + 1 :], "Entry removed."

        return _with_previous(self.mutate(target, change, drift_guard=True), previous)

    def apply_batch(self, target: str, operations: list) -> dict:
        """All-or-nothing list of add/replace/remove; the budget applies to the final state."""
        if not operations:
            return {"success": False, "error": "operations list is empty."}
        for position, op in enumerate(operations, start=1):
            if isinstance(op, dict) and op.get("action") in ("add", "replace"):
                content = op.get("content")
                problem = content_problem(clean_content(content)) if isinstance(content, str) else None
                if problem:
                    return {"success": False, "error": f"Operation {position}: {problem}"}
        limit = self.limit(target)
        previous: dict[str, Any] = {}

        def change(entries: list[str]) -> tuple[list[str], str]:
            working = list(entries)
            overwritten: dict[str, dict[int, str]] = {"replaced_entries": {}, "removed_entries": {}}
            for position, op in enumerate(operations, start=1):
                error = self._apply_batch_op(working, op if isinstance(op, dict) else {}, position, overwritten)
                if error:
                    action = op.get("action") if isinstance(op, dict) else None
                    raise self._failure(
                        target,
                        f"Operation {position} ({action or 'unknown'}): {error} No operations "
                        "were applied (batch is all-or-nothing).",
                        entries,
                    )
            final = fmt.char_count(fmt.dedupe(working))
            if final > limit:
                raise self._failure(
                    target,
                    f"After applying all {len(operations)} operations, memory would be at "
                    f"{final:,}/{limit:,} chars -- over the limit.{_BATCH_ADVICE_FOR_AGENT}",
                    entries,
                )
            previous.clear()
            previous.update((key, value) for key, value in overwritten.items() if value)
            return working, f"Applied {len(operations)} operation(s)."

        return _with_previous(self.mutate(target, change, drift_guard=True), previous)

    def _apply_batch_op(self, working: list[str], op: dict, position: int = 0,
                        overwritten: dict[str, dict[int, str]] | None = None) -> str | None:  # fmt: skip
        """Apply one batch op to ``working`` in place; return its error text, if any.
        The entry a replace or remove overwrote goes into ``overwritten`` by op position."""
        action = op.get("action")
        content = clean_content(op.get("content"))
        old_text = clean_content(op.get("old_text"))
        if action == "add":
            if not content:
                return "content is required."
            if content not in working:
                working.append(content)
            return None
        if action not in ("replace", "remove"):
            return "unknown action. Use add, replace, or remove."
        if not old_text:
            return "old_text is required."
        if action == "replace" and not content:
            return "content is required (use action='remove' to delete)."
        matches = self._match(working, old_text)
        if not matches:
            return f"no entry matched '{old_text}'."
        if len({working[i] for i in matches}) > 1:
            return f"'{old_text}' matched multiple distinct entries -- be more specific."
        if overwritten is not None:
            overwritten["replaced_entries" if action == "replace" else "removed_entries"][position] = working[matches[0]]
        if action == "replace":
            working[matches[0]] = content
        else:
            del working[matches[0]]
        return None

    # --- identity-based edits (graph nodes, editors) -------------------------------
    def _resolve_fingerprint(self, entries: list[str], fingerprint: str) -> int:
        for index, entry in enumerate(entries):
            if fmt.fingerprint(entry) == fingerprint:
                return index
        raise StoreRefusal(
            {
                "success": False,
                "error": "memory node id is stale — refresh the graph (the entry changed or "
                "was removed since it was read).",
            }
        )

    def replace_by_fingerprint(self, target: str, fingerprint: str, new_content: str | None) -> dict:
        """Overwrite the entry whose fingerprint matches; never retarget a neighbour."""
        new_content = clean_content(new_content)
        if not new_content:
            return {"success": False, "error": "empty memory — use delete to remove it"}
        problem = content_problem(new_content)
        if problem:
            return {"success": False, "error": problem}

        previous: dict[str, Any] = {}

        def change(entries: list[str]) -> tuple[list[str], str]:
            index = self._resolve_fingerprint(entries, fingerprint)
            if entries[index] == new_content:
                previous.clear()
                return entries, "No change: the entry already has this text."
            previous["replaced_entry"] = entries[index]
            return self._replaced(target, entries, index, new_content), "Entry replaced."

        return _with_previous(self.mutate(target, change, drift_guard=True), previous)

    def remove_by_fingerprint(self, target: str, fingerprint: str) -> dict:
        previous: dict[str, Any] = {}

        def change(entries: list[str]) -> tuple[list[str], str]:
            index = self._resolve_fingerprint(entries, fingerprint)
            previous["removed_entry"] = entries[index]
            return entries[:index] + entries[index + 1 :], "Entry removed."

        return _with_previous(self.mutate(target, change, drift_guard=True), previous)

    def normalise_file(self, target: str) -> dict:
        """Rewrite a drifted file canonically after a backup; only when a person asks."""

        def change(entries: list[str]) -> tuple[list[str], str]:
            return list(entries), "File rewritten in canonical form."

        path = self.path(target)
        try:
            current = read_store_file(path)
        except StoreReadError as exc:
            return {"success": False, "error": str(exc)}
        if current.exists and current.raw.strip():
            try:
                self._backup(current)
            except OSError as exc:
                return {"success": False, "error": f"Could not back up {path.name}: {exc}"}
        return self.mutate(target, change, drift_guard=False)
