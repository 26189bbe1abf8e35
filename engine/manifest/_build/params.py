"""A manifest's parameter entry -> :class:`~tooldeck.ParamDescriptor`, nested entries too.

Manifests write a parameter with the descriptor's own field names, ``items``
as one entry and ``properties`` as a list of entries, so the place of a
mistake in a descriptor (:attr:`RegistrationError.path
<tooldeck.RegistrationError.path>`) is its place in the file: a nested
entry's mistake is raised with the steps that lead to it here
(``("properties", 1, "type")``), and the builder reports it there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._errors import RegistrationError
from ..._params import MISSING, ParamDescriptor

__all__ = ["param_entry"]

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
    "from_auth",
)


def param_entry(entry: Mapping[str, Any]) -> ParamDescriptor:
    """One YAML parameter entry -> ParamDescriptor; raises RegistrationError located below it."""
    kwargs: dict[str, Any] = {k: entry[k] for k in _PARAM_FIELDS if k in entry}
    if "enum" in entry:
        kwargs["enum"] = tuple(entry["enum"])
    if "schema" in entry:
        kwargs["schema"] = entry["schema"]
    if "items" in entry:
        items = entry["items"]
        kwargs["items"] = (
            items if isinstance(items, str) else _below({"name": "items", **items}, "items")
        )
    if "properties" in entry:
        kwargs["properties"] = tuple(
            _below(field, "properties", index) for index, field in enumerate(entry["properties"])
        )
    return ParamDescriptor(
        entry.get("name", "items"),
        entry.get("type", "string"),
        entry.get("required", True),
        entry.get("description", ""),
        default=entry.get("default", MISSING),
        **kwargs,
    )


def _below(entry: Mapping[str, Any], *steps: str | int) -> ParamDescriptor:
    """A nested entry's descriptor; its mistakes are raised ``steps`` further down."""
    try:
        return param_entry(entry)
    except RegistrationError as exc:
        raise exc.under(*steps) from None
