"""JSON values -> the Python types a handler's annotations ask for.

Converters are built once per handler parameter at registration; ``None``
means "pass through" so the call path skips the parameter entirely. A value
that passed schema validation can still fail here (an Enum member that does
not exist, a date the format check let through); that raises
:class:`ConversionError` and becomes an ``invalid_arguments`` result.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import typing
import uuid
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from tooldeck._jsontypes import json_type_name, show_json
from tooldeck._typing import is_abc_origin, split_optional, unwrap_annotated

__all__ = ["ConversionError", "Converter", "converter_for"]

Converter = Callable[[Any], Any]


class ConversionError(ValueError):
    """A validated JSON value could not become the annotated Python type."""


def converter_for(annotation: Any) -> Converter | None:
    """A function turning a JSON value into ``annotation``'s type, or None for as-is."""
    annotation, _ = unwrap_annotated(annotation)
    inner, optional = split_optional(annotation)
    if optional:
        convert = converter_for(inner)
        if convert is None:
            return None
        return lambda v: None if v is None else convert(v)
    if annotation is inspect.Parameter.empty or annotation in (Any, object, str, bool, type(None)):
        return None
    if isinstance(annotation, str):
        return None  # an unresolved forward reference: leave the value alone
    if annotation is int:
        return _to_int
    if annotation is float:
        return _to_float
    origin = typing.get_origin(annotation)
    if origin is not None:
        return _generic(annotation, origin)
    if not isinstance(annotation, type):
        return None
    return _for_class(annotation)


def _to_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) else value


def _to_float(value: Any) -> Any:
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _for_class(cls: type) -> Converter | None:
    if issubclass(cls, enum.Enum):
        return _guard(cls, f"one of {', '.join(repr(m.value) for m in cls)}")
    if issubclass(cls, PurePath):
        return _guard(cls, "a path string")
    if cls is datetime:
        return _guard(_parse_datetime, "an ISO 8601 date-time")
    if cls is date:
        return _guard(date.fromisoformat, "an ISO 8601 date (YYYY-MM-DD)")
    if cls is time:
        return _guard(time.fromisoformat, "an ISO 8601 time")
    if cls is uuid.UUID:
        return _guard(uuid.UUID, "a UUID")
    if cls is Decimal:
        return _guard(lambda v: Decimal(str(v)), "a decimal number")
    if dataclasses.is_dataclass(cls):
        return _dataclass(cls)
    validate = getattr(cls, "model_validate", None)
    if callable(validate):  # a pydantic model
        return _guard(validate, f"a {cls.__name__} object")
    return None


def _parse_datetime(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _guard(convert: Callable[[Any], Any], expected: str) -> Converter:
    def run(value: Any) -> Any:
        try:
            return convert(value)
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise ConversionError(_not(value, expected)) from exc
        except Exception as exc:  # pydantic.ValidationError and friends
            raise ConversionError(f"{_not(value, expected)}: {exc}") from exc

    return run


def _dataclass(cls: type) -> Converter:
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except (NameError, TypeError):
        hints = {}
    fields = {f.name: converter_for(hints.get(f.name, Any)) for f in dataclasses.fields(cls)}

    def build(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if not isinstance(value, Mapping):
            raise ConversionError(
                f"expected an object for {cls.__name__}, got {json_type_name(value)} "
                f"{show_json(value)}"
            )
        kwargs = {}
        for key, item in value.items():
            if key not in fields:
                raise ConversionError(f"{cls.__name__} has no field {key!r}")
            convert = fields[key]
            kwargs[key] = item if convert is None else convert(item)
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ConversionError(f"cannot build {cls.__name__}: {exc}") from exc

    return build


def _generic(annotation: Any, origin: Any) -> Converter | None:
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return None
    if origin in (list, set, frozenset, tuple) or is_abc_origin(origin, "Sequence", "Set"):
        if origin is tuple and args and args[-1] is not Ellipsis:
            parts = [converter_for(a) for a in args]
            return lambda v: tuple(x if c is None else c(x) for c, x in zip(parts, v, strict=False))
        item = converter_for(args[0]) if args else None
        build: Callable[[Any], Any] = origin if origin in (set, frozenset, tuple) else list
        if item is None:
            return None if build is list else build
        return lambda v: build(item(x) for x in v)
    if origin is dict or is_abc_origin(origin, "Mapping"):
        value_convert = converter_for(args[1]) if len(args) == 2 else None
        if value_convert is None:
            return None
        return lambda v: {k: value_convert(x) for k, x in v.items()}
    return None


def _not(value: Any, expected: str) -> str:
    """``the string "yesterday" is not a date``: the value, its JSON type, what was wanted."""
    return f"the {json_type_name(value)} {show_json(value)} is not {expected}"
