"""``import_openai``: shapes, type mapping, faithful fragments, problems as values, YAML and stubs.

Round trips go through the real loader (``tooldeck.load_manifests``) and the
real exporter, with the generated stubs as handlers, so what is tested is what
a user gets. The 897-definition corpus is in test_importers_corpus.py.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tooldeck
from tooldeck._importers import (
    ImportResult,
    Severity,
    assign_handlers,
    python_identifier,
    render_manifest,
    render_stubs,
)
from tooldeck._importers import import_openai as _import_openai
from tooldeck._importers._fragments import MAX_SCHEMA_DEPTH
from tooldeck._importers._reading import MAX_DEFINITIONS

WEATHER = {
    "name": "get_weather",
    "description": "Get the weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
        },
        "required": ["city"],
    },
}


def import_openai(text: str, *, source: str = "<input>") -> ImportResult:
    """The real import, less the reports these tests are not about.

    TD516 (the source's open roots, imported closed: nearly every definition
    here leaves its root open) and TD515 (no description) are tested in
    test_importers_catalogs.py, with the hostile corpus they come from.
    """
    result = _import_openai(text, source=source)
    result.problems = [p for p in result.problems if p.code not in ("TD515", "TD516")]
    return result


def one(parameters: dict[str, Any], **extra: Any) -> str:
    return json.dumps(
        [{"name": "tool", "description": "A tool.", "parameters": parameters, **extra}]
    )


def params_of(text: str) -> list[dict[str, Any]]:
    result = import_openai(text)
    assert result.errors == [], [p.format("t") for p in result.errors]
    return result.tools[0].params


def codes(result: ImportResult) -> list[str]:
    return [p.code for p in result.problems]


class Loaded:
    """An import written as a manifest plus stubs, loaded and exported by the engine."""

    def __init__(self, result: ImportResult, registry: Any, load: Any, text: str) -> None:
        self.result = result
        self.registry = registry
        self.load = load
        self.text = text

    def schema(self, name: str = "tool") -> dict[str, Any]:
        for tool in tooldeck.export_tools(self.registry, "openai-chat", strict=False):
            if tool["function"]["name"] == self.registry.safe_name(name):
                return tool["function"]["parameters"]  # type: ignore[no-any-return]
        raise KeyError(name)


@pytest.fixture
def load_import(tmp_path: Path) -> Iterator[Any]:
    """``load_import(text)``: import, write stubs and manifest under tmp_path, load them."""
    counter = iter(range(1000))
    added: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def run(text: str) -> Loaded:
        module = f"imported_stubs_{next(counter)}"
        added.append(module)
        result = import_openai(text, source="input.json")
        assign_handlers(result, handler_module=module)
        (tmp_path / f"{module}.py").write_text(render_stubs(result), encoding="utf-8")
        manifest = tmp_path / f"{module}.yaml"
        text_out = render_manifest(result)
        manifest.write_text(text_out, encoding="utf-8")
        importlib.invalidate_caches()
        registry, load = tooldeck.load_manifests([manifest], allow_handlers=[module])
        assert load.errors == [], [str(d) for d in load.errors]
        return Loaded(result, registry, load, text_out)

    yield run
    sys.path.remove(str(tmp_path))
    for module in added:
        sys.modules.pop(module, None)


# ------------------------------------------------------------------ shapes
CHAT = {"type": "function", "function": {**WEATHER, "strict": True}}
RESPONSES = {"type": "function", **WEATHER, "strict": False}
MCP = {
    "name": WEATHER["name"],
    "description": WEATHER["description"],
    "inputSchema": WEATHER["parameters"],
}
ANTHROPIC = {"name": WEATHER["name"], "input_schema": WEATHER["parameters"]}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps([WEATHER]),
        json.dumps(WEATHER),
        json.dumps({"tools": [CHAT]}),
        json.dumps({"functions": [WEATHER]}),
        json.dumps({"model": "gpt-4o", "messages": [], "tools": [RESPONSES]}),
        json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": [MCP]}}),
        json.dumps([ANTHROPIC]),
        json.dumps({"tools": [{"functionDeclarations": [WEATHER]}]}),
        json.dumps({"id": "simple_0", "question": [], "function": [WEATHER]}),
        json.dumps(WEATHER) + "\n\n" + json.dumps({"tools": []}) + "\n",
        "\ufeff" + json.dumps([CHAT]),
    ],
    ids=[
        "list",
        "single",
        "chat-tools",
        "functions",
        "request-body",
        "json-rpc",
        "anthropic",
        "gemini",
        "bfcl-line",
        "jsonl",
        "bom",
    ],
)
def test_every_shape_in_the_wild_gives_the_same_tool(text: str) -> None:
    result = import_openai(text)
    assert [p for p in result.problems if p.severity is not Severity.INFO] == []
    (tool,) = result.tools
    assert tool.name == "get_weather"
    assert [p["name"] for p in tool.params] == ["city", "unit"]
    assert tool.params[1] == {
        "name": "unit",
        "type": "string",
        "default": "c",
        "enum": ["c", "f"],
    }


def test_strict_and_mcp_annotations_become_tool_options() -> None:
    chat = import_openai(json.dumps([CHAT])).tools[0]
    assert chat.options == {"strict": True}
    responses = import_openai(json.dumps([RESPONSES])).tools[0]
    assert responses.options == {"strict": False}  # explicit: unset would mean auto
    mcp = {**MCP, "annotations": {"destructiveHint": True, "idempotentHint": True, "title": "W"}}
    result = import_openai(json.dumps([mcp]))
    assert result.tools[0].options == {"side_effects": True, "idempotent": True}
    assert codes(result) == ["TD506"]  # the title has no place
    assert "title" in result.problems[0].message


def test_hosted_tools_are_skipped_with_a_warning_and_the_rest_imports() -> None:
    tools = [{"type": "web_search"}, {"type": "mcp", "server_label": "deepwiki"}, CHAT]
    result = import_openai(json.dumps(tools))
    assert [t.name for t in result.tools] == ["get_weather"]
    assert [(p.code, p.severity, p.index, p.name) for p in result.problems] == [
        ("TD503", Severity.WARNING, 1, None),
        ("TD503", Severity.WARNING, 2, "deepwiki"),
    ]
    assert result.exit_code() == 0


def test_a_bad_definition_is_reported_and_skipped_the_others_import() -> None:
    entries = [
        "not an object",
        {"description": "no name"},
        {"name": "x", "parameters": {"type": "string"}},
        {"name": "y", "parameters": {"type": "object", "properties": {"p": {"pattern": "(?=a)"}}}},
        WEATHER,
        WEATHER,
    ]
    result = import_openai(json.dumps(entries), source="tools.json")
    assert [t.index for t in result.tools] == [5]
    assert [(p.code, p.index) for p in result.errors] == [
        ("TD501", 1),
        ("TD501", 2),
        ("TD501", 3),
        ("TD504", 4),
        ("TD502", 6),
    ]
    assert result.skipped == 5
    assert result.exit_code() == 1
    assert "lookahead" in result.errors[3].message  # the engine's own words (RE2)
    assert result.errors[4].format("tools.json") == (
        "tools.json: definition 6 (get_weather): TD502 the name is already used by "
        "definition 5; this one is skipped (rename one of them)"
    )


# --------------------------------------------------------------- untrusted input
@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ('[{"name": "a",\n  "parameters": }]', "invalid JSON: Expecting value", 2, 17),
        ("[1, NaN]", "NaN is not valid JSON", 1, 1),
        ("[1e999]", "too large", 1, 1),
        ("[" * 100_000 + "]" * 100_000, "nests too deeply", 1, 1),
        ("[" + "9" * 5000 + "]", "a number cannot be read", 1, 1),
        ("", "the input is empty", None, None),
        ("42", "found a number", None, None),
        ("[]", "no tool definitions found", None, None),
    ],
)
def test_unreadable_input_is_one_located_problem(
    text: str, message: str, line: int | None, column: int | None
) -> None:
    result = import_openai(text)
    assert not result.readable
    assert result.exit_code() == 2
    (problem,) = result.problems
    assert problem.code == "TD500"
    assert message in problem.message
    assert (problem.line, problem.column) == (line, column)


def test_a_broken_jsonl_line_is_reported_where_it_is_and_the_others_import() -> None:
    good = json.dumps(WEATHER)
    other = json.dumps({**WEATHER, "name": "other"})
    result = import_openai(f'{{"name": broken}}\n{good}\n\n{other}\n', source="t.jsonl")
    assert [t.name for t in result.tools] == ["get_weather", "other"]
    assert [t.line for t in result.tools] == [2, 4]
    (problem,) = result.problems
    assert problem.format("t.jsonl").startswith("t.jsonl:1:10: TD500 invalid JSON on this line")
    assert result.exit_code() == 1


def test_deep_schemas_and_unwritable_values_skip_only_their_definition() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_SCHEMA_DEPTH):
        deep = {"type": "array", "items": deep}
    entries = [
        {"name": "deep", "parameters": {"type": "object", "properties": {"d": deep}}},
        {"name": "big", "parameters": one_param({"type": "integer", "maximum": 2**70})},
        {"name": "surrogate", "description": "\ud800", "parameters": {}},
        {"name": "fine", "parameters": {}},
    ]
    result = import_openai(json.dumps(entries))
    assert [t.name for t in result.tools] == ["fine"]
    assert [(p.code, p.name) for p in result.errors] == [
        ("TD504", "deep"),
        ("TD504", "big"),
        ("TD504", "surrogate"),
    ]


def one_param(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": schema}, "required": ["p"]}


def test_the_number_of_definitions_is_capped() -> None:
    text = "\n".join(json.dumps({"name": f"t{i}"}) for i in range(MAX_DEFINITIONS + 3))
    result = import_openai(text)
    assert len(result.tools) == MAX_DEFINITIONS
    assert [p.code for p in result.problems] == ["TD500"]


# ------------------------------------------------------------ schema mapping
@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        ("dict", "object"),
        ("float", "number"),
        ("tuple", "array"),
        ("int", "integer"),
        ("str", "string"),
        ("bool", "boolean"),
        ("list", "array"),
        ("String", "string"),
        ("Boolean", "boolean"),
        ("any", "any"),
        (["string", "null"], ["string", "null"]),
        (["str", "int", "str"], ["string", "integer"]),
        (["any", "string"], "any"),
    ],
)
def test_type_aliases_become_json_schema_names(declared: Any, expected: Any) -> None:
    (entry,) = params_of(one({"type": "object", "properties": {"p": {"type": declared}}}))
    assert entry["type"] == expected


@pytest.mark.parametrize(
    ("declared", "expected", "message"),
    [
        ("HashMap", "object", "not a JSON Schema type; imported as 'object'"),
        ("ArrayList", "array", "imported as 'array'"),
        ("char", "string", "imported as 'string'"),
        ("", "any", "unknown type ''"),
        ("file", "any", "unknown type 'file'"),
    ],
)
def test_foreign_and_unknown_types_are_mapped_with_a_warning(
    declared: str, expected: str, message: str
) -> None:
    result = import_openai(one({"type": "object", "properties": {"p": {"type": declared}}}))
    assert result.tools[0].params[0]["type"] == expected
    (problem,) = result.problems
    assert (problem.code, problem.severity) == ("TD505", Severity.WARNING)
    assert message in problem.message
    assert problem.path == "parameters.properties.p.type"


def test_descriptor_form_for_what_it_says_exactly(load_import: Any) -> None:
    parameters = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 9, "pattern": "^[a-z]+$"},
            "when": {"type": "string", "format": "date"},
            "count": {"type": "int", "minimum": 1, "maximum": 5, "default": 2},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "point": {
                "type": "dict",
                "description": "A point",
                "properties": {"x": {"type": "float"}, "y": {"type": "float", "default": 0}},
                "required": ["x"],
                "additionalProperties": False,
            },
            "free": {"type": "object", "description": "Anything"},
            "maybe": {"type": ["string", "null"]},
        },
        "required": ["name", "tags", "point", "free"],
    }
    loaded = load_import(one(parameters))
    params = loaded.result.tools[0].params
    assert all("schema" not in p for p in params)
    assert params[3]["items"] == "string"
    assert params[4]["properties"] == [
        {"name": "x", "type": "number"},
        {"name": "y", "type": "number", "default": 0},
    ]
    assert params[6] == {"name": "maybe", "type": ["string", "null"], "required": False}
    back = loaded.schema()
    assert back["properties"]["point"] == {
        "type": "object",
        "description": "A point",
        "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0}},
        "required": ["x"],
        "additionalProperties": False,
    }
    assert back["required"] == ["name", "tags", "point", "free"]


@pytest.mark.parametrize(
    "schema",
    [
        {"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "Either"},
        {"type": "object", "properties": {"a": {"type": "string"}}},  # open: extra keys allowed
        {"type": "object", "additionalProperties": {"type": "integer"}},
        {"type": "string", "title": "Name", "examples": ["a"]},
        {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "int"}}}},
        {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
        {"type": "string", "optional": True},
        {"const": "fixed"},
        {"type": "array", "prefixItems": [{"type": "string"}], "uniqueItems": True},
        {"type": "string", "enum": []},
        {"type": "string", "description": ""},
    ],
)
def test_what_descriptors_cannot_say_stays_exact_in_a_fragment(
    load_import: Any, schema: dict[str, Any]
) -> None:
    loaded = load_import(one(one_param(schema)))
    (entry,) = loaded.result.tools[0].params
    assert "schema" in entry
    back = loaded.schema()["properties"]["p"]
    expected = json.loads(json.dumps(schema).replace('"int"', '"integer"'))
    assert back == expected


def test_required_with_a_default_keeps_both(load_import: Any) -> None:
    loaded = load_import(one(one_param({"type": "integer", "default": 3})))
    back = loaded.schema()
    assert back["required"] == ["p"]
    assert back["properties"]["p"] == {"type": "integer", "default": 3}


def test_a_default_that_breaks_its_type_stays_an_annotation(load_import: Any) -> None:
    text = json.dumps(
        [
            {
                "name": "tool",
                "parameters": {
                    "type": "dict",
                    "properties": {"flag": {"type": "boolean", "default": "false"}},
                },
            }
        ]
    )
    loaded = load_import(text)
    (problem,) = loaded.result.problems
    assert problem.code == "TD507"
    assert "kept as an annotation" in problem.message
    (entry,) = loaded.result.tools[0].params
    assert entry == {
        "name": "flag",
        "required": False,
        "schema": {"type": "boolean", "default": "false"},
    }
    assert loaded.schema()["properties"]["flag"] == {"type": "boolean", "default": "false"}


def test_a_null_default_is_written_as_null(load_import: Any) -> None:
    loaded = load_import(
        one({"type": "object", "properties": {"p": {"type": "string", "default": None}}})
    )
    (entry,) = loaded.result.tools[0].params
    assert entry == {"name": "p", "type": "string", "default": None}
    assert "default: null" in loaded.text
    call = loaded.registry.call("tool", {})  # optional: the stub runs (and says so)
    assert call.error is not None
    assert call.error.kind == "execution_error"


def test_refs_to_defs_and_definitions_travel_with_their_parameter(load_import: Any) -> None:
    parameters = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/A"},
            "b": {"type": "array", "items": {"$ref": "#/definitions/B"}},
            "c": {"type": "string"},
        },
        "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}}}},
        "definitions": {"B": {"type": "string", "enum": ["x"]}, "Unused": {"type": "null"}},
    }
    loaded = load_import(one(parameters))
    a, b, c = loaded.result.tools[0].params
    assert sorted(a["schema"]["$defs"]) == ["A", "B"]
    assert b["schema"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/B"},
        "$defs": {"B": {"type": "string", "enum": ["x"]}},
    }
    assert "schema" not in c
    back = loaded.schema()
    assert sorted(back["$defs"]) == ["A", "B"]
    assert back["$defs"]["A"]["properties"]["b"] == {"$ref": "#/$defs/B"}
    assert "TD508" in codes(loaded.result)  # #/definitions/ rewritten, said as a note


def test_a_reference_outside_the_definition_is_refused() -> None:
    result = import_openai(one({"type": "object", "properties": {"p": {"$ref": "other.json#/X"}}}))
    assert [(p.code, p.path) for p in result.errors] == [("TD504", "parameters.properties.p.$ref")]


def test_older_draft_idioms_are_rewritten(load_import: Any) -> None:
    parameters = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "int"}]},
            "n": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "o": {
                "type": "object",
                "properties": {"k": {"type": "string", "required": True}},
            },
        },
    }
    loaded = load_import(one(parameters))
    back = loaded.schema()["properties"]
    assert back["pair"] == {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"type": "integer"}],
    }
    assert back["n"] == {"type": "number", "minimum": 0, "exclusiveMinimum": 0}
    assert back["o"]["required"] == ["k"]
    assert {p.severity for p in loaded.result.problems} == {Severity.INFO}


def test_root_keywords_without_a_place_are_reported() -> None:
    parameters = {
        "type": "object",
        "title": "Args",
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"a": {"type": "string"}},
        "required": ["a", "ghost"],
        "additionalProperties": True,
    }
    result = import_openai(one(parameters))
    assert len(result.tools) == 1
    paths = sorted(p.path for p in result.problems)
    # a known draft's $schema is not reported: its idioms are rewritten to 2020-12
    assert paths == ["parameters.required", "parameters.title"]
    assert {p.code for p in result.problems} == {"TD506"}
    # the open root is counted in the file's TD516 (test_importers_catalogs.py)
    assert "TD516" in [p.code for p in _import_openai(one(parameters)).problems]


def test_a_parameter_named_project_dir_is_flagged() -> None:
    result = import_openai(one({"type": "object", "properties": {"project_dir": {}}}))
    assert [p.code for p in result.problems] == ["TD506"]
    assert "project directory" in result.problems[0].message


# ------------------------------------------------------------------ writing YAML
def test_the_manifest_reads_like_a_hand_written_one() -> None:
    tool = {**WEATHER, "description": "Get the weather.\n\nUse it for ${city} forecasts."}
    result = import_openai(json.dumps([tool]), source="weather.json")
    assign_handlers(result, handler_module="myapp.tools")
    text = render_manifest(result, schema="../schemas/tooldeck.schema.json")
    lines = text.splitlines()
    assert lines[0] == "# yaml-language-server: $schema=../schemas/tooldeck.schema.json"
    assert lines[1] == "# Imported by `tooldeck import openai` from weather.json: 1 tool."
    assert "version: 1\ntools:\n  - name: get_weather\n    description: |-\n" in text
    assert "      Use it for $${city} forecasts." in text  # a literal ${, not a reference
    assert "    handler: myapp.tools:get_weather\n    params:\n      - name: city\n" in text
    assert "        enum: [c, f]\n" in text


def test_a_file_name_cannot_break_out_of_the_header_comment() -> None:
    result = import_openai(json.dumps([WEATHER]), source="evil\nversion: 2\r.json")
    assign_handlers(result, handler="m:f")
    text = render_manifest(result)
    assert yaml.safe_load(text)["version"] == 1
    assert "evil?version: 2?.json" in text


TRICKY = [
    "\x85",
    "a\u2028b",
    "\ufeffx",
    "yes",
    "null",
    "1.0",
    "0o17",
    "2026-01-01",
    "${env:HOME}",
    "$${x}",
    "# not a comment",
    "- item",
    "key: value",
    "'",
    '"',
    "a\tb",
    "\r\n",
    " lead",
    "trail ",
    "\n\nx\n\n",
    "\x00\x07",
    "\U0001f600",
    "&anchor *alias !tag",
    "{[,]}",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_strings_read_back_exactly(text: str, load_import: Any) -> None:
    schema = {
        "type": "object",
        "properties": {
            text: {"type": "string", "description": text, "enum": [text, "x"]},
            "o": {"type": "object", "properties": {text: {"const": text}}},
        },
    }
    loaded = load_import(json.dumps([{"name": "tool", "description": text, "parameters": schema}]))
    back = loaded.schema()
    assert loaded.registry.get_tool("tool").description == text
    assert back["properties"][text] == {"type": "string", "description": text, "enum": [text, "x"]}
    assert back["properties"]["o"]["properties"] == {text: {"const": text}}


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
VALUES = st.one_of(
    TEXT,
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(description=TEXT, enum=st.lists(TEXT, min_size=1, max_size=4), default=VALUES)
def test_any_text_reads_back_exactly(description: str, enum: list[str], default: Any) -> None:
    """Quoting, block scalars, ``${`` escapes and unicode: the loader sees the source's values."""
    import tempfile

    from tooldeck._secrets import Secrets
    from tooldeck._yaml.source import read_yaml
    from tooldeck.manifest._interpolate import interpolate

    schema = {
        "type": "object",
        "properties": {
            "e": {"type": "string", "description": description, "enum": enum},
            "d": {"description": description, "default": default},
        },
    }
    result = import_openai(
        json.dumps([{"name": "t", "description": description, "parameters": schema}])
    )
    assume_imported = result.tools
    if not assume_imported:
        return
    assign_handlers(result, handler="m:f")
    text = render_manifest(result)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.yaml"
        path.write_text(text, encoding="utf-8")
        doc = read_yaml(path)
    assert doc.diagnostics == []
    data, problems = interpolate(doc.data, config={}, secrets=Secrets())
    assert problems == []
    tool = data["tools"][0]
    assert tool["description"] == description
    assert tool["params"] == result.tools[0].params


# ---------------------------------------------------------------- handlers and stubs
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("get_weather", "get_weather"),
        ("math.factorial", "math_factorial"),
        ("get-weather", "get_weather"),
        ("class", "class_"),
        ("list", "list_"),
        ("3d_render", "tool_3d_render"),
        ("__init__", "init"),
        ("café", "caf"),
        ("...", "tool"),
    ],
)
def test_tool_names_become_public_python_identifiers(name: str, expected: str) -> None:
    assert python_identifier(name) == expected
    assert python_identifier(name, taken=[expected]) == f"{expected}_2"


def test_handler_module_renames_are_reported_and_deterministic() -> None:
    tools = [{**WEATHER, "name": n} for n in ("a.b", "a_b", "ok")]
    result = import_openai(json.dumps(tools))
    assign_handlers(result, handler_module="pkg.tools")
    assert [t.handler for t in result.tools] == ["pkg.tools:a_b", "pkg.tools:a_b_2", "pkg.tools:ok"]
    assert [(p.code, p.name) for p in result.problems] == [("TD509", "a.b"), ("TD509", "a_b")]


def test_stubs_are_typed_and_cannot_carry_code(load_import: Any) -> None:
    nasty = 'Ends with a quote" and """ triple\\ quotes\x07 and\nmore: """); import os; ("'
    parameters = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": nasty},
            "days": {"type": "integer", "default": 3},
            "ratio": {"type": ["number", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "object", "default": {"a": 1}},
            "from": {"type": "string", "default": None},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "label": {"type": "string", "default": 'a "quoted" \u00e9 \U0001f600\n\x00'},
        },
        "required": ["city", "tags"],
    }
    tool = {"name": 'x"); import os; ("', "description": nasty, "parameters": parameters}
    loaded = load_import(json.dumps([tool]))
    module = loaded.result.tools[0].handler.split(":")[0]
    source = (Path(sys.modules[module].__file__ or "")).read_text(encoding="utf-8")
    tree = ast.parse(source)
    assert [type(node).__name__ for node in tree.body] == [
        "Expr",
        "ImportFrom",
        "Assign",
        "FunctionDef",
    ]
    function = tree.body[-1]
    assert isinstance(function, ast.FunctionDef)
    assert function.name == "x_import_os"
    assert ast.unparse(function.args) == (
        "*, city: str, days: int=3, ratio: float | None=None, tags: list[str], "
        "opts: dict[str, Any] | None=None, either: str | int | None=None, "
        "label: str='a \"quoted\" \u00e9 \U0001f600\\n\\x00', **arguments: Any"
    )
    handler = getattr(sys.modules[module], function.name)
    label = inspect.signature(handler).parameters["label"].default
    assert label == parameters["properties"]["label"]["default"]
    docstring = ast.get_docstring(function) or ""
    assert docstring.startswith(nasty.split("\n", maxsplit=1)[0])
    assert "arguments: the parameters whose names are not Python names: 'from'" in docstring
    call = loaded.registry.call(tool["name"], {"city": "Oslo", "tags": []})
    assert call.error is not None
    assert "not implemented yet" in call.text


def test_one_handler_for_every_tool() -> None:
    result = import_openai(json.dumps([WEATHER, {**WEATHER, "name": "b"}]))
    assign_handlers(result, handler="myapp.tools:dispatch")
    assert {t.handler for t in result.tools} == {"myapp.tools:dispatch"}
    with pytest.raises(ValueError, match="one function per tool"):
        render_stubs(result)
    with pytest.raises(ValueError, match="handler"):
        assign_handlers(result)
