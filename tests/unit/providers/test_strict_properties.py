"""Property tests: strict mode never refuses what the original schema accepted.

Parameter lists are generated as tooldeck declares them (every ParamDescriptor
type and alias, type lists, enums, bounds, patterns, formats, nested objects,
arrays of objects, raw ``schema=`` fragments with ``$ref``/``anyOf``/``oneOf``,
optional parameters, defaults), with the generators of
``tests/unit/test_validation_properties.py``, which also draw values valid for
the original schema (a small hand-written generator: hypothesis-jsonschema is
not a dependency, and these kinds are all tooldeck produces). Then:

* when :func:`strict_schema` converts the tool's schema, the strict schema
  accepts every such value once each optional property the value leaves out
  is sent as ``null`` (what strict mode makes a model do), at every depth;
* the registry takes that value back and calls the handler exactly as if the
  nulls had been left out (a property whose own schema accepts ``null``
  keeps it: there the model cannot say "absent" in strict mode);
* ``export_tools`` (auto) sends the tool strict exactly when the conversion
  succeeds, and never fails because of it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from tests.unit.test_validation_properties import (
    SETTINGS,
    echo,
    param_lists,
    valid_objects,
    valid_value,
)
from tooldeck import ParamDescriptor, ToolRegistry, tool_input_schema
from tooldeck.providers import ExportError, export_tools, strict_schema


def deref(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with a local ``$ref`` resolved (its siblings win, as strict_schema merges)."""
    seen = set()
    while isinstance(schema.get("$ref"), str) and schema["$ref"] not in seen:
        ref = schema["$ref"]
        seen.add(ref)
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def accepts_null(schema: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    return Draft202012Validator({**schema, "$defs": root.get("$defs", {})}).is_valid(None)


def with_nulls(value: Any, schema: Any, root: Mapping[str, Any], *, every: bool) -> Any:
    """``value`` with each optional property it leaves out sent as null, at every depth.

    ``every=False`` fills only those whose own schema accepts null (what the
    original schema takes too).
    """
    if not isinstance(schema, Mapping):
        return value
    schema = deref(schema, root)
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, ()):
            candidate = {**branch, "$defs": root.get("$defs", {})}
            if Draft202012Validator(candidate).is_valid(value):
                return with_nulls(value, branch, root, every=every)
    properties = schema.get("properties")
    if isinstance(value, dict) and isinstance(properties, Mapping):
        out = dict(value)
        for key, sub in properties.items():
            if key in value:
                out[key] = with_nulls(value[key], sub, root, every=every)
            elif every or accepts_null(deref(sub, root), root):
                out[key] = None
        return out
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping):
        return [with_nulls(item, items, root, every=every) for item in value]
    return value


@st.composite
def declared_tools(draw: st.DrawFn) -> tuple[ParamDescriptor, ...]:
    """Parameter lists, some optional parameters carrying a default valid for them."""
    params = list(draw(param_lists(injections=False)))
    for index, param in enumerate(params):
        if param.required or param.schema is not None or not draw(st.booleans()):
            continue
        default = draw(valid_value(param))
        if "$" in json.dumps(default):  # ${name} would be a placeholder
            continue
        params[index] = dataclasses.replace(param, default=default)
    return tuple(params)


@settings(SETTINGS, max_examples=300)  # about a third of the tools can be strict
@given(params=declared_tools(), data=st.data())
def test_the_strict_schema_accepts_every_value_the_original_did(params, data):
    schema = tool_input_schema(params)
    registry = ToolRegistry()
    registry.add_tool("probe", "Probe tool.", echo, *params)
    try:
        strict = strict_schema(schema)
    except ExportError:
        strict = None
    (exported,) = export_tools(registry, "openai-responses", warnings=[])
    event("converted" if strict is not None else "not convertible: sent non-strict")
    assert exported["strict"] is (strict is not None)
    if strict is None:
        assert exported["parameters"] == schema  # sent as the registry holds it
        return
    assert exported["parameters"] == strict
    Draft202012Validator.check_schema(strict)
    original = Draft202012Validator(schema)
    converted = Draft202012Validator(strict)
    for _ in range(3):
        value = json.loads(json.dumps(data.draw(valid_objects(params), label="value")))
        assert original.is_valid(value), value
        sent = with_nulls(value, schema, schema, every=True)
        errors = [f"{e.json_path}: {e.message}" for e in converted.iter_errors(sent)]
        assert errors == [], (sent, strict)

        as_sent = registry.call("probe", json.dumps(sent))
        assert as_sent.ok, (sent, as_sent.text)
        meant = registry.call("probe", json.dumps(with_nulls(value, schema, schema, every=False)))
        assert meant.ok, meant.text
        assert as_sent.value == meant.value
