"""The walk behind :func:`tooldeck.providers.gemini.gemini_schema`: one node at a time.

JSON Schema in, Gemini's OpenAPI subset out, with every place that cannot be
said exactly recorded (see :mod:`tooldeck.providers.gemini` for the rule:
never loosen silently; an optional property Gemini cannot take is left out,
a required one is sent in its nearest form). Private: the public face is
``gemini_schema`` and ``gemini_notes``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import ExportError
from ._schema import merge_all_of, resolve, types_of

__all__ = ["UNROLL", "Converted", "Walk"]

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


UNROLL = 2
"""How many times one ``$ref`` is expanded along a path: a recursive schema is unrolled this
deep, and below that its optional properties are left out (Gemini has no references)."""

_LOST = (
    "not",
    "multipleOf",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
)
"""Constraints with no Gemini spelling: left out, each with a note (never silently)."""

Unfit = tuple[str, str]
"""``(path, why)``: a place Gemini cannot take, in its nearest form until someone drops it."""


@dataclass
class Converted:
    """One node in Gemini's dialect, and how faithful it is."""

    schema: dict[str, Any]
    nothing: bool = False
    """The node accepts no value (``false``, ``{"not": {}}``): leaving it out is exact."""
    unfit: list[Unfit] = field(default_factory=list)
    """Places Gemini refuses (no type, an object without properties, an array without
    items, recursion cut); ``schema`` holds their nearest form."""


class Walk:
    """One conversion: the root ``$ref`` resolves against, and the notes it makes."""

    def __init__(self, root: Mapping[str, Any], notes: list[tuple[str, str]]) -> None:
        self.root = root
        self.notes = notes

    def note(self, where: str, message: str) -> None:
        if (where, message) not in self.notes:
            self.notes.append((where, message))

    def convert(
        self, node: Any, where: str, refs: tuple[str, ...], inherited: Sequence[str] = ()
    ) -> Converted:
        if node is True:
            node = {}
        if node is False:
            return Converted({}, nothing=True)
        if not isinstance(node, Mapping):
            raise ExportError(f"{where}: cannot convert schema {node!r} for gemini")
        node = merge_all_of(dict(node), where)
        ref = node.pop("$ref", None)
        if ref is not None:
            if refs.count(ref) >= UNROLL:
                why = f"the recursive $ref {ref} is unrolled {UNROLL} levels (Gemini has no $ref)"
                return Converted({}, unfit=[(where, why)])
            resolved = dict(resolve(self.root, ref, where))
            siblings = {k: v for k, v in node.items() if k not in ("$defs", "definitions")}
            return self.convert({**resolved, **siblings}, where, (*refs, ref), inherited)
        if node.get("not") in ({}, True):
            return Converted({}, nothing=True)
        if "oneOf" in node and "anyOf" not in node:
            node["anyOf"] = node.pop("oneOf")
        return self._node(node, where, refs, inherited)

    def _node(
        self, node: dict[str, Any], where: str, refs: tuple[str, ...], inherited: Sequence[str]
    ) -> Converted:
        out: dict[str, Any] = {}
        unfit: list[Unfit] = []
        nullable = False
        types = types_of(node) or list(inherited)
        if "null" in types:
            nullable = True
            types = [t for t in types if t != "null"]
        description = node.get("description")
        if isinstance(description, str) and description:
            out["description"] = description
        self._lost(node, types, where)

        enum = node.get("enum")
        if "const" in node and enum is None:
            enum = [node["const"]]
        if isinstance(enum, list):
            if None in enum:
                nullable = True
            values = [v for v in enum if v is not None]
            if values and all(isinstance(v, str) for v in values):
                out["enum"] = values
                types = types or ["string"]
            elif values:
                types = types or _value_types(values)
                allowed = ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
                note = f"Allowed values: {allowed}."
                out["description"] = (
                    f"{out['description']} {note}" if "description" in out else note
                )
                self.note(
                    where,
                    "Gemini takes only string enums; the allowed values are in the "
                    "description instead",
                )

        own: dict[str, Any] = {}
        for key in (
            "minimum",
            "maximum",
            "minLength",
            "maxLength",
            "pattern",
            "minItems",
            "maxItems",
        ):
            if key in node:
                own[key] = node[key]
        self._exclusive(node, types, own, where)
        if "format" in node:
            own["format"] = node["format"]
        if not self._items(node, own, unfit, where, refs):
            return Converted({}, nothing=True)
        if not self._properties(node, own, unfit, where, refs):
            return Converted({}, nothing=True)
        if "enum" in out:
            own["enum"] = out.pop("enum")
        if not types and "properties" in own:
            types = ["object"]
        elif not types and "items" in own:
            types = ["array"]

        variants, null_branch, nothing = self._any_of(node, types, unfit, where, refs)
        if nothing:
            return Converted({}, nothing=True)
        nullable = nullable or null_branch
        if len(types) == 1:
            out["type"] = types[0]
            out.update(_for_type(types[0], own))
            problem = _refused(out)
            if problem:
                unfit.append((where, problem))
        elif len(types) > 1:
            kept = []
            for t in types:
                variant = {"type": t, **_for_type(t, own)}
                problem = _refused(variant)
                if problem:
                    self.note(where, f"{problem}; that alternative is left out")
                else:
                    kept.append(variant)
            variants = kept + variants
        else:
            out.update({k: v for k, v in own.items() if k != "format"})
        if variants:
            if len(variants) == 1 and "type" not in out:
                out = {**variants[0], **out}
            else:
                out["anyOf"] = variants
        if "type" not in out and "anyOf" not in out and not (nullable and not types):
            unfit.append((where, "it takes any value, and Gemini needs a type"))
        if nullable:
            out["nullable"] = True
        return Converted({key: out[key] for key in _GEMINI_ORDER if key in out}, unfit=unfit)

    def _lost(self, node: Mapping[str, Any], types: Sequence[str], where: str) -> None:
        for key in _LOST:
            if key in node and not (key == "uniqueItems" and node[key] is False):
                self.note(
                    where, f"{key} has no Gemini form and is left out; the registry still checks it"
                )
        extra = node.get("additionalProperties")
        if isinstance(extra, Mapping) and extra and node.get("properties"):
            self.note(
                where,
                "the schema of undeclared properties (additionalProperties) has no "
                "Gemini form and is left out; the registry still checks it",
            )

    def _exclusive(
        self, node: Mapping[str, Any], types: Sequence[str], own: dict[str, Any], where: str
    ) -> None:
        """``exclusiveMinimum: 0`` on an integer is ``minimum: 1``; on a number it is lost."""
        for key, bound, step in (
            ("exclusiveMinimum", "minimum", 1),
            ("exclusiveMaximum", "maximum", -1),
        ):
            value = node.get(key)
            if value is None or isinstance(value, bool):
                continue
            if list(types) == ["integer"] and isinstance(value, int):
                edge = value + step
                current = own.get(bound)
                own[bound] = edge if current is None else (max if step > 0 else min)(current, edge)
            else:
                self.note(
                    where, f"{key} has no Gemini form and is left out; the registry still checks it"
                )

    def _items(
        self,
        node: Mapping[str, Any],
        own: dict[str, Any],
        unfit: list[Unfit],
        where: str,
        refs: tuple[str, ...],
    ) -> bool:
        """``items`` (a tuple's positions folded into one); False when nothing can be sent."""
        items = node.get("items")
        prefix = node.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            parts = [
                self.convert(p, f"{where}/prefixItems/{i}", refs) for i, p in enumerate(prefix)
            ]
            if isinstance(items, Mapping) or items is True:
                parts.append(self.convert(items, f"{where}/items", refs))
            usable = _unique([p.schema for p in parts if not p.nothing and not p.unfit])
            self.note(
                where,
                "a tuple (prefixItems, draft-07 items: [...]) has no Gemini form; "
                "sent as an array whose items may be any of its positions' schemas",
            )
            if items is False:
                limit = own.get("maxItems")
                own["maxItems"] = len(prefix) if limit is None else min(limit, len(prefix))
            if usable:
                own["items"] = usable[0] if len(usable) == 1 else {"anyOf": usable}
            return True
        if isinstance(items, Mapping) or items is True:
            converted = self.convert(items, f"{where}/items", refs)
            if converted.nothing:
                own["maxItems"] = 0
                unfit.append((f"{where}/items", "its items accept no value"))
            unfit.extend(converted.unfit)
            own["items"] = converted.schema
        return True

    def _properties(
        self,
        node: Mapping[str, Any],
        own: dict[str, Any],
        unfit: list[Unfit],
        where: str,
        refs: tuple[str, ...],
    ) -> bool:
        """``properties``; an optional one Gemini cannot take is left out (tighter, noted)."""
        properties = node.get("properties")
        if not isinstance(properties, Mapping):
            return True
        required = set(node.get("required") or ())
        converted: dict[str, Any] = {}
        for key, value in properties.items():
            result = self.convert(value, f"{where}/properties/{key}", refs)
            if key in required:
                if result.nothing:
                    return False  # a required property that accepts nothing: no object fits
                unfit.extend(result.unfit)
                converted[key] = result.schema
            elif result.unfit:
                for place, why in result.unfit:
                    self.note(
                        place,
                        f"{why}; the optional property {key!r} is left out of the "
                        "declaration, so the model cannot send it",
                    )
            elif not result.nothing:  # one that accepts nothing can never be sent: left out
                converted[key] = result.schema
        if converted:
            own["properties"] = converted
        names = [r for r in node.get("required") or () if r in converted]
        if names:
            own["required"] = names
        return True

    def _any_of(
        self,
        node: Mapping[str, Any],
        types: Sequence[str],
        unfit: list[Unfit],
        where: str,
        refs: tuple[str, ...],
    ) -> tuple[list[dict[str, Any]], bool, bool]:
        """``(variants, a null branch, accepts nothing)``; no variants when the anyOf limits
        nothing (a branch that takes every value the parent does)."""
        any_of = node.get("anyOf")
        if not isinstance(any_of, list):
            return [], False, False
        variants: list[dict[str, Any]] = []
        refused: list[Unfit] = []
        nearest: list[dict[str, Any]] = []
        null = False
        for i, branch in enumerate(any_of):
            result = self.convert(branch, f"{where}/anyOf/{i}", refs, inherited=types)
            schema = result.schema
            if result.nothing:
                continue  # a branch that matches nothing adds nothing
            if result.unfit:
                if schema == {} and not types:
                    return [], False, False  # a branch taking anything: no limit at all
                refused.extend(result.unfit)
                nearest.append(schema)
                continue
            if schema.get("nullable") and "type" not in schema and "anyOf" not in schema:
                null = True
                continue
            if (
                len(types) == 1
                and set(schema) <= {"type", "description"}
                and (schema.get("type") == types[0])
            ):
                return [], null, False  # always satisfied next to the parent's own type
            variants.append(schema)
        variants = _unique(variants)
        if not variants and refused:
            unfit.extend(refused)  # nothing Gemini can take is left but null: unfit as a whole
            return _unique(nearest), null, False
        if not variants and not null:
            return [], False, True
        for place, why in refused:
            self.note(place, f"{why}; this alternative is left out of the declaration")
        return variants, null, False


def _refused(schema: Mapping[str, Any]) -> str | None:
    """Why Gemini answers 400 to this node (one type), or None."""
    if schema.get("type") == "object" and not schema.get("properties"):
        return "an object with no declared properties (Gemini refuses an OBJECT without them)"
    if schema.get("type") == "array" and "items" not in schema:
        return "an array with no items schema (Gemini refuses an ARRAY without items)"
    return None


def _unique(schemas: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``schemas`` without repeats, in order (two branches that became the same)."""
    seen: set[str] = set()
    out = []
    for schema in schemas:
        key = json.dumps(schema, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            out.append(schema)
    return out


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
