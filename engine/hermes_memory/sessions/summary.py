"""Summaries of past sessions by an auxiliary model (session_search v1/v2 summary mode).

Settings come from ``config.yaml``::

    auxiliary:
      session_search:
        provider: openrouter        # litellm provider prefix; "custom" means OpenAI-compatible
        model: google/gemini-flash  # required: no model, no summaries (raw previews instead)
        base_url: http://...        # optional endpoint (litellm api_base)
        api_key: sk-...             # optional; otherwise litellm reads the provider's env var
        timeout: 60                 # optional, seconds per call
        max_concurrency: 3          # optional, parallel calls, clamped to 1..5

A summary never fails the search: when no model is configured, or every attempt fails
(HTTP error, timeout, unreadable answer), the session keeps its place with a raw preview
of the transcript instead (upstream's fix for #3409).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .. import llm

MAX_SESSION_CHARS = 100_000
MAX_SUMMARY_TOKENS = 2000
TOOL_CONTENT_LIMIT = 500
RAW_PREVIEW_CHARS = 500
RAW_PREVIEW_PREFIX = "[Raw preview — summarization unavailable]\n"
RAW_PREVIEW_SUFFIX = "\n…[truncated]"
NO_PREVIEW = "No preview available."
EARLIER_MARK = "...[earlier conversation truncated]...\n\n"
LATER_MARK = "\n\n...[later conversation truncated]..."

SYSTEM_PROMPT = (
    "You are reviewing the transcript of a past conversation so that an assistant can "
    "recall what happened in it. Concentrate on the search topic you are given. Cover: "
    "1) what the user wanted; 2) what was done and how it turned out; 3) decisions taken "
    "and solutions found; 4) concrete details such as commands, file paths, URLs, names "
    "and numbers; 5) anything left open. Keep every specific detail, stay concise, and "
    "write in the past tense."
)

# Provider names in Hermes config that mean "an OpenAI-compatible endpoint" to litellm.
_OPENAI_COMPATIBLE = {"custom", "openai-compatible", "local", "lmstudio", "vllm"}


@dataclass(frozen=True)
class SummarySettings:
    model: str | None = None  # a litellm model string ("provider/model")
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = 60.0
    max_concurrency: int = 3
    attempts: int = 3
    retry_delays: tuple[float, ...] = (1.0, 2.0)

    @property
    def configured(self) -> bool:
        return bool(self.model)


def litellm_model(provider: str | None, model: str | None, base_url: str | None) -> str | None:
    """Join Hermes' ``provider`` and ``model`` into one litellm model string."""
    model = (model or "").strip()
    if not model:
        return None
    provider = (provider or "").strip().lower()
    if provider in ("", "auto", "main"):
        # A bare name with an endpoint is assumed to be OpenAI-compatible.
        return f"openai/{model}" if base_url and "/" not in model else model
    prefix = "openai" if provider in _OPENAI_COMPATIBLE else provider
    return model if model.startswith(prefix + "/") else f"{prefix}/{model}"


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return default
    return float(value)


def settings_from_config(config: Mapping[str, Any]) -> SummarySettings:
    """Read ``auxiliary.session_search`` from a loaded config mapping (see module doc)."""
    auxiliary = config.get("auxiliary") if isinstance(config, Mapping) else None
    section = auxiliary.get("session_search") if isinstance(auxiliary, Mapping) else None
    if not isinstance(section, Mapping):
        return SummarySettings()

    def text(key: str) -> str | None:
        value = section.get(key)
        return str(value).strip() or None if value is not None else None

    base_url = text("base_url")
    return SummarySettings(
        model=litellm_model(text("provider"), text("model"), base_url),
        api_base=base_url,
        api_key=text("api_key"),
        timeout=_number(section.get("timeout"), 60.0),
        max_concurrency=min(5, max(1, int(_number(section.get("max_concurrency"), 3)))),
    )


# --- transcripts -----------------------------------------------------------------------
def _tool_call_names(tool_calls: Any) -> list[str]:
    names = []
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if isinstance(call, dict):
            name = (call.get("function") or {}).get("name") or call.get("name")
            if name:
                names.append(str(name))
    return names


def format_transcript(conversation: Sequence[Mapping[str, Any]]) -> str:
    """``[ROLE]: content`` lines joined by blank lines, tool output shortened (spec §9.1)."""
    lines = []
    for message in conversation:
        role = str(message.get("role") or "").upper()
        content = message.get("content") or ""
        if role == "TOOL":
            if len(content) > TOOL_CONTENT_LIMIT:
                content = content[:250] + "\n...[truncated]...\n" + content[-250:]
            lines.append(f"[TOOL:{message.get('tool_name') or 'unknown'}]: {content}")
        elif role == "ASSISTANT" and message.get("tool_calls"):
            names = ", ".join(_tool_call_names(message["tool_calls"]))
            called = f"[ASSISTANT]: [Called: {names}]"
            lines.append(f"{called}\n{content}" if content else called)
        elif content:
            lines.append(f"[{role}]: {content}")
    return "\n\n".join(lines)


def truncate_around_query(text: str, query: str, max_chars: int = MAX_SESSION_CHARS) -> str:
    """Cut a long transcript to ``max_chars`` centred on the first query term it contains."""
    if len(text) <= max_chars:
        return text
    lowered = text.lower()
    positions = [lowered.find(term) for term in query.lower().split()]
    hits = [p for p in positions if p >= 0]
    centre = min(hits) if hits else 0
    start = max(0, min(centre - max_chars // 2, len(text) - max_chars))
    end = start + max_chars
    return (EARLIER_MARK if start > 0 else "") + text[start:end] + (LATER_MARK if end < len(text) else "")


def raw_preview(transcript: str) -> str:
    if not transcript.strip():
        return NO_PREVIEW
    head = transcript[:RAW_PREVIEW_CHARS]
    return RAW_PREVIEW_PREFIX + head + (RAW_PREVIEW_SUFFIX if len(transcript) > RAW_PREVIEW_CHARS else "")


def summary_prompt(query: str, source: str, started_at: float | None, transcript: str) -> list[dict]:
    when = (
        datetime.fromtimestamp(started_at).strftime("%B %d, %Y at %I:%M %p")
        if started_at is not None
        else "unknown"
    )
    user = (
        f"Search topic: {query}\n"
        f"Session source: {source}\n"
        f"Session date: {when}\n"
        "\n"
        f"CONVERSATION TRANSCRIPT:\n{transcript}\n"
        "\n"
        f"Summarize this conversation with focus on: {query}"
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


# --- calling the model -----------------------------------------------------------------
@dataclass(frozen=True)
class SummaryJob:
    query: str
    source: str
    started_at: float | None
    transcript: str


@dataclass(frozen=True)
class SummaryResult:
    summary: str
    status: str  # "ok" | "fallback"
    error: str | None = None


def summarise(
    job: SummaryJob,
    settings: SummarySettings,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> SummaryResult:
    """One session's summary, or its raw preview with the reason it is not a summary."""
    if not settings.configured:
        return SummaryResult(
            raw_preview(job.transcript), "fallback",
            "No summary model configured (auxiliary.session_search.model).",
        )  # fmt: skip
    if not job.transcript.strip():
        return SummaryResult(NO_PREVIEW, "fallback", "The session has no transcript.")
    messages = summary_prompt(
        job.query, job.source, job.started_at, truncate_around_query(job.transcript, job.query)
    )
    error = "no attempt made"
    for attempt in range(max(1, settings.attempts)):
        if attempt:
            delays = settings.retry_delays or (0.0,)
            sleep(delays[min(attempt - 1, len(delays) - 1)])
        try:
            response = llm.complete(
                messages,
                model=settings.model or "",
                api_base=settings.api_base,
                api_key=settings.api_key,
                timeout=settings.timeout,
                temperature=0.1,
                max_tokens=MAX_SUMMARY_TOKENS,
            )
            text = llm.response_text(response).strip()
            if text:
                return SummaryResult(text, "ok")
            error = "The model returned an empty summary."
        except llm.LLMError as exc:
            error = str(exc)
            if exc.kind in ("not-installed", "not-configured", "auth", "bad-request"):
                break  # retrying cannot help
        except Exception as exc:  # noqa: BLE001 - a summary must never break the search
            error = f"Unexpected summariser failure: {type(exc).__name__}: {exc}"
            break
    return SummaryResult(raw_preview(job.transcript), "fallback", error)


def summarise_all(
    jobs: Sequence[SummaryJob],
    settings: SummarySettings,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> list[SummaryResult]:
    """Summaries for several sessions in parallel (``max_concurrency`` at a time), in order."""
    if not jobs:
        return []
    if not settings.configured or len(jobs) == 1:
        return [summarise(job, settings, sleep=sleep) for job in jobs]
    with ThreadPoolExecutor(
        max_workers=min(settings.max_concurrency, len(jobs)), thread_name_prefix="session-summary"
    ) as pool:
        return list(pool.map(lambda job: summarise(job, settings, sleep=sleep), jobs))
