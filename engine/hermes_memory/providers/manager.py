"""``MemoryManager``: fans the agent's memory hooks out to its providers (spec §4).

The built-in provider is always accepted; at most one external provider may join it (a
second is refused with a warning, never an exception). Three rules hold for every hook:

* **Isolation.** One provider's failure is logged and swallowed; the others still run.
* **Egress redaction.** Everything handed to a provider is scrubbed of secrets first.
  Captured turn text (turns, transcripts, recall queries) also loses the recalled-memory
  fence it may carry, so recall never feeds on itself.
* **Bounded waiting.** External prefetch runs on its own thread with a timeout; turn
  sync and next-turn prefetch go to one FIFO worker thread; shutdown drains that worker
  for a bounded time, then shuts providers down in reverse registration order.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, wait
from typing import Any

from ..home import HermesHome
from .base import (
    BUILTIN_PROVIDER_NAME,
    PRE_COMPRESS_CHECKPOINT_API_VERSION,
    MemoryProvider,
    ctx_bound,
    spawn_context_thread,
)
from .fencing import strip_recalled_context
from .redaction import EgressRedactor, map_strings
from .scaffolding import extract_user_instruction_from_skill_message
from .spill import SpillConfig, load_spill_config, spill_if_oversized
from .tools import CORE_TOOL_NAMES, normalize_tool_schema, tool_error
from .worker import SerialWorker, WorkerClosed

logger = logging.getLogger(__name__)

#: How long one external prefetch may take before the turn goes on without it.
DEFAULT_EXTERNAL_PREFETCH_TIMEOUT_S = _EXTERNAL_PREFETCH_TIMEOUT_S = 8.0
#: How long shutdown waits for queued provider writes.
DEFAULT_SYNC_DRAIN_TIMEOUT_S = _SYNC_DRAIN_TIMEOUT_S = 5.0
_LEGACY_PRE_COMPRESS_API_VERSION = 1
_MIRRORED_MEMORY_ACTIONS = frozenset({"add", "replace", "remove"})
#: Write origins (spec "write origins"): the agent's own turn, or its background review.
FOREGROUND = "foreground"
BACKGROUND_REVIEW = "background_review"


# --- provider signatures: providers are duck-typed and their call shapes vary ----------
def _parameters(fn: Callable[..., Any]) -> Any:
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return None


def _has_var_kwargs(params: Any) -> bool:
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _accepts_keyword(fn: Callable[..., Any], keyword: str, *, if_unknown: bool) -> bool:
    params = _parameters(fn)
    if params is None:
        return if_unknown
    if _has_var_kwargs(params):
        return True
    param = params.get(keyword)
    return param is not None and param.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


def _memory_write_style(provider: MemoryProvider) -> str:
    """How ``on_memory_write`` takes metadata: ``keyword``, ``positional`` or ``legacy`` (not at all)."""
    params = _parameters(provider.on_memory_write)
    if params is None or _has_var_kwargs(params) or "metadata" in params:
        return "keyword"
    positional = sum(p.kind is not inspect.Parameter.VAR_POSITIONAL for p in params.values())
    return "positional" if positional >= 4 else "legacy"


def _committed_write(result: Any) -> dict | None:
    """The memory tool's result when it committed a write; fails closed on anything else."""
    if isinstance(result, str):
        try:
            result = json.loads(result)
        except ValueError:
            return None
    if (
        isinstance(result, dict)
        and result.get("success") is True
        and result.get("staged") is not True
    ):
        return result
    return None


class MemoryManager:
    """The built-in provider (always first) plus at most one external provider."""

    def __init__(
        self,
        *,
        external_prefetch_timeout: float | None = None,
        hermes_home: str | os.PathLike[str] | HermesHome | None = None,
        sync_drain_timeout: float | None = None,
        redactor: EgressRedactor | None = None,
    ) -> None:
        timeout = (
            _EXTERNAL_PREFETCH_TIMEOUT_S
            if external_prefetch_timeout is None
            else float(external_prefetch_timeout)
        )
        if timeout <= 0:
            raise ValueError("external_prefetch_timeout must be positive")
        self._prefetch_timeout = timeout
        self._drain_timeout = (
            _SYNC_DRAIN_TIMEOUT_S if sync_drain_timeout is None else float(sync_drain_timeout)
        )
        self._home = (
            hermes_home
            if isinstance(hermes_home, HermesHome) or hermes_home is None
            else HermesHome.resolve(hermes_home)
        )
        self._redactor = redactor or EgressRedactor()
        self._providers: list[MemoryProvider] = []
        self._external: MemoryProvider | None = None
        self._tool_routes: dict[str, MemoryProvider] = {}
        self._spill_config = SpillConfig()
        self._tool_stats: dict[tuple[str, str], dict[str, int]] = {}
        # External prefetch: one thread per provider, remembered so a stuck call is skipped.
        self._prefetch_threads: dict[str, threading.Thread] = {}
        self._prefetch_lock = threading.Lock()
        # Background FIFO worker, created on first need; futures tracked by kind for shutdown.
        self._worker: SerialWorker | None = None
        self._worker_lock = threading.Lock()
        self._background: dict[Future, str] = {}
        self._shutting_down = False
        self._drain_state: dict[str, Any] = {
            "status": "not_started",
            "abandoned_writes": 0,
            "abandoned_prefetches": 0,
            "active_tasks": 0,
        }
        # The session the agent is in (from initialize_all / on_session_switch): what
        # its memory writes are attributed to.
        self._session_id = ""
        self._parent_session_id = ""
        self._platform = ""

    # --- registration -------------------------------------------------------------------
    def add_provider(self, provider: MemoryProvider) -> None:
        """Register ``provider``; a second external provider is refused with a warning.

        Tool schemas are read before any state changes, so a provider whose
        ``get_tool_schemas`` raises leaves the manager untouched (the exception propagates).
        """
        name = provider.name
        is_external = name != BUILTIN_PROVIDER_NAME
        if is_external and self._external is not None:
            logger.warning(
                "Rejected memory provider '%s' — external provider '%s' is already registered. "
                "Only one external memory provider is allowed at a time. Choose it with "
                "memory.provider in config.yaml.",
                name,
                self._external.name,
            )
            return
        schemas = list(provider.get_tool_schemas())
        if is_external:
            self._external = provider
            self._spill_config = self._load_spill_config()
        self._providers.append(provider)
        for raw in schemas:
            schema = normalize_tool_schema(raw)
            if schema is None:
                logger.warning(
                    "Memory provider '%s' returned a tool schema without a name; skipped (%r)",
                    name,
                    raw,
                )
                continue
            tool = schema["name"]
            if tool in CORE_TOOL_NAMES:
                logger.warning(
                    "Memory provider '%s' tool '%s' shadows a reserved core tool name; "
                    "registration ignored. Rename the provider's tool.",
                    name,
                    tool,
                )
            elif tool in self._tool_routes:
                logger.warning(
                    "Memory tool name conflict: '%s' already registered by %s, ignoring from %s",
                    tool,
                    self._tool_routes[tool].name,
                    name,
                )
            else:
                self._tool_routes[tool] = provider
        logger.info("Memory provider '%s' registered (%d tools)", name, len(schemas))

    @property
    def providers(self) -> list[MemoryProvider]:
        return list(self._providers)

    @property
    def external_provider(self) -> MemoryProvider | None:
        return self._external

    @property
    def external_prefetch_timeout(self) -> float:
        return self._prefetch_timeout

    def get_provider(self, name: str) -> MemoryProvider | None:
        return next((p for p in self._providers if p.name == name), None)

    def get_all_tool_names(self) -> set[str]:
        return set(self._tool_routes)

    def has_tool(self, tool_name: str) -> bool:
        return tool_name in self._tool_routes

    # --- the failure isolator -------------------------------------------------------------
    def _each_provider(
        self,
        label: str,
        call: Callable[[MemoryProvider], Any],
        *,
        level: int = logging.DEBUG,
        providers: list[MemoryProvider] | None = None,
        exc_info: bool = False,
    ) -> list[Any]:
        """``call(provider)`` for each provider in order; failures are logged, successes returned."""
        results: list[Any] = []
        for provider in self._providers if providers is None else providers:
            try:
                results.append(call(provider))
            except Exception as exc:  # isolation is the point
                logger.log(
                    level,
                    "Memory provider '%s' %s: %s",
                    provider.name,
                    label,
                    exc,
                    exc_info=exc_info,
                )
        return results

    def _redact(self, *values: Any) -> Any:
        return self._redactor.redact(*values)

    @staticmethod
    def _uncaptured(*values: Any) -> Any:
        """Captured turn text (strings, transcripts) without the recalled-memory fence, so
        recall does not recurse through what providers store (spec §4.5). One value in
        gives one value out; several give a tuple."""
        cleaned = [map_strings(value, strip_recalled_context) for value in values]
        return cleaned[0] if len(cleaned) == 1 else tuple(cleaned)

    def _home_or_default(self) -> HermesHome:
        return self._home if self._home is not None else HermesHome.resolve()

    def _load_spill_config(self) -> SpillConfig:
        try:
            return load_spill_config(self._home_or_default())
        except Exception:  # an unreadable config keeps the defaults
            return SpillConfig()

    # --- session start ------------------------------------------------------------------------
    def initialize_all(self, session_id: str, **kwargs: Any) -> None:
        """Initialise every provider; ``hermes_home`` is added when the caller left it out.

        A provider that fails to initialise stays registered (and keeps failing softly).
        """
        self._session_id = session_id or ""
        self._platform = str(kwargs.get("platform") or "")
        if "hermes_home" not in kwargs:
            kwargs["hermes_home"] = str(self._home_or_default().path)
        elif self._home is None:
            self._home = HermesHome.resolve(kwargs["hermes_home"])
        self._each_provider(
            "initialize failed",
            lambda p: p.initialize(session_id=session_id, **kwargs),
            level=logging.WARNING,
        )

    def build_system_prompt(self, *, include_external: bool = True) -> str:
        """Non-empty provider blocks joined by blank lines.

        Pass ``include_external=False`` when provider tools are withheld (§4.8): a block
        must never advertise tools the model cannot call.
        """
        providers = [
            p for p in self._providers if include_external or p.name == BUILTIN_PROVIDER_NAME
        ]
        blocks = self._each_provider(
            "system_prompt_block() failed",
            lambda p: p.system_prompt_block(),
            level=logging.WARNING,
            providers=providers,
        )
        return "\n\n".join(block for block in blocks if block and block.strip())

    # --- recall --------------------------------------------------------------------------------
    def prefetch_all(self, query: str, *, session_id: str = "") -> str:
        """Raw recalled context for the upcoming turn; wrap it with ``build_memory_context_block``."""
        clean = self._uncaptured(extract_user_instruction_from_skill_message(query))
        if not clean:
            return ""
        clean = self._redact(clean)
        parts = self._each_provider(
            "prefetch failed (non-fatal)",
            lambda p: self._prefetch_one(p, clean, session_id),
        )
        return "\n\n".join(part for part in parts if part and part.strip())

    def _prefetch_one(self, provider: MemoryProvider, query: str, session_id: str) -> str:
        if provider.name == BUILTIN_PROVIDER_NAME:
            return provider.prefetch(query, session_id=session_id)
        name = provider.name
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["value"] = provider.prefetch(query, session_id=session_id) or ""
            except Exception as exc:  # re-raised on the caller's thread
                outcome["error"] = exc

        with self._prefetch_lock:
            running = self._prefetch_threads.get(name)
            if running is not None and running.is_alive():
                # Never stack calls on a hung provider: skip it until its call returns.
                logger.debug("Memory provider '%s' prefetch still running; skipped this turn", name)
                return ""
            thread = spawn_context_thread(run, name=f"memory-prefetch-{name}")
            self._prefetch_threads[name] = thread
            thread.start()
        thread.join(self._prefetch_timeout)
        if thread.is_alive():
            logger.warning(
                "Memory provider '%s' prefetch timed out after %.1fs; skipping it until the "
                "stuck call returns",
                name,
                self._prefetch_timeout,
            )
            return ""
        with self._prefetch_lock:
            if self._prefetch_threads.get(name) is thread:
                del self._prefetch_threads[name]
        if "error" in outcome:
            raise outcome["error"]
        result = outcome.get("value", "")
        if not isinstance(result, str):
            result = str(result)
        if result.strip():
            result = spill_if_oversized(
                result,
                home=self._home_or_default(),
                session_id=session_id,
                source=f"{name} memory prefetch",
                config=self._spill_config,
            )
        return result

    def describe_recall(self) -> str:
        """The "🧠 Provider — recalled N memories" line for the user; ``""`` when nothing was recalled."""
        segments = []
        for status in self._each_provider(
            "recall_status failed (non-fatal)", lambda p: p.recall_status()
        ):
            if status is None:
                continue
            if status.count == 1:
                detail = "recalled 1 memory"
            elif status.count > 1:
                detail = f"recalled {status.count} memories"
            else:
                detail = "recalled relevant memory"
            segments.append(f"{status.glyph} {status.provider_label} — {detail}")
        return "  ".join(segments)

    def queue_prefetch_all(self, query: str, *, session_id: str = "") -> None:
        """Start background recall for the next turn on the FIFO worker."""
        providers = list(self._providers)
        if not providers:
            return
        clean = self._uncaptured(extract_user_instruction_from_skill_message(query))
        if not clean:
            return
        clean = self._redact(clean)
        self._submit_background(
            lambda: self._each_provider(
                "queue_prefetch failed (non-fatal)",
                lambda p: p.queue_prefetch(clean, session_id=session_id),
                providers=providers,
            ),
            kind="prefetch",
        )

    # --- writes ---------------------------------------------------------------------------
    def sync_all(
        self,
        user_content: str,
        assistant_content: str,
        *,
        session_id: str = "",
        messages: list[dict[str, Any]] | None = None,
        turn_author: dict[str, Any] | None = None,
    ) -> None:
        """Hand a completed turn to every provider, in order, on the FIFO worker. Never inline
        once an external provider is registered: a provider's sync may block for minutes."""
        providers = list(self._providers)
        if not providers:
            return
        clean_user, assistant, transcript = self._uncaptured(
            extract_user_instruction_from_skill_message(user_content), assistant_content, messages
        )
        if not clean_user:
            return
        clean_user, assistant, transcript = self._redact(clean_user, assistant, transcript)
        optional = {"messages": transcript, "turn_author": turn_author}

        def sync(provider: MemoryProvider) -> None:
            kwargs: dict[str, Any] = {"session_id": session_id}
            for keyword, value in optional.items():
                if value is not None and _accepts_keyword(
                    provider.sync_turn, keyword, if_unknown=True
                ):
                    kwargs[keyword] = value
            provider.sync_turn(clean_user, assistant, **kwargs)

        self._submit_background(
            lambda: self._each_provider(
                "sync_turn failed", sync, level=logging.WARNING, providers=providers
            )
        )

    def _submit_background(self, fn: Callable[[], Any], *, kind: str = "write") -> None:
        """Queue ``fn`` (bound to the caller's contextvars) on the FIFO worker.

        With only the built-in provider (whose sync and queue hooks are no-ops) the task
        runs inline, so a builtin-only manager never starts a thread. If the worker
        cannot be started, the task also runs inline: slow but correct.
        """
        fn = ctx_bound(fn)
        future: Future | None = None
        with self._worker_lock:
            if self._shutting_down:
                logger.warning("Memory manager is shutting down; rejecting late %s task", kind)
                return
            if self._external is not None:
                if self._worker is None:
                    self._worker = SerialWorker("mem-sync")
                try:
                    future = self._worker.submit(fn)
                except WorkerClosed:
                    logger.warning("Memory worker closed; rejecting late %s task", kind)
                    return
                except RuntimeError as exc:  # the thread could not start
                    logger.warning("Could not start the memory worker (%s); running inline", exc)
                else:
                    self._background[future] = kind
        if future is not None:
            # Outside the lock: a future that is already done runs the callback right away.
            future.add_done_callback(self._forget_background)
            return
        try:
            fn()
        except Exception as exc:  # fan-outs isolate internally; belt and braces
            logger.debug("Inline memory task failed: %s", exc)

    def _forget_background(self, future: Future) -> None:
        with self._worker_lock:
            self._background.pop(future, None)

    def flush_pending(self, timeout: float | None = None) -> bool:
        """Wait until everything queued so far has run; False on timeout.

        The worker is FIFO, so a no-op task finishing proves every earlier one finished.
        """
        worker = self._worker
        if worker is None:
            return True
        try:
            marker = worker.submit(lambda: None)
        except WorkerClosed:
            return True
        try:
            marker.result(timeout=timeout)
        except TimeoutError:
            return False
        return True

    # --- shutdown ---------------------------------------------------------------------------
    def shutdown_all(self) -> None:
        """Drain the worker (bounded), then shut providers down in reverse registration order."""
        self._drain_worker()
        self._each_provider(
            "shutdown failed",
            lambda p: p.shutdown(),
            level=logging.WARNING,
            providers=self._providers[::-1],
        )

    @property
    def shutdown_drain_state(self) -> dict[str, Any]:
        """How the last shutdown drain went (``status``, abandoned counts, ``active_tasks``)."""
        with self._worker_lock:
            return dict(self._drain_state)

    def _drain_worker(self) -> None:
        with self._worker_lock:
            self._shutting_down = True
            worker, self._worker = self._worker, None
            tracked = dict(self._background)
            self._drain_state = {
                "status": "draining" if worker is not None else "drained",
                "abandoned_writes": 0,
                "abandoned_prefetches": 0,
                "active_tasks": sum(not future.done() for future in tracked),
            }
        if worker is None:
            return
        worker.close()  # stops new work; everything already queued keeps its turn
        _, pending = wait(tuple(tracked), timeout=self._drain_timeout)
        cancelled = [tracked[future] for future in pending if future.cancel()]
        active = len(pending) - len(cancelled)
        abandoned_prefetches = cancelled.count("prefetch")
        if active == 0:
            worker.join(timeout=self._drain_timeout)
        with self._worker_lock:
            self._drain_state.update(
                status="timed_out" if pending else "drained",
                abandoned_writes=len(cancelled) - abandoned_prefetches,
                abandoned_prefetches=abandoned_prefetches,
                active_tasks=active,
            )
        if pending:
            logger.warning(
                "Memory shutdown drain timed out after %.2fs; abandoning %d queued memory "
                "write(s) and %d queued prefetch(es); %d active task(s) remain detached",
                self._drain_timeout,
                len(cancelled) - abandoned_prefetches,
                abandoned_prefetches,
                active,
            )

    # --- other hooks ---------------------------------------------------------------------------
    def on_turn_start(self, turn_number: int, message: str, **kwargs: Any) -> None:
        message = self._redact(self._uncaptured(message))

        def tick(provider: MemoryProvider) -> None:
            params = _parameters(provider.on_turn_start)
            if params is None or _has_var_kwargs(params):
                accepted = kwargs
            else:
                accepted = {key: value for key, value in kwargs.items() if key in params}
            provider.on_turn_start(turn_number, message, **accepted)

        self._each_provider("on_turn_start failed", tick)

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        transcript = list(self._redact(self._uncaptured(list(messages or []))))
        self._each_provider(
            "on_session_end failed",
            lambda p: p.on_session_end(transcript),
            level=logging.WARNING,
            exc_info=True,
        )

    def on_session_switch(
        self,
        new_session_id: str,
        *,
        parent_session_id: str = "",
        reset: bool = False,
        rewound: bool = False,
        **kwargs: Any,
    ) -> None:
        if not new_session_id:
            return
        self._session_id, self._parent_session_id = new_session_id, parent_session_id or ""
        if rewound:  # only when set, so it never lands in providers' **kwargs otherwise
            kwargs["rewound"] = True
        self._each_provider(
            "on_session_switch failed",
            lambda p: p.on_session_switch(
                new_session_id, parent_session_id=parent_session_id, reset=reset, **kwargs
            ),
        )

    def commit_session_boundary_async(
        self,
        messages: list[dict[str, Any]],
        *,
        new_session_id: str,
        parent_session_id: str = "",
        reason: str = "new_session",
    ) -> None:
        """``on_session_end`` then ``on_session_switch`` as ONE background task.

        ``/new`` stays instant, and the FIFO worker guarantees the old session's
        extraction runs before providers rebind to the new id.
        """
        if not self._providers:
            return
        snapshot = list(messages or [])

        def boundary() -> None:
            try:
                self.on_session_end(snapshot)
            except Exception as exc:
                logger.warning("Session-boundary extraction failed: %s", exc)
            try:
                self.on_session_switch(
                    new_session_id, parent_session_id=parent_session_id, reset=True, reason=reason
                )
            except Exception as exc:
                logger.warning("Session-boundary switch failed: %s", exc)

        self._submit_background(boundary)

    @staticmethod
    def _checkpoint_version(provider: MemoryProvider) -> int | None:
        try:
            return int(
                getattr(
                    provider,
                    "pre_compress_checkpoint_api_version",
                    _LEGACY_PRE_COMPRESS_API_VERSION,
                )
            )
        except (TypeError, ValueError):
            return None

    def supports_pre_compress_checkpoint(
        self, api_version: int = PRE_COMPRESS_CHECKPOINT_API_VERSION
    ) -> bool:
        versions = (self._checkpoint_version(p) for p in self._providers)
        return any(v is not None and v >= api_version for v in versions)

    def on_pre_compress(
        self,
        messages: list[dict[str, Any]],
        *,
        evidence_messages: list[dict[str, Any]] | None = None,
        require_checkpoint: bool = False,
        checkpoint_api_version: int = PRE_COMPRESS_CHECKPOINT_API_VERSION,
    ) -> str:
        """Text providers add to the compression prompt; see spec §4.4 for the checkpoint rules."""
        messages, evidence_messages = self._redact(
            *self._uncaptured(list(messages or []), evidence_messages)
        )
        parts: list[str] = []
        checkpointed = False
        for provider in self._providers:
            version = self._checkpoint_version(provider) or _LEGACY_PRE_COMPRESS_API_VERSION
            is_checkpoint = version >= checkpoint_api_version
            handed = (
                evidence_messages if is_checkpoint and evidence_messages is not None else messages
            )
            kwargs: dict[str, Any] = {}
            if is_checkpoint and _accepts_keyword(
                provider.on_pre_compress, "require_checkpoint", if_unknown=False
            ):
                kwargs["require_checkpoint"] = require_checkpoint
            try:
                result = provider.on_pre_compress(handed, **kwargs)
            except Exception as exc:
                logger.debug("Memory provider '%s' on_pre_compress failed: %s", provider.name, exc)
                if require_checkpoint and is_checkpoint:
                    raise
                continue
            if result and result.strip():
                parts.append(result)
            checkpointed = checkpointed or is_checkpoint
        if require_checkpoint and not checkpointed:
            raise RuntimeError(
                f"No active memory provider completed pre-compress checkpoint API v{checkpoint_api_version}"
            )
        return "\n\n".join(parts)

    def on_memory_write(
        self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None
    ) -> None:
        """Mirror a built-in write to the external provider (the built-in one is its source)."""
        content, metadata = self._redact(content, dict(metadata or {}))

        def notify(provider: MemoryProvider) -> None:
            style = _memory_write_style(provider)
            if style == "legacy":
                provider.on_memory_write(action, target, content)
            elif style == "positional":
                provider.on_memory_write(action, target, content, dict(metadata))
            else:
                provider.on_memory_write(action, target, content, metadata=dict(metadata))

        external = [p for p in self._providers if p.name != BUILTIN_PROVIDER_NAME]
        self._each_provider("on_memory_write failed", notify, providers=external)

    def notify_memory_tool_write(
        self,
        tool_result: Any,
        tool_args: dict[str, Any],
        *,
        build_metadata: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        """Mirror a committed ``memory`` tool call (single op or batch) to external providers.

        ``previous_content`` comes only from the committed store result
        (``replaced_entry``/``removed_entry``, or the batch ``*_entries`` keyed by 1-based
        op index), never from the search argument.
        """
        result = _committed_write(tool_result)
        if result is None:
            return
        target = str(tool_args.get("target") or "memory")
        operations = tool_args.get("operations")
        batched = isinstance(operations, list) and bool(operations)
        for index, op in enumerate(operations if batched else [tool_args], start=1):
            action = str(op.get("action") or "") if isinstance(op, dict) else ""
            if action not in _MIRRORED_MEMORY_ACTIONS:
                continue
            try:
                metadata = dict(build_metadata() if build_metadata else {})
                metadata.pop("previous_content", None)
                if op.get("old_text"):
                    metadata["old_text"] = str(op["old_text"])
                field = {"replace": "replaced", "remove": "removed"}.get(action)
                if field:
                    if batched:
                        entries = result.get(f"{field}_entries")
                        previous = (
                            entries.get(str(index), entries.get(index))
                            if isinstance(entries, dict)
                            else None
                        )
                    else:
                        previous = result.get(f"{field}_entry")
                    if isinstance(previous, str) and previous:
                        metadata["previous_content"] = previous
                content = str(op.get("content") or op.get("new_text") or "")
                self.on_memory_write(action, target, content, metadata=metadata)
            except Exception as exc:
                logger.debug("notify_memory_tool_write failed for op %s: %s", action, exc)

    # --- the agent's memory tool ----------------------------------------------------------
    @property
    def session_id(self) -> str:
        return self._session_id

    @contextlib.contextmanager
    def writing(self, origin: str = FOREGROUND) -> Iterator[None]:
        """Attribute the memory and skill writes made inside the block to ``origin``
        (``foreground`` or ``background_review``) and to this manager's session: history
        records them so, and a write-approval gate stages them so."""
        from ..history.recording import writing_as
        from ..pending.gate import write_origin, write_session

        session = self._session_id or None
        origin_token, session_token = write_origin.set(origin), write_session.set(session)
        try:
            with writing_as(origin, session=session, platform=self._platform or None):
                yield
        finally:
            write_session.reset(session_token)
            write_origin.reset(origin_token)

    def memory_write_metadata(self, origin: str = FOREGROUND, **extra: Any) -> dict[str, Any]:
        """What upstream hands providers with a mirrored write (empty values dropped)."""
        metadata = {
            "write_origin": BACKGROUND_REVIEW if origin == BACKGROUND_REVIEW else "assistant_tool",
            "execution_context": BACKGROUND_REVIEW if origin == BACKGROUND_REVIEW else FOREGROUND,
            "session_id": self._session_id,
            "parent_session_id": self._parent_session_id,
            "platform": self._platform or os.environ.get("HERMES_SESSION_SOURCE") or "cli",
            "tool_name": "memory",
            **extra,
        }
        return {key: value for key, value in metadata.items() if value not in (None, "")}

    def handle_memory_tool(self, args: dict[str, Any], *, origin: str = FOREGROUND, **metadata: Any) -> str:
        """One ``memory`` tool call on the built-in store, as the agent loop intercepts it:
        written as ``origin`` in this session (see :meth:`writing`), then mirrored to the
        external provider with upstream's metadata (``task_id``, ``tool_call_id``, ...)
        when it committed. Returns the tool's JSON string."""
        from ..memory.tool import memory_tool

        builtin = self.get_provider(BUILTIN_PROVIDER_NAME)
        store = getattr(builtin, "store", None)
        args = args if isinstance(args, dict) else {}
        with self.writing(origin):
            text = memory_tool(
                action=args.get("action"), target=args.get("target", "memory"),
                content=args.get("content"), old_text=args.get("old_text"),
                operations=args.get("operations"), store=store,
            )  # fmt: skip
        try:
            result = json.loads(text)
        except ValueError:
            return text
        self.notify_memory_tool_write(
            result, args, build_metadata=lambda: self.memory_write_metadata(origin, **metadata)
        )
        return text

    def on_delegation(
        self, task: str, result: str, *, child_session_id: str = "", **kwargs: Any
    ) -> None:
        task, result = self._redact(task, result)
        self._each_provider(
            "on_delegation failed",
            lambda p: p.on_delegation(task, result, child_session_id=child_session_id, **kwargs),
        )

    # --- provider tools --------------------------------------------------------------------
    def get_all_tool_schemas(self) -> list[dict[str, Any]]:
        """Every provider tool schema once, bare form, reserved core names left out."""
        schemas: list[dict[str, Any]] = []
        seen: set[str] = set()

        def collect(provider: MemoryProvider) -> None:
            for raw in provider.get_tool_schemas():
                schema = normalize_tool_schema(raw)
                if schema is None:
                    logger.warning(
                        "Memory provider '%s' returned a tool schema without a name; skipped (%r)",
                        provider.name,
                        raw,
                    )
                elif schema["name"] not in CORE_TOOL_NAMES and schema["name"] not in seen:
                    schemas.append(schema)
                    seen.add(schema["name"])

        self._each_provider("get_tool_schemas() failed", collect, level=logging.WARNING)
        return schemas

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        """Route a provider tool call; always returns a JSON string."""
        provider = self._tool_routes.get(tool_name)
        if provider is None:
            return tool_error(f"No memory provider handles tool '{tool_name}'")
        args = self._redact(args)
        stats = self._tool_stats.setdefault((provider.name, tool_name), {"calls": 0, "errors": 0})
        stats["calls"] += 1
        try:
            return provider.handle_tool_call(tool_name, args, **kwargs)
        except Exception as exc:
            stats["errors"] += 1
            logger.error(
                "Memory provider '%s' handle_tool_call(%s) failed: %s",
                provider.name,
                tool_name,
                exc,
            )
            return tool_error(f"Memory tool '{tool_name}' failed: {exc}")

    @property
    def tool_call_stats(self) -> dict[tuple[str, str], dict[str, int]]:
        """Calls and errors per ``(provider, tool)`` since the manager was created."""
        return {key: dict(value) for key, value in self._tool_stats.items()}
