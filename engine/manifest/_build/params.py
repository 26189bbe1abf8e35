"""A manifest's parameter entries: the ParamDescriptor each declares, and where a nested
parameter is written in one (for locating its diagnostics).

:func:`param_descriptor` is the loader's entry -> descriptor code, also what the OpenAI
importer checks its output with.

A :class:`~tooldeck.RegistrationError` names a nested parameter by data (its
top-level ``param`` and a ``field_path`` of descriptor steps, or for TD105 only
the field's name); the builder turns that into the YAML path it reports at.
Manifests write ``properties`` as a list of parameter entries and ``items`` as
one entry, so a step by name becomes a list index here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._params import MISSING, ParamDescriptor
from .bundle import Path_

__all__ = ["find_injected", "param_descriptor", "param_path"]

_PARAM_FIELDS = (
    "minimum",
    "maximum",
    "min_length",
    "max_length",
    "min_items",
    "max_items",
    "pattern",
    "format",
    "inject",
)


def param_descriptor(entry: Mapping[str, Any]) -> ParamDescriptor:
    """One YAML parameter entry -> ParamDescriptor (nested items/properties too)."""
    kwargs: dict[str, Any] = {k: entry[k] for k in _PARAM_FIELDS if k in entry}
    if "enum" in entry:
        kwargs["enum"] = tuple(entry["enum"])
    if "schema" in entry:
        kwargs["schema"] = entry["schema"]
    if "items" in entry:
        items = entry["items"]
        kwargs["items"] = items if isinstance(items, str) else param_descriptor({"name": "items", **items})
    if "properties" in entry:
        kwargs["properties"] = tuple(param_descriptor(p) for p in entry["properties"])
    return ParamDescriptor(
        entry.get("name", "items"),
        entry.get("type", "string"),
        entry.get("required", True),
        entry.get("description", ""),
        default=entry.get("default", MISSING),
        **kwargs,
    )


def param_path(entry: Any, steps: tuple[str, ...]) -> Path_ | None:
    """The YAML path below a parameter entry for a nested parameter's ``field_path``.

    ``("properties", "a", "items")`` -> ``("properties", 2, "items")``: manifests
    write ``properties`` as a list of parameter entries. None when the entry
    does not hold that path (the declaration was made some other way).
    """
    out: list[str | int] = []
    iterator = iter(steps)
    for step in iterator:
        if not isinstance(entry, Mapping):
            return None
        if step == "items":
            entry = entry.get("items")
            out.append("items")
            continue
        name = next(iterator, None)
        fields = entry.get("properties")
        if step != "properties" or not isinstance(fields, list):
            return None
        found = [
            i for i, f in enumerate(fields) if isinstance(f, Mapping) and f.get("name") == name
        ]
        if not found:
            return None
        out.extend(("properties", found[0]))
        entry = fields[found[0]]
    return tuple(out) if isinstance(entry, Mapping) else None


def find_injected(entries: Any, name: str) -> tuple[str | int, ...] | None:
    """The path (below ``params``) of a nested field ``name`` declaring ``inject`` (TD105)."""
    if not isinstance(entries, list):
        return None
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            continue
        found = find_injected(entry.get("properties"), name)
        if found is not None:
            return (index, "properties", *found)
        items = entry.get("items")
        if isinstance(items, Mapping):
            found = find_injected(items.get("properties"), name)
            if found is not None:
                return (index, "items", "properties", *found)
        if entry.get("name") == name and "inject" in entry:
            return (index, "inject")
    return None
