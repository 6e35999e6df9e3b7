"""Session history: Hermes' ``state.db`` (schemas, read-only access, search, provenance).

* :class:`SessionStore` reads a database without ever writing it;
* :func:`search_messages` is FTS5 search with LIKE fallbacks (:func:`sanitize_fts5_query`
  makes any typed text a valid query);
* :func:`session_search` is the agent-facing tool (discover, scroll, read, browse and an
  optional LLM summary mode);
* :func:`memory_provenance` dates memory entries from the memory-tool calls in history;
* :class:`SessionWriter` and :func:`create_modern_db` build databases for demos and tests.
"""

from .errors import (
    SessionDBCorrupt,
    SessionDBInvalid,
    SessionDBLocked,
    SessionDBMissing,
    SessionStoreError,
)
from .fts_query import contains_cjk, query_terms, sanitize_fts5_query
from .provenance import Provenance, ProvenanceEvent, memory_provenance
from .schema import SchemaInfo, create_early_db, create_modern_db, detect_schema
from .search import SearchOutcome, add_snippets, scan_messages, search_messages, search_outcome
from .store import SessionStore
from .summary import SummarySettings, settings_from_config
from .tool import session_search
from .writer import SessionWriter, append_message, create_session, end_session

__all__ = [
    "Provenance",
    "ProvenanceEvent",
    "SchemaInfo",
    "SearchOutcome",
    "SessionDBCorrupt",
    "SessionDBInvalid",
    "SessionDBLocked",
    "SessionDBMissing",
    "SessionStore",
    "SessionStoreError",
    "SessionWriter",
    "SummarySettings",
    "add_snippets",
    "append_message",
    "contains_cjk",
    "create_early_db",
    "create_modern_db",
    "create_session",
    "detect_schema",
    "end_session",
    "memory_provenance",
    "query_terms",
    "sanitize_fts5_query",
    "scan_messages",
    "search_messages",
    "search_outcome",
    "session_search",
    "settings_from_config",
]
