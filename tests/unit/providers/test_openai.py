"""tooldeck.providers.openai: Chat and Responses shapes, hosted entries and strict mode,
checked against the installed openai types."""

import json

import pytest
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam, WebSearchPreviewToolParam
from openai.types.responses.tool_param import Mcp
from pydantic import TypeAdapter

from tests.unit.providers.sample import SAFE_READ, ping, search, walk
from tooldeck import ToolDeckError, ToolRegistry
from tooldeck.providers import ExportError, export_tools, strict_schema


def conforms(typed_dict, value):
    """``value`` passes the openai TypedDict's validation with nothing dropped or changed."""
    assert TypeAdapter(typed_dict).validate_python(value) == value


# -------------------------------------------------------------- openai-chat
def test_openai_chat_shape(registry):
    tools = export_tools(registry, "openai-chat")
    assert len(tools) == len(registry.tools())  # no hosted entries in Chat Completions
    assert tools[0] == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the notes.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "what to look for"},
                    "limit": {
                        "type": "integer",
                        "description": "how many hits at most",
                        "default": 10,
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    }
    for tool in tools:
        assert "strict" not in tool["function"]
        conforms(ChatCompletionFunctionToolParam, tool)


def test_openai_chat_strict(registry):
    tools = export_tools(registry, "openai-chat", strict=True)
    for tool in tools:
        assert tool["function"]["strict"] is True
        conforms(ChatCompletionFunctionToolParam, tool)
    assert tools[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for"},
            "limit": {"type": ["integer", "null"], "description": "how many hits at most"},
        },
        "required": ["query", "limit"],
        "additionalProperties": False,
    }


# --------------------------------------------------------- openai-responses
def test_openai_responses_function_shape(registry):
    tools = export_tools(registry, "openai-responses")
    assert tools[3] == {
        "type": "function",
        "name": SAFE_READ,
        "description": "Read a file.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
        "strict": False,
    }
    functions = [t for t in tools if t["type"] == "function"]
    assert len(functions) == len(registry.tools())
    for tool in functions:
        assert tool["strict"] is False
        conforms(FunctionToolParam, tool)
    for tool in export_tools(registry, "openai-responses", strict=True)[: len(functions)]:
        assert tool["strict"] is True
        conforms(FunctionToolParam, tool)


def test_openai_responses_hosted_entries(registry):
    tools = export_tools(registry, "openai-responses")
    web, project = tools[len(registry.tools()) :]
    assert web == {
        "type": "web_search_preview",
        "user_location": {
            "type": "approximate",
            "city": "Prague",
            "country": "CZ",
            "region": "Prague",
        },
    }
    conforms(WebSearchPreviewToolParam, web)
    # authorization is an OAuth access token in the Mcp tool param: "Bearer " is dropped
    assert project == {
        "type": "mcp",
        "server_label": "project",
        "server_url": "https://example.org/mcp",
        "server_description": "Project tools",
        "authorization": "t",
        "require_approval": "never",
    }
    conforms(Mcp, project)
    assert all(t.get("server_label") != "time" for t in tools)  # via="client" is not hosted
    assert export_tools(registry, "openai-responses", include_hosted=False) == tools[:-2]


def test_hosted_entry_variants():
    registry = ToolRegistry()
    registry.add_web_search("web_search", country="CZ")
    registry.add_mcp_server(
        "basic",
        "https://example.org/a",
        "Basic dXNlcjpwdw==",
        headers={"X-Team": "core"},
        allowed_tools=("list", "get"),
    )
    registry.add_mcp_server("token", "https://example.org/b", "raw-token")
    web, basic, token = export_tools(registry, "openai-responses")
    assert web == {"type": "web_search", "user_location": {"type": "approximate", "country": "CZ"}}
    assert basic == {
        "type": "mcp",
        "server_label": "basic",
        "server_url": "https://example.org/a",
        "headers": {"X-Team": "core", "Authorization": "Basic dXNlcjpwdw=="},
        "allowed_tools": ["list", "get"],
        "require_approval": "never",
    }
    assert token["authorization"] == "raw-token"
    for entry in (basic, token):
        conforms(Mcp, entry)

    bare = ToolRegistry()
    bare.add_web_search()
    assert export_tools(bare, "openai-responses") == [{"type": "web_search_preview"}]
    for provider in ("openai-chat", "anthropic", "gemini", "mcp"):
        assert export_tools(registry, provider) == []


# ------------------------------------------------------------------- strict
def test_strict_schema_requires_everything_and_nulls_optionals(registry):
    source = registry.input_schema("sort_items")
    before = json.dumps(source)
    schema = strict_schema(source)
    assert json.dumps(source) == before  # input untouched
    assert schema == {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "description": "Numbers to sort",
                "items": {"type": "integer"},
            },
            "order": {
                "type": ["string", "null"],
                "description": "Sort order",
                "enum": ["asc", "desc", None],
            },
            "options": {
                "type": ["object", "null"],
                "description": "Extra options",
                "properties": {
                    "stable": {"type": "boolean"},
                    "key": {"type": ["string", "null"]},
                },
                "required": ["stable", "key"],
                "additionalProperties": False,
            },
        },
        "required": ["items", "order", "options"],
        "additionalProperties": False,
    }


def test_strict_schema_every_object_closed_and_fully_required(registry):
    for spec in registry.tools():
        schema = strict_schema(registry.input_schema(spec.name))
        for node in walk(schema):
            if "properties" in node and isinstance(node.get("required"), list):
                assert node["required"] == list(node["properties"])
                assert node["additionalProperties"] is False
            assert "default" not in node


def test_strict_schema_refs_and_anyof():
    schema = strict_schema(
        {
            "type": "object",
            "properties": {
                "bare": {"$ref": "#/$defs/Point"},
                "described": {"$ref": "#/$defs/Point", "description": "Where"},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "one": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
                "uri": {"type": "string", "format": "uri", "minLength": 3, "pattern": "^h"},
                "when": {"type": "string", "format": "date-time", "examples": ["2024"]},
            },
            "required": ["one", "uri", "when"],
            "$defs": {
                "Point": {
                    "type": "object",
                    "properties": {"x": {"type": "number", "minimum": 0}},
                    "default": {"x": 0},
                }
            },
        }
    )
    point = {
        "type": "object",
        "properties": {"x": {"type": ["number", "null"], "minimum": 0}},
        "required": ["x"],
        "additionalProperties": False,
    }
    assert schema["$defs"] == {"Point": point}
    props = schema["properties"]
    assert props["bare"] == {"anyOf": [{"$ref": "#/$defs/Point"}, {"type": "null"}]}
    assert props["described"] == {**point, "type": ["object", "null"], "description": "Where"}
    assert props["either"] == {
        "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}],
    }
    assert props["one"] == {"anyOf": [{"type": "string"}, {"type": "boolean"}]}
    assert props["uri"] == {"type": "string", "pattern": "^h"}
    assert props["when"] == {"type": "string", "format": "date-time"}
    assert schema["required"] == list(props)


@pytest.mark.parametrize(
    "prop",
    [
        {"description": "anything at all"},
        {"type": "object"},
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "array"},
        {"allOf": [{"type": "string"}, {"minLength": 1}]},
    ],
)
def test_strict_schema_refuses_what_it_cannot_express(prop):
    with pytest.raises(ValueError, match="#/properties/p"):
        strict_schema({"type": "object", "properties": {"p": prop}, "required": ["p"]})
    with pytest.raises(ExportError, match="#/properties/p"):
        strict_schema({"type": "object", "properties": {"p": prop}, "required": ["p"]})


def test_strict_schema_root_and_untyped_objects():
    with pytest.raises(ValueError, match="object schema at the root"):
        strict_schema({"type": "string"})
    nested = {"properties": {"a": {"type": "string"}}}
    schema = strict_schema({"type": "object", "properties": {"n": nested}, "required": ["n"]})
    assert schema["properties"]["n"] == {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"]}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert strict_schema({"type": "object", "properties": {}}) == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": ["a", "b"]},
        {"type": 5},
        {"type": "object", "properties": {"a": {"$ref": 7, "description": "x"}}},
        {"type": "object", "properties": {"a": {"type": "string", "enum": 3}}},
    ],
)
def test_strict_schema_malformed_is_an_export_error(schema):
    with pytest.raises(ExportError, match="malformed") as info:
        strict_schema(schema)
    assert isinstance(info.value.__cause__, TypeError | AttributeError)


def test_strict_schema_too_deep_is_an_export_error():
    schema: dict = {"type": "string"}
    for _ in range(5000):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    with pytest.raises(ExportError, match="nested too deeply"):
        strict_schema(schema)


def test_strict_resolution_order():
    registry = ToolRegistry()
    registry.add_tool("always", "A.", search, strict=True)
    registry.add_tool("never", "N.", search, strict=False)
    registry.add_tool("unset", "U.", search)

    def flags(**kwargs):
        return [t["strict"] for t in export_tools(registry, "openai-responses", **kwargs)]

    assert flags() == [True, False, False]
    assert flags(strict=True) == [True, True, True]
    assert flags(strict=False) == [False, False, False]
    chat = export_tools(registry, "openai-chat")
    assert [("strict" in t["function"]) for t in chat] == [True, False, False]
    strict_params = chat[0]["function"]["parameters"]
    assert strict_params["required"] == ["query", "limit"]
    assert chat[1]["function"]["parameters"]["required"] == ["query"]


def test_strict_failure_names_the_tool():
    registry = ToolRegistry()
    registry.add_external_tool(
        "free", "Free-form.", {"type": "object", "properties": {"m": {"type": "object"}}}, ping
    )
    assert export_tools(registry, "openai-chat")  # fine when not strict
    with pytest.raises(ValueError, match=r"tool 'free'.*free-form object"):
        export_tools(registry, "openai-chat", strict=True)
    with pytest.raises(ExportError, match=r"tool 'free' \(openai-responses\)") as info:
        export_tools(registry, "openai-responses", strict=True)
    assert isinstance(info.value, ToolDeckError)
    assert (info.value.provider, info.value.tool_name) == ("openai-responses", "free")
    assert info.value.__cause__ is None  # the message says it all; nothing else to leak
