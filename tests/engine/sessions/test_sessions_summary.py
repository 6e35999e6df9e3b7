"""Summary mode: transcripts, settings from config.yaml, and the scripted LLM server."""

from __future__ import annotations

import json

import pytest
from sessions_helpers import Corpus

from hermes_memory.home import HermesHome
from hermes_memory.sessions import create_early_db, session_search
from hermes_memory.sessions.summary import (
    SYSTEM_PROMPT,
    SummarySettings,
    format_transcript,
    litellm_model,
    raw_preview,
    settings_from_config,
    truncate_around_query,
)
from llm_server import reply_error, reply_hang, reply_text


def test_format_transcript():
    conversation = [
        {"role": "user", "content": "install it"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "terminal"}}, {"function": {"name": "web"}}]},
        {"role": "tool", "tool_name": "terminal", "content": "a" * 300 + "b" * 300},
        {"role": "tool", "tool_name": "web", "content": "short"},
        {"role": "assistant", "content": "Installed."},
    ]  # fmt: skip
    assert format_transcript(conversation) == (
        "[USER]: install it\n\n"
        "[ASSISTANT]: [Called: terminal, web]\n\n"
        "[TOOL:terminal]: " + "a" * 250 + "\n...[truncated]...\n" + "b" * 250 + "\n\n"
        "[TOOL:web]: short\n\n"
        "[ASSISTANT]: Installed."
    )


def test_truncate_around_query():
    text = "x" * 100 + "NEEDLE" + "y" * 100
    assert truncate_around_query(text, "needle", max_chars=300) == text
    cut = truncate_around_query(text, "other needle", max_chars=20)
    assert cut == (
        "...[earlier conversation truncated]...\n\n" + "x" * 10 + "NEEDLE" + "y" * 4
        + "\n\n...[later conversation truncated]..."
    )  # fmt: skip
    assert truncate_around_query(text, "absent", max_chars=10).startswith("x" * 10)


def test_raw_preview():
    assert raw_preview("") == "No preview available."
    assert raw_preview("short") == "[Raw preview — summarization unavailable]\nshort"
    assert raw_preview("z" * 600) == (
        "[Raw preview — summarization unavailable]\n" + "z" * 500 + "\n…[truncated]"
    )


@pytest.mark.parametrize(
    ("provider", "model", "base_url", "expected"),
    [
        ("openrouter", "google/gemini-flash", None, "openrouter/google/gemini-flash"),
        ("openai", "openai/gpt-4o-mini", None, "openai/gpt-4o-mini"),
        ("custom", "qwen3", "http://localhost:8000/v1", "openai/qwen3"),
        ("", "test-model", "http://127.0.0.1:1/v1", "openai/test-model"),
        ("auto", "gpt-4o-mini", None, "gpt-4o-mini"),
        ("openai", "", None, None),
    ],
)
def test_litellm_model_names(provider, model, base_url, expected):
    assert litellm_model(provider, model, base_url) == expected


def test_settings_from_config():
    assert settings_from_config({}) == SummarySettings()
    assert settings_from_config({"auxiliary": {"session_search": "nope"}}) == SummarySettings()
    settings = settings_from_config({"auxiliary": {"session_search": {
        "provider": "openai", "model": "test-model", "base_url": "http://h/v1",
        "api_key": "k", "timeout": 7, "max_concurrency": 99}}})  # fmt: skip
    assert settings == SummarySettings(
        model="openai/test-model", api_base="http://h/v1", api_key="k", timeout=7.0,
        max_concurrency=5,
    )  # fmt: skip
    assert settings.configured and not SummarySettings().configured


# --- against the scripted server ----------------------------------------------------------
@pytest.fixture
def summary_home(tmp_path):
    home = HermesHome.resolve(tmp_path / "home")
    c = Corpus(create_early_db(home.state_db))
    c.session("s1", "cli", model="m1")
    c.say("s1", "user", "how do I rotate the walrus keys?")
    c.say("s1", "assistant", "Run walrus rotate --all.")
    c.session("s2", "telegram")
    c.say("s2", "user", "walrus keys expired again")
    c.close()
    return home


def _echo_source(request):
    """Answer with the session source from the prompt, so parallel calls stay checkable."""
    prompt = request.messages[1]["content"]
    source = prompt.split("Session source: ")[1].split("\n")[0]
    return reply_text(f"Summary of the {source} session.")


def _settings(server, **overrides) -> SummarySettings:
    values = dict(model="openai/test-model", api_base=server.base_url, api_key="test",
                  timeout=5.0, attempts=1, retry_delays=(0.0,))  # fmt: skip
    values.update(overrides)
    return SummarySettings(**values)


def test_summary_with_model_from_config(summary_home, llm_server):
    summary_home.config_file.write_text(
        "auxiliary:\n  session_search:\n    provider: openai\n    model: test-model\n"
        f"    base_url: {llm_server.base_url}\n    api_key: test\n",
        encoding="utf-8",
    )
    llm_server.queue(_echo_source, _echo_source)
    result = session_search(summary_home, "walrus", mode="summary", limit=5)
    json.dumps(result)
    assert result["success"] is True and result["mode"] == "summary"
    assert result["summarizer"] == {"model": "openai/test-model", "configured": True}
    assert {(r["session_id"], r["summary"], r["summary_status"]) for r in result["results"]} == {
        ("s1", "Summary of the cli session.", "ok"),
        ("s2", "Summary of the telegram session.", "ok"),
    }
    assert len(llm_server.requests) == 2
    by_source = {
        r.messages[1]["content"].split("Session source: ")[1].split("\n")[0]: r
        for r in llm_server.requests
    }
    request = by_source["cli"]
    assert request.body["model"] == "test-model"
    assert request.body["temperature"] == 0.1 and request.body["max_tokens"] == 2000
    assert request.messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert request.messages[1]["content"] == (
        "Search topic: walrus\n"
        "Session source: cli\n"
        "Session date: November 14, 2023 at 10:13 PM\n"
        "\n"
        "CONVERSATION TRANSCRIPT:\n"
        "[USER]: how do I rotate the walrus keys?\n\n[ASSISTANT]: Run walrus rotate --all.\n"
        "\n"
        "Summarize this conversation with focus on: walrus"
    )


def test_server_error_falls_back_to_raw_preview(summary_home, llm_server):
    llm_server.queue(reply_error(500), reply_error(500))
    result = session_search(
        summary_home, "walrus", mode="summary", limit=1,
        summary_settings=_settings(llm_server, attempts=2),
    )  # fmt: skip
    assert result["success"] is True and result["count"] == 1
    entry = result["results"][0]
    assert entry["summary_status"] == "fallback"
    assert entry["session_id"] == "s1"
    assert entry["summary"] == (
        "[Raw preview — summarization unavailable]\n"
        "[USER]: how do I rotate the walrus keys?\n\n[ASSISTANT]: Run walrus rotate --all."
    )
    assert "answered HTTP 500" in entry["summary_error"]
    assert len(llm_server.requests) == 2  # both attempts were made


def test_timeout_falls_back_to_raw_preview(summary_home, llm_server):
    llm_server.queue(reply_hang(10))
    result = session_search(
        summary_home, "walrus", mode="summary", limit=1,
        summary_settings=_settings(llm_server, timeout=0.5),
    )  # fmt: skip
    entry = result["results"][0]
    assert result["success"] is True
    assert entry["summary_status"] == "fallback"
    assert entry["summary"].startswith("[Raw preview — summarization unavailable]\n")
    assert entry["summary_error"] == (
        f"The model openai/test-model at {llm_server.base_url} did not answer within 0.5 s."
    )


def test_no_model_configured_makes_no_call(summary_home, llm_server):
    result = session_search(summary_home, "walrus", mode="summary", limit=5)
    assert result["summarizer"] == {"model": None, "configured": False}
    assert {r["summary_status"] for r in result["results"]} == {"fallback"}
    assert {r["summary_error"] for r in result["results"]} == {
        "No summary model configured (auxiliary.session_search.model)."
    }
    assert llm_server.requests == []


def test_summary_maps_hits_to_the_root_session(tmp_path, llm_server):
    path = tmp_path / "state.db"
    c = Corpus(create_early_db(path))
    c.session("root", "cli")
    c.say("root", "user", "start of the work")
    c.end("root", "compression")
    c.session("child", "cli", parent_session_id="root")
    c.say("child", "user", "the capybara detail")
    c.close()
    llm_server.queue(reply_text("Root summary."))
    result = session_search(path, "capybara", mode="summarize", summary_settings=_settings(llm_server))
    entry = result["results"][0]
    assert (entry["session_id"], entry["matched_session_id"], entry["summary"]) == (
        "root", "child", "Root summary.",
    )  # fmt: skip
