"""Parameters: :class:`ParamDescriptor` (``Param``), its type names and its declaration checks.

A descriptor is a frozen dataclass with no I/O; everything that would make
its JSON Schema invalid fails when it is declared, as a
:class:`~tooldeck._errors.RegistrationError` with a TD1xx code: unknown type
names (``normalize_type``, which also maps aliases such as ``int`` and
``list``), bad constraints, patterns RE2 cannot run, unknown ``inject=``
sources. ``MISSING`` marks "no default declared" (``None`` is a default).

Separate from the specs in :mod:`tooldeck._model` because the descriptor is
the one part of the model with rules of its own, and the part the schema,
validation and inference modules need without the specs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._errors import RegistrationError
from ._validation import show_json

__all__ = [
    "INJECTABLE",
    "JSON_TYPES",
    "MISSING",
    "STRING_FORMATS",
    "TYPE_ALIASES",
    "Param",
    "ParamDescriptor",
    "format_hint",
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

STRING_FORMATS: Mapping[str, str] = {
    "date": "date",
    "datetime": "date-time",
    "date-time": "date-time",
    "date_time": "date-time",
    "timestamp": "date-time",
    "time": "time",
    "uri": "uri",
    "url": "uri",
    "email": "email",
    "e-mail": "email",
    "uuid": "uuid",
    "guid": "uuid",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
}
"""Type names that are JSON Schema string formats (``date``, ``uri``), by the format they mean.

JSON has no date or e-mail type: such a value is a string with a ``format``.
Written as a type, they get a hint saying so rather than a list of types.
"""


def format_hint(name: str) -> str | None:
    """The string format a type name means (``date`` -> ``date``), None for other names."""
    return STRING_FORMATS.get(name.strip().lower())


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
        fmt = format_hint(value)
        hint = (
            f"JSON has no {value.strip()} type: declare type 'string' with format={fmt!r}"
            if fmt
            else f"use one of: {allowed}"
        )
        raise RegistrationError(f"unknown type {show_json(value)}; {hint}", code="TD101")
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


@dataclass(frozen=True)
class ParamDescriptor:
    """One parameter of a tool or prompt: a name, a type and constraints.

    The first four positional fields follow the Java Functional Tools API's
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
    from_auth: str | None = field(default=None, kw_only=True)
    """Fill this parameter from the verified caller instead of the model: the name of a
    claim of the caller's token (``email``, ``tenant``), or ``subject``
    (:meth:`AuthIdentity.value <tooldeck.AuthIdentity.value>`). Never shown to the model;
    a call without the claim is refused unless the parameter is optional."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise RegistrationError(
                "a parameter needs a non-empty string name", code="TD102", path=("name",)
            )
        where: dict[str, Any] = {"param": self.name}
        set_ = object.__setattr__
        if self.schema is not None:
            if not isinstance(self.schema, Mapping):
                raise RegistrationError(
                    f"parameter {self.name!r}: schema= must be a mapping",
                    code="TD104",
                    path=("schema",),
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
            try:
                set_(self, "items", ParamDescriptor("items", items))
            except RegistrationError as exc:
                raise exc.under("items") from None
        if self.properties is not None:
            set_(self, "properties", _as_descriptors(self.properties))
        if self.inject is not None and self.inject not in INJECTABLE:
            raise RegistrationError(
                f"parameter {self.name!r}: inject={self.inject!r} is not one of "
                f"{', '.join(INJECTABLE)}",
                code="TD105",
                path=("inject",),
                **where,
            )
        if self.from_auth is not None:
            _check_from_auth(self)
        if isinstance(self.enum, str | bytes | Mapping) or (
            self.enum is not None and len(self.enum) == 0
        ):
            raise RegistrationError(
                f"parameter {self.name!r}: enum must be a non-empty list of values",
                code="TD104",
                path=("enum",),
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

        ``project_dir`` is injected by name (as the Java API does) even without
        ``inject=`` (unless it is ``from_auth``); nested object fields are never injected.
        """
        if self.inject is not None:
            return self.inject
        return "project_dir" if self.name == "project_dir" and self.from_auth is None else None

    @property
    def hidden(self) -> bool:
        """Not the model's to send: injected, or filled from the caller's identity.

        A tool's hidden parameters are in no schema, export or listing; the
        decision is made here once so every one of them leaves out the same ones.
        """
        return self.from_auth is not None or self.injected is not None


Param = ParamDescriptor
"""Short alias for :class:`ParamDescriptor`."""

_COUNTS = ("min_length", "max_length", "min_items", "max_items")


def _check_constraints(param: ParamDescriptor) -> None:
    """Constraint values that would make a schema invalid fail at declaration time."""

    def fail(message: str, *path: str) -> RegistrationError:
        """``path``: the one field that is wrong; none for fields that contradict each other."""
        return RegistrationError(
            f"parameter {param.name!r}: {message}", param=param.name, code="TD104", path=path
        )

    for name in _COUNTS:
        value = getattr(param, name)
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < 0
        ):
            raise fail(f"{name} must be a whole number >= 0, got {show_json(value)}", name)
    for name in ("minimum", "maximum"):
        value = getattr(param, name)
        if value is not None and (not isinstance(value, int | float) or isinstance(value, bool)):
            raise fail(f"{name} must be a number, got {show_json(value)}", name)
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
            raise fail(f"{name} must be a string, got {show_json(value)}", name)
    if param.pattern is not None:
        from ._regex import PatternError, check_declared, clip

        try:  # RE2, as at call time: linear matching, so no backreferences or lookaround
            check_declared(param.pattern)
        except PatternError as exc:
            raise RegistrationError(
                f"parameter {param.name!r}: pattern {clip(param.pattern)!r} is not a valid "
                f"regular expression: {exc.reason}",
                param=param.name,
                code="TD107",
                path=("pattern",),
            ) from None


def _check_from_auth(param: ParamDescriptor) -> None:
    """A claim name a token can carry, and no second source for the same value (TD105)."""
    claim = param.from_auth
    if not isinstance(claim, str) or not claim or claim != claim.strip() or _unprintable(claim):
        raise RegistrationError(
            f"parameter {param.name!r}: from_auth must name a claim of the caller's token "
            f"(e.g. email) or 'subject', got {show_json(claim)}",
            param=param.name,
            code="TD105",
            path=("from_auth",),
        )
    if param.inject is not None:
        raise RegistrationError(
            f"parameter {param.name!r} is filled either by inject= or by from_auth=, not both",
            param=param.name,
            code="TD105",
            path=("from_auth",),
        )


def _unprintable(text: str) -> bool:
    """Whitespace or control characters: no claim name has them, a typo or paste does."""
    return any(ch.isspace() or not ch.isprintable() for ch in text)


def _normalize(value: Any, param: str) -> str | tuple[str, ...]:
    try:
        return normalize_type(value)
    except RegistrationError as exc:
        raise RegistrationError(
            f"parameter {param!r}: {exc.message}",
            param=param,
            code=exc.code,
            path=("type",),
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
            path=("schema", "type"),
        )
    return names[0] if len(names) == 1 else tuple(names)


def _as_descriptors(
    value: Sequence[ParamDescriptor] | Mapping[str, Any],
) -> tuple[ParamDescriptor, ...]:
    if isinstance(value, Mapping):
        out = []
        for index, (key, spec) in enumerate(value.items()):
            if isinstance(spec, ParamDescriptor):
                out.append(spec if spec.name == key else _renamed(spec, key))
                continue
            try:
                out.append(ParamDescriptor(key, spec))
            except RegistrationError as exc:
                raise exc.under("properties", index) from None
        return tuple(out)
    return tuple(value)


def _renamed(spec: ParamDescriptor, name: str) -> ParamDescriptor:
    from dataclasses import replace

    return replace(spec, name=name)
