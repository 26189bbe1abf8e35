"""tooldeck.providers.openai: Chat and Responses shapes, hosted entries and strict mode,
checked against the installed openai types."""

import json

import pytest
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionToolParam
from openai.types.responses import (
    FunctionToolParam,
    ToolParam,
    WebSearchPreviewToolParam,
    WebSearchToolParam,
)
from openai.types.responses.tool_param import Mcp
from pydantic import TypeAdapter

from tests.unit.providers.sample import SAFE_READ, ping, search, walk
from tooldeck import RegistrationError, ToolDeckError, ToolRegistry
from tooldeck._model import WEB_SEARCH_TYPES
from tooldeck.providers import ExportError, ExportWarning, export_tools, strict_schema


def conforms(typed_dict, value):
    """``value`` passes the openai TypedDict's validation with nothing dropped or changed."""
    assert TypeAdapter(typed_dict).validate_python(value) == value


# -------------------------------------------------------------- openai-chat
def test_openai_chat_shape(registry):
    tools = export_tools(registry, "openai-chat", strict=False, include_hosted=False)
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
    tools = export_tools(registry, "openai-responses", strict=False)
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
    }
    assert token["authorization"] == "raw-token"
    for entry in (basic, token):
        conforms(Mcp, entry)

    bare = ToolRegistry()
    bare.add_web_search()
    assert export_tools(bare, "openai-responses") == [{"type": "web_search_preview"}]
    for provider in ("openai-chat", "anthropic", "gemini", "mcp"):
        warnings: list = []
        assert export_tools(registry, provider, warnings=warnings) == []
        assert [(w.kind, w.name) for w in warnings] == [
            ("left_out", "web_search"),
            ("left_out", "basic"),
            ("left_out", "token"),
        ]
        assert warnings[0].message.startswith("hosted web search (web_search) left out: ")
        assert warnings[1].message.startswith("hosted MCP server 'basic' left out: ")
        quiet: list = []
        assert export_tools(registry, provider, include_hosted=False, warnings=quiet) == []
        assert quiet == []  # left out on purpose: nothing to warn about


def test_web_search_every_field_in_the_sdk_shape():
    registry = ToolRegistry()
    registry.add_web_search(
        "web_search",
        city="Prague",
        country="CZ",
        region="Prague",
        timezone="Europe/Prague",
        search_context_size="high",
        allowed_domains=["docs.python.org", "peps.python.org"],
    )
    (web,) = export_tools(registry, "openai-responses")
    assert web == {
        "type": "web_search",
        "search_context_size": "high",
        "filters": {"allowed_domains": ["docs.python.org", "peps.python.org"]},
        "user_location": {
            "type": "approximate",
            "city": "Prague",
            "country": "CZ",
            "region": "Prague",
            "timezone": "Europe/Prague",
        },
    }
    conforms(WebSearchToolParam, web)
    conforms(ToolParam, web)


@pytest.mark.parametrize("kind", WEB_SEARCH_TYPES)
def test_every_web_search_type_conforms(kind):
    registry = ToolRegistry()
    preview = kind.startswith("web_search_preview")
    registry.add_web_search(
        kind,
        timezone="Europe/Prague",
        search_context_size="low",
        allowed_domains=None if preview else ["example.org"],
    )
    (web,) = export_tools(registry, "openai-responses")
    assert web["type"] == kind
    conforms(WebSearchPreviewToolParam if preview else WebSearchToolParam, web)
    conforms(ToolParam, web)


def test_web_search_refuses_what_the_provider_would():
    registry = ToolRegistry()
    for kwargs, message in (
        ({"type": "web_search_2025"}, "is not one of default, web_search"),
        ({"search_context_size": "huge"}, "'huge' is not one of low, medium, high"),
        ({"allowed_domains": ["a.org"]}, "'web_search_preview' has no domain filters"),
        ({"type": "web_search", "allowed_domains": []}, "allowed_domains is empty"),
        ({"type": "web_search", "allowed_domains": "a.org"}, "must be a list of domain names"),
    ):
        with pytest.raises(RegistrationError, match=message) as info:
            registry.add_web_search(**kwargs)
        assert info.value.code == "TD118"
    assert registry.web_search() is None


@pytest.mark.parametrize(
    ("declared", "sent"),
    [
        (None, None),  # no field: the provider's default, which asks; never a silent never
        ("always", "always"),
        ("never", "never"),
        (
            {"always": ["create_issue"], "never": ["search_issues", "get_issue"]},
            {
                "always": {"tool_names": ["create_issue"]},
                "never": {"tool_names": ["search_issues", "get_issue"]},
            },
        ),
        (
            {"never": {"read_only": True}, "always": {"tool_names": ["delete"]}},
            {"never": {"read_only": True}, "always": {"tool_names": ["delete"]}},
        ),
    ],
)
def test_hosted_mcp_require_approval_from_the_declaration(declared, sent):
    registry = ToolRegistry()
    registry.add_mcp_server(
        "github",
        "https://example.org/mcp",
        allowed_tools=["search_issues", "create_issue"],
        require_approval=declared,
    )
    (entry,) = export_tools(registry, "openai-responses")
    assert entry.get("require_approval") == sent
    assert entry["allowed_tools"] == ["search_issues", "create_issue"]
    conforms(Mcp, entry)
    conforms(ToolParam, entry)


@pytest.mark.parametrize(
    ("side_effects", "declared", "sent"),
    [
        (True, None, "always"),
        (True, "never", "never"),  # written out: the declaration's word
        (True, {"never": ["get"]}, {"never": {"tool_names": ["get"]}}),
        (False, None, None),
        (None, None, None),
    ],
)
def test_a_hosted_server_with_side_effects_asks_always_unless_it_says(side_effects, declared, sent):
    registry = ToolRegistry()
    registry.add_mcp_server(
        "github", "https://example.org/mcp", side_effects=side_effects, require_approval=declared
    )
    (entry,) = export_tools(registry, "openai-responses")
    assert entry.get("require_approval") == sent
    conforms(Mcp, entry)


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ("sometimes", "require_approval is 'sometimes'"),
        ({}, "must be always, never or a mapping"),
        ({"maybe": ["a"]}, "has 'maybe'"),
        ({"always": "a"}, "always must be a list of tool names"),
        ({"always": {"names": ["a"]}}, "always must be a list of tool names or"),
        ({"always": {"read_only": "yes"}}, "always.read_only must be true or false"),
        ({"always": ["a", "b"], "never": ["b"]}, "lists b under both always and never"),
    ],
)
def test_hosted_mcp_require_approval_refused(declared, message):
    with pytest.raises(RegistrationError, match=message) as info:
        ToolRegistry().add_mcp_server("gh", "https://example.org/mcp", require_approval=declared)
    assert (info.value.code, info.value.param) == ("TD114", "require_approval")


def test_require_approval_is_for_hosted_servers_only():
    with pytest.raises(RegistrationError, match="applies to via=hosted") as info:
        ToolRegistry().add_mcp_server("t", command=("mcp-server-time",), require_approval="always")
    assert info.value.code == "TD114"


def test_every_responses_export_is_a_tool_param(registry):
    registry.add_mcp_server(
        "gated", "https://example.org/g", require_approval={"never": {"read_only": True}}
    )
    for strict in (None, True, False):
        for definition in export_tools(registry, "openai-responses", strict=strict):
            conforms(ToolParam, definition)
        for definition in export_tools(registry, "openai-chat", strict=strict, warnings=[]):
            conforms(ChatCompletionToolParam, definition)


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
    # untyped, it accepts any value (properties only constrain objects): not "an object"
    with pytest.raises(ExportError, match=r"#/properties/n: .*needs a type here \(add type"):
        strict_schema({"type": "object", "properties": {"n": nested}, "required": ["n"]})
    nested["type"] = "object"
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

    assert flags() == [True, False, True]  # unset is auto: strict, as the schema allows it
    assert flags(strict=True) == [True, True, True]
    assert flags(strict=False) == [False, False, False]
    chat = export_tools(registry, "openai-chat")
    assert [("strict" in t["function"]) for t in chat] == [True, False, True]
    strict_params = chat[0]["function"]["parameters"]
    assert strict_params["required"] == ["query", "limit"]
    assert chat[1]["function"]["parameters"]["required"] == ["query"]


FREE_FORM = {"type": "object", "properties": {"m": {"type": "object"}}}


def test_strict_failure_sends_that_tool_non_strict_with_a_warning():
    registry = ToolRegistry()
    registry.add_tool("good", "G.", search)
    registry.add_external_tool("free", "Free-form.", FREE_FORM, ping)
    registry.add_tool("never", "N.", search, strict=False)
    for strict, how in ((True, "strict mode was asked for"), (None, "strict: auto")):
        warnings: list = []
        good, free, never = export_tools(
            registry, "openai-responses", strict=strict, warnings=warnings
        )
        assert (good["strict"], free["strict"]) == (True, False)
        assert never["strict"] is (strict is True)
        assert free["parameters"] == {"type": "object", **FREE_FORM}  # as the registry holds it
        (warning,) = warnings
        assert warning == ExportWarning(
            "not_strict",
            "openai-responses",
            "free",
            f"tool 'free' (openai-responses) goes out non-strict ({how}): "
            "#/properties/m: a free-form object cannot be strict; declare its properties",
        )
        assert str(warning) == warning.message
        for tool in (good, free, never):
            conforms(FunctionToolParam, tool)
    warnings = []
    chat = export_tools(registry, "openai-chat", strict=False, warnings=warnings)
    assert warnings == []  # nothing asked, nothing refused
    assert all("strict" not in t["function"] for t in chat)


def test_strict_per_tool_true_that_cannot_be_warns_too():
    registry = ToolRegistry()
    registry.add_external_tool("free", "Free-form.", FREE_FORM, ping, strict=True)
    warnings: list = []
    (tool,) = export_tools(registry, "openai-chat", warnings=warnings)
    assert "strict" not in tool["function"]
    assert "strict mode was asked for" in warnings[0].message


def test_warnings_without_a_list_go_to_the_log(caplog):
    registry = ToolRegistry()
    registry.add_external_tool("free", "Free-form.", FREE_FORM, ping)
    with caplog.at_level("WARNING", logger="tooldeck.providers"):
        export_tools(registry, "openai-responses")
    assert [r.getMessage() for r in caplog.records if r.name == "tooldeck.providers"] == [
        "tool 'free' (openai-responses) goes out non-strict (strict: auto): "
        "#/properties/m: a free-form object cannot be strict; declare its properties"
    ]


def test_a_schema_no_export_can_spell_still_fails_naming_the_tool():
    registry = ToolRegistry()
    registry.add_external_tool(
        "multi", "M.", {"type": "object", "properties": {"a": {"allOf": [{}, {}]}}}, ping
    )
    assert export_tools(registry, "openai-chat", warnings=[])  # strict falls back
    with pytest.raises(ExportError, match=r"tool 'multi' \(gemini\)") as info:
        export_tools(registry, "gemini")
    assert isinstance(info.value, ToolDeckError)
    assert (info.value.provider, info.value.tool_name) == ("gemini", "multi")
    assert info.value.__cause__ is None  # the message says it all; nothing else to leak
