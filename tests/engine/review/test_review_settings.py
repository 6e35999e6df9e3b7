"""Review settings from config.yaml, with the session_search fallback."""

from __future__ import annotations

from hermes_memory.review import review_settings


def test_defaults_without_configuration():
    settings = review_settings({})
    assert not settings.configured
    assert (settings.max_rounds, settings.max_input_tokens, settings.digest_tail) == (16, 600_000, 24)


def test_background_review_block_wins_as_a_whole():
    settings = review_settings({"auxiliary": {
        "background_review": {"provider": "openrouter", "model": "google/gemini-flash",
                              "timeout": 30, "max_rounds": 4, "max_input_tokens": 0},
        "session_search": {"provider": "custom", "model": "other", "base_url": "http://x/v1",
                           "api_key": "k"},
    }})  # fmt: skip
    assert settings.model == "openrouter/google/gemini-flash"
    assert (settings.api_base, settings.api_key) == (None, None)  # never mixed with the other
    assert (settings.timeout, settings.max_rounds, settings.max_input_tokens) == (30, 4, 0)
    assert settings.source == "background_review"


def test_session_search_is_the_fallback_connection():
    settings = review_settings({"auxiliary": {
        "background_review": {"max_rounds": 3, "enabled": False},
        "session_search": {"provider": "custom", "model": "local-7b",
                           "base_url": "http://127.0.0.1:8080/v1", "timeout": 15},
    }})  # fmt: skip
    assert (settings.model, settings.api_base) == ("openai/local-7b", "http://127.0.0.1:8080/v1")
    assert (settings.timeout, settings.max_rounds, settings.enabled) == (15, 3, False)
    assert settings.source == "session_search"


def test_unusable_values_fall_back_to_defaults():
    settings = review_settings({"auxiliary": {"background_review": {
        "model": "m", "timeout": "soon", "max_rounds": -2, "max_input_chars": True}}})  # fmt: skip
    assert (settings.timeout, settings.max_rounds, settings.max_input_chars) == (120.0, 16, 120_000)


def test_write_approval_gates_are_read_from_the_memory_and_skills_sections():
    assert review_settings({}).needs_approval == frozenset()
    assert review_settings({"memory": {"write_approval": True}}).needs_approval == {"memory"}
    both = review_settings({"memory": {"write_approval": True}, "skills": {"write_approval": True}})
    assert both.needs_approval == {"memory", "skill"}
    # only a real true turns a gate on (as memory.write_approval is read elsewhere)
    assert review_settings({"memory": {"write_approval": "yes"}, "skills": None}).needs_approval == frozenset()
