"""Gemini: ``FunctionDeclaration`` objects and the OpenAPI-subset schema they take.

Gemini's ``Schema`` is not JSON Schema but a subset of OpenAPI 3.0: one
``type`` per node (``nullable`` instead of ``"null"``), string-only enums, a
few formats per type, no ``$ref``/``$defs``/``additionalProperties``. A
declaration with keywords outside it is rejected with a 400, so
:func:`gemini_schema` rewrites every schema into that subset. No
``google`` SDK import: the shape is plain data.

Some schemas have no exact spelling there. Gemini refuses a node without a
``type`` (a parameter that takes any value), an ``OBJECT`` without
``properties`` and an ``ARRAY`` without ``items``, and has no recursion, no
tuples and no ``not``. The rule: never loosen a schema silently. An
optional property Gemini cannot take is left out of the declaration (the
model cannot send it; nothing it sends becomes invalid); a required one is
sent in its nearest form; a constraint Gemini lacks is left out. Each such
place is a note ``(path, message)`` that :func:`~tooldeck.export_tools`
turns into an :class:`~tooldeck.providers.ExportWarning` naming the tool. The
registry still validates every call against the tool's real schema.

:func:`gemini_function_response` answers a ``functionCall`` with a
:class:`~tooldeck.ToolResult`, images and PDFs included as ``inlineData``, for
an application that runs its own Gemini loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import ExportError
from .._model import ToolSpec
from ._gemini_walk import UNROLL, Walk
from ._media import gemini_function_response
from ._schema import converting

__all__ = ["UNROLL", "gemini_function_response", "gemini_notes", "gemini_schema", "gemini_tool"]


def gemini_tool(spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool) -> dict[str, Any]:
    """One ``FunctionDeclaration``; ``parameters`` only when the tool takes any.

    ``strict`` is OpenAI's and ignored here; :func:`gemini_notes` says what the
    declaration could not say exactly.
    """
    declaration: dict[str, Any] = {"name": name, "description": spec.description}
    parameters = gemini_schema(schema)
    if parameters.get("properties"):
        declaration["parameters"] = parameters
    return declaration


def gemini_notes(schema: dict[str, Any]) -> list[tuple[str, str]]:
    """``(path, message)`` for each place :func:`gemini_schema` sends differently."""
    notes: list[tuple[str, str]] = []
    gemini_schema(schema, notes=notes)
    return notes


def gemini_schema(
    schema: Mapping[str, Any],
    *,
    tool_name: str | None = None,
    notes: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """JSON Schema -> the OpenAPI 3.0 subset Gemini function declarations accept.

    Keeps type, description, enum, format, items, properties, required,
    minimum, maximum, minItems, maxItems, minLength, maxLength, pattern and
    anyOf; drops annotations (``default``, ``examples``, ``title``),
    ``additionalProperties`` and ``$defs``. ``["string", "null"]`` becomes
    ``"string"`` plus ``nullable: true`` (so does a ``{"type": "null"}``
    alternative in ``anyOf``); several non-null types become an ``anyOf``; an
    ``anyOf`` branch without a type of its own takes its parent's (a
    format-only branch); a branch that accepts nothing is dropped. ``$ref`` is
    inlined from the root, a recursive one :data:`UNROLL` levels deep. Gemini
    only takes string enums, so other enums are moved into the description;
    formats Gemini rejects (``uri``, ``email`` ...) are dropped; ``required``
    keeps only declared properties; a tuple's positions become one ``items``.

    What is sent differently from ``schema`` (see the module docstring) is
    appended to ``notes`` as ``(path, message)``. A malformed schema, a
    non-local ``$ref`` and an ``allOf`` of several schemas raise
    :class:`~tooldeck.ExportError` (a ``ValueError``).
    """
    walk = Walk(schema, notes if notes is not None else [])
    try:
        with converting():
            converted = walk.convert(schema, "#", ())
            if converted.nothing:
                raise ExportError("#: the schema accepts no value at all")
    except ExportError as exc:
        if tool_name is None:
            raise
        raise ExportError(
            f"tool {tool_name!r}: {exc}", provider="gemini", tool_name=tool_name
        ) from None
    for where, why in converted.unfit:
        if where != "#":  # a root without properties: the declaration has no parameters
            walk.note(where, f"{why}; sent as it is, and Gemini may refuse the declaration")
    return converted.schema
