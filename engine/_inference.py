"""Derive parameter descriptors from a handler's signature and docstring.

Used when a tool is added with a handler and no explicit params (``infer``
mode): type hints give types and constraints (``Optional``, ``Literal``,
``Enum``, ``list[T]``, ``dict``, dataclasses, TypedDict, ``Annotated[T,
"description"]``), defaults make parameters optional, and the docstring's
Google/NumPy/Sphinx parameter section gives descriptions. Parameters that are
injected (``project_dir``, a ``ToolContext``) are left out.

An annotation no JSON Schema describes is refused with :class:`UnsupportedType`,
which becomes a TD116 :class:`RegistrationError` naming the parameter and the
field path: a plain class, ``bytes``, a callable, a class that contains itself
(``children: list[Node]`` inside ``Node``), a pydantic model whose schema
pydantic cannot write. Refused, not crashed on: the manifest loader reports it
at the tool's handler and goes on with the rest of the file.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import typing
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import PurePath
from typing import Any, is_typeddict

from ._docstrings import parse_docstring
from ._errors import RegistrationError
from ._params import MISSING, ParamDescriptor
from ._schema import param_schema
from ._typing import (
    is_abc_origin,
    is_context_annotation,
    signature_of,
    split_optional,
    unwrap_annotated,
)

__all__ = ["describe_handler", "infer_params", "snake_case"]

_JSON_SCALARS = (str, int, float, bool, type(None))
_ABSENT = object()
"""A default with no JSON form: the field is optional and nothing is filled in."""

_EXPANDING: ContextVar[tuple[type, ...]] = ContextVar("_EXPANDING", default=())
"""The dataclasses and TypedDicts whose fields are being described, outermost first."""


def snake_case(name: str) -> str:
    """``readFile`` / ``ReadFile`` -> ``read_file`` (the Java SDK ADR-005's default tool name)."""
    out: list[str] = []
    for index, char in enumerate(name):
        if char.isupper():
            prev = name[index - 1] if index else ""
            nxt = name[index + 1] if index + 1 < len(name) else ""
            if index and prev != "_" and (prev.islower() or prev.isdigit() or nxt.islower()):
                out.append("_")
            out.append(char.lower())
        else:
            out.append(char)
    return "".join(out).strip("_") or name


def describe_handler(handler: Callable[..., Any]) -> str:
    """The handler docstring's prose (summary and paragraphs before sections)."""
    return parse_docstring(inspect.getdoc(handler)).description


def infer_params(handler: Callable[..., Any]) -> tuple[ParamDescriptor, ...]:
    """Descriptors for every model-facing parameter of ``handler``."""
    signature = signature_of(handler)
    if signature is None:
        return ()
    docs = parse_docstring(inspect.getdoc(handler)).params
    params = []
    for parameter in signature.parameters.values():
        if parameter.kind in (
            parameter.VAR_POSITIONAL,
            parameter.VAR_KEYWORD,
            parameter.POSITIONAL_ONLY,
        ):
            continue
        if parameter.name == "project_dir" or is_context_annotation(parameter.annotation):
            continue
        try:
            descriptor = _descriptor(
                parameter.name,
                parameter.annotation,
                parameter.default,
                docs.get(parameter.name, ""),
            )
        except UnsupportedType as exc:
            raise RegistrationError(
                f"parameter {parameter.name!r}: {exc}",
                tool_name=getattr(handler, "__name__", None),
                param=parameter.name,
                code="TD116",
            ) from None
        params.append(descriptor)
    return tuple(params)


class UnsupportedType(TypeError):
    """An annotation no JSON Schema describes faithfully (a plain class, ``bytes``...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.path: list[str] = []
        """Field names from the parameter down to the unsupported one."""

    def __str__(self) -> str:
        where = f"field {'.'.join(self.path)}: " if self.path else ""
        return where + str(self.args[0])


_SUPPORTED = (
    "str, int, float, bool, None, list/tuple/set, dict, Literal, Enum, datetime/date/time, "
    "UUID, Decimal, Path, a dataclass, TypedDict or pydantic model, or Any"
)


def _descriptor(name: str, annotation: Any, default: Any, doc: str) -> ParamDescriptor:
    annotation, metadata = unwrap_annotated(annotation)
    description = next((m for m in metadata if isinstance(m, str)), doc)
    fields = _fields_for(annotation)
    kwargs: dict[str, Any] = {**fields, "description": description}
    if default is inspect.Parameter.empty:
        return ParamDescriptor(name, **kwargs)
    json_default = _json_default(default)
    if json_default is MISSING:
        return ParamDescriptor(name, required=False, **kwargs)
    if json_default is None and "enum" in kwargs and None not in kwargs["enum"]:
        kwargs["enum"] = (*kwargs["enum"], None)
    return ParamDescriptor(name, default=json_default, **kwargs)


def _fields_for(annotation: Any) -> dict[str, Any]:
    """ParamDescriptor keyword arguments (type and constraints) for one annotation."""
    inner, optional = split_optional(annotation)
    if optional:
        fields = _fields_for(inner)
        if "schema" in fields:
            return {"schema": {"anyOf": [fields["schema"], {"type": "null"}]}}
        kind = fields.get("type", "any")
        if kind != "any":
            kinds = kind if isinstance(kind, tuple) else (kind,)
            fields["type"] = (*kinds, "null")
        if "enum" in fields:
            fields["enum"] = (*fields["enum"], None)
        return fields
    if annotation is inspect.Parameter.empty or annotation in (Any, object):
        return {"type": "any"}
    if isinstance(annotation, str | typing.ForwardRef):
        itself = _names_expanding(annotation)
        if itself is not None:
            raise _contains_itself(itself)
        return {"type": "any"}
    simple = _SIMPLE.get(annotation)
    if simple is not None:
        return dict(simple)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        odd = [a for a in args if a is not None and not isinstance(a, str | int | float)]
        if odd:  # an enum member or bytes: the schema's enum would not serialize
            raise UnsupportedType(
                f"Literal value {odd[0]!r} has no JSON form the model could send; use "
                "strings, numbers, booleans or None (or annotate with the Enum class)"
            )
        return {"type": _common_type(args), "enum": tuple(args)}
    if origin in (typing.Union, __import__("types").UnionType):
        options = [param_schema(ParamDescriptor("option", **_fields_for(a))) for a in args]
        return {"schema": {"anyOf": options}}
    if origin in (list, set, frozenset, tuple) or is_abc_origin(
        origin, "Sequence", "Set", "Iterable"
    ):
        if origin is tuple and args and args[-1] is not Ellipsis:
            items = [param_schema(ParamDescriptor("item", **_fields_for(a))) for a in args]
            return {
                "schema": {
                    "type": "array",
                    "prefixItems": items,
                    "minItems": len(args),
                    "maxItems": len(args),
                }
            }
        item_fields = _fields_for(args[0]) if args else {"type": "any"}
        return {"type": "array", "items": ParamDescriptor("items", **item_fields)}
    if origin is dict or is_abc_origin(origin, "Mapping"):
        value = args[1] if len(args) == 2 else Any
        if value in (Any, object):
            return {"type": "object"}
        value_schema = param_schema(ParamDescriptor("value", **_fields_for(value)))
        return {"schema": {"type": "object", "additionalProperties": value_schema}}
    if isinstance(annotation, type):
        return _class_fields(annotation)
    return {"type": "any"}


_SIMPLE: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    type(None): {"type": "null"},
    None: {"type": "null"},
    list: {"type": "array"},
    tuple: {"type": "array"},
    set: {"type": "array"},
    dict: {"type": "object"},
    datetime: {"type": "string", "format": "date-time"},
    date: {"type": "string", "format": "date"},
    time: {"type": "string", "format": "time"},
    uuid.UUID: {"type": "string", "format": "uuid"},
    Decimal: {"type": "number"},
}


def _class_fields(cls: type) -> dict[str, Any]:
    if issubclass(cls, enum.Enum):
        values = tuple(member.value for member in cls)
        return {"type": _common_type(values), "enum": values}
    if issubclass(cls, PurePath):
        return {"type": "string"}
    if dataclasses.is_dataclass(cls) or is_typeddict(cls):
        expanding = _EXPANDING.get()
        if cls in expanding:
            raise _contains_itself(cls)
        token = _EXPANDING.set((*expanding, cls))
        try:
            return {"type": "object", "properties": _object_properties(cls)}
        finally:
            _EXPANDING.reset(token)
    schema_of = getattr(cls, "model_json_schema", None)
    if callable(schema_of):  # a pydantic model
        try:
            return {"schema": schema_of()}
        except Exception as exc:  # a field pydantic has no schema for (arbitrary types)
            first = (str(exc).strip().splitlines() or [""])[0]
            raise UnsupportedType(
                f"pydantic model {_class_name(cls)} has no JSON Schema ({type(exc).__name__}: "
                f"{first[:200]}); annotate its fields with one of: {_SUPPORTED}"
            ) from None
    raise UnsupportedType(
        f"type {_class_name(cls)} has no JSON form the model could send; "
        f"annotate it with one of: {_SUPPORTED}"
    )


def _class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _contains_itself(cls: type) -> UnsupportedType:
    return UnsupportedType(
        f"type {_class_name(cls)} contains itself, and a recursive type has no JSON form "
        "tooldeck writes; declare the parameter with type: object (or a raw schema:), "
        "or annotate the field with dict"
    )


def _names_expanding(annotation: Any) -> type | None:
    """The class being described that a string or ForwardRef annotation names, if any.

    ``children: list["Node"]`` inside ``Node``, where the name could not be
    resolved (``lint --static`` rebuilds a self-reference this way).
    """
    name = annotation.__forward_arg__ if isinstance(annotation, typing.ForwardRef) else annotation
    if not isinstance(name, str):
        return None
    return next((c for c in _EXPANDING.get() if name.strip() in {c.__name__, c.__qualname__}), None)


def _object_properties(cls: type) -> tuple[ParamDescriptor, ...]:
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except (NameError, TypeError):
        hints = dict(getattr(cls, "__annotations__", {}))
    if is_typeddict(cls):
        required = getattr(cls, "__required_keys__", frozenset(hints))
        return tuple(
            _field(
                name,
                _without_qualifier(hint),
                inspect.Parameter.empty if _required(name, hint, required) else _ABSENT,
            )
            for name, hint in hints.items()
        )
    props = []
    for field in dataclasses.fields(cls):
        if field.default is not dataclasses.MISSING:
            default: Any = field.default
        elif field.default_factory is not dataclasses.MISSING:
            default = _ABSENT  # handler-side default: optional, not shown
        else:
            default = inspect.Parameter.empty
        props.append(_field(field.name, hints.get(field.name, Any), default))
    return tuple(props)


_QUALIFIERS = tuple(
    q for q in (getattr(typing, n, None) for n in ("Required", "NotRequired", "ReadOnly")) if q
)


def _required(name: str, hint: Any, required_keys: frozenset[str]) -> bool:
    """Whether a TypedDict key is required: its own qualifier first, then the class's keys.

    Python 3.11 computes ``__required_keys__`` before string annotations
    (``from __future__ import annotations``) are evaluated, so a
    ``NotRequired[str]`` written that way is counted as required there.
    """
    origin = typing.get_origin(hint)
    if origin is getattr(typing, "NotRequired", None):
        return False
    if origin is getattr(typing, "Required", None):
        return True
    return name in required_keys


def _without_qualifier(hint: Any) -> Any:
    """``NotRequired[str]`` -> ``str``: requiredness is read from ``__required_keys__``."""
    while typing.get_origin(hint) in _QUALIFIERS:
        hint = typing.get_args(hint)[0]
    return hint


def _field(name: str, hint: Any, default: Any) -> ParamDescriptor:
    try:
        return _descriptor(name, hint, default, "")
    except UnsupportedType as exc:  # say which field, at any depth
        exc.path.insert(0, name)
        raise


def _common_type(values: tuple[Any, ...]) -> str | tuple[str, ...]:
    kinds: list[str] = []
    for value in values:
        kind = _SIMPLE.get(type(value), {"type": "any"})["type"]
        if kind == "any":
            return "any"
        if kind not in kinds:
            kinds.append(kind)
    if not kinds:
        return "any"
    return kinds[0] if len(kinds) == 1 else tuple(kinds)


def _json_default(value: Any) -> Any:
    """A signature default as a JSON value, or MISSING when it has no JSON form."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, _JSON_SCALARS):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, _JSON_SCALARS) for v in value):
        return list(value)
    return MISSING
