"""The memory tool's dispatcher and schema (spec §2.9)."""

import json

from hermes_memory.memory.tool import MEMORY_TOOL_SCHEMA, memory_tool


def call(store, **kwargs):
    return json.loads(memory_tool(store=store, **kwargs))


def test_no_store_means_memory_unavailable():
    assert json.loads(memory_tool(action="add", content="x")) == {
        "error": "Memory is not available. It may be disabled in config or this environment.",
        "success": False,
    }


def test_invalid_target(store):
    assert call(store, action="add", target="notes", content="x") == {
        "error": "Invalid target 'notes'. Use 'memory' or 'user'.",
        "success": False,
    }


def test_operations_must_be_a_list(store):
    assert call(store, operations={"action": "add"}) == {
        "error": "operations must be a list of {action, content?, old_text?} objects.",
        "success": False,
    }


def test_operations_run_as_a_batch(home, store):
    result = call(store, target="user", operations=[{"action": "add", "content": "Likes tea"}])
    assert result["message"] == "Applied 1 operation(s)."
    assert home.user_file.read_text(encoding="utf-8") == "Likes tea"


def test_single_op_validation_messages(store):
    assert call(store, action="add") == {
        "error": "Content is required for 'add' action.",
        "success": False,
    }
    assert call(store, action="replace", old_text="x") == {
        "error": "content is required for 'replace' action.",
        "success": False,
    }
    assert call(store, action="purge", old_text="x") == {
        "error": "Unknown action 'purge'. Use: add, replace, remove",
        "success": False,
    }


def test_missing_old_text_is_recoverable_with_inventory(home, store):
    store.add("memory", "alpha")
    for action in ("replace", "remove"):
        result = call(store, action=action, content="new")
        assert result == {
            "success": False,
            "error": f"'{action}' needs old_text -- a short unique substring of the entry to "
            f"{action}. None was provided. Reissue the {action} with old_text set to part of one "
            "of the current_entries below.",
            "current_entries": ["alpha"],
            "usage": "5/2,200",
        }


def test_payload_is_json_without_ascii_escaping(store):
    text = memory_tool(action="add", target="user", content="Lives in Zürich", store=store)
    assert "—" in text and "\\u" not in text
    assert json.loads(text)["success"] is True


def test_schema_shape_has_no_conditionals():
    params = MEMORY_TOOL_SCHEMA["parameters"]
    assert MEMORY_TOOL_SCHEMA["name"] == "memory"
    assert params["required"] == ["target"]
    assert params["properties"]["action"]["enum"] == ["add", "replace", "remove"]
    assert params["properties"]["target"]["enum"] == ["memory", "user"]
    assert "REQUIRED for 'replace' and 'remove'" in params["properties"]["old_text"]["description"]
    assert params["properties"]["operations"]["items"]["required"] == ["action"]
    dumped = json.dumps(MEMORY_TOOL_SCHEMA)
    for forbidden in ('"allOf"', '"anyOf"', '"oneOf"', '"if"', '"then"'):
        assert forbidden not in dumped
