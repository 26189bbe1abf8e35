"""tooldeck._export: provider shapes, checked against the installed openai and mcp types."""

import json
import math
import subprocess
import sys

import mcp.types
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam, WebSearchPreviewToolParam
from openai.types.responses.tool_param import Mcp
from pydantic import TypeAdapter

from tooldeck import Param, ToolRegistry
from tooldeck._export import (
    PROVIDERS,
    definition_tokens,
    export_tools,
    gemini_schema,
    strict_schema,
)

RANGE_FRAGMENT = {
    "$defs": {
        "Range": {
            "type": "object",
            "properties": {"lo": {"type": "number"}, "hi": {"type": "number"}},
            "required": ["lo"],
        }
    },
    "type": "object",
    "properties": {
        "range": {"$ref": "#/$defs/Range", "description": "Bounds"},
        "since": {"type": ["string", "null"], "format": "date-time"},
    },
    "required": ["range"],
}


def search(query: str, limit: int = 10) -> str:
    """Search the notes.

    Args:
        query: what to look for
        limit: how many hits at most
    """
    return f"{query}:{limit}"


def sort_items(items, order="asc", options=None):
    return sorted(items, reverse=order == "desc")


def query(filter):
    return filter


def read_file(path: str) -> str:
    """Read a file."""
    return f"read {path}"


def delete_file(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


def ping() -> str:
    """Check the service is up."""
    return "pong"


def build_registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.add_tool(None, None, search)
    registry.add_tool(
        "sort_items",
        "Sort a list of numbers.",
        sort_items,
        Param("items", "array", True, "Numbers to sort", items=Param("item", "integer")),
        Param("order", "string", False, "Sort order", enum=("asc", "desc"), default="asc"),
        Param(
            "options",
            "object",
            False,
            "Extra options",
            properties={"stable": "boolean", "key": Param("key", "string", False)},
        ),
    )
    registry.add_tool("query", "Query by range.", query, Param("filter", schema=RANGE_FRAGMENT))
    registry.add_tool("files.read", None, read_file, idempotent=True)
    registry.add_tool("delete_file", None, delete_file, side_effects=True, idempotent=True)
    registry.add_tool(None, None, ping)
    registry.add_web_search("default", city="Prague", country="CZ", region="Prague")
    registry.add_mcp_server("project", "https://example.org/mcp", "Bearer t", "Project tools")
    registry.add_mcp_server("time", command=("mcp-server-time",), via="client")
    return registry


@pytest.fixture
def registry():
    return build_registry()


def conforms(typed_dict, value):
    """``value`` passes the openai TypedDict's validation with nothing dropped or changed."""
    assert TypeAdapter(typed_dict).validate_python(value) == value


def walk(value):
    """Every mapping inside ``value``, depth first."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


SAFE_READ = ToolRegistry().safe_name("files.read")


# ------------------------------------------------------------------ general
def test_providers_constant():
    assert PROVIDERS == ("openai-responses", "openai-chat", "anthropic", "gemini", "mcp")


def test_unknown_provider_lists_the_known_ones(registry):
    with pytest.raises(ValueError, match="unknown provider 'cohere'") as info:
        export_tools(registry, "cohere")
    for provider in PROVIDERS:
        assert provider in str(info.value)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_one_definition_per_tool_in_registry_order_under_safe_names(registry, provider):
    tools = export_tools(registry, provider, include_hosted=False)
    names = [t["function"]["name"] if provider == "openai-chat" else t["name"] for t in tools]
    assert names == [registry.safe_name(spec.name) for spec in registry.tools()]
    assert SAFE_READ in names
    assert "files.read" not in names
    assert SAFE_READ != "files.read"


def test_safe_name_calls_find_the_tool(registry):
    exported = export_tools(registry, "openai-chat")
    name = exported[3]["function"]["name"]
    assert name == SAFE_READ
    result = registry.call(name, {"path": "a.txt"})
    assert result.ok, result.text
    assert result.text == "read a.txt"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_export_is_deterministic(provider):
    first = json.dumps(export_tools(build_registry(), provider, strict=True))
    registry = build_registry()
    again = json.dumps(export_tools(registry, provider, strict=True))
    assert first == again
    assert json.dumps(export_tools(registry, provider, strict=True)) == again


@pytest.mark.parametrize("provider", PROVIDERS)
def test_exports_are_copies(registry, provider):
    before = json.dumps(registry.input_schema("query"))
    for definition in export_tools(registry, provider, strict=True):
        for node in walk(definition):
            node.clear()
    assert json.dumps(registry.input_schema("query")) == before


def test_redact_applies_to_every_string_value():
    registry = ToolRegistry()
    registry.add_tool(None, "Uses key s3cr3t-token internally.", ping)
    registry.add_mcp_server(
        "vault",
        "https://example.org/mcp?key=s3cr3t-token",
        "Bearer s3cr3t-token",
        "Vault",
        headers={"X-Key": "s3cr3t-token"},
    )

    def hide(text: str) -> str:
        return text.replace("s3cr3t-token", "***")

    for provider in PROVIDERS:
        plain = json.dumps(export_tools(registry, provider))
        redacted = json.dumps(export_tools(registry, provider, redact=hide))
        assert "s3cr3t-token" in plain
        assert "s3cr3t-token" not in redacted
        assert "***" in redacted
    hosted = export_tools(registry, "openai-responses", redact=hide)[-1]
    assert hosted["authorization"] == "***"
    assert hosted["headers"] == {"X-Key": "***"}
    assert hosted["server_url"] == "https://example.org/mcp?key=***"


def test_definition_tokens_is_compact_json_chars_over_four():
    assert definition_tokens({"a": "bcd"}) == 3  # {"a":"bcd"} is 11 characters
    assert definition_tokens({}) == 1
    assert definition_tokens({"name": "žluť"}) == math.ceil(len('{"name":"žluť"}') / 4)
    definition = export_tools(build_registry(), "openai-chat")[1]
    text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False)
    assert definition_tokens(definition) == math.ceil(len(text) / 4)


def test_module_does_not_import_provider_sdks():
    code = (
        "import sys, tooldeck._export\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('openai', 'mcp', 'mcp_types')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


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


def test_non_openai_providers_ignore_strict(registry):
    for provider in ("anthropic", "gemini", "mcp"):
        assert export_tools(registry, provider, strict=True) == export_tools(
            registry, provider, strict=False
        )


def test_strict_failure_names_the_tool():
    registry = ToolRegistry()
    registry.add_external_tool(
        "free", "Free-form.", {"type": "object", "properties": {"m": {"type": "object"}}}, ping
    )
    assert export_tools(registry, "openai-chat")  # fine when not strict
    with pytest.raises(ValueError, match=r"tool 'free'.*free-form object"):
        export_tools(registry, "openai-chat", strict=True)


# ---------------------------------------------------------------- anthropic
def test_anthropic_shape(registry):
    tools = export_tools(registry, "anthropic", strict=True)
    assert len(tools) == len(registry.tools())
    for tool, spec in zip(tools, registry.tools(), strict=True):
        assert tool == {
            "name": registry.safe_name(spec.name),
            "description": spec.description,
            "input_schema": registry.input_schema(spec.name),
        }
    assert tools[2]["input_schema"]["$defs"] == RANGE_FRAGMENT["$defs"]


# ------------------------------------------------------------------- gemini
GEMINI_KEYS = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
}


def schema_nodes(schema):
    """Schema objects only (not the ``properties`` maps that hold them)."""
    yield schema
    for value in schema.get("properties", {}).values():
        yield from schema_nodes(value)
    if "items" in schema:
        yield from schema_nodes(schema["items"])
    for variant in schema.get("anyOf", ()):
        yield from schema_nodes(variant)


def test_gemini_declarations(registry):
    tools = export_tools(registry, "gemini")
    assert len(tools) == len(registry.tools())
    assert tools[0] == {
        "name": "search",
        "description": "Search the notes.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "what to look for"},
                "limit": {"type": "integer", "description": "how many hits at most"},
            },
            "required": ["query"],
        },
    }
    assert tools[-1] == {"name": "ping", "description": "Check the service is up."}
    text = json.dumps(tools)
    for banned in ("$ref", "$defs", "additionalProperties", "default"):
        assert banned not in text
    for tool in tools:
        for node in schema_nodes(tool.get("parameters", {})):
            assert set(node) <= GEMINI_KEYS, set(node) - GEMINI_KEYS
            assert not isinstance(node.get("type"), list)


def test_gemini_inlines_refs_and_converts_nullable(registry):
    query_decl = export_tools(registry, "gemini")[2]
    assert query_decl["parameters"]["properties"]["filter"] == {
        "type": "object",
        "properties": {
            "range": {
                "type": "object",
                "description": "Bounds",
                "properties": {"lo": {"type": "number"}, "hi": {"type": "number"}},
                "required": ["lo"],
            },
            "since": {"type": "string", "format": "date-time", "nullable": True},
        },
        "required": ["range"],
    }


def test_gemini_schema_conversions():
    converted = gemini_schema(
        {
            "type": "object",
            "properties": {
                "level": {"type": "integer", "enum": [1, 2, 3], "description": "Level."},
                "mode": {"enum": ["a", "b", None]},
                "url": {"type": "string", "format": "uri", "maxLength": 200},
                "ratio": {"type": "number", "format": "double", "exclusiveMinimum": 0},
                "either": {"type": ["string", "integer", "null"], "minLength": 1, "minimum": 0},
                "maybe": {"anyOf": [{"$ref": "#/definitions/Tag"}, {"type": "null"}]},
                "choice": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
                "const": {"const": "fixed"},
            },
            "required": ["level", "ghost"],
            "definitions": {"Tag": {"type": "string", "examples": ["x"]}},
        }
    )
    props = converted["properties"]
    assert props["level"] == {"type": "integer", "description": "Level. Allowed values: 1, 2, 3."}
    assert props["mode"] == {"type": "string", "nullable": True, "enum": ["a", "b"]}
    assert props["url"] == {"type": "string", "maxLength": 200}
    assert props["ratio"] == {"type": "number", "format": "double"}
    assert props["either"] == {
        "nullable": True,
        "anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}],
    }
    assert props["maybe"] == {"type": "string", "nullable": True}
    assert props["choice"] == {"anyOf": [{"type": "string"}, {"type": "boolean"}]}
    assert props["const"] == {"type": "string", "enum": ["fixed"]}
    assert converted["required"] == ["level"]  # only declared properties


def test_gemini_refuses_recursive_refs():
    registry = ToolRegistry()
    tree = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    registry.add_external_tool("tree", "Walk a tree.", tree, ping)
    assert export_tools(registry, "anthropic")  # other providers take $ref as-is
    with pytest.raises(ValueError, match=r"tool 'tree'.*recursive"):
        export_tools(registry, "gemini")


# ---------------------------------------------------------------------- mcp
def test_mcp_shape_validates_against_installed_tool_model(registry):
    tools = export_tools(registry, "mcp")
    assert len(tools) == len(registry.tools())
    for tool, spec in zip(tools, registry.tools(), strict=True):
        model = mcp.types.Tool.model_validate(tool)
        assert model.model_dump(by_alias=True, exclude_none=True) == tool
        assert model.name == registry.safe_name(spec.name)
        assert model.input_schema == registry.input_schema(spec.name)
        assert model.annotations is not None
        assert model.annotations.read_only_hint is (not spec.side_effects)
        assert model.annotations.destructive_hint is spec.side_effects
        assert model.annotations.idempotent_hint is spec.idempotent
    assert tools[4] == {
        "name": "delete_file",
        "description": "Delete a file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    }


def test_external_schema_without_type_gets_object_root():
    registry = ToolRegistry()
    registry.add_external_tool("loose", "Loose.", {"properties": {"a": {"type": "string"}}}, ping)
    for provider in PROVIDERS:
        (tool,) = export_tools(registry, provider)
        schema = {
            "openai-chat": lambda t: t["function"]["parameters"],
            "openai-responses": lambda t: t["parameters"],
            "anthropic": lambda t: t["input_schema"],
            "gemini": lambda t: t["parameters"],
            "mcp": lambda t: t["inputSchema"],
        }[provider](tool)
        assert schema["type"] == "object"
    mcp.types.Tool.model_validate(export_tools(registry, "mcp")[0])
