"""JSON values -> the Python types a handler's annotations ask for.

Converters are built once per handler parameter at registration; ``None``
means "pass through" so the call path skips the parameter entirely. A value
that passed schema validation can still fail here (an Enum member that does
not exist, a date the format check let through, ``2.5`` for an ``int``); that
raises :class:`ConversionError` and becomes an ``invalid_arguments`` result.

A handler never receives a value its annotation rejects without this step
saying so: numbers are converted only without loss (``3.0`` -> ``3``, ``3`` ->
``3.0``), and where a parameter's declared JSON type holds values the
annotation does not take (``type: string`` for an ``int``, which lint reports
as TD411), :func:`fitted_converter` puts a check in front that refuses them
("the string "21" is not an integer") instead of passing ``"21"`` to code that
doubles it into ``"2121"``. Declared types that fit cost nothing extra.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import math
import typing
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from ._accepts import accepted_types
from ._typing import is_abc_origin, split_optional, unwrap_annotated
from ._validation import TYPE_TESTS, json_type_name, show_json

__all__ = ["ConversionError", "Converter", "converter_for", "fitted_converter"]

Converter = Callable[[Any], Any]


class ConversionError(ValueError):
    """A validated JSON value could not become the annotated Python type.

    ``path`` leads from the parameter to the value at fault (field names and
    item indexes, ``("points", 2, "x")``), so the call path can say where.
    """

    def __init__(self, message: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def within(self, step: str | int) -> ConversionError:
        """The same error, one level further from the value (``step`` is a key or an index)."""
        return ConversionError(self.message, (step, *self.path))

    def where(self, name: str) -> str:
        """``$.name.field[2]``: the JSON path of the value at fault, below parameter ``name``."""
        out = f"$.{name}"
        for step in self.path:
            out += f"[{step}]" if isinstance(step, int) else f".{step}"
        return out


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


def fitted_converter(
    annotation: Any, declared: tuple[str, ...], enum: tuple[Any, ...] | None = None
) -> Converter | None:
    """:func:`converter_for`, checked first where the declaration admits what it refuses.

    ``declared`` are the parameter's JSON types (empty: any value) and ``enum``
    its allowed values. When every value the declaration admits is one the
    annotation takes, the plain converter is returned (validation already
    guarantees the rest). Otherwise a value of a JSON type the annotation does
    not take, or outside a ``Literal``'s values, raises :class:`ConversionError`
    before the converter sees it. ``null`` is left to the call path, which
    never converts it.
    """
    convert = converter_for(annotation)
    takes = accepted_types(annotation)
    if takes is None:
        return convert
    admitted = set(declared or TYPE_TESTS) - {"null"}
    if enum is not None:
        admitted = {json_type_name(v) for v in enum if v is not None}
    if admitted <= takes and _literal_admits(annotation, enum):
        return convert
    tests = [TYPE_TESTS[kind] for kind in sorted(takes) if kind in TYPE_TESTS]
    literal = _literal_values(annotation)
    expected = _expected(takes, literal)

    def check(value: Any) -> Any:
        if not any(test(value) for test in tests) or (
            literal is not None and not any(_same(value, option) for option in literal)
        ):
            raise ConversionError(_not(value, expected))
        return value if convert is None else convert(value)

    return check


def _literal_values(annotation: Any) -> tuple[Any, ...] | None:
    """The values of a ``Literal`` annotation (Optional and Annotated seen through); else None."""
    annotation, _ = unwrap_annotated(annotation)
    annotation, _ = split_optional(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    return None


def _literal_admits(annotation: Any, enum: tuple[Any, ...] | None) -> bool:
    """Whether every value the declaration admits is one of a ``Literal`` annotation's values."""
    literal = _literal_values(annotation)
    if literal is None:
        return True
    if enum is None:
        return False
    return all(v is None or any(_same(v, option) for option in literal) for v in enum)


def _same(value: Any, option: Any) -> bool:
    """Equal as JSON values: ``1`` is not ``True``, ``1.0`` is ``1``."""
    if isinstance(value, bool) or isinstance(option, bool):
        return value is option
    return bool(value == option) and (isinstance(value, str) == isinstance(option, str))


_ARTICLES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _expected(takes: frozenset[str], literal: tuple[Any, ...] | None) -> str:
    if literal is not None:
        return f"one of {', '.join(show_json(v) for v in literal)}"
    kinds = sorted(takes - {"integer"} if "number" in takes else takes)
    return " or ".join(_ARTICLES.get(kind, kind) for kind in kinds)


def _to_int(value: Any) -> Any:
    """An integer as it is, a whole float (``3.0``) as ``3``; anything else is refused."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise ConversionError(_not(value, "an integer"))


def _to_float(value: Any) -> Any:
    """A float as it is, an integer as the float equal to it; anything else is refused."""
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            converted = float(value)
        except OverflowError:
            converted = math.inf
        if converted != value:  # past 2**53 a float cannot hold every integer
            raise ConversionError(_not(value, "a number a float holds exactly"))
        return converted
    raise ConversionError(_not(value, "a number"))


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
    fields: dict[str, Converter | None] = {}

    def field_converters() -> dict[str, Converter | None]:
        """Built on the first call: a dataclass may hold itself (``children: list[Node]``)."""
        if not fields:
            try:
                hints = typing.get_type_hints(cls, include_extras=True)
            except (NameError, TypeError):
                hints = {}
            for f in dataclasses.fields(cls):
                fields[f.name] = converter_for(hints.get(f.name, Any))
        return fields

    def build(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        if not isinstance(value, Mapping):
            raise ConversionError(
                f"expected an object for {cls.__name__}, got {json_type_name(value)} "
                f"{show_json(value)}"
            )
        known = field_converters()
        kwargs = {}
        for key, item in value.items():
            if key not in known:
                raise ConversionError(f"{cls.__name__} has no field {key!r}")
            convert = known[key]
            try:
                kwargs[key] = item if convert is None else convert(item)
            except ConversionError as exc:
                raise exc.within(key) from exc
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ConversionError(f"cannot build {cls.__name__}: {exc}") from exc

    return build


def _each(convert: Converter, values: Any) -> Iterator[Any]:
    """``convert`` over the items of a sequence, saying which item failed."""
    for index, item in enumerate(values):
        try:
            yield convert(item)
        except ConversionError as exc:
            raise exc.within(index) from exc


def _generic(annotation: Any, origin: Any) -> Converter | None:
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return None
    if origin in (list, set, frozenset, tuple) or is_abc_origin(origin, "Sequence", "Set"):
        if origin is tuple and args and args[-1] is not Ellipsis:
            parts = [converter_for(a) for a in args]
            return lambda v: tuple(
                x if c is None else _at(c, i, x)
                for i, (c, x) in enumerate(zip(parts, v, strict=False))
            )
        item = converter_for(args[0]) if args else None
        build: Callable[[Any], Any] = origin if origin in (set, frozenset, tuple) else list
        if item is None:
            return None if build is list else build
        return lambda v: build(_each(item, v))
    if origin is dict or is_abc_origin(origin, "Mapping"):
        value_convert = converter_for(args[1]) if len(args) == 2 else None
        if value_convert is None:
            return None
        return lambda v: {k: _at(value_convert, k, x) for k, x in v.items()}
    return None


def _at(convert: Converter, step: str | int, value: Any) -> Any:
    """``convert(value)``, an error saying it happened at ``step``."""
    try:
        return convert(value)
    except ConversionError as exc:
        raise exc.within(step) from exc


def _not(value: Any, expected: str) -> str:
    """``the string "yesterday" is not a date``: the value, its JSON type, what was wanted."""
    return f"the {json_type_name(value)} {show_json(value)} is not {expected}"
