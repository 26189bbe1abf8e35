"""A null where strict mode made an optional property nullable means "not given", at any depth."""

from __future__ import annotations

import copy
from typing import Any

from tooldeck import Param, ToolRegistry
from tooldeck._validation.nulls import NullPlan, null_plan, optional_non_null, rejects_null
from tooldeck.providers import export_tools


def echo(**kwargs: Any) -> dict[str, Any]:
    return kwargs


def echo_mapping(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


ADDRESS = Param(
    "address",
    "object",
    False,
    "Where to ship",
    properties=(
        Param("street", "string", True, "Street"),
        Param("zip", "string", False, "Zip code"),
        Param("note", ["string", "null"], False, "A note, or null"),
    ),
)
LINES = Param(
    "lines",
    "array",
    False,
    "Order lines",
    items=Param(
        "line",
        "object",
        properties=(Param("sku", "string"), Param("qty", "integer", False)),
    ),
)

EXTERNAL = {
    "type": "object",
    "properties": {
        "q": {"type": "string"},
        "limit": {"type": "integer"},
        "maybe": {"type": ["string", "null"]},
        "range": {"$ref": "#/$defs/Range"},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/Range"}},
    },
    "required": ["q"],
    "$defs": {
        "Range": {
            "type": "object",
            "properties": {"lo": {"type": "number"}, "hi": {"type": "number"}},
            "required": ["lo"],
        }
    },
}


def test_nested_optional_nulls_are_dropped_for_declared_tools():
    registry = ToolRegistry()
    registry.add_tool("ship", "Ship an order.", echo, ADDRESS, LINES)
    arguments = {
        "address": {"street": "Main 1", "zip": None, "note": None},
        "lines": [{"sku": "A", "qty": None}, {"sku": "B", "qty": 2}],
    }
    before = copy.deepcopy(arguments)
    result = registry.call("ship", arguments)
    assert result.ok, result.text
    assert result.value == {
        "address": {"street": "Main 1", "note": None},  # nullable: null is a value
        "lines": [{"sku": "A"}, {"sku": "B", "qty": 2}],
    }
    assert arguments == before  # the caller's objects are not changed
    assert registry.call("ship", {"address": {"street": None}}).error.kind == "invalid_arguments"


def test_external_tools_drop_optional_nulls_too():
    registry = ToolRegistry()
    registry.add_external_tool("find", "Find things.", EXTERNAL, echo_mapping)
    result = registry.call(
        "find",
        {
            "q": "x",
            "limit": None,
            "maybe": None,
            "range": {"lo": 1, "hi": None},
            "tags": [{"lo": 2, "hi": None}],
        },
    )
    assert result.ok, result.text
    assert result.value == {"q": "x", "maybe": None, "range": {"lo": 1}, "tags": [{"lo": 2}]}
    assert registry.call("find", {"q": None}).error.kind == "invalid_arguments"


async def test_async_calls_drop_them_as_well():
    registry = ToolRegistry()
    registry.add_external_tool("find", "Find things.", EXTERNAL, echo_mapping)
    result = await registry.acall("find", '{"q": "x", "range": {"lo": 1, "hi": null}}')
    assert result.ok, result.text
    assert result.value == {"q": "x", "range": {"lo": 1}}


def test_what_a_strict_export_makes_a_model_send_is_accepted():
    registry = ToolRegistry()
    registry.add_tool("ship", "Ship an order.", echo, ADDRESS, LINES)
    registry.add_external_tool("find", "Find things.", EXTERNAL, echo_mapping)
    ship, find = export_tools(registry, "openai-responses", warnings=[])
    assert (ship["strict"], find["strict"]) == (True, True)
    everything_null = {
        "ship": {"address": {"street": "s", "zip": None, "note": None}, "lines": None},
        "find": {"q": "x", "limit": None, "maybe": None, "range": None, "tags": None},
    }
    for name, arguments in everything_null.items():
        assert registry.call(name, arguments).ok


def test_rejects_null():
    root = {"$defs": {"N": {"type": "null"}, "S": {"type": "string"}}}
    assert rejects_null({"type": "string"}, root)
    assert not rejects_null({"type": ["string", "null"]}, root)
    assert rejects_null({"enum": ["a"]}, root)
    assert not rejects_null({"enum": ["a", None]}, root)
    assert rejects_null({"const": 1}, root)
    assert not rejects_null({"const": None}, root)
    assert rejects_null({"$ref": "#/$defs/S"}, root)
    assert not rejects_null({"$ref": "#/$defs/N"}, root)
    assert not rejects_null({"$ref": "#/$defs/missing"}, root)
    assert rejects_null({"anyOf": [{"type": "string"}, {"type": "integer"}]}, root)
    assert not rejects_null({"anyOf": [{"type": "string"}, {"type": "null"}]}, root)
    assert rejects_null({"allOf": [{}, {"type": "string"}]}, root)
    assert rejects_null(False, root)
    assert not rejects_null({}, root)
    assert not rejects_null(True, root)


def test_plans():
    assert optional_non_null(EXTERNAL) == {"limit", "range", "tags"}
    plan = null_plan(EXTERNAL)
    assert plan is not None
    assert plan.drop == frozenset()  # the top level is the fast path's
    assert dict(plan.nested)["range"] == NullPlan(drop=frozenset({"hi"}))
    assert dict(plan.nested)["tags"].items == NullPlan(drop=frozenset({"hi"}))
    assert null_plan({"type": "object", "properties": {"a": {"type": "string"}}}) is None
    recursive = {
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
    }
    assert null_plan(recursive) is not None  # a cycle is followed once, then left alone


def test_apply_keeps_the_same_object_when_nothing_changes():
    plan = NullPlan(drop=frozenset({"a"}), nested=(("b", NullPlan(drop=frozenset({"c"}))),))
    value = {"a": 1, "b": {"c": 2}}
    assert plan.apply(value) is value
    assert plan.apply({"a": None, "b": {"c": None}}) == {"b": {}}
    assert plan.apply("text") == "text"
