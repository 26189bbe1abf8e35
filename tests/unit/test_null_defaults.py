"""``default: null`` on a typed parameter: "optional, None when absent", accepted everywhere."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tooldeck import (
    PROVIDERS,
    Param,
    RegistrationError,
    ToolRegistry,
    export_tools,
    load_manifests,
)


def show(text: str, limit=None) -> dict[str, Any]:
    return {"text": text, "limit": limit}


def own_default(text: str, limit: int = 5) -> dict[str, Any]:
    return {"text": text, "limit": limit}


def as_path(where: Path = None) -> str:  # type: ignore[assignment]  # noqa: RUF013 - as people write it
    return "none" if where is None else where.name


def registry_with(handler: Any, *params: Param) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_tool("t", "A tool for testing null defaults.", handler, *params)
    return registry


TEXT = Param("text", "string", True, "Text")
LIMIT = Param("limit", "integer", description="Limit", default=None)


def test_the_handler_gets_none_when_the_argument_is_absent_or_null():
    registry = registry_with(show, TEXT, LIMIT)
    assert registry.call("t", {"text": "a"}).value == {"text": "a", "limit": None}
    assert registry.call("t", {"text": "a", "limit": None}).value == {"text": "a", "limit": None}
    assert registry.call("t", {"text": "a", "limit": 3}).value == {"text": "a", "limit": 3}
    assert registry.call("t", {"text": "a", "limit": "x"}).error.kind == "invalid_arguments"


def test_a_handler_default_of_its_own_wins():
    registry = registry_with(own_default, TEXT, LIMIT)
    assert registry.call("t", {"text": "a"}).value == {"text": "a", "limit": 5}
    assert registry.call("t", {"text": "a", "limit": None}).value == {"text": "a", "limit": 5}


def test_none_is_never_converted():
    registry = registry_with(as_path, Param("where", "string", description="Where", default=None))
    assert registry.call("t", {}).text == "none"
    assert registry.call("t", {"where": "a/b.txt"}).text == "b.txt"


def test_inference_accepts_the_python_spelling():
    def find(query: str, limit: int = None) -> str:  # type: ignore[assignment]  # noqa: RUF013
        """Find things.

        Args:
            query: What to find.
            limit: At most this many.
        """
        return f"{query}:{limit}"

    registry = ToolRegistry()
    registry.add_tool(None, None, find)
    schema = registry.input_schema("find")
    assert schema["required"] == ["query"]
    assert "default" not in schema["properties"]["limit"]
    assert registry.call("find", {"query": "x"}).text == "x:None"


def test_the_schema_shows_no_null_that_its_type_forbids():
    schema = registry_with(show, TEXT, LIMIT).input_schema("t")
    assert schema["properties"]["limit"] == {"type": "integer", "description": "Limit"}
    assert schema["required"] == ["text"]
    nullable = Param("limit", ["integer", "null"], description="Limit", default=None)
    schema = registry_with(show, TEXT, nullable).input_schema("t")
    assert schema["properties"]["limit"]["default"] is None  # a value of its type: kept


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("strict", [None, True, False])
def test_no_export_carries_a_null_default_on_a_non_null_type(provider, strict):
    registry = registry_with(show, TEXT, LIMIT)
    text = json.dumps(export_tools(registry, provider, strict=strict))
    assert '"default": null' not in text
    if provider.startswith("openai") and strict:
        definition = export_tools(registry, provider, strict=True)[0]
        parameters = definition.get("parameters") or definition["function"]["parameters"]
        assert parameters["properties"]["limit"]["type"] == ["integer", "null"]
        assert sorted(parameters["required"]) == ["limit", "text"]


@pytest.mark.parametrize(
    ("param", "code"),
    [
        (Param("flag", "boolean", description="Flag", default="false"), "TD108"),
        (Param("mode", "string", enum=["a", "b"], description="Mode", default="N/A"), "TD108"),
        (Param("n", "integer", description="N", default="3"), "TD108"),
    ],
)
def test_defaults_that_really_contradict_their_type_stay_errors(param, code):
    with pytest.raises(RegistrationError) as raised:
        registry_with(lambda **kw: kw, param)
    assert raised.value.code == code


def test_nested_null_defaults_are_accepted():
    item = Param(
        "filter",
        "object",
        description="Filter",
        properties=[Param("tag", "string", description="Tag", default=None)],
        default=None,
    )
    registry = registry_with(lambda filter=None: filter, item)
    assert registry.call("t", {}).text == "Success."
    assert registry.call("t", {"filter": {}}).value == {}


def test_manifests_accept_default_null(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            tools:
              - name: show
                description: Show the text and the limit it was given.
                handler: {__name__}:show
                params:
                  - {{name: text, type: string, required: true, description: Text}}
                  - {{name: limit, type: integer, default: null, description: Limit}}
            """
        ),
        encoding="utf-8",
    )
    registry, result = load_manifests([path], allow_handlers=[__name__], environ={})
    assert result.ok, [d.format() for d in result.diagnostics]
    assert registry.call("show", {"text": "a"}).value == {"text": "a", "limit": None}


def test_messages_write_json_values_never_python_ones():
    with pytest.raises(RegistrationError) as raised:
        Param("n", "integer", description="N", min_length=None, minimum="x")
    assert 'got "x"' in str(raised.value)
    with pytest.raises(RegistrationError) as raised:
        registry_with(lambda **kw: kw, Param("flag", "string", enum=["a"], default=True))
    message = str(raised.value)
    assert "default true is not valid" in message
    assert "True" not in message
