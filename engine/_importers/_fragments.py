"""Raw ``schema:`` fragments: a source schema as 2020-12 JSON Schema with JSON type names.

What the descriptor form cannot say is kept exactly, in a fragment; this
module makes the fragment something the engine accepts without changing what
it means. Types are canonicalised, because fragments must be JSON Schema: the
aliases people write (``dict``, ``float``, ``tuple``, ``str``) become JSON
Schema names, ``any`` drops the type, well-known Java/JavaScript names
(``HashMap``, ``char``, ``ArrayList``) map to their JSON type with a TD505
warning, and unknown names are dropped with one. Older drafts' idioms are
rewritten to 2020-12 (TD508): ``definitions`` -> ``$defs``, tuple ``items``
arrays -> ``prefixItems``, boolean ``required`` on a property, boolean
``exclusiveMinimum``/``exclusiveMaximum``. A ``$ref`` must point into the
definition's own ``$defs``/``definitions``; the definitions a fragment needs
travel with it (the engine hoists them to the tool schema's root).

Depth is bounded by the caller (:data:`MAX_SCHEMA_DEPTH`, checked with the
iterative :func:`schema_depth`), so the recursion here cannot overflow.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping
from typing import Any

from .._params import JSON_TYPES, TYPE_ALIASES
from ._problems import Severity

__all__ = [
    "DRAFTS",
    "FOREIGN_TYPES",
    "MAX_SCHEMA_DEPTH",
    "ONE_SCHEMA",
    "SCHEMA_LISTS",
    "SCHEMA_MAPS",
    "FragmentWriter",
    "Note",
    "Unsupported",
    "canonical_type",
    "is_number",
    "schema_depth",
]

MAX_SCHEMA_DEPTH = 32
"""Deepest schema nesting imported; a manifest nests about two YAML levels per schema level
and the loader stops at 100."""

FOREIGN_TYPES: Mapping[str, str] = {
    "char": "string",
    "character": "string",
    "byte": "integer",
    "short": "integer",
    "bigint": "integer",
    "biginteger": "integer",
    "arraylist": "array",
    "queue": "array",
    "stack": "array",
    "hashmap": "object",
    "hashtable": "object",
}
"""Java and JavaScript type names found in real catalogues (BFCL's Java and JavaScript
sets), mapped as the Berkeley leaderboard itself maps them to OpenAPI types."""

DRAFTS = frozenset(
    f"{scheme}://json-schema.org/{draft}/schema{end}"
    for scheme in ("http", "https")
    for draft in ("draft-04", "draft-06", "draft-07", "draft/2019-09", "draft/2020-12")
    for end in ("", "#")
)
"""``$schema`` values whose idioms the import rewrites to 2020-12 (TD508): dropping the
keyword then changes nothing, so it is not reported."""

ONE_SCHEMA = frozenset(
    {
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
"""JSON Schema keywords whose value is one subschema (``items`` aside: a list in draft-07)."""
SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})

Note = Callable[[str, Severity, str, str], None]
"""``note(code, severity, message, path)``: how the mapper reports what it changed."""


class Unsupported(ValueError):
    """A schema no manifest can hold; the definition is skipped (TD504)."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


def schema_depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests (objects and arrays), counting at most to ``limit + 1``.

    Iterative, so a hostile input cannot exhaust the stack before the limit is known.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return depth
        deepest = max(deepest, depth)
        if isinstance(node, dict):
            stack.extend((item, depth + 1) for item in node.values())
        elif isinstance(node, list):
            stack.extend((item, depth + 1) for item in node)
    return deepest


def canonical_type(name: str) -> tuple[str, str | None]:
    """``(json type or "any", warning or None)`` for one declared type name."""
    key = name.strip().lower()
    if key in JSON_TYPES:
        return key, None
    if key in ("any", "*"):
        return "any", None
    if key in TYPE_ALIASES:
        return TYPE_ALIASES[key], None
    if key in FOREIGN_TYPES:
        mapped = FOREIGN_TYPES[key]
        return mapped, f"type {name!r} is not a JSON Schema type; imported as {mapped!r}"
    return "any", f"unknown type {name!r}; imported without a type constraint"


class FragmentWriter:
    """Canonical fragments for one definition; ``defs`` are its root ``$defs``/``definitions``."""

    def __init__(self, defs: Mapping[str, Any], note: Note) -> None:
        self.note = note
        self._raw_defs = defs
        self._defs: dict[str, Any] = {}

    def types(self, declared: Any, path: str) -> str | list[str] | None:
        """Canonical type (``"any"``, a name, or a list of names); None if malformed."""
        names = [declared] if isinstance(declared, str) else declared
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            return None
        out: list[str] = []
        for name in names:
            kind, warning = canonical_type(name)
            if warning:
                self.note("TD505", Severity.WARNING, warning, f"{path}.type")
            if kind == "any":
                return "any"
            if kind not in out:
                out.append(kind)
        return out[0] if len(out) == 1 else out

    # ------------------------------------------------------------ fragments
    def fragment(self, schema: Any, path: str) -> dict[str, Any]:
        """``schema`` as 2020-12 JSON Schema with JSON type names (a fresh copy)."""
        out = self.canonical(schema, path)
        if out is True:
            return {}
        if out is False:
            return {"not": {}}
        assert isinstance(out, dict)
        return out

    def canonical(self, node: Any, path: str) -> Any:
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise Unsupported("a schema must be an object or a boolean", path)
        out: dict[str, Any] = {}
        for key, value in node.items():
            where = f"{path}.{key}"
            if key == "type":
                kind = self.types(value, path)
                if kind is None:
                    raise Unsupported(f"type {value!r} is not a type name or a list of them", where)
                if kind != "any":
                    out["type"] = kind
            elif key == "items" and isinstance(value, list):
                self.note("TD508", Severity.INFO, "tuple items rewritten as prefixItems", where)
                out["prefixItems"] = [
                    self.canonical(v, f"{where}.{i}") for i, v in enumerate(value)
                ]
                if "additionalItems" in node:
                    out["items"] = self.canonical(
                        node["additionalItems"], f"{path}.additionalItems"
                    )
            elif key == "additionalItems":
                if not isinstance(node.get("items"), list):
                    message = "additionalItems without tuple items dropped (it has no effect)"
                    self.note("TD508", Severity.INFO, message, where)
            elif key == "items" or key in ONE_SCHEMA:
                out[key] = self.canonical(value, where)
            elif key in SCHEMA_LISTS:
                if not isinstance(value, list):
                    raise Unsupported(f"{key} must be a list of schemas", where)
                out[key] = [self.canonical(v, f"{where}.{i}") for i, v in enumerate(value)]
            elif key in SCHEMA_MAPS or key == "definitions":
                if not isinstance(value, dict):
                    raise Unsupported(f"{key} must map names to schemas", where)
                out[key] = {k: self.canonical(v, f"{where}.{k}") for k, v in value.items()}
            elif key == "$ref":
                out[key] = self.ref(value, where)
            elif key == "$schema":
                if value not in DRAFTS:  # a known draft's idioms are rewritten to 2020-12
                    self.note(
                        "TD506", Severity.WARNING, "$schema inside a parameter dropped", where
                    )
            elif key == "required" and isinstance(value, bool):
                pass  # draft-03: the parent object collects it below
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(value, bool):
                self._exclusive(node, key, value, out, where)
            else:
                out[key] = copy.deepcopy(value)
        self._draft3_required(node, out, path)
        return out

    def _exclusive(
        self, node: Mapping[str, Any], key: str, value: bool, out: dict[str, Any], where: str
    ) -> None:
        """Draft-04 ``exclusiveMinimum: true`` next to ``minimum`` -> 2020-12's number form."""
        bound = "minimum" if key == "exclusiveMinimum" else "maximum"
        if value and is_number(node.get(bound)):
            out[key] = node[bound]
            self.note("TD508", Severity.INFO, f"boolean {key} rewritten as a number", where)
        else:
            self.note("TD508", Severity.INFO, f"{key}: false dropped (no effect)", where)

    def _draft3_required(self, node: Mapping[str, Any], out: dict[str, Any], path: str) -> None:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return
        flagged = [
            key
            for key, sub in properties.items()
            if isinstance(sub, dict) and sub.get("required") is True
        ]
        if not flagged:
            return  # "required": false on a property means optional: nothing to add
        current = out.get("required")
        listed: list[Any] = current if isinstance(current, list) else []
        out["required"] = [*listed, *(key for key in flagged if key not in listed)]
        message = "boolean required on properties moved to the object's required list"
        self.note("TD508", Severity.INFO, message, f"{path}.properties")

    # ---------------------------------------------------------------- $refs
    def ref(self, declared: Any, where: str) -> str:
        if not isinstance(declared, str):
            raise Unsupported("$ref must be a string", where)
        value: str = declared
        if value.startswith("#/definitions/"):
            self.note(
                "TD508", Severity.INFO, "#/definitions/ reference rewritten to #/$defs/", where
            )
            value = "#/$defs/" + value.removeprefix("#/definitions/")
        if not value.startswith("#/$defs/"):
            raise Unsupported(
                f"$ref {value!r}: only references into the definition's own $defs or "
                "definitions can be imported",
                where,
            )
        if _ref_name(value) not in self._raw_defs:
            raise Unsupported(f"$ref {value!r} does not resolve", where)
        return value

    def definition(self, key: str) -> Any:
        if key not in self._defs:
            self._defs[key] = self.canonical(self._raw_defs[key], f"parameters.$defs.{key}")
        return self._defs[key]

    def referenced(self, fragment: Any) -> list[str]:
        """Every root definition ``fragment`` needs, transitively, in a stable order."""
        found: list[str] = []
        pending = _refs(fragment)
        while pending:
            key = pending.pop(0)
            if key in found:
                continue
            found.append(key)
            pending.extend(_refs(self.definition(key)))
        return sorted(found)


def _refs(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                out.append(_ref_name(ref))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def _ref_name(ref: str) -> str:
    return ref.removeprefix("#/$defs/").split("/")[0]


def is_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not isinstance(value, float) or math.isfinite(value)
