"""The data model: what a tool, a parameter, a prompt and a call result are.

Everything here is a frozen, keyword-only dataclass with no I/O. Declarations
(:class:`ParamDescriptor`, :class:`ToolSpec`, :class:`PromptSpec`) are pure
data; turning them into JSON Schema lives in :mod:`tooldeck._schema`, checking
and binding arguments in :mod:`tooldeck._binding`, running them in
:mod:`tooldeck._calls`. Manifests and code build exactly these objects.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tooldeck._diagnostics import SourceLocation
from tooldeck._errors import RegistrationError

__all__ = [
    "DEFAULT_RETRY_ON",
    "INJECTABLE",
    "JSON_TYPES",
    "MISSING",
    "TYPE_ALIASES",
    "McpServerSpec",
    "Param",
    "ParamDescriptor",
    "PromptSpec",
    "ResultSpec",
    "RetrySpec",
    "ToolSpec",
    "WebSearchSpec",
    "normalize_type",
]


class _Missing:
    """Sentinel for "no default declared" (``None`` is a legitimate default)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The default of :attr:`ParamDescriptor.default`: no default was declared."""

JSON_TYPES: tuple[str, ...] = (
    "string",
    "integer",
    "number",
    "boolean",
    "array",
    "object",
    "null",
)
"""The JSON Schema type names."""

TYPE_ALIASES: Mapping[str, str] = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "dict": "object",
    "map": "object",
    "mapping": "object",
    "none": "null",
}
"""Type names people write in the wild, mapped to JSON Schema types.

``any`` (no type constraint) is handled apart: it normalises to ``"any"``.
"""

INJECTABLE: tuple[str, ...] = ("call_id", "config", "context", "project_dir", "tool_name")
"""What :attr:`ParamDescriptor.inject` may name; injected values never reach a schema."""


def normalize_type(value: str | Sequence[str]) -> str | tuple[str, ...]:
    """Map a declared type (or list of types) to canonical JSON Schema names.

    ``"int"`` -> ``"integer"``; ``["str", "null"]`` -> ``("string", "null")``;
    ``"any"`` -> ``"any"``. Unknown names raise :class:`RegistrationError`
    listing what is allowed, so a typo never turns into a silent ``string``.
    """
    if isinstance(value, str):
        name = value.strip().lower()
        if name in ("any", "*"):
            return "any"
        if name in JSON_TYPES:
            return name
        if name in TYPE_ALIASES:
            return TYPE_ALIASES[name]
        allowed = ", ".join((*JSON_TYPES, "any", *sorted(TYPE_ALIASES)))
        raise RegistrationError(
            f"unknown type {value!r}; use one of: {allowed}",
            code="TD101",
        )
    names: list[str] = []
    for item in value:
        one = normalize_type(item)
        if one == "any":
            return "any"
        for part in (one,) if isinstance(one, str) else one:
            if part not in names:
                names.append(part)
    if not names:
        raise RegistrationError("an empty type list allows nothing", code="TD101")
    return names[0] if len(names) == 1 else tuple(names)


DEFAULT_RETRY_ON: tuple[str, ...] = ("OSError", "ConnectionError", "TimeoutError")
"""Exception class names retried by default: I/O and network trouble, not bugs."""


@dataclass(frozen=True, kw_only=True)
class RetrySpec:
    """Retry execution errors whose exception (or a base class) is named in ``on``.

    Invalid arguments are never retried, and side-effecting tools only when
    they are marked ``idempotent``. Delays grow exponentially from
    ``backoff`` up to ``max_backoff``, with jitter so parallel callers spread.
    """

    attempts: int = 3
    """Total attempts, the first one included."""
    backoff: float = 0.2
    """Seconds before the second attempt."""
    max_backoff: float = 5.0
    on: tuple[str, ...] = DEFAULT_RETRY_ON

    def __post_init__(self) -> None:
        if not isinstance(self.attempts, int) or self.attempts < 1:
            raise RegistrationError(
                f"retry.attempts must be >= 1, got {self.attempts!r}", code="TD115"
            )
        if self.backoff < 0 or self.max_backoff < 0:
            raise RegistrationError("retry backoff must not be negative", code="TD115")
        object.__setattr__(self, "on", tuple(self.on))

    def matches(self, exc: BaseException) -> bool:
        """Whether ``exc`` is one of the retryable kinds (by class name, MRO included)."""
        return any(cls.__name__ in self.on for cls in type(exc).__mro__)

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        base = min(self.max_backoff, self.backoff * float(2 ** (attempt - 1)))
        jitter: float = random.uniform(0.5, 1.0)  # spreads parallel callers' retries
        return base * jitter


@dataclass(frozen=True, kw_only=True)
class ResultSpec:
    """How a handler's return value is shaped before it goes back to the model."""

    select: str | None = None
    """JMESPath expression applied to the return value (compiled at registration)."""
    format: Literal["text", "json"] | None = None
    """``json`` always serialises (even strings); ``text`` sends strings as-is."""
    max_chars: int | None = None
    """Longer results are truncated with a marker so one call cannot flood the context."""


@dataclass(frozen=True)
class ParamDescriptor:
    """One parameter of a tool or prompt: a name, a type and constraints.

    The first four positional fields follow the seed's
    ``ParamDescriptor(name, type, required, description)``. A declared
    ``default`` makes the parameter optional; ``required=False`` without a
    default leaves the value to the handler's own default. String defaults
    may reference earlier parameters (``"${path}.bak"``).
    """

    name: str
    type: str | Sequence[str] = "string"
    """JSON Schema type, an alias (``int``, ``list`` ...), ``any``, or a list of them."""
    required: bool = True
    description: str = ""
    default: Any = field(default=MISSING, kw_only=True)
    enum: tuple[Any, ...] | None = field(default=None, kw_only=True)
    items: ParamDescriptor | None = field(default=None, kw_only=True)
    """Element descriptor for arrays; a type name string is accepted and wrapped."""
    properties: tuple[ParamDescriptor, ...] | None = field(default=None, kw_only=True)
    """Nested descriptors for objects; a ``{name: type-or-descriptor}`` mapping is accepted."""
    minimum: float | None = field(default=None, kw_only=True)
    maximum: float | None = field(default=None, kw_only=True)
    min_length: int | None = field(default=None, kw_only=True)
    max_length: int | None = field(default=None, kw_only=True)
    min_items: int | None = field(default=None, kw_only=True)
    max_items: int | None = field(default=None, kw_only=True)
    pattern: str | None = field(default=None, kw_only=True)
    format: str | None = field(default=None, kw_only=True)
    schema: Mapping[str, Any] | None = field(default=None, kw_only=True)
    """A raw JSON Schema fragment for what descriptors cannot express; it wins."""
    inject: str | None = field(default=None, kw_only=True)
    """Fill this parameter from the call context instead of the model (see INJECTABLE)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise RegistrationError("a parameter needs a non-empty string name", code="TD102")
        where = {"param": self.name}
        set_ = object.__setattr__
        if self.schema is not None:
            if not isinstance(self.schema, Mapping):
                raise RegistrationError(
                    f"parameter {self.name!r}: schema= must be a mapping",
                    code="TD104",
                    **where,
                )
            declared = self.schema.get("type")
            set_(self, "type", "any" if declared is None else _fragment_type(declared, self.name))
        else:
            set_(self, "type", _normalize(self.type, self.name))
        if self.default is not MISSING:
            set_(self, "required", False)
        if self.enum is not None and not isinstance(self.enum, str | bytes | Mapping):
            set_(self, "enum", tuple(self.enum))
        items: Any = self.items
        if isinstance(items, str | list | tuple):
            set_(self, "items", ParamDescriptor("items", items))
        if self.properties is not None:
            set_(self, "properties", _as_descriptors(self.properties))
        if self.inject is not None and self.inject not in INJECTABLE:
            raise RegistrationError(
                f"parameter {self.name!r}: inject={self.inject!r} is not one of "
                f"{', '.join(INJECTABLE)}",
                code="TD105",
                **where,
            )
        if isinstance(self.enum, str | bytes | Mapping) or (
            self.enum is not None and len(self.enum) == 0
        ):
            raise RegistrationError(
                f"parameter {self.name!r}: enum must be a non-empty list of values",
                code="TD104",
                **where,
            )
        _check_constraints(self)

    @property
    def types(self) -> tuple[str, ...]:
        """The JSON types as a tuple; empty means any type."""
        if self.type == "any":
            return ()
        return (self.type,) if isinstance(self.type, str) else tuple(self.type)

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING

    @property
    def absent_default(self) -> bool:
        """``default: null`` on a type that has no null: "optional, None when absent".

        How Python authors write an optional parameter (about one real
        definition in seven with defaults). The parameter is optional, the
        handler gets ``None`` unless it has a default of its own, and no
        schema shows the null (it is not a value of the declared type).
        """
        if self.default is not None:
            return False
        if self.schema is not None:
            declared = self.schema.get("type")
            if declared is None:
                return False
            kinds = (declared,) if isinstance(declared, str) else tuple(declared)
            return "null" not in kinds
        types = self.types
        return (
            bool(types)
            and "null" not in types
            and not (self.enum is not None and None in self.enum)
        )

    @property
    def injected(self) -> str | None:
        """What fills this parameter when it is a tool's top-level parameter.

        ``project_dir`` is injected by name (seed behaviour) even without
        ``inject=``; nested object fields are never injected.
        """
        if self.inject is not None:
            return self.inject
        return "project_dir" if self.name == "project_dir" else None


Param = ParamDescriptor
"""Short alias for :class:`ParamDescriptor`."""

_COUNTS = ("min_length", "max_length", "min_items", "max_items")


def _check_constraints(param: ParamDescriptor) -> None:
    """Constraint values that would make a schema invalid fail at declaration time."""

    def fail(message: str) -> RegistrationError:
        return RegistrationError(
            f"parameter {param.name!r}: {message}", param=param.name, code="TD104"
        )

    for name in _COUNTS:
        value = getattr(param, name)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            raise fail(f"{name} must be a whole number >= 0, got {value!r}")
    for name in ("minimum", "maximum"):
        value = getattr(param, name)
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool)):
            raise fail(f"{name} must be a number, got {value!r}")
    for low, high in (
        ("minimum", "maximum"),
        ("min_length", "max_length"),
        ("min_items", "max_items"),
    ):
        lo, hi = getattr(param, low), getattr(param, high)
        if lo is not None and hi is not None and lo > hi:
            raise fail(f"{low} {lo!r} is greater than {high} {hi!r}")
    for name in ("pattern", "format", "description"):
        value = getattr(param, name)
        if value is not None and not isinstance(value, str):
            raise fail(f"{name} must be a string, got {value!r}")
    if param.pattern is not None:
        from tooldeck._regex import PatternError, check_declared, clip

        try:  # RE2, as at call time: linear matching, so no backreferences or lookaround
            check_declared(param.pattern)
        except PatternError as exc:
            raise RegistrationError(
                f"parameter {param.name!r}: pattern {clip(param.pattern)!r} is not a valid "
                f"regular expression: {exc.reason}",
                param=param.name,
                code="TD107",
            ) from None


def _normalize(value: Any, param: str) -> str | tuple[str, ...]:
    try:
        return normalize_type(value)
    except RegistrationError as exc:
        raise RegistrationError(
            f"parameter {param!r}: {exc.message}",
            param=param,
            code=exc.code,
        ) from None


def _fragment_type(declared: Any, param: str) -> str | tuple[str, ...]:
    """A raw fragment's type must already be JSON Schema: no aliases are rewritten in it."""
    names = [declared] if isinstance(declared, str) else declared
    if not isinstance(names, list | tuple) or not all(n in JSON_TYPES for n in names):
        raise RegistrationError(
            f"parameter {param!r}: schema type {declared!r} is not JSON Schema; use "
            f"{', '.join(JSON_TYPES)}",
            param=param,
            code="TD104",
        )
    return names[0] if len(names) == 1 else tuple(names)


def _as_descriptors(
    value: Sequence[ParamDescriptor] | Mapping[str, Any],
) -> tuple[ParamDescriptor, ...]:
    if isinstance(value, Mapping):
        out = []
        for key, spec in value.items():
            if isinstance(spec, ParamDescriptor):
                out.append(spec if spec.name == key else _renamed(spec, key))
            else:
                out.append(ParamDescriptor(key, spec))
        return tuple(out)
    return tuple(value)


def _renamed(spec: ParamDescriptor, name: str) -> ParamDescriptor:
    from dataclasses import replace

    return replace(spec, name=name)


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A registered tool: what the model sees plus how tooldeck runs it."""

    name: str
    description: str
    handler: Callable[..., Any]
    params: tuple[ParamDescriptor, ...] = ()
    input_schema: Mapping[str, Any] | None = None
    """For external tools (MCP, hand-written schemas): the whole arguments schema.
    When set, ``params`` is empty and the handler receives the arguments mapping."""
    tags: tuple[str, ...] = ()
    side_effects: bool = False
    """The tool changes something outside (MCP destructiveHint); runs only after approval."""
    effect: str = ""
    """What the side effect is, in words shown to whoever approves the call."""
    idempotent: bool = False
    return_direct: bool = False
    """The result goes to the user instead of back to the model (Spring AI)."""
    timeout: float | None = None
    """Seconds; ``None`` uses the registry default."""
    retry: RetrySpec | None = None
    """Retry I/O-like execution errors; see :class:`tooldeck._policies.RetrySpec`."""
    substitute_result: bool = False
    """Fill ``${config:key}`` placeholders in a string result from the config (seed)."""
    strict: bool | None = None
    """Provider strict mode for exports; ``None`` lets the exporter decide."""
    result: ResultSpec | None = None
    lenient: bool | None = None
    """Coerce near-miss arguments ("3" -> 3); ``None`` uses the registry setting."""
    inline: bool = False
    """Under ``acall``, run a sync handler on the event loop instead of a worker thread."""
    bundle: str | None = None
    origin: SourceLocation | None = None
    """Where the tool was declared, for manifests."""


@dataclass(frozen=True, kw_only=True)
class PromptSpec:
    """A reusable prompt: a template or a handler that renders text for a role."""

    name: str
    description: str
    role: Literal["assistant", "user"] = "assistant"
    params: tuple[ParamDescriptor, ...] = ()
    template: str | None = None
    handler: Callable[..., Any] | None = None
    tags: tuple[str, ...] = ()
    bundle: str | None = None
    origin: SourceLocation | None = None


@dataclass(frozen=True, kw_only=True)
class WebSearchSpec:
    """Provider-hosted web search (seed: ``addWebSearch(type, city, country, region)``)."""

    type: str = "web_search_preview"
    """Provider tool type; the seed's alias ``default`` means ``web_search_preview``."""
    city: str | None = None
    country: str | None = None
    region: str | None = None
    origin: SourceLocation | None = None

    def __post_init__(self) -> None:
        if self.type == "default":
            object.__setattr__(self, "type", "web_search_preview")


@dataclass(frozen=True, kw_only=True)
class McpServerSpec:
    """An external MCP server (seed: ``addMcpServer(name, url, authorization, description)``).

    ``via="hosted"`` hands the server to the provider (OpenAI's MCP tool);
    ``via="client"`` makes tooldeck connect to it and register its tools
    under ``prefix``, caching the tool list for ``cache_ttl`` seconds.
    """

    name: str
    url: str | None = None
    command: tuple[str, ...] | None = None
    """Launch a local server over stdio instead of connecting to ``url``."""
    env: Mapping[str, str] = field(default_factory=dict)
    authorization: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    description: str | None = None
    via: Literal["hosted", "client"] | None = None
    """``None`` picks ``hosted`` for a url and ``client`` for a command."""
    prefix: str = ""
    cache_ttl: float = 600.0
    allowed_tools: tuple[str, ...] | None = None
    origin: SourceLocation | None = None

    def __post_init__(self) -> None:
        if self.via is None:
            object.__setattr__(self, "via", "client" if self.command is not None else "hosted")
        if (self.url is None) == (self.command is None):
            raise RegistrationError(
                f"MCP server {self.name!r} needs exactly one of url or command",
                tool_name=self.name,
                code="TD114",
            )
        if self.via == "hosted" and self.url is None:
            raise RegistrationError(
                f"MCP server {self.name!r}: via=hosted needs a url the provider can reach",
                tool_name=self.name,
                code="TD114",
            )
        if self.via not in ("hosted", "client"):
            raise RegistrationError(
                f"MCP server {self.name!r}: via={self.via!r} is not 'hosted' or 'client'",
                tool_name=self.name,
                code="TD114",
            )
