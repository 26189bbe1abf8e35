"""Gemini: ``FunctionDeclaration`` objects and the OpenAPI-subset schema they take.

Gemini's ``Schema`` is not JSON Schema but a subset of OpenAPI 3.0: one
``type`` per node (``nullable`` instead of ``"null"``), string-only enums, a
few formats per type, no ``$ref``/``$defs``/``additionalProperties``. A
declaration with keywords outside it is rejected with a 400, so
:func:`gemini_schema` rewrites every schema into that subset. No
``google`` SDK import: the shape is plain data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from tooldeck._errors import ExportError
from tooldeck._model import ToolSpec
from tooldeck.providers._schema import converting, merge_all_of, resolve, types_of

__all__ = ["gemini_schema", "gemini_tool"]


def gemini_tool(spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool) -> dict[str, Any]:
    """One ``FunctionDeclaration``; ``parameters`` only when the tool takes any.

    ``strict`` is OpenAI's and ignored here.
    """
    declaration: dict[str, Any] = {"name": name, "description": spec.description}
    parameters = gemini_schema(schema)
    if parameters.get("properties"):
        declaration["parameters"] = parameters
    return declaration


_GEMINI_FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "number": frozenset({"float", "double"}),
    "integer": frozenset({"int32", "int64"}),
}
"""The only ``format`` values Gemini's Schema accepts, per type (others are a 400)."""

_GEMINI_BY_TYPE = {
    "string": ("format", "minLength", "maxLength", "pattern", "enum"),
    "number": ("format", "minimum", "maximum"),
    "integer": ("format", "minimum", "maximum"),
    "array": ("items", "minItems", "maxItems"),
    "object": ("properties", "required"),
}
"""Type-specific keywords, moved into the matching branch when a type list splits."""

_GEMINI_ORDER = (
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
)


def gemini_schema(schema: Mapping[str, Any], *, tool_name: str | None = None) -> dict[str, Any]:
    """JSON Schema -> the OpenAPI 3.0 subset Gemini function declarations accept.

    Keeps type, description, enum, format, items, properties, required,
    minimum, maximum, minItems, maxItems, minLength, maxLength, pattern and
    anyOf; drops everything else (``additionalProperties``, ``default``,
    ``$defs``, ``examples`` ...). ``["string", "null"]`` becomes ``"string"``
    plus ``nullable: true`` (so does a ``{"type": "null"}`` alternative in
    ``anyOf``); several non-null types become an ``anyOf``. ``$ref`` is inlined
    from the root; a recursive reference raises :class:`~tooldeck.ExportError`
    (a ``ValueError``), as does a malformed schema. Gemini only takes string
    enums, so other enums are moved into the description; formats Gemini
    rejects (``uri``, ``email`` ...) are dropped; ``required`` keeps only
    declared properties.
    """
    try:
        with converting():
            return _gemini(schema, schema, "#", ())
    except ExportError as exc:
        if tool_name is None:
            raise
        raise ExportError(
            f"tool {tool_name!r}: {exc}", provider="gemini", tool_name=tool_name
        ) from None


def _gemini(
    node: Any,
    root: Mapping[str, Any],
    where: str,
    refs: tuple[str, ...],
) -> dict[str, Any]:
    if node is True:
        return {}
    if not isinstance(node, Mapping):
        raise ExportError(f"{where}: cannot convert schema {node!r} for gemini")
    node = merge_all_of(dict(node), where)
    ref = node.pop("$ref", None)
    if ref is not None:
        if ref in refs:
            chain = " -> ".join((*refs, ref))
            raise ExportError(f"{where}: recursive $ref cannot be inlined for gemini ({chain})")
        resolved = dict(resolve(root, ref, where))
        siblings = {k: v for k, v in node.items() if k not in ("$defs", "definitions")}
        return _gemini({**resolved, **siblings}, root, where, (*refs, ref))
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")

    out: dict[str, Any] = {}
    nullable = False
    types = types_of(node)
    if "null" in types:
        nullable = True
        types = [t for t in types if t != "null"]
    description = node.get("description")
    if isinstance(description, str) and description:
        out["description"] = description

    enum = node.get("enum")
    if "const" in node and enum is None:
        enum = [node["const"]]
    if isinstance(enum, list):
        if None in enum:
            nullable = True
        values = [v for v in enum if v is not None]
        if values and all(isinstance(v, str) for v in values):
            out["enum"] = values
            if not types:
                types = ["string"]
        elif values:
            if not types:
                types = _value_types(values)
            allowed = ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
            note = f"Allowed values: {allowed}."
            out["description"] = f"{out['description']} {note}" if "description" in out else note

    own: dict[str, Any] = {}
    for key in ("minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems"):
        if key in node:
            own[key] = node[key]
    if "format" in node:
        own["format"] = node["format"]
    if isinstance(node.get("items"), Mapping) or node.get("items") is True:
        own["items"] = _gemini(node["items"], root, f"{where}/items", refs)
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        converted = {
            key: _gemini(value, root, f"{where}/properties/{key}", refs)
            for key, value in properties.items()
        }
        if converted:
            own["properties"] = converted
        required = [r for r in node.get("required") or () if r in converted]
        if required:
            own["required"] = required
    if "enum" in out:
        own["enum"] = out.pop("enum")

    if not types and "properties" in own:
        types = ["object"]
    elif not types and "items" in own:
        types = ["array"]

    variants: list[dict[str, Any]] = []
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        for i, variant in enumerate(any_of):
            branch = _gemini(variant, root, f"{where}/anyOf/{i}", refs)
            if branch.get("nullable") and "type" not in branch and "anyOf" not in branch:
                nullable = True
                continue
            variants.append(branch)

    if len(types) == 1:
        out["type"] = types[0]
        out.update(_for_type(types[0], own))
    elif len(types) > 1:
        variants = [{"type": t, **_for_type(t, own)} for t in types] + variants
    else:
        out.update({k: v for k, v in own.items() if k != "format"})
    if variants:
        if len(variants) == 1 and "type" not in out:
            out = {**variants[0], **out}
        else:
            out["anyOf"] = variants
    if nullable:
        out["nullable"] = True
    return {key: out[key] for key in _GEMINI_ORDER if key in out}


def _value_types(values: Sequence[Any]) -> list[str]:
    """The JSON type of an untyped enum's values, when they share one."""
    if all(isinstance(v, bool) for v in values):
        return ["boolean"]
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return ["integer"]
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return ["number"]
    return []


def _for_type(type_: str, own: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``own`` that belong to ``type_``, with Gemini-legal formats only."""
    keys: Sequence[str] = _GEMINI_BY_TYPE.get(type_, ())
    picked = {k: own[k] for k in keys if k in own}
    if "format" in picked and picked["format"] not in _GEMINI_FORMATS.get(type_, frozenset()):
        del picked["format"]
    return picked
