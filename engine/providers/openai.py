"""OpenAI: Chat Completions and Responses tool definitions, and strict mode.

The shapes follow the installed ``openai`` SDK's own types, which the tests
check them against, but this module never imports the SDK (``import
tooldeck.providers`` stays light):

* ``openai-chat``: ``ChatCompletionFunctionToolParam`` (``{"type": "function",
  "function": {...}}``; ``strict`` only when on);
* ``openai-responses``: ``FunctionToolParam`` (flat, ``strict`` always
  present), plus the hosted ``WebSearchPreviewToolParam``/``WebSearchToolParam``
  and ``Mcp`` entries (:func:`hosted_entries`, :func:`hosted_tools`).

Whether a tool goes out strict is decided by :func:`tooldeck.export_tools`
(``auto``: when :func:`strict_schema` can convert its schema); the functions
here only spell the choice.

:func:`strict_schema` rewrites a schema for strict mode (structured outputs).
The exporter part is self-contained: later code that talks to the API can
live in this module without the exporters depending on it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._errors import ExportError
from .._model import McpServerSpec, ToolSpec, WebSearchSpec
from ._schema import converting, merge_all_of, resolve, types_of

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = [
    "chat_tool",
    "hosted_entries",
    "hosted_mcp_tool",
    "hosted_tools",
    "responses_tool",
    "strict_schema",
    "web_search_tool",
]


# ----------------------------------------------------------------- definitions
def chat_tool(spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool) -> dict[str, Any]:
    """Chat Completions ``ChatCompletionFunctionToolParam``."""
    function: dict[str, Any] = {
        "name": name,
        "description": spec.description,
        "parameters": strict_schema(schema) if strict else schema,
    }
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def responses_tool(
    spec: ToolSpec, name: str, schema: dict[str, Any], strict: bool
) -> dict[str, Any]:
    """Responses ``FunctionToolParam``: flat, and ``strict`` is always sent (the SDK's
    type requires the key, so the mode is always a stated choice)."""
    return {
        "type": "function",
        "name": name,
        "description": spec.description,
        "parameters": strict_schema(schema) if strict else schema,
        "strict": strict,
    }


def hosted_tools(registry: ToolRegistry) -> list[dict[str, Any]]:
    """The Responses API's hosted entries: the web search, then ``via="hosted"`` MCP servers.

    ``via="client"`` servers are never here: their tools are registered as
    ordinary tools once tooldeck connects to them.
    """
    return hosted_entries(registry.web_search(), registry.mcp_servers())


def hosted_entries(
    web_search: WebSearchSpec | None, servers: Iterable[McpServerSpec]
) -> list[dict[str, Any]]:
    """:func:`hosted_tools` for the given entries (a selection); ``via="client"`` is skipped."""
    out: list[dict[str, Any]] = []
    if web_search is not None:
        out.append(web_search_tool(web_search))
    out.extend(hosted_mcp_tool(s) for s in servers if s.via == "hosted")
    return out


def web_search_tool(spec: WebSearchSpec) -> dict[str, Any]:
    """OpenAI Responses ``WebSearchToolParam`` / ``WebSearchPreviewToolParam``.

    Only what is set goes out (the provider's defaults stay its own):
    ``search_context_size``, ``filters.allowed_domains`` (the ``web_search``
    types) and ``user_location`` (``type: approximate`` with city, country,
    region and timezone).
    """
    tool: dict[str, Any] = {"type": spec.type}
    if spec.search_context_size is not None:
        tool["search_context_size"] = spec.search_context_size
    if spec.allowed_domains is not None:
        tool["filters"] = {"allowed_domains": list(spec.allowed_domains)}
    location = spec.user_location
    if location:
        tool["user_location"] = {"type": "approximate", **location}
    return tool


def hosted_mcp_tool(spec: McpServerSpec) -> dict[str, Any]:
    """OpenAI Responses ``mcp`` hosted tool (``openai.types.responses.tool_param.Mcp``).

    ``authorization`` there is an OAuth access token, so a ``MCP.authorization``
    written as ``"Bearer <token>"`` sends just the token; any other scheme (``Basic ...``)
    goes out as an ``Authorization`` header instead. ``allowed_tools`` and
    ``require_approval`` come from the declaration. Without a
    ``require_approval``, a server declared with ``side_effects: true`` asks
    ``"always"`` and any other sends none, which leaves the provider's default
    (OpenAI asks for approval); an approval is never waived unless the
    declaration says ``never`` (the Java functional-tools SPI sent ``"never"`` for every server).
    """
    tool: dict[str, Any] = {"type": "mcp", "server_label": spec.name, "server_url": spec.url}
    if spec.description:
        tool["server_description"] = spec.description
    headers = dict(spec.headers)
    auth = (spec.authorization or "").strip()
    if auth:
        scheme, _, token = auth.partition(" ")
        if not token:
            tool["authorization"] = auth
        elif scheme.lower() == "bearer":
            tool["authorization"] = token.strip()
        elif not any(key.lower() == "authorization" for key in headers):
            headers["Authorization"] = auth
    if headers:
        tool["headers"] = headers
    if spec.allowed_tools is not None:
        tool["allowed_tools"] = list(spec.allowed_tools)
    approval = spec.require_approval
    if approval is None:
        if spec.side_effects:
            tool["require_approval"] = "always"
    elif isinstance(approval, str):
        tool["require_approval"] = approval
    else:
        tool["require_approval"] = {
            key: {k: list(v) if k == "tool_names" else v for k, v in rule.items()}
            for key, rule in approval.items()
        }
    return tool


# ------------------------------------------------------------------ strict mode
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""String formats OpenAI structured outputs accept; others are dropped."""

_STRICT_KEYS = (
    "type",
    "title",
    "description",
    "const",
    "enum",
    "format",
    "pattern",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "additionalProperties",
    "anyOf",
)
"""Keywords kept in strict mode, in output order. Everything else is dropped:
``default``, ``examples``, ``minLength``/``maxLength``, ``uniqueItems``,
``not``/``if``/``then``/``else``, ``prefixItems``, ``patternProperties`` ...
Dropping only ever loosens what the model is told; the registry still
validates the full schema when the call comes back."""

_TYPED = ("type", "$ref", "anyOf", "enum", "const")


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` rewritten for OpenAI strict mode (structured outputs); input untouched.

    * every object gets ``additionalProperties: false`` and lists *all* its
      properties in ``required``, in declaration order;
    * properties that were optional become nullable: a type gains ``"null"``
      (an ``enum`` gains ``null``), a ``$ref``/``anyOf`` gets a
      ``{"type": "null"}`` alternative;
    * ``$ref`` with sibling keywords is inlined (OpenAI rejects siblings);
      ``oneOf`` becomes ``anyOf``; a one-element ``allOf`` is folded in;
    * unsupported keywords (``default``, ``minLength`` ...) and string formats
      other than date-time, time, date, duration, email, hostname, ipv4, ipv6
      and uuid are dropped.

    Raises :class:`~tooldeck.ExportError` (a ``ValueError``, naming the place)
    for what strict mode cannot express without changing the meaning: a part
    with no type (also one with only ``properties``: without a type it accepts
    any value), a free-form object (no ``properties``, or
    ``additionalProperties`` other than false), an array without ``items``, a
    several-schema ``allOf``, a non-object root; and for a malformed schema.
    Whatever it returns accepts every value ``schema`` accepts, once the
    optional properties a value leaves out are sent as ``null`` (a property
    test checks this); it may accept more (dropped keywords).

    Note: the model then sends ``null`` for a parameter it would have left
    out; the caller should treat such ``null`` values as absent.
    """
    with converting():
        root = copy.deepcopy(dict(schema))
        if "object" not in types_of(root) or "anyOf" in root or "oneOf" in root:
            raise ExportError("strict mode needs an object schema at the root")
        return _strict(root, root, "#", frozenset())


def _strict(
    node: Any,
    root: Mapping[str, Any],
    where: str,
    inlining: frozenset[str],
) -> dict[str, Any]:
    if not isinstance(node, Mapping):
        raise ExportError(f"{where}: strict mode needs a schema object, got {node!r}")
    node = merge_all_of(dict(node), where)
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
    ref = node.get("$ref")
    if ref is not None:
        siblings = {k: v for k, v in node.items() if k not in ("$ref", "$defs", "definitions")}
        if not siblings or ref in inlining:
            out: dict[str, Any] = {"$ref": ref}
            resolve(root, ref, where)
        else:
            resolved = dict(resolve(root, ref, where))
            return _strict({**resolved, **siblings}, root, where, inlining | {ref})
    else:
        out = {}
    for key in _STRICT_KEYS:
        if key in node:
            out[key] = node[key]
    if "format" in out and out["format"] not in _STRICT_FORMATS:
        del out["format"]
    if not any(key in out for key in _TYPED):
        # Without a type a part accepts every value (``properties`` only constrains objects);
        # strict mode cannot say "anything", and guessing "object" would refuse the rest.
        hint = " (add type: object)" if "properties" in out else ""
        raise ExportError(f"{where}: strict mode needs a type here{hint}")
    types = types_of(out)
    if "object" in types:
        properties = out.get("properties")
        extra = out.get("additionalProperties")
        if properties and extra is True:
            raise ExportError(
                f"{where}: an open object (additionalProperties: true) cannot be strict; "
                "strict mode accepts only the declared properties"
            )
        if extra not in (None, False) or (properties is None and extra is None):
            raise ExportError(
                f"{where}: a free-form object cannot be strict; declare its properties"
            )
        properties = properties or {}
        required = set(out.get("required") or ())
        converted: dict[str, Any] = {}
        for key, value in properties.items():
            prop = _strict(value, root, f"{where}/properties/{key}", inlining)
            converted[key] = prop if key in required else _nullable(prop)
        out["properties"] = converted
        out["required"] = list(converted)
        out["additionalProperties"] = False
    if "array" in types:
        items = out.get("items")
        if not isinstance(items, Mapping):
            raise ExportError(f"{where}: an array needs an items schema in strict mode")
    if isinstance(out.get("items"), Mapping):
        out["items"] = _strict(out["items"], root, f"{where}/items", inlining)
    if "anyOf" in out:
        out["anyOf"] = [
            _strict(variant, root, f"{where}/anyOf/{i}", inlining)
            for i, variant in enumerate(out["anyOf"])
        ]
    for defs_key in ("$defs", "definitions"):
        defs = node.get(defs_key)
        if isinstance(defs, Mapping):
            out[defs_key] = {
                key: _strict(value, root, f"{where}/{defs_key}/{key}", inlining)
                for key, value in defs.items()
            }
    return out


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts ``null`` (how strict mode spells "optional")."""
    if "type" in schema:
        types = types_of(schema)
        if "null" not in types:
            schema["type"] = [*types, "null"]
        if "const" in schema:
            schema["enum"] = [schema.pop("const")]
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if "anyOf" in schema:
        if not any("null" in types_of(v) for v in schema["anyOf"]):
            schema["anyOf"] = [*schema["anyOf"], {"type": "null"}]
        return schema
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


# ------------------------------------------------------------------ the model loop
# run/arun and stream/astream (tooldeck.providers._loop) import the exporters: loaded on first use.
from .._lazy import lazy_getattr as _lazy_getattr  # noqa: E402
from . import _loop  # noqa: E402  (lazy: importing it loads none of the loop's modules)

_LOOP = tuple(_loop.__all__)
__all__ += list(_LOOP)
__getattr__ = _lazy_getattr(__name__, dict.fromkeys(_LOOP, "._loop"))
