"""Tool definitions in the shapes LLM providers accept: pure dict transforms.

:func:`export_tools` turns a :class:`~tooldeck._registry.ToolRegistry` into the
``tools`` list of one provider's request. Nothing here imports a provider SDK
(``import tooldeck`` stays light); the shapes follow the installed SDKs' own
types, which the tests check them against:

* ``openai-chat``: ``ChatCompletionFunctionToolParam`` (``{"type": "function",
  "function": {...}}``).
* ``openai-responses``: ``FunctionToolParam`` (flat, ``strict`` always
  present), plus the hosted ``WebSearchPreviewToolParam``/``WebSearchToolParam``
  and ``Mcp`` entries.
* ``anthropic``: ``{"name", "description", "input_schema"}``.
* ``gemini``: ``FunctionDeclaration`` objects whose ``parameters`` use the
  OpenAPI 3.0 subset Gemini's ``Schema`` accepts (see :func:`gemini_schema`).
* ``mcp``: the MCP ``Tool`` wire shape (``inputSchema``, ``annotations``).

Every definition uses the tool's provider-safe name (:func:`tooldeck._names.safe_name`);
the registry resolves calls that come back under that name.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tooldeck._model import McpServerSpec, ToolSpec, WebSearchSpec

if TYPE_CHECKING:
    from tooldeck._registry import ToolRegistry

__all__ = [
    "PROVIDERS",
    "definition_tokens",
    "export_tools",
    "gemini_schema",
    "strict_schema",
]

PROVIDERS: tuple[str, ...] = ("openai-responses", "openai-chat", "anthropic", "gemini", "mcp")
"""The ``provider`` values :func:`export_tools` understands."""


def export_tools(
    registry: ToolRegistry,
    provider: str,
    *,
    strict: bool | None = None,
    include_hosted: bool = True,
    redact: Callable[[str], str] | None = None,
) -> list[dict[str, Any]]:
    """One tool definition per registered tool, in registration order, for ``provider``.

    Args:
        registry: where the tools (and hosted entries) come from.
        provider: one of :data:`PROVIDERS`; anything else raises ``ValueError``.
        strict: OpenAI strict mode for every tool; ``None`` uses each tool's
            ``ToolSpec.strict`` (``None`` there means off). Strict schemas go
            through :func:`strict_schema`; a schema that cannot be made strict
            raises ``ValueError`` naming the tool. Other providers ignore it.
        include_hosted: for ``openai-responses``, append the hosted web search
            and the ``via="hosted"`` MCP servers after the function tools.
            ``via="client"`` servers are never exported here: their tools are
            registered as ordinary tools once tooldeck connects to them.
        redact: applied to every string value of the output (not to keys:
            interpolation never fills them) and to the message of a
            ``ValueError``, e.g. ``registry.secrets.redact``. Applied to the
            data, before anyone serialises it, so escaping cannot hide a secret.

    The result is fresh (deep-copied) data: changing it never changes the
    registry. Output is deterministic for a given registry.
    """
    if provider not in PROVIDERS:
        raise ValueError(f"unknown provider {provider!r}; use one of: {', '.join(PROVIDERS)}")
    out: list[dict[str, Any]] = []
    for spec in registry.tools():
        name = registry.safe_name(spec.name)
        schema = _object_root(copy.deepcopy(registry.input_schema(spec.name)))
        use_strict = strict if strict is not None else bool(spec.strict)
        try:
            out.append(_export_one(provider, spec, name, schema, use_strict))
        except ValueError as exc:  # its message may quote schema values
            message = f"tool {spec.name!r} ({provider}): {exc}"
            raise ValueError(message if redact is None else redact(message)) from None
    if include_hosted and provider == "openai-responses":
        search = registry.web_search()
        if search is not None:
            out.append(_web_search(search))
        out.extend(_hosted_mcp(s) for s in registry.mcp_servers() if s.via == "hosted")
    if redact is not None:
        out = [_redacted(d, redact) for d in out]
    return out


def definition_tokens(definition: Mapping[str, Any]) -> int:
    """A rough estimate of the tokens ``definition`` costs a model's context.

    ``ceil(characters of compact JSON / 4)``: the usual four-characters-a-token
    rule of thumb for English text and JSON, with no tokenizer dependency.
    Real counts differ by model and provider (they also add per-tool framing),
    so use it to compare definitions and spot large ones, not to budget exactly.
    """
    text = json.dumps(definition, separators=(",", ":"), ensure_ascii=False)
    return math.ceil(len(text) / 4)


# --------------------------------------------------------------------- providers
def _export_one(
    provider: str,
    spec: ToolSpec,
    name: str,
    schema: dict[str, Any],
    strict: bool,
) -> dict[str, Any]:
    description = spec.description
    if provider == "openai-chat":
        function: dict[str, Any] = {
            "name": name,
            "description": description,
            "parameters": strict_schema(schema) if strict else schema,
        }
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}
    if provider == "openai-responses":
        return {
            "type": "function",
            "name": name,
            "description": description,
            "parameters": strict_schema(schema) if strict else schema,
            "strict": strict,
        }
    if provider == "anthropic":
        return {"name": name, "description": description, "input_schema": schema}
    if provider == "gemini":
        declaration: dict[str, Any] = {"name": name, "description": description}
        parameters = gemini_schema(schema)
        if parameters.get("properties"):
            declaration["parameters"] = parameters
        return declaration
    # mcp: the Tool wire shape (camelCase, as mcp.types.Tool serialises by alias)
    return {
        "name": name,
        "description": description,
        "inputSchema": schema,
        "annotations": {
            "readOnlyHint": not spec.side_effects,
            "destructiveHint": spec.side_effects,
            "idempotentHint": spec.idempotent,
        },
    }


def _web_search(spec: WebSearchSpec) -> dict[str, Any]:
    """OpenAI Responses ``web_search_preview`` / ``web_search`` hosted tool."""
    tool: dict[str, Any] = {"type": spec.type}
    location = {
        key: value
        for key, value in (("city", spec.city), ("country", spec.country), ("region", spec.region))
        if value
    }
    if location:
        tool["user_location"] = {"type": "approximate", **location}
    return tool


def _hosted_mcp(spec: McpServerSpec) -> dict[str, Any]:
    """OpenAI Responses ``mcp`` hosted tool (``openai.types.responses.tool_param.Mcp``).

    ``authorization`` there is an OAuth access token, so a seed-style
    ``"Bearer <token>"`` sends just the token; any other scheme (``Basic ...``)
    goes out as an ``Authorization`` header instead.
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
    tool["require_approval"] = "never"
    return tool


def _object_root(schema: dict[str, Any]) -> dict[str, Any]:
    """Providers want an object schema at the root; hand-written ones may omit the type."""
    if "type" not in schema and not any(k in schema for k in ("$ref", "anyOf", "oneOf", "allOf")):
        return {"type": "object", **schema}
    return schema


def _redacted(value: Any, redact: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {key: _redacted(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(item, redact) for item in value]
    return value


def _resolve(root: Mapping[str, Any], ref: str, where: str) -> Mapping[str, Any]:
    """A local ``#/...`` JSON pointer (``$defs`` or draft-07 ``definitions``)."""
    if not ref.startswith("#"):
        raise ValueError(f"{where}: only local $refs can be exported, not {ref!r}")
    node: Any = root
    for raw in ref[1:].split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            raise ValueError(f"{where}: $ref {ref!r} does not resolve")
        node = node[part]
    if not isinstance(node, Mapping):
        raise ValueError(f"{where}: $ref {ref!r} does not point at a schema object")
    return node


def _merge_all_of(node: dict[str, Any], where: str) -> dict[str, Any]:
    """Fold a one-element ``allOf`` into its parent (the parent's own keys win)."""
    all_of = node.get("allOf")
    if all_of is None:
        return node
    if not isinstance(all_of, list) or len(all_of) != 1 or not isinstance(all_of[0], Mapping):
        raise ValueError(f"{where}: allOf with several schemas cannot be exported")
    rest = {k: v for k, v in node.items() if k != "allOf"}
    return {**all_of[0], **rest}


def _types(node: Mapping[str, Any]) -> list[str]:
    declared = node.get("type")
    if declared is None:
        return []
    return [declared] if isinstance(declared, str) else list(declared)


# ------------------------------------------------------------------ OpenAI strict
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

    Raises ``ValueError`` (naming the place) for what strict mode cannot
    express without changing the meaning: a part with no type, a free-form
    object (no ``properties``, or ``additionalProperties`` other than false),
    an array without ``items``, a several-schema ``allOf``, a non-object root.

    Note: the model then sends ``null`` for a parameter it would have left
    out; the caller should treat such ``null`` values as absent.
    """
    root = copy.deepcopy(dict(schema))
    if "object" not in _types(root) or "anyOf" in root or "oneOf" in root:
        raise ValueError("strict mode needs an object schema at the root")
    return _strict(root, root, "#", frozenset())


def _strict(
    node: Any,
    root: Mapping[str, Any],
    where: str,
    inlining: frozenset[str],
) -> dict[str, Any]:
    if not isinstance(node, Mapping):
        raise ValueError(f"{where}: strict mode needs a schema object, got {node!r}")
    node = _merge_all_of(dict(node), where)
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
    ref = node.get("$ref")
    if ref is not None:
        siblings = {k: v for k, v in node.items() if k not in ("$ref", "$defs", "definitions")}
        if not siblings or ref in inlining:
            out: dict[str, Any] = {"$ref": ref}
            _resolve(root, ref, where)
        else:
            resolved = dict(_resolve(root, ref, where))
            return _strict({**resolved, **siblings}, root, where, inlining | {ref})
    else:
        out = {}
    for key in _STRICT_KEYS:
        if key in node:
            out[key] = node[key]
    if "format" in out and out["format"] not in _STRICT_FORMATS:
        del out["format"]
    if "properties" in out and not any(key in out for key in _TYPED):
        out = {"type": "object", **out}
    if not any(key in out for key in _TYPED):
        raise ValueError(f"{where}: strict mode needs a type here")
    types = _types(out)
    if "object" in types:
        properties = out.get("properties")
        extra = out.get("additionalProperties")
        if extra not in (None, False) or (properties is None and extra is None):
            raise ValueError(
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
            raise ValueError(f"{where}: an array needs an items schema in strict mode")
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
        types = _types(schema)
        if "null" not in types:
            schema["type"] = [*types, "null"]
        if "const" in schema:
            schema["enum"] = [schema.pop("const")]
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if "anyOf" in schema:
        if not any("null" in _types(v) for v in schema["anyOf"]):
            schema["anyOf"] = [*schema["anyOf"], {"type": "null"}]
        return schema
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


# ------------------------------------------------------------------------ Gemini
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
    from the root; a recursive reference raises ``ValueError``. Gemini only
    takes string enums, so other enums are moved into the description; formats
    Gemini rejects (``uri``, ``email`` ...) are dropped; ``required`` keeps
    only declared properties.
    """
    try:
        return _gemini(schema, schema, "#", ())
    except ValueError as exc:
        if tool_name is None:
            raise
        raise ValueError(f"tool {tool_name!r}: {exc}") from None


def _gemini(
    node: Any,
    root: Mapping[str, Any],
    where: str,
    refs: tuple[str, ...],
) -> dict[str, Any]:
    if node is True:
        return {}
    if not isinstance(node, Mapping):
        raise ValueError(f"{where}: cannot convert schema {node!r} for gemini")
    node = _merge_all_of(dict(node), where)
    ref = node.pop("$ref", None)
    if ref is not None:
        if ref in refs:
            chain = " -> ".join((*refs, ref))
            raise ValueError(f"{where}: recursive $ref cannot be inlined for gemini ({chain})")
        resolved = dict(_resolve(root, ref, where))
        siblings = {k: v for k, v in node.items() if k not in ("$defs", "definitions")}
        return _gemini({**resolved, **siblings}, root, where, (*refs, ref))
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")

    out: dict[str, Any] = {}
    nullable = False
    types = _types(node)
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
