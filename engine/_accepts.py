"""Which JSON types a handler annotation takes, and which of them only by a lossless conversion.

One table read in two places that must agree: lint (TD411 compares a declared
parameter's JSON type with the handler's annotation) and the call path
(:func:`tooldeck._convert.fitted_converter` guards a parameter whose declared
type holds values the annotation does not take, so such a value fails the call
with ``invalid_arguments`` instead of reaching the handler).

``accepted_types(float)`` is ``{"number", "integer"}``: the conversion step turns
an integer into a float. That conversion loses nothing, but a parameter declared
``integer`` for a ``float`` still narrows what the model may send (no ``2.5``),
so lint warns about it rather than saying nothing; ``lossless_types`` names these
kinds. Only the standard library is imported: annotation classes (``uuid``,
``decimal``, pydantic) are looked up in ``sys.modules``, since a handler annotated
with one has already imported it.
"""

from __future__ import annotations

import enum
import inspect
import sys
import types
import typing
from typing import Any

from ._typing import is_abc_origin, split_optional, unwrap_annotated

__all__ = ["accepted_types", "lossless_types"]

_ARRAY = frozenset({"array"})
_OBJECT = frozenset({"object"})
_STRING = frozenset({"string"})
_WIDENED = frozenset({"integer"})
"""What a number annotation (``float``, ``Decimal``) takes only by converting it."""


def accepted_types(annotation: Any) -> frozenset[str] | None:
    """The JSON types a handler annotation can take; None for anything (or unknown)."""
    return _accepted(annotation, widened=True)


def lossless_types(annotation: Any) -> frozenset[str]:
    """The JSON types ``annotation`` takes only through a lossless conversion (integer -> float).

    Empty when the annotation takes every accepted type as it is, or takes anything.
    """
    wide = _accepted(annotation, widened=True)
    if wide is None:
        return frozenset()
    narrow = _accepted(annotation, widened=False) or frozenset()
    return wide - narrow


def _accepted(annotation: Any, *, widened: bool) -> frozenset[str] | None:
    annotation, _ = unwrap_annotated(annotation)
    inner, optional = split_optional(annotation)
    if optional:
        base = _accepted(inner, widened=widened)
        return None if base is None else base | {"null"}
    if annotation is inspect.Parameter.empty or annotation is Any or annotation is object:
        return None
    if annotation is None or annotation is type(None):
        return frozenset({"null"})
    supertype = getattr(annotation, "__supertype__", None)  # typing.NewType
    if supertype is not None:
        return _accepted(supertype, widened=widened)
    origin = typing.get_origin(annotation)
    if origin is not None:
        return _generic(annotation, origin, widened=widened)
    if isinstance(annotation, type):
        return _class(annotation, widened=widened)
    return None  # a forward reference left as a string, a TypeVar, ...


def _generic(annotation: Any, origin: Any, *, widened: bool) -> frozenset[str] | None:
    args = typing.get_args(annotation)
    if origin is typing.Union or origin is types.UnionType:
        found: frozenset[str] = frozenset()
        for arg in args:
            part = _accepted(arg, widened=widened)
            if part is None:
                return None
            found |= part
        return found
    if origin is typing.Literal:
        return _values(args)
    if origin is typing.Annotated:
        return _accepted(args[0], widened=widened) if args else None
    if origin in (list, tuple, set, frozenset) or is_abc_origin(origin, "Sequence", "Set"):
        return _ARRAY
    if origin is dict or is_abc_origin(origin, "Mapping"):
        return _OBJECT
    return None


def _class(cls: type, *, widened: bool) -> frozenset[str] | None:
    if cls is bool:
        return frozenset({"boolean"})
    if issubclass(cls, enum.Enum):
        return _values(tuple(member.value for member in cls))
    if cls is int:
        return frozenset({"integer"})
    if cls is float:
        return frozenset({"number"}) | (_WIDENED if widened else frozenset())
    if issubclass(cls, str) or _is_string_class(cls):
        return _STRING
    decimal = sys.modules.get("decimal")
    if decimal is not None and cls is decimal.Decimal:
        return frozenset({"number", "string"}) | (_WIDENED if widened else frozenset())
    if issubclass(cls, list | tuple | set | frozenset) or is_abc_origin(cls, "Sequence", "Set"):
        return _ARRAY
    if issubclass(cls, dict) or is_abc_origin(cls, "Mapping"):
        return _OBJECT
    if typing.is_typeddict(cls) or hasattr(cls, "__dataclass_fields__"):
        return _OBJECT
    if callable(getattr(cls, "model_validate", None)):  # a pydantic model
        return _OBJECT
    return None


def _is_string_class(cls: type) -> bool:
    """Path, date, datetime, time and UUID: sent as strings, converted on the way in."""
    pathlib = sys.modules.get("pathlib")
    if pathlib is not None and issubclass(cls, pathlib.PurePath):
        return True
    datetime = sys.modules.get("datetime")
    if datetime is not None and cls in (datetime.date, datetime.datetime, datetime.time):
        return True
    uuid = sys.modules.get("uuid")
    return uuid is not None and cls is uuid.UUID


def _values(values: tuple[Any, ...]) -> frozenset[str] | None:
    """The JSON types of literal (or Enum) values; None when one has no JSON type here."""
    found = set()
    for value in values:
        if value is None:
            found.add("null")
        elif isinstance(value, bool):
            found.add("boolean")
        elif isinstance(value, int):
            found.add("integer")
        elif isinstance(value, float):
            found.update(("number", "integer"))
        elif isinstance(value, str):
            found.add("string")
        else:
            return None
    return frozenset(found)
