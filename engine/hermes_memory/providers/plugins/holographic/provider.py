"""``HolographicMemoryProvider``: the local fact-store provider, named ``holographic``.

Configuration lives in config.yaml under ``plugins.hermes-memory-store`` (spec §10):
``db_path`` (default ``$HERMES_HOME/memory_store.db``), ``auto_extract``,
``default_trust``, ``min_trust_threshold``, ``temporal_decay_half_life`` (days, 0 = off),
``hrr_dim`` and ``hrr_weight``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from ....config import get_config_value, set_config_value
from ....fileio import UnsafeFileError
from ....home import HermesHome
from ....memory.scan import scan_for_threats
from ...base import MemoryProvider, RecallStatus
from ...fencing import sanitize_context
from ...tools import tool_error
from .extraction import extract_facts
from .retrieval import CATEGORIES, FactRetriever, half_life_days
from .store import FactStore

logger = logging.getLogger(__name__)

PROVIDER_NAME = "holographic"
CONFIG_KEY = "plugins.hermes-memory-store"
DEFAULT_DB_FILE = "memory_store.db"
PREFETCH_LIMIT = 5
RECALL_LABEL = "Holographic Memory"

FACT_STORE_SCHEMA: dict[str, Any] = {
    "name": "fact_store",
    "description": (
        "Structured long-term facts with entity links and trust scores, for deep recall "
        "beyond the always-on memory tool.\n"
        "Actions: add (store a durable fact), search (keywords), probe (everything about "
        "one entity), related (what connects to an entity), reason (facts linking SEVERAL "
        "entities at once), contradict (find facts that disagree), update, remove, list.\n"
        "Before answering a question about the user, probe or reason first."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": [
                    "add",
                    "search",
                    "probe",
                    "related",
                    "reason",
                    "contradict",
                    "update",
                    "remove",
                    "list",
                ],
            },
            "content": {"type": "string", "description": "The fact (required for add)."},
            "query": {"type": "string", "description": "Keywords (required for search)."},
            "entity": {"type": "string", "description": "An entity name, for probe and related."},
            "entities": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Entity names, for reason.",
            },
            "fact_id": {"type": "integer", "description": "The fact, for update and remove."},
            "category": {"type": "string", "enum": list(CATEGORIES)},
            "tags": {"type": "string", "description": "Comma-separated tags."},
            "trust_delta": {"type": "number", "description": "Trust change, for update."},
            "min_trust": {"type": "number", "description": "Lowest trust to return (default 0.3)."},
            "limit": {"type": "integer", "description": "Most results to return (default 10)."},
        },
        "required": ["action"],
    },
}

FACT_FEEDBACK_SCHEMA: dict[str, Any] = {
    "name": "fact_feedback",
    "description": (
        "Rate a fact you used: 'helpful' when it was right, 'unhelpful' when it was wrong "
        "or stale. Ratings move its trust, so good facts rise and bad ones sink."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["helpful", "unhelpful"]},
            "fact_id": {"type": "integer", "description": "The fact to rate."},
        },
        "required": ["action", "fact_id"],
    },
}


def is_truthy_value(value: Any) -> bool:
    """Config truthiness where the string "false" is false (issue #57682)."""
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "on", "y"}
    return bool(value)


def _number(config: dict[str, Any], key: str, default: float, kind: type = float) -> Any:
    value = config.get(key, default)
    try:
        return kind(value)
    except (TypeError, ValueError):
        logger.warning(
            "%s.%s should be a number, not %r; using %s.", CONFIG_KEY, key, value, default
        )
        return default


def recalled_text(fact: dict[str, Any]) -> str:
    """A fact's content as it may reach the model: untrusted (an older database, another
    writer, or upstream's provider stored it unscanned), so fence tags and system notes are
    removed and a fact the scanner refuses is replaced by a placeholder."""
    content = sanitize_context(str(fact.get("content") or ""))
    threats = scan_for_threats(content, "strict")
    if threats:
        return (
            f"[BLOCKED: fact {fact.get('fact_id', '?')} contained threat pattern(s): "
            f"{', '.join(threats)}. Remove it with fact_store(action='remove').]"
        )
    return content


def _recalled(value: Any) -> Any:
    """Facts in a tool result (lists, or dicts holding facts), with their content cleaned."""
    if isinstance(value, list):
        return [_recalled(item) for item in value]
    if isinstance(value, dict):
        if "content" in value:
            return {**value, "content": recalled_text(value)}
        return {key: _recalled(item) for key, item in value.items()}
    return value


def load_plugin_config(home: HermesHome) -> dict[str, Any]:
    section = get_config_value(home, CONFIG_KEY, {})
    return dict(section) if isinstance(section, dict) else {}


def resolve_db_path(value: Any, home: HermesHome) -> Path:
    """``db_path`` with ``$HERMES_HOME``/``${HERMES_HOME}`` and ``~`` expanded.

    A relative path is taken relative to the home, not the working directory, so the
    database never depends on where the agent was started.
    """
    if not isinstance(value, str) or not value.strip():
        return home.memory_store_db
    text = (
        value.strip()
        .replace("${HERMES_HOME}", str(home.path))
        .replace("$HERMES_HOME", str(home.path))
    )
    path = Path(text).expanduser()
    return path if path.is_absolute() else home.path / path


class HolographicMemoryProvider(MemoryProvider):
    """Facts in SQLite with full-text search, entities, trust feedback and HRR vectors."""

    #: Where this provider's settings live in config.yaml (read by ``provider status``).
    config_key = CONFIG_KEY

    def __init__(
        self, config: dict[str, Any] | None = None, *, home: HermesHome | None = None
    ) -> None:
        self._explicit_config = config
        self._config: dict[str, Any] = dict(config or {})
        self._home = home
        self._store: FactStore | None = None
        self._retriever: FactRetriever | None = None
        self._session_id = ""
        self._agent_context = "primary"
        self._last_recall: RecallStatus | None = None
        self._init_error: str | None = None  # why the store could not be opened

    # --- identity and setup -----------------------------------------------------------------
    @property
    def name(self) -> str:
        return PROVIDER_NAME

    def is_available(self) -> bool:
        return True  # SQLite ships with Python; NumPy is optional

    def get_config_schema(self) -> list[dict[str, Any]]:
        return [
            {
                "key": "db_path",
                "description": "SQLite database path",
                "default": f"$HERMES_HOME/{DEFAULT_DB_FILE}",
            },
            {
                "key": "auto_extract",
                "description": "Harvest preference and decision facts at session end",
                "default": "false",
                "choices": ["true", "false"],
            },
            {"key": "default_trust", "description": "Trust score of a new fact", "default": "0.5"},
            {"key": "hrr_dim", "description": "HRR vector dimensions", "default": "1024"},
        ]

    def save_config(self, values: dict[str, Any], hermes_home: str) -> None:
        """Merge ``values`` into ``plugins.hermes-memory-store``, keeping config.yaml's comments."""
        home = HermesHome.resolve(hermes_home)
        for key, value in values.items():
            set_config_value(home, f"{CONFIG_KEY}.{key}", value)

    @property
    def store(self) -> FactStore | None:
        return self._store

    @property
    def retriever(self) -> FactRetriever | None:
        return self._retriever

    # --- lifecycle -------------------------------------------------------------------------
    def initialize(self, session_id: str, **kwargs: Any) -> None:
        home_arg = kwargs.get("hermes_home")
        home = HermesHome.resolve(home_arg) if home_arg else (self._home or HermesHome.resolve())
        self._home = home
        if self._explicit_config is None:
            self._config = load_plugin_config(home)
        config = self._config
        hrr_dim = max(1, _number(config, "hrr_dim", 1024, int))
        if self._store is not None:  # re-initialised for a new session: reopen cleanly
            self._store.close()
            self._store = self._retriever = None
        self._init_error = None
        try:
            self._store = FactStore(
                resolve_db_path(config.get("db_path"), home),
                default_trust=_number(config, "default_trust", 0.5),
                hrr_dim=hrr_dim,
            )
        except UnsafeFileError as exc:  # a db_path linked out of the home: refused, said why
            self._init_error = str(exc)
            raise
        self._retriever = FactRetriever(
            self._store,
            temporal_decay_half_life=half_life_days(config.get("temporal_decay_half_life", 0)),
            hrr_weight=_number(config, "hrr_weight", 0.3),
            hrr_dim=hrr_dim,
        )
        self._session_id = session_id
        self._agent_context = str(kwargs.get("agent_context") or "primary")

    @property
    def min_trust(self) -> float:
        return _number(self._config, "min_trust_threshold", 0.3)

    def _writes_allowed(self) -> bool:
        # Cron and subagent sessions must not rewrite what the user's own sessions learned.
        return self._agent_context == "primary"

    def system_prompt_block(self) -> str:
        if self._store is None:
            return ""
        try:
            total = self._store.count_facts()
        except Exception:  # a locked or broken DB must not break the prompt
            total = 0
        if total == 0:
            return (
                "# Holographic Memory\n"
                "Active. Empty fact store — proactively add facts the user would expect you "
                "to remember.\n"
                "Use fact_store(action='add') for durable facts about people, projects, "
                "preferences and decisions.\n"
                "Use fact_feedback to rate facts after using them (trains trust scores)."
            )
        if self._store.vectors_enabled:
            capabilities = (
                "probe entities (algebraic), reason across entities (compositional), "
                "related (structural adjacency), contradict (conflict detection)"
            )
        else:
            capabilities = (
                "search (keyword), probe/related/reason (keyword fallback — install numpy "
                "for algebraic retrieval)"
            )
        return (
            "# Holographic Memory\n"
            f"Active. {total} facts stored with entity resolution and trust scoring.\n"
            f"Use fact_store to search, {capabilities}, or add facts.\n"
            "Use fact_feedback to rate facts after using them (trains trust scores)."
        )

    def prefetch(self, query: str, *, session_id: str = "") -> str:
        self._last_recall = None
        if self._retriever is None or not query or not query.strip():
            return ""
        try:
            results = self._retriever.search(query, min_trust=self.min_trust, limit=PREFETCH_LIMIT)
        except Exception as exc:  # recall is best-effort
            logger.debug("Holographic prefetch failed: %s", exc)
            return ""
        if not results:
            return ""
        self._last_recall = RecallStatus(RECALL_LABEL, len(results))
        # One line per fact: a fact with line breaks must not forge bullets of its own.
        lines = [
            f"- [{fact['trust_score']:.1f}] {' '.join(recalled_text(fact).split())}"
            for fact in results
        ]
        return "## Holographic Memory\n" + "\n".join(lines)

    def recall_status(self) -> RecallStatus | None:
        return self._last_recall

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        return [FACT_STORE_SCHEMA, FACT_FEEDBACK_SCHEMA]

    def handle_tool_call(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        if tool_name == "fact_store":
            return self._guarded(self._fact_store, args)
        if tool_name == "fact_feedback":
            return self._guarded(self._fact_feedback, args)
        return tool_error(f"Unknown tool: {tool_name}")

    def on_memory_write(
        self, action: str, target: str, content: str, metadata: dict[str, Any] | None = None
    ) -> None:
        """Mirror built-in ``add`` writes as facts (replace and remove are not mirrored)."""
        if action != "add" or not content or self._store is None or not self._writes_allowed():
            return
        try:
            self._store.add_fact(content, category="user_pref" if target == "user" else "general")
        except Exception as exc:
            logger.debug("Holographic memory-write mirror failed: %s", exc)

    def on_session_end(self, messages: list[dict[str, Any]]) -> None:
        if not is_truthy_value(self._config.get("auto_extract", False)):
            return
        if self._store is None or not messages or not self._writes_allowed():
            return
        added = 0
        for content, category in extract_facts(messages):
            try:
                self._store.add_fact(content, category=category)
                added += 1
            except Exception as exc:
                logger.debug("Holographic auto-extract skipped a fact: %s", exc)
        if added:
            logger.info("Auto-extracted %d facts from the session", added)

    def shutdown(self) -> None:
        if self._store is not None:
            try:
                self._store.close()
            except Exception as exc:
                logger.debug("Holographic store close failed: %s", exc)
        self._store = None
        self._retriever = None

    # --- tools ------------------------------------------------------------------------------
    def _guarded(self, handler: Any, args: dict[str, Any]) -> str:
        if self._store is None or self._retriever is None:
            return tool_error(self._init_error or "The holographic fact store is not initialised.")
        try:
            return json.dumps(
                handler(self._store, self._retriever, args), ensure_ascii=False, default=str
            )
        except KeyError as exc:
            return tool_error(f"Missing required argument: {exc}")
        except Exception as exc:  # every failure is a tool result, never a crash
            return tool_error(str(exc))

    @staticmethod
    def _limit(args: dict[str, Any]) -> int:
        return int(args.get("limit", 10))

    def _fact_store(
        self, store: FactStore, retriever: FactRetriever, args: dict[str, Any]
    ) -> dict[str, Any]:
        action = args["action"]
        category = args.get("category")
        if action == "add":
            fact_id = store.add_fact(
                args["content"], category=category or "general", tags=args.get("tags", "")
            )
            return {"fact_id": fact_id, "status": "added"}
        if action == "search":
            results = retriever.search(
                args["query"],
                category=category,
                min_trust=float(args.get("min_trust", self.min_trust)),
                limit=self._limit(args),
            )
        elif action == "probe":
            results = retriever.probe(args["entity"], category=category, limit=self._limit(args))
        elif action == "related":
            results = retriever.related(args["entity"], category=category, limit=self._limit(args))
        elif action == "reason":
            entities = args.get("entities") or []
            if not entities:
                raise ValueError("reason requires 'entities' list")
            results = retriever.reason(list(entities), category=category, limit=self._limit(args))
        elif action == "contradict":
            results = retriever.contradict(category=category, limit=self._limit(args))
        elif action == "update":
            updated = store.update_fact(
                int(args["fact_id"]),
                content=args.get("content"),
                trust_delta=float(args["trust_delta"])
                if args.get("trust_delta") is not None
                else None,
                tags=args.get("tags"),
                category=category,
            )
            return {"updated": updated}
        elif action == "remove":
            return {"removed": store.remove_fact(int(args["fact_id"]))}
        elif action == "list":
            facts = store.list_facts(
                category=category,
                min_trust=float(args.get("min_trust", 0.0)),
                limit=self._limit(args),
            )
            return {"facts": _recalled(facts), "count": len(facts)}
        else:
            raise ValueError(f"Unknown action: {action}")
        return {"results": _recalled(results), "count": len(results)}

    @staticmethod
    def _fact_feedback(
        store: FactStore, retriever: FactRetriever, args: dict[str, Any]
    ) -> dict[str, Any]:
        action = args["action"]
        if action not in ("helpful", "unhelpful"):
            raise ValueError(f"Unknown feedback action: {action}. Use helpful or unhelpful.")
        fact_id = int(args["fact_id"])
        try:
            return store.record_feedback(fact_id, helpful=action == "helpful")
        except KeyError as exc:  # an unknown fact, not a missing argument
            raise ValueError(exc.args[0]) from None


__all__ = [
    "CONFIG_KEY",
    "FACT_FEEDBACK_SCHEMA",
    "FACT_STORE_SCHEMA",
    "HolographicMemoryProvider",
    "PROVIDER_NAME",
    "is_truthy_value",
    "load_plugin_config",
    "resolve_db_path",
]
