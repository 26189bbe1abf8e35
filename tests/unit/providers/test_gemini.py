"""tooldeck.providers.gemini: FunctionDeclarations and the OpenAPI-subset schema conversion."""

import json

import pytest

from tests.unit.providers.sample import ping
from tooldeck import ToolRegistry
from tooldeck.providers import ExportError, export_tools, gemini_schema

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


def test_gemini_unrolls_recursive_refs_and_says_where_it_cut():
    registry = ToolRegistry()
    tree = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
            }
        },
    }
    registry.add_external_tool("tree", "Walk a tree.", tree, ping)
    assert export_tools(registry, "anthropic")  # other providers take $ref as-is
    found = []
    (declaration,) = export_tools(registry, "gemini", warnings=found)
    node = declaration["parameters"]["properties"]["root"]
    assert node["properties"]["children"]["items"]["properties"] == {"name": {"type": "string"}}
    (warning,) = found
    assert (warning.kind, warning.provider, warning.name) == ("schema_changed", "gemini", "tree")
    assert str(warning).startswith(
        "tool 'tree' (gemini): #/properties/root/properties/children/items/properties/children"
        "/items: the recursive $ref #/$defs/Node is unrolled 2 levels"
    )
    assert "the optional property 'children' is left out" in str(warning)


def test_gemini_schema_names_the_tool_when_told():
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.org/a.json"}}}
    with pytest.raises(ExportError, match=r"^#/properties/a: only local \$refs"):
        gemini_schema(schema)
    with pytest.raises(ExportError, match=r"^tool 'fetch': #/properties/a: only local") as info:
        gemini_schema(schema, tool_name="fetch")
    assert (info.value.provider, info.value.tool_name) == ("gemini", "fetch")


@pytest.mark.parametrize(
    "schema",
    [
        {"type": 5},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": 3},
        {"type": "object", "properties": {"a": {"$ref": ["#/x"]}}},
    ],
)
def test_gemini_schema_malformed_is_an_export_error(schema):
    with pytest.raises(ExportError, match="malformed"):
        gemini_schema(schema)


def test_gemini_leaves_out_an_optional_free_form_object_and_keeps_a_required_one():
    """pydantic's ``dict | None``: an object Gemini refuses (no properties) next to null."""
    nullable_dict = {"anyOf": [{"type": "object", "additionalProperties": True}, {"type": "null"}]}
    notes = []
    converted = gemini_schema(
        {
            "type": "object",
            "properties": {"meta": nullable_dict, "body": nullable_dict, "q": {"type": "string"}},
            "required": ["body", "q"],
        },
        notes=notes,
    )
    assert converted["properties"] == {
        "body": {"type": "object", "nullable": True},
        "q": {"type": "string"},
    }
    assert [(where, why.split("; ")[1]) for where, why in notes] == [
        (
            "#/properties/meta/anyOf/0",
            "the optional property 'meta' is left out of the declaration, so the model "
            "cannot send it",
        ),
        ("#/properties/body/anyOf/0", "sent as it is, and Gemini may refuse the declaration"),
    ]
