"""JSON Schema as catalogues write it -> manifest parameter entries, losing nothing.

A property becomes the readable descriptor form (``{name, type, required,
description, default, enum, items, properties, minimum ...}``) only when
that form exports back to the same schema; everything else keeps its exact
JSON Schema in a raw ``schema:`` fragment (:mod:`._fragments`: ``anyOf``,
``$ref``, ``title``, open objects with declared properties, a required
parameter with a default ...). The descriptor form closes objects
(``additionalProperties: false``), so an object that the source left open
is never squeezed into it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._fragments import FragmentWriter, is_number
from ._problems import Severity

__all__ = ["SchemaMapper", "order_entry"]

_DESCRIPTOR_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "enum",
        "default",
        "format",
        "pattern",
        "minLength",
        "maxLength",
        "minimum",
        "maximum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "additionalProperties",
    }
)
_COUNTS = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
}
_ENTRY_ORDER = (
    "name",
    "type",
    "required",
    "description",
    "default",
    "enum",
    "format",
    "pattern",
    "minimum",
    "maximum",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "items",
    "properties",
    "schema",
)
_RANK = {key: rank for rank, key in enumerate(_ENTRY_ORDER)}


def order_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A parameter entry's keys in the order people read them (name first, schema last)."""
    return dict(sorted(entry.items(), key=lambda kv: _RANK.get(kv[0], len(_RANK))))


class SchemaMapper(FragmentWriter):
    """Maps the properties of one definition to manifest entries."""

    # ------------------------------------------------------------- entries
    def entry(self, name: str, schema: Any, required: bool, path: str) -> dict[str, Any]:
        """The manifest entry for one property: descriptor form when faithful, else a fragment."""
        found = self.descriptor(schema, path, top=True)
        if found is not None and not (required and "default" in found):
            entry = {"name": name, **found}
            if not required and "default" not in found:
                entry["required"] = False
            return order_entry(entry)
        return self.fragment_entry(name, schema, required, path)

    def fragment_entry(
        self, name: str, schema: Any, required: bool, path: str, *, keep_default: bool = False
    ) -> dict[str, Any]:
        """The entry keeping ``schema`` as a raw fragment, with its ``$defs`` attached.

        A non-empty description moves to the entry (the export puts it back);
        an optional parameter's default moves too, so tooldeck fills it in at
        call time, unless ``keep_default`` (a default invalid for its own
        schema stays an annotation).
        """
        fragment = self.fragment(schema, path)
        entry: dict[str, Any] = {"name": name}
        if not required:
            entry["required"] = False
        description = fragment.get("description")
        if isinstance(description, str) and description:
            entry["description"] = fragment.pop("description")
        if (
            not required
            and not keep_default
            and "default" in fragment
            and fragment["default"] is not None
            and not _has_placeholder(fragment["default"])
        ):
            entry["default"] = fragment.pop("default")
        refs = self.referenced(fragment)
        if refs:
            fragment["$defs"] = {key: self.definition(key) for key in refs}
        entry["schema"] = fragment
        return order_entry(entry)

    # ---------------------------------------------------------- descriptor
    def descriptor(self, schema: Any, path: str, *, top: bool = False) -> dict[str, Any] | None:
        """Descriptor fields for ``schema``, or None when only a fragment says it exactly."""
        if schema is True or schema == {}:
            return {"type": "any"}
        if not isinstance(schema, dict) or set(schema) - _DESCRIPTOR_KEYWORDS:
            return None
        out: dict[str, Any] = {"type": self.types(schema.get("type", "any"), path)}
        if out["type"] is None:
            return None
        if "description" in schema:
            if not isinstance(schema["description"], str):
                return None
            if schema["description"]:
                out["description"] = schema["description"]
            elif len(schema) > 1:  # "" would vanish from the export
                return None
        if "enum" in schema:
            values = _unique(schema["enum"])
            if values is None:
                return None
            if len(values) < len(schema["enum"]):
                self.note("TD508", Severity.INFO, "duplicate enum values removed", f"{path}.enum")
            out["enum"] = values
        if "default" in schema:
            if top and _has_placeholder(schema["default"]):
                return None  # "${x}" in a descriptor default is a placeholder, not text
            out["default"] = schema["default"]
        for key in ("format", "pattern"):
            if key in schema:
                if not isinstance(schema[key], str):
                    return None
                out[key] = schema[key]
        for key, field in _COUNTS.items():
            if key in schema:
                if not _count(schema[key]):
                    return None
                out[field] = schema[key]
        for key in ("minimum", "maximum"):
            if key in schema:
                if not is_number(schema[key]):
                    return None
                out[key] = schema[key]
        if "items" in schema:
            items = self.items(schema["items"], f"{path}.items")
            if items is None:
                return None
            out["items"] = items
        return self._object(schema, out, path)

    def items(self, schema: Any, path: str) -> Any:
        found = self.descriptor(schema, path)
        if found is None or "default" in found:
            return None  # element descriptions carry no default
        if set(found) == {"type"} and isinstance(found["type"], str):
            return found["type"]
        return found

    def _object(
        self, schema: Mapping[str, Any], out: dict[str, Any], path: str
    ) -> dict[str, Any] | None:
        properties = schema.get("properties")
        required = schema.get("required", [])
        closed = schema.get("additionalProperties", True) is False
        if "additionalProperties" in schema and not (closed and properties):
            return None  # free-form with a value schema, or "no keys at all"
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            return None
        if properties is None:
            return out if not required else None
        if not isinstance(properties, dict) or (not closed and properties):
            return None  # open objects with declared fields stay exact in a fragment
        if not properties:
            return out if not required else None
        if set(required) - set(properties):
            return None
        fields = []
        for key, sub in properties.items():
            found = self.descriptor(sub, f"{path}.properties.{key}")
            if not key or found is None or (key in required and "default" in found):
                return None
            entry = {"name": key, **found}
            if key not in required and "default" not in found:
                entry["required"] = False
            fields.append(order_entry(entry))
        out["properties"] = fields
        return out


def _unique(values: Any) -> list[Any] | None:
    """``values`` without repeats (JSON equality: ``1`` and ``true`` differ), or None."""
    if not isinstance(values, list) or not values:
        return None
    out: list[Any] = []
    seen: set[str] = set()
    for value in values:
        key = json.dumps(value, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _has_placeholder(value: Any) -> bool:
    return isinstance(value, str) and "${" in value
