"""A tool's ``outputSchema`` from its handler's return annotation, and results that match it.

The schema comes from the project's own inference (:func:`tooldeck._inference.infer_params`
and :func:`tooldeck._schema.tool_input_schema`, the ones parameters go
through): the return annotation is read as if it were a parameter named
``result``. That gives both forms MCP needs, since an ``outputSchema`` (like
``structuredContent``) is an object:

* an object annotation (``dict[str, X]``, a TypedDict, a dataclass, a
  pydantic model) is the schema itself, and the result is sent as it is; a
  bare ``dict`` (or ``dict[str, Any]``, whose schema is just
  ``{"type": "object"}``) has no ``outputSchema``, since it would say nothing
  that structured content does not already say, but its result is still sent
  as structure;
* an array annotation (``list[X]``, ``tuple[...]``, ``set[X]``) is wrapped as
  ``{"result": ...}``, in the schema and in every ``structuredContent``
  (FastMCP's convention).

Anything else (``str``, numbers, ``None``, unions, ``Optional``, ``Any``, no
annotation, an external tool taking the arguments mapping, a tool whose
result is reshaped by ``result.select`` or cut by ``result.max_chars``) has no
``outputSchema``.

A client checks ``structuredContent`` against the advertised schema (the
``mcp`` package's ``ClientSession`` raises on a mismatch), so a result that
does not match its own annotation is sent as a tool error saying so, never as
structure that breaks the client. The check is the client's: Draft 2020-12,
where ``format`` is an annotation. Clients differ there (the TypeScript SDK,
which the MCP Inspector uses, asserts formats with ajv-formats and refuses a
naive ``datetime`` such as ``2024-05-01T12:30:00`` as a ``date-time``), so the
advertised schema carries no ``format`` keywords: a ``datetime`` result is a
string, in every client the same.

A result with images, audio or files (:attr:`ToolResult.content
<tooldeck.ToolResult.content>`) is sent as its content blocks in order: text,
``ImageContent``, ``AudioContent``, and for a :class:`~tooldeck.File` an
``EmbeddedResource`` (a text resource for ``text/*`` and JSON types that are
UTF-8, a base64 blob otherwise) under a ``file:///`` URI made of its name. Its
structured content, needed only when the handler's annotation (a bare ``list``)
advertises an ``outputSchema``, is ``{"result": [...]}`` with each block's text
(a media object's notice), checked like any other.
"""

from __future__ import annotations

import base64
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import mcp_types as types

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from ..._calltypes import ToolResult
    from ..._media import Media
    from ..._model import ToolSpec
    from ..._validation import Checker

__all__ = ["OutputSchema", "call_result", "output_schema", "structured"]

WRAP_KEY = "result"


@dataclass(frozen=True)
class OutputSchema:
    """A tool's advertised ``outputSchema``; ``wrapped`` results go under ``"result"``."""

    schema: dict[str, Any]
    wrapped: bool

    @cached_property
    def validator(self) -> Validator:
        """What a client checks ``structuredContent`` with: Draft 2020-12, formats not asserted."""
        from jsonschema import Draft202012Validator

        validator: Validator = Draft202012Validator(self.schema)
        return validator

    @cached_property
    def fast(self) -> Checker | None:
        """The compiled yes/no check, when the schema is simple enough (most are)."""
        from ..._validation import fast_check

        return fast_check(self.schema)

    def problem(self, value: Any) -> str | None:
        """Why ``value`` (the structured content) does not match, or ``None``.

        The compiled check answers for the values that match; jsonschema runs
        only for the rest, to say why (or to judge what the check cannot).
        """
        fast = self.fast
        if fast is not None and fast(value):
            return None
        from jsonschema import exceptions

        error = exceptions.best_match(self.validator.iter_errors(value))
        if error is None:
            return None
        where = "".join(f"[{p!r}]" for p in error.absolute_path)
        return f"{error.message} (at structuredContent{where})" if where else error.message


def output_schema(spec: ToolSpec) -> OutputSchema | None:
    """The ``outputSchema`` of ``spec``'s handler's return annotation, if it has one."""
    from ..._calltypes import ToolResult

    if spec.input_schema is not None:  # an external tool: the handler takes a mapping
        return None
    if spec.result is not None and (spec.result.select or spec.result.max_chars is not None):
        return None  # the text is not the annotated value (selected from it, or cut)
    from ..._typing import signature_of

    signature = signature_of(spec.handler)
    if signature is None:
        return None
    annotation = signature.return_annotation
    if annotation is inspect.Signature.empty or annotation is None or isinstance(annotation, str):
        return None
    if isinstance(annotation, type) and issubclass(annotation, ToolResult):
        return None
    try:
        wrapped = _as_result_parameter(annotation)
    except Exception:  # an annotation with no JSON form: advertise nothing
        return None
    wrapped = _without_formats(wrapped)
    inner = wrapped["properties"][WRAP_KEY]
    defs = wrapped.get("$defs")
    if inner == _ANY_OBJECT:  # a bare ``dict``: structure is an object anyway
        return None
    if inner.get("type") == "object":
        schema = dict(inner)
        if defs:
            schema["$defs"] = defs
        return OutputSchema(schema, wrapped=False)
    if inner.get("type") == "array":
        return OutputSchema(wrapped, wrapped=True)
    return None


_ANY_OBJECT = {"type": "object"}
"""What ``dict`` and ``dict[str, Any]`` infer to. Advertised, it would tell a client
nothing (``structuredContent`` is an object anyway) yet have it validate every result."""

_SUBSCHEMA = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_SUBSCHEMA_LISTS = frozenset({"prefixItems", "anyOf", "oneOf", "allOf"})
_SUBSCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)


def _without_formats(schema: Any) -> Any:
    """``schema`` without its ``format`` keywords (a property named "format" stays)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "format" and isinstance(value, str):
            continue
        if key in _SUBSCHEMA:
            out[key] = _without_formats(value)
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [_without_formats(item) for item in value]
        elif key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _without_formats(sub) for name, sub in value.items()}
        else:  # default, enum, const, examples...: values, not schemas
            out[key] = value
    return out


def _as_result_parameter(annotation: Any) -> dict[str, Any]:
    """``{"type": "object", "properties": {"result": <annotation's schema>}, ...}``."""
    from ..._inference import infer_params
    from ..._schema import tool_input_schema

    probe: Callable[..., Any] = _probe()
    probe.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(WRAP_KEY, inspect.Parameter.KEYWORD_ONLY, annotation=annotation)]
    )
    return tool_input_schema(infer_params(probe))


def _probe() -> Callable[..., Any]:
    def returns(**kwargs: Any) -> None:
        return None

    return returns


def structured(result: ToolResult, output: OutputSchema | None) -> tuple[Any, str | None]:
    """``(structuredContent, problem)`` for a successful result.

    The structure is parsed back from the (redacted) text, so it never carries
    what the text hides. Without an ``outputSchema``, a dict is sent as it is,
    a list as ``{"result": [...]}`` and anything else (text, a number, a
    truncated text) has no structure. With one, the result must parse and match
    it: ``problem`` says why not.
    """
    if output is None and not isinstance(result.value, dict | list):
        return None, None  # text, a number...: no structure, nothing to parse
    try:
        parsed = _loads(result.text)
    except ValueError:
        parsed = _NOT_JSON
    if output is None:
        if isinstance(parsed, dict):
            return parsed, None
        if isinstance(parsed, list):
            return {WRAP_KEY: parsed}, None
        return None, None
    if parsed is _NOT_JSON:
        return None, "the result is not JSON, so it cannot be sent as structured content"
    content = {WRAP_KEY: parsed} if output.wrapped else parsed
    problem = output.problem(content)
    return (None, problem) if problem is not None else (content, None)


_NOT_JSON = object()

_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
"""The (C) scanner behind ``json.loads``, without its Python wrapper (~1 µs a call)."""


def _loads(text: str) -> Any:
    """``json.loads(text)``: the scanner alone when the text is one JSON value, end to end.

    That is what tooldeck writes; anything else (whitespace around it, more after
    it, not JSON) goes through ``json.loads`` itself, for its exact answer.
    """
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)
    if end == len(text):
        return value
    return json.loads(text)


def call_result(result: ToolResult, output: OutputSchema | None = None) -> types.CallToolResult:
    """A registry result as an MCP tool result: the model-facing text, and structure when any.

    ``structuredContent`` is parsed back from the (redacted) text, so it never
    carries what the text hides; a list is wrapped as ``{"result": [...]}``
    since MCP structured content is an object. A truncated text has no structure.
    With the tool's ``output`` schema, the structure follows it (wrapped or
    not), and a result that does not match it is a tool error that says so.
    """
    if result.content is not None and result.ok:
        return _media_result(result, result.content, output)
    content: list[types.ContentBlock] = [types.TextContent(text=result.text)]
    if not result.ok:
        return types.CallToolResult(content=content, is_error=True)
    structure, problem = structured(result, output)
    if problem is not None:
        name = f"tool {result.tool_name!r}" if result.tool_name else "the tool"
        text = (
            f"Error (invalid_output): {name} returned a result that does not match its "
            f"declared return type (the outputSchema): {problem}. The result was:\n{result.text}"
        )
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
    return types.CallToolResult(content=content, structured_content=structure)


def _media_result(
    result: ToolResult, parts: tuple[str | Media, ...], output: OutputSchema | None
) -> types.CallToolResult:
    """A result with media: its blocks, and the structure its ``outputSchema`` asks for."""
    blocks = [_block(part) for part in parts]
    if output is None:
        return types.CallToolResult(content=blocks)
    texts = [part if isinstance(part, str) else part.notice() for part in parts]
    structure: Any = {WRAP_KEY: texts} if output.wrapped else None
    problem = "a list of content blocks is not an object" if structure is None else None
    problem = problem or output.problem(structure)
    if problem is not None:
        name = f"tool {result.tool_name!r}" if result.tool_name else "the tool"
        text = (
            f"Error (invalid_output): {name} returned images, audio or files, which do not "
            f"match its declared return type (the outputSchema): {problem}"
        )
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
    return types.CallToolResult(content=blocks, structured_content=structure)


def _block(part: str | Media) -> types.ContentBlock:
    """One content block of a result with media: text, image, audio or an embedded file."""
    from ..._media import is_textual

    if isinstance(part, str):
        return types.TextContent(text=part)
    data, mime = part.data or b"", part.mime_type or "application/octet-stream"
    if part.kind == "image":
        return types.ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
    if part.kind == "audio":
        return types.AudioContent(data=base64.b64encode(data).decode("ascii"), mime_type=mime)
    uri = "file:///" + quote(part.name or "file", safe="")
    resource: types.TextResourceContents | types.BlobResourceContents
    text = _utf8(data) if is_textual(mime) else None
    if text is not None:
        resource = types.TextResourceContents(uri=uri, mime_type=mime, text=text)
    else:
        blob = base64.b64encode(data).decode("ascii")
        resource = types.BlobResourceContents(uri=uri, mime_type=mime, blob=blob)
    return types.EmbeddedResource(resource=resource)


def _utf8(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
