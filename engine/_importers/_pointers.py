"""``$ref`` pointers into a definition's own properties, moved to ``$defs`` for the manifest.

Schema generators that do not collect definitions point at the place where
a schema was first written instead: zod-to-json-schema (behind the
TypeScript MCP SDK) writes a recursive tree as
``{"$ref": "#/properties/data/properties/children/items"}``, and a schema
used twice as ``{"$ref": "#/properties/filter"}``. A manifest splits the
parameters object into one entry per parameter, so such a pointer would no
longer lead anywhere; only ``#/$defs/NAME`` survives the split (the engine
hoists each fragment's ``$defs`` to the tool schema's root).

:func:`move_pointed` rewrites the parameters schema so that every such
target lives in ``$defs`` under a name made from its place
(``data_children_items``), the target's place holds ``{"$ref":
"#/$defs/data_children_items"}`` and every pointer to it says the same. The
schema validates exactly the same values; each move is reported (TD508,
info). A pointer that does not resolve is refused (:class:`Unsupported`,
TD504). Each node is visited once, so the work is linear in the schema.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from ._fragments import ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS, Note, Unsupported
from ._problems import Severity

__all__ = ["move_pointed"]

_DEFS_KEYS = ("$defs", "definitions")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")
_ROOT_NAME = "parameters"

Pointer = tuple[str, ...]


def move_pointed(schema: Mapping[str, Any], key: str, note: Note) -> dict[str, Any]:
    """``schema`` (a definition's parameters) with pointer targets moved to ``$defs``.

    ``key`` names the schema in messages (``parameters``, ``inputSchema``).
    Returns ``schema`` itself, as a dict, when it holds no such pointer.
    """
    pointers = _pointers(schema)
    if not pointers:
        return dict(schema)
    taken = {name for k in _DEFS_KEYS if isinstance(schema.get(k), dict) for name in schema[k]}
    names: dict[Pointer, str] = {}
    for ref, where in sorted(pointers.items()):
        target = _parse(ref)
        if target is None or not _resolves(schema, target):
            raise Unsupported(f"$ref {ref!r} does not resolve inside {key}", where)
        if target not in names:
            names[target] = _name(target, taken)
            taken.add(names[target])
    refs = {ref: f"#/$defs/{names[t]}" for ref in pointers if (t := _parse(ref)) is not None}
    moved: dict[str, Any] = {}
    out: dict[str, Any] = _rewrite(schema, (), names, refs, moved, top=True)
    if () in names:  # "#": the whole parameters object, kept at the root too
        whole = {k: v for k, v in schema.items() if k not in _DEFS_KEYS}
        moved[names[()]] = _rewrite(whole, (), names, refs, {}, top=True)
    defs = dict(out.get("$defs") or {})
    defs.update(moved)
    out["$defs"] = defs
    for target, name in names.items():
        shown = "#/" + "/".join(target) if target else "#"
        note(
            "TD508",
            Severity.INFO,
            f"$ref {shown!r} points into the definition's own parameters; the schema there "
            f"moved to $defs/{name}, where the manifest keeps it (the meaning is unchanged)",
            f"{key}.{'.'.join(target)}" if target else key,
        )
    return out


_ONE = ONE_SCHEMA | {"items", "additionalItems"}
_LISTS = SCHEMA_LISTS | {"items"}
_MAPS = SCHEMA_MAPS | set(_DEFS_KEYS)
_SCHEMA_KEYS = _ONE | _LISTS | _MAPS
_ANNOTATIONS = ("description",)
"""Kept next to the ``$ref`` that replaces a moved schema: an annotation changes no
validation, and a parameter's description belongs to its manifest entry."""


def _children(node: Mapping[str, Any]) -> list[tuple[Pointer, Any]]:
    """The subschemas of one schema, each with its pointer tokens relative to ``node``.

    Only schema positions: a ``$ref`` inside an ``enum`` value or a ``default``
    is data, never rewritten.
    """
    out: list[tuple[Pointer, Any]] = []
    for key, value in node.items():
        if key in _ONE and isinstance(value, dict | bool):
            out.append(((key,), value))
        elif key in _LISTS and isinstance(value, list):
            out.extend(((key, str(i)), item) for i, item in enumerate(value))
        elif key in _MAPS and isinstance(value, dict):
            out.extend(((key, name), item) for name, item in value.items())
    return out


def _pointers(schema: Mapping[str, Any]) -> dict[str, str]:
    """Every ``$ref`` that is a JSON pointer outside ``$defs``/``definitions`` -> where it is."""
    found: dict[str, str] = {}
    stack: list[tuple[Any, Pointer]] = [(schema, ())]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if (
            isinstance(ref, str)
            and (ref == "#" or ref.startswith("#/"))
            and not ref.startswith(("#/$defs/", "#/definitions/"))
        ):
            found.setdefault(ref, ".".join((*at, "$ref")))
        stack.extend((child, (*at, *tokens)) for tokens, child in _children(node))
    return found


def _parse(ref: str) -> Pointer | None:
    """``#/a/b~1c`` -> ``("a", "b/c")`` (URI-decoded, then JSON-pointer unescaped)."""
    if ref == "#":
        return ()
    tokens = unquote(ref[2:]).split("/")
    if any(re.search(r"~(?![01])", t) for t in tokens) or tokens[0] in _DEFS_KEYS:
        return None
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in tokens)


def _resolves(schema: Any, target: Pointer) -> bool:
    """Whether ``target`` names a subschema of ``schema`` (not a value inside one)."""
    node, rest = schema, target
    while rest:
        if not isinstance(node, dict):
            return False
        for tokens, child in _children(node):
            if rest[: len(tokens)] == tokens:
                node, rest = child, rest[len(tokens) :]
                break
        else:
            return False
    return isinstance(node, dict | bool)


def _name(target: Pointer, taken: set[str]) -> str:
    """``properties/data/properties/children/items`` -> ``data_children_items``, unused."""
    parts = [t for t in target if t != "properties"]
    base = _NAME_CHARS.sub("_", "_".join(parts)).strip("_") or _ROOT_NAME
    name, number = base, 2
    while name in taken:
        name, number = f"{base}_{number}", number + 1
    return name


def _rewrite(
    node: Any,
    at: Pointer,
    names: Mapping[Pointer, str],
    refs: Mapping[str, str],
    moved: dict[str, Any],
    *,
    top: bool = False,
) -> Any:
    """A copy of ``node`` (found at ``at``) with targets replaced by references to ``$defs``."""
    if not top and at in names:
        name = names[at]
        if name not in moved:
            moved[name] = None  # claimed first: a target reached twice is moved once
            moved[name] = _rewrite(node, at, names, refs, moved, top=True)
        kept = {k: node[k] for k in _ANNOTATIONS if isinstance(node, dict) and k in node}
        return {"$ref": f"#/$defs/{name}", **kept}  # annotations stay where people read them
    if not isinstance(node, dict):
        return copy.deepcopy(node)
    out = {
        key: (list(value) if isinstance(value, list) else dict(value))
        if key in _SCHEMA_KEYS and isinstance(value, list | dict)
        else copy.deepcopy(value)
        for key, value in node.items()
    }
    ref = node.get("$ref")
    if isinstance(ref, str) and ref in refs:
        out["$ref"] = refs[ref]
    for tokens, child in _children(node):
        rewritten = _rewrite(child, (*at, *tokens), names, refs, moved)
        holder = out[tokens[0]]
        if len(tokens) == 1:
            out[tokens[0]] = rewritten
        elif isinstance(holder, list):
            holder[int(tokens[1])] = rewritten
        else:
            holder[tokens[1]] = rewritten
    return out
