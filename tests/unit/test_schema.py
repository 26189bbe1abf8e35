"""Example-based tests of tooldeck._schema: descriptors -> Draft 2020-12 JSON Schema."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tooldeck import Param, ParamDescriptor, RegistrationError, ToolRegistry, tool_input_schema
from tooldeck._schema import param_schema
from tooldeck._validation.validator import schema_validator


def build(*params: ParamDescriptor, tool_name: str | None = None) -> dict[str, Any]:
    """tool_input_schema plus the invariants every generated schema must keep."""
    schema = tool_input_schema(params, tool_name=tool_name)
    Draft202012Validator.check_schema(schema)
    again = tool_input_schema(params, tool_name=tool_name)
    assert json.dumps(again) == json.dumps(schema)
    return schema


def keys(mapping: dict[str, Any]) -> list[str]:
    return list(mapping)


def handler(**kwargs: Any) -> dict[str, Any]:
    return kwargs


# --- shape and determinism ----------------------------------------------------------------


def test_no_params_is_a_closed_empty_object():
    schema = build()
    assert schema == {"type": "object", "properties": {}, "additionalProperties": False}
    assert keys(schema) == ["type", "properties", "additionalProperties"]


def test_root_key_order_and_required_in_declaration_order():
    schema = build(
        Param("b", "string", True, "B."),
        Param("a", "integer", False, "A."),
        Param("c", "number"),
        Param("d", "boolean", default=True),
    )
    assert keys(schema) == ["type", "properties", "required", "additionalProperties"]
    assert keys(schema["properties"]) == ["b", "a", "c", "d"]
    assert schema["required"] == ["b", "c"]
    assert schema["additionalProperties"] is False


def test_no_required_key_when_nothing_is_required():
    schema = build(Param("a", "string", False), Param("b", "integer", default=1))
    assert "required" not in schema


def test_output_is_deterministic_and_constraint_keys_follow_a_fixed_order():
    # Declared in a scrambled keyword order; output order must not depend on it.
    def make() -> dict[str, Any]:
        return tool_input_schema(
            [
                Param(
                    "tags",
                    "list",
                    True,
                    "Tags.",
                    max_items=5,
                    min_items=1,
                    items=Param("tag", "str", max_length=8, pattern="^[a-z]+$", min_length=1),
                ),
                Param(
                    "count",
                    "int",
                    False,
                    "How many.",
                    maximum=10,
                    minimum=0,
                    enum=(1, 2, 3),
                    default=2,
                ),
                Param(
                    "when",
                    "string",
                    description="When.",
                    format="date",
                    pattern=r"^\d",
                    max_length=10,
                    min_length=10,
                ),
            ]
        )

    first, second = make(), make()
    assert json.dumps(first) == json.dumps(second)
    assert first == second
    Draft202012Validator.check_schema(first)
    props = first["properties"]
    assert keys(props["tags"]) == ["type", "description", "items", "minItems", "maxItems"]
    assert keys(props["tags"]["items"]) == ["type", "pattern", "minLength", "maxLength"]
    assert keys(props["count"]) == [
        "type",
        "description",
        "enum",
        "minimum",
        "maximum",
        "default",
    ]
    assert keys(props["when"]) == [
        "type",
        "description",
        "format",
        "pattern",
        "minLength",
        "maxLength",
    ]


def test_descriptions_are_emitted_only_when_given():
    schema = build(Param("a", "string", True, "The a."), Param("b", "string"))
    assert schema["properties"]["a"] == {"type": "string", "description": "The a."}
    assert schema["properties"]["b"] == {"type": "string"}


@pytest.mark.parametrize(
    ("type_", "default"),
    [
        ("integer", 3),
        ("string", "x"),
        ("boolean", False),
        (["string", "null"], None),
        ("array", [1, 2]),
        ("object", {"k": "v"}),
        ("number", 0),
    ],
)
def test_defaults_are_emitted_last_and_make_the_param_optional(type_, default):
    schema = build(Param("p", type_, True, "P.", default=default))
    prop = schema["properties"]["p"]
    assert prop["default"] == default
    assert keys(prop)[-1] == "default"
    assert "required" not in schema


def test_default_is_reported_by_the_registry_schema():
    registry = ToolRegistry()
    registry.add_tool("t", "T.", handler, Param("n", "int", default=5), Param("s", "str"))
    schema = registry.input_schema("t")
    assert schema["properties"]["n"] == {"type": "integer", "default": 5}
    assert schema["required"] == ["s"]
    Draft202012Validator.check_schema(schema)


def test_enum_is_emitted_as_a_list_in_declared_order():
    schema = build(
        Param("mode", "string", enum=("fast", "slow")),
        Param("mixed", "any", enum=[1, 1.5, True, "x", None]),
    )
    assert schema["properties"]["mode"] == {"type": "string", "enum": ["fast", "slow"]}
    assert schema["properties"]["mixed"] == {"enum": [1, 1.5, True, "x", None]}
    validator = schema_validator(schema)
    assert validator.is_valid({"mode": "fast", "mixed": 1.0})
    assert not validator.is_valid({"mode": "fast", "mixed": 1.5000001})
    assert not validator.is_valid({"mode": "medium", "mixed": 1})


# --- constraints --------------------------------------------------------------------------


def test_constraints_map_to_json_schema_keywords():
    schema = build(
        Param("s", "string", min_length=1, max_length=5, pattern="^[a-z]+$"),
        Param("f", "string", format="email"),
        Param("n", "number", minimum=-1.5, maximum=2.5),
        Param("i", "integer", minimum=0, maximum=0),
        Param("a", "array", min_items=0, max_items=3),
    )
    props = schema["properties"]
    assert props["s"] == {"type": "string", "pattern": "^[a-z]+$", "minLength": 1, "maxLength": 5}
    assert props["f"] == {"type": "string", "format": "email"}
    assert props["n"] == {"type": "number", "minimum": -1.5, "maximum": 2.5}
    # Zero bounds are real bounds, not "unset".
    assert props["i"] == {"type": "integer", "minimum": 0, "maximum": 0}
    assert props["a"] == {"type": "array", "minItems": 0, "maxItems": 3}


def test_items_descriptor_and_items_type_shorthand():
    schema = build(
        Param("nums", "array", items=Param("n", "int", True, "A number.", minimum=1)),
        Param("words", "list", items="str"),
        Param("maybe", "array", items=["int", "null"]),
    )
    props = schema["properties"]
    assert props["nums"] == {
        "type": "array",
        "items": {"type": "integer", "description": "A number.", "minimum": 1},
    }
    assert props["words"] == {"type": "array", "items": {"type": "string"}}
    assert props["maybe"] == {"type": "array", "items": {"type": ["integer", "null"]}}


def test_nested_objects_are_closed_and_have_their_own_required():
    schema = build(
        Param(
            "where",
            "object",
            True,
            "Location.",
            properties=(
                Param("city", "string"),
                Param("zip", "string", False),
                Param(
                    "geo",
                    "dict",
                    False,
                    properties=(Param("lat", "number"), Param("lon", "number")),
                ),
            ),
        ),
        Param("opts", "object", properties=(Param("x", "int", False),)),
    )
    where = schema["properties"]["where"]
    assert keys(where) == ["type", "description", "properties", "required", "additionalProperties"]
    assert where["required"] == ["city"]
    assert where["additionalProperties"] is False
    geo = where["properties"]["geo"]
    assert geo == {
        "type": "object",
        "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
        "required": ["lat", "lon"],
        "additionalProperties": False,
    }
    opts = schema["properties"]["opts"]
    assert "required" not in opts
    assert opts["additionalProperties"] is False

    validator = schema_validator(schema)
    assert validator.is_valid({"where": {"city": "Oslo"}, "opts": {}})
    assert not validator.is_valid({"where": {"city": "Oslo", "extra": 1}, "opts": {}})
    assert not validator.is_valid({"where": {"zip": "0150"}, "opts": {}})
    assert not validator.is_valid({"where": {"city": "Oslo", "geo": {"lat": 1}}, "opts": {}})


def test_properties_mapping_shorthand():
    param = Param("p", "object", properties={"a": "int", "b": Param("other", "str", False)})
    assert [p.name for p in param.properties or ()] == ["a", "b"]
    schema = build(param)
    assert schema["properties"]["p"]["properties"] == {
        "a": {"type": "integer"},
        "b": {"type": "string"},
    }
    assert schema["properties"]["p"]["required"] == ["a"]


# --- injected parameters ------------------------------------------------------------------


def test_injected_params_never_reach_the_schema():
    schema = build(
        Param("cfg", "object", inject="config"),
        Param("project_dir", "string"),  # injected by name
        Param("cid", "string", inject="call_id"),
        Param("query", "string"),
    )
    assert list(schema["properties"]) == ["query"]
    assert schema["required"] == ["query"]


def test_registry_schema_excludes_injections():
    registry = ToolRegistry(project_dir=".", config={"k": 1})
    registry.add_tool(
        "t",
        "T.",
        handler,
        Param("project_dir", "string"),
        Param("settings", "object", inject="config"),
        Param("n", "integer"),
    )
    schema = registry.input_schema("t")
    assert list(schema["properties"]) == ["n"]
    result = registry.call("t", '{"n": 1}')
    assert result.ok, result.text
    assert result.value["settings"] == {"k": 1}


# --- raw schema fragments -----------------------------------------------------------------


def test_fragment_is_copied_with_description_merged_and_keys_ordered():
    fragment = {
        "anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}],
        "$comment": "hand-written",
        "title": "Either",
    }
    original = copy.deepcopy(fragment)
    schema = build(Param("x", description="Int or short text.", schema=fragment))
    prop = schema["properties"]["x"]
    assert prop == {
        "title": "Either",
        "description": "Int or short text.",
        "anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}],
        "$comment": "hand-written",
    }
    assert keys(prop) == ["title", "description", "anyOf", "$comment"]
    assert fragment == original
    # The schema is a copy: mutating it does not reach the descriptor's fragment.
    prop["anyOf"][0]["type"] = "null"
    assert fragment == original


def test_fragment_own_description_and_default_win():
    schema = build(
        Param("x", description="Outer.", default=1, schema={"description": "Inner.", "default": 2})
    )
    assert schema["properties"]["x"] == {"description": "Inner.", "default": 2}
    schema = build(Param("y", description="Outer.", default=1, schema={"type": "integer"}))
    assert schema["properties"]["y"] == {"type": "integer", "description": "Outer.", "default": 1}


def test_fragment_type_sets_descriptor_type():
    assert Param("x", schema={"type": "integer"}).types == ("integer",)
    assert Param("x", schema={"type": ["string", "null"]}).types == ("string", "null")
    assert Param("x", schema={"anyOf": [{"type": "integer"}]}).types == ()


POINT = {
    "type": "object",
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
    "additionalProperties": False,
}


def test_fragment_defs_are_hoisted_to_the_root_and_refs_resolve():
    fragment = {"$defs": {"Point": POINT}, "$ref": "#/$defs/Point"}
    schema = build(
        Param("origin", "object", True, "Start.", schema=fragment),
        Param("path", schema={"type": "array", "items": {"$ref": "#/$defs/Point"}}),
    )
    assert keys(schema) == ["type", "properties", "required", "additionalProperties", "$defs"]
    assert schema["$defs"] == {"Point": POINT}
    assert schema["properties"]["origin"] == {"$ref": "#/$defs/Point", "description": "Start."}
    assert "$defs" in fragment  # the descriptor's fragment is untouched

    validator = schema_validator(schema)
    assert validator.is_valid({"origin": {"x": 1, "y": 2.5}, "path": [{"x": 0, "y": 0}]})
    assert not validator.is_valid({"origin": {"x": 1}, "path": []})
    assert not validator.is_valid({"origin": {"x": 1, "y": "2"}, "path": []})
    assert not validator.is_valid({"origin": {"x": 1, "y": 2}, "path": [{"x": 0}]})
    assert not validator.is_valid({"origin": {"x": 1, "y": 2, "z": 3}, "path": []})


def test_hoisted_defs_are_sorted_and_identical_ones_shared():
    a = {"$defs": {"Zed": {"type": "string"}, "Alpha": {"type": "integer"}}, "$ref": "#/$defs/Zed"}
    b = {"$defs": {"Zed": {"type": "string"}}, "$ref": "#/$defs/Zed"}
    schema = build(Param("a", schema=a), Param("b", schema=b))
    assert list(schema["$defs"]) == ["Alpha", "Zed"]
    assert schema_validator(schema).is_valid({"a": "x", "b": "y"})
    assert not schema_validator(schema).is_valid({"a": "x", "b": 1})


def test_defs_from_nested_objects_and_items_are_hoisted_to_the_root():
    fragment = {"$defs": {"Point": POINT}, "$ref": "#/$defs/Point"}
    schema = build(
        Param("outer", "object", properties=(Param("p", schema=fragment),)),
        Param("many", "array", items=Param("item", schema=fragment)),
    )
    assert schema["$defs"] == {"Point": POINT}
    assert "$defs" not in schema["properties"]["outer"]
    assert schema["properties"]["outer"]["properties"]["p"] == {"$ref": "#/$defs/Point"}
    assert schema["properties"]["many"]["items"] == {"$ref": "#/$defs/Point"}
    validator = schema_validator(schema)
    assert validator.is_valid({"outer": {"p": {"x": 1, "y": 2}}, "many": [{"x": 3, "y": 4}]})
    assert not validator.is_valid({"outer": {"p": {"x": 1}}, "many": []})
    assert not validator.is_valid({"outer": {"p": {"x": 1, "y": 2}}, "many": [{"y": 4}]})


def test_ref_fragment_validates_through_a_registered_tool():
    registry = ToolRegistry()
    registry.add_tool(
        "move",
        "Move.",
        handler,
        Param("to", schema={"$defs": {"Point": POINT}, "$ref": "#/$defs/Point"}),
    )
    assert registry.call("move", '{"to": {"x": 1, "y": 2}}').ok
    bad = registry.call("move", '{"to": {"x": 1}}')
    assert not bad.ok
    assert bad.error is not None
    assert bad.error.kind == "invalid_arguments"
    assert "$.to" in bad.error.message


def test_conflicting_defs_of_the_same_name_raise():
    first = {"$defs": {"Point": POINT}, "$ref": "#/$defs/Point"}
    second = {"$defs": {"Point": {"type": "string"}}, "$ref": "#/$defs/Point"}
    with pytest.raises(RegistrationError) as info:
        tool_input_schema([Param("a", schema=first), Param("b", schema=second)], tool_name="t")
    assert "Point" in str(info.value)
    assert info.value.param == "b"
    assert info.value.tool_name == "t"
    with pytest.raises(RegistrationError):
        ToolRegistry().add_tool(
            "t", "T.", handler, Param("a", schema=first), Param("b", schema=second)
        )


def test_conflicting_defs_between_nested_and_top_level_raise():
    first = {"$defs": {"Point": POINT}, "$ref": "#/$defs/Point"}
    second = {"$defs": {"Point": {"type": "string"}}, "$ref": "#/$defs/Point"}
    with pytest.raises(RegistrationError):
        tool_input_schema(
            [
                Param("a", schema=first),
                Param("o", "object", properties=(Param("b", schema=second),)),
            ]
        )


def test_param_schema_with_defs_needs_a_tool_schema():
    with pytest.raises(RegistrationError):
        param_schema(Param("a", schema={"$defs": {"X": {}}, "$ref": "#/$defs/X"}))
    defs: dict[str, Any] = {}
    out = param_schema(Param("a", schema={"$defs": {"X": {}}, "$ref": "#/$defs/X"}), defs=defs)
    assert out == {"$ref": "#/$defs/X"}
    assert defs == {"X": {}}


def test_schema_must_be_a_mapping():
    with pytest.raises(RegistrationError):
        Param("a", schema=["not", "a", "mapping"])  # type: ignore[arg-type]


# --- duplicate names ----------------------------------------------------------------------


def test_duplicate_param_name_raises():
    with pytest.raises(RegistrationError) as info:
        tool_input_schema([Param("a"), Param("b"), Param("a", "int")], tool_name="t")
    assert info.value.param == "a"
    assert info.value.code == "TD103"
    assert "'a'" in str(info.value)


def test_duplicate_nested_param_name_raises():
    with pytest.raises(RegistrationError):
        tool_input_schema([Param("o", "object", properties=(Param("x"), Param("x")))])


def test_duplicate_param_name_raises_at_registration():
    with pytest.raises(RegistrationError):
        ToolRegistry().add_tool("t", "T.", handler, Param("a"), Param("a"))


# --- type names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        ("string", "string"),
        ("str", "string"),
        ("int", "integer"),
        ("float", "number"),
        ("bool", "boolean"),
        ("list", "array"),
        ("tuple", "array"),
        ("dict", "object"),
        ("null", "null"),
        ("none", "null"),
        (" Int ", "integer"),
        ("BOOL", "boolean"),
        (["str", "null"], ["string", "null"]),
        (["int", "integer", "float"], ["integer", "number"]),
        (["int"], "integer"),
    ],
)
def test_type_aliases_are_normalised(declared, expected):
    schema = build(Param("p", declared))
    assert schema["properties"]["p"] == {"type": expected}


@pytest.mark.parametrize("declared", ["any", "ANY", "*", ["int", "any"]])
def test_any_has_no_type_key(declared):
    schema = build(Param("p", declared, True, "Anything."))
    assert schema["properties"]["p"] == {"description": "Anything."}
    assert schema_validator(schema).is_valid({"p": [1, {"a": None}]})


@pytest.mark.parametrize("declared", ["strng", "integr", "object?", ["string", "nul"], "file"])
def test_unknown_type_names_raise_and_list_allowed_types(declared):
    with pytest.raises(RegistrationError) as info:
        Param("p", declared)
    message = str(info.value)
    assert "unknown type" in message
    for allowed in ("string", "integer", "number", "boolean", "array", "object", "null", "any"):
        assert allowed in message
    for alias in ("int", "str", "float", "bool", "list", "dict"):
        assert alias in message
    assert info.value.code == "TD101"
    assert info.value.param == "p"


def test_a_format_written_as_a_type_names_the_type_and_format_to_write():
    with pytest.raises(RegistrationError) as info:
        Param("p", "date")
    assert "JSON has no date type: declare type 'string' with format='date'" in str(info.value)
    assert info.value.code == "TD101"


def test_unknown_type_in_items_or_properties_raises():
    with pytest.raises(RegistrationError):
        Param("p", "array", items="strng")
    with pytest.raises(RegistrationError):
        Param("p", "object", properties={"a": "integr"})


def test_empty_type_list_raises():
    with pytest.raises(RegistrationError):
        Param("p", [])


# --- declarations the engine should refuse ------------------------------------------------

# Each of these registers today, and then either produces a schema that fails the
# Draft 2020-12 meta-schema or makes ``registry.call`` raise instead of returning a
# ToolResult. The contract: refuse at registration (RegistrationError), or emit a
# meta-valid schema whose calls return results.
INVALID_DECLARATIONS = [
    pytest.param(
        lambda: Param("a", "string", min_length=-1),
        {"a": "x"},
        id="negative-min-length",
    ),
    pytest.param(
        lambda: Param("a", "array", max_items=-1),
        {"a": []},
        id="negative-max-items",
    ),
    pytest.param(
        lambda: Param("a", "integer", minimum="3"),
        {"a": 1},
        id="string-minimum",
    ),
    pytest.param(
        lambda: Param("a", schema={"minimum": "x"}),
        {"a": 1},
        id="fragment-not-a-schema",
    ),
    pytest.param(
        lambda: Param("a", schema={"type": "int"}),
        {"a": 1},
        id="fragment-type-alias",
    ),
    pytest.param(
        lambda: Param("a", schema={"$ref": "#/$defs/Missing"}),
        {"a": 1},
        id="fragment-unresolvable-ref",
    ),
]


@pytest.mark.parametrize(("make", "arguments"), INVALID_DECLARATIONS)
def test_invalid_declarations_are_refused_or_harmless(make, arguments):
    registry = ToolRegistry()
    try:
        registry.add_tool("t", "T.", handler, make())
    except RegistrationError:
        return
    Draft202012Validator.check_schema(registry.input_schema("t"))
    result = registry.call("t", json.dumps(arguments))  # must not raise
    assert result.ok or (result.error is not None and result.error.kind == "invalid_arguments")


def test_invalid_top_level_default_is_refused():
    with pytest.raises(RegistrationError) as info:
        ToolRegistry().add_tool("t", "T.", handler, Param("n", "int", default="x"))
    assert info.value.code == "TD108"


@pytest.mark.parametrize(
    "make",
    [
        lambda: Param("o", "object", properties=(Param("n", "int", default="x"),)),
        lambda: Param("l", "array", items=Param("n", "int", default="x")),
    ],
    ids=["properties", "items"],
)
def test_invalid_nested_default_is_refused(make):
    with pytest.raises(RegistrationError):
        ToolRegistry().add_tool("t", "T.", handler, make())


# --- meta-schema --------------------------------------------------------------------

META_CASES: list[tuple[ParamDescriptor, ...]] = [
    (),
    (Param("a", "any"),),
    (Param("a", ["string", "integer", "null"], enum=("x", 1, None)),),
    (Param("s", "string", format="date-time", pattern="^2", min_length=0, max_length=40),),
    (Param("n", "number", minimum=-1e300, maximum=1e300, default=0.5),),
    (
        Param(
            "a",
            "array",
            min_items=0,
            max_items=0,
            items=Param("o", "object", properties=(Param("k", "string", default="v"),)),
        ),
    ),
    (
        Param("f", schema={"$defs": {"P": POINT}, "$ref": "#/$defs/P"}),
        Param("g", schema={"type": "array", "prefixItems": [{"type": "string"}], "items": False}),
        Param("h", schema={"oneOf": [{"const": 1}, {"const": "1"}]}),
    ),
    (
        Param(
            "deep",
            "object",
            properties=(
                Param(
                    "mid",
                    "object",
                    False,
                    "Middle.",
                    properties=(Param("leaf", ["bool", "null"], default=None),),
                ),
            ),
        ),
    ),
]


@pytest.mark.parametrize("params", META_CASES)
def test_every_generated_schema_passes_the_meta_schema(params):
    schema = tool_input_schema(params)
    Draft202012Validator.check_schema(schema)
    assert schema.get("$schema") is None or schema["$schema"].startswith("https://json-schema.org")
