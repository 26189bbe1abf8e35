"""Parameter descriptors -> JSON Schema (Draft 2020-12).

Output is deterministic: keys always come in the order of ``_KEY_ORDER`` and
properties in declaration order, so exports diff cleanly between runs.
Injected parameters and those filled from the caller's identity (``from_auth``)
never appear. Raw ``schema=`` fragments are copied; their
``$defs`` are hoisted to the tool schema's root so ``#/$defs/...`` references
keep resolving, and a clash between two fragments' definitions is an error.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from ._errors import RegistrationError
from ._params import ParamDescriptor

__all__ = ["DRAFT", "param_schema", "tool_input_schema"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def tool_input_schema(
    params: Iterable[ParamDescriptor],
    *,
    tool_name: str | None = None,
    nested: bool = False,
    additional_properties: bool = False,
) -> dict[str, Any]:
    """The object schema a model fills in to call a tool with ``params``.

    Hidden parameters (injected, ``from_auth``) are left out at the top level;
    ``nested=True`` is for an object parameter's fields, which are never hidden. The object is
    closed (``additionalProperties: false``) unless ``additional_properties``
    (:attr:`ToolSpec.additional_properties <tooldeck.ToolSpec.additional_properties>`),
    which says ``true`` explicitly, so every provider sees the choice.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    defs: dict[str, Any] = {}
    for index, param in enumerate(params):
        if nested and param.inject is not None:
            raise RegistrationError(
                f"parameter {param.name!r}: inject= applies only to a tool's own parameters, "
                "not to fields of an object parameter",
                tool_name=tool_name,
                param=param.name,
                code="TD105",
                path=(index, "inject"),
            )
        if nested and param.from_auth is not None:
            raise RegistrationError(
                f"parameter {param.name!r}: from_auth applies only to a tool's own parameters, "
                "not to fields of an object parameter",
                tool_name=tool_name,
                param=param.name,
                code="TD105",
                path=(index, "from_auth"),
            )
        if not nested and param.hidden:
            continue
        if param.name in properties:
            raise RegistrationError(
                f"parameter {param.name!r} is declared twice",
                tool_name=tool_name,
                param=param.name,
                code="TD103",
                path=(index,),
            )
        try:
            properties[param.name] = param_schema(param, defs=defs, tool_name=tool_name)
        except RegistrationError as exc:
            raise exc.under(index) from None
        if param.required:
            required.append(param.name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = additional_properties
    if defs:
        schema["$defs"] = dict(sorted(defs.items()))
    return schema


def param_schema(
    param: ParamDescriptor,
    *,
    defs: dict[str, Any] | None = None,
    tool_name: str | None = None,
) -> dict[str, Any]:
    """The schema of one parameter; ``defs`` collects hoisted ``$defs``."""
    if param.schema is not None:
        fragment = copy.deepcopy(dict(param.schema))
        fragment_defs = fragment.pop("$defs", None)
        if fragment_defs:
            _hoist(fragment_defs, defs, param, tool_name)
        if param.description and "description" not in fragment:
            fragment = {"description": param.description, **fragment}
        if param.has_default and "default" not in fragment and not param.absent_default:
            fragment["default"] = param.default
        return _ordered(fragment)
    out: dict[str, Any] = {}
    if param.type != "any":
        out["type"] = list(param.type) if isinstance(param.type, tuple) else param.type
    if param.description:
        out["description"] = param.description
    if param.enum is not None:
        out["enum"] = list(param.enum)
    if param.format is not None:
        out["format"] = param.format
    if param.pattern is not None:
        out["pattern"] = param.pattern
    if param.min_length is not None:
        out["minLength"] = param.min_length
    if param.max_length is not None:
        out["maxLength"] = param.max_length
    if param.minimum is not None:
        out["minimum"] = param.minimum
    if param.maximum is not None:
        out["maximum"] = param.maximum
    if param.items is not None:
        try:
            out["items"] = param_schema(param.items, defs=defs, tool_name=tool_name)
        except RegistrationError as exc:
            raise exc.under("items") from None
    if param.min_items is not None:
        out["minItems"] = param.min_items
    if param.max_items is not None:
        out["maxItems"] = param.max_items
    if param.properties is not None:
        try:
            nested = tool_input_schema(param.properties, tool_name=tool_name, nested=True)
        except RegistrationError as exc:
            raise exc.under("properties") from None
        for key, value in nested.pop("$defs", {}).items():
            _hoist({key: value}, defs, param, tool_name)
        out["properties"] = nested["properties"]
        if "required" in nested:
            out["required"] = nested["required"]
        out["additionalProperties"] = False
    if param.has_default and not param.absent_default:
        out["default"] = param.default  # a null default of a non-null type stays unshown
    return out


_KEY_ORDER = (
    "$ref",
    "type",
    "title",
    "description",
    "const",
    "enum",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "default",
    "examples",
)
_RANK = {key: index for index, key in enumerate(_KEY_ORDER)}


def _ordered(schema: dict[str, Any]) -> dict[str, Any]:
    """Stable key order for hand-written fragments (unknown keys sorted after known)."""
    return dict(sorted(schema.items(), key=lambda kv: (_RANK.get(kv[0], len(_RANK)), kv[0])))


def _hoist(
    fragment_defs: Mapping[str, Any],
    defs: dict[str, Any] | None,
    param: ParamDescriptor,
    tool_name: str | None,
) -> None:
    if defs is None:
        raise RegistrationError(
            f"parameter {param.name!r}: $defs need a tool schema to live in",
            tool_name=tool_name,
            param=param.name,
            code="TD104",
        )
    for key, value in fragment_defs.items():
        if key in defs and defs[key] != value:
            raise RegistrationError(
                f"parameter {param.name!r}: $defs/{key} differs from another "
                "parameter's definition of the same name; rename one",
                tool_name=tool_name,
                param=param.name,
                code="TD104",
            )
        defs[key] = value
