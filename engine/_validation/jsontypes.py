"""JSON Schema's view of Python values: which type a value has, when two values are equal.

Why a module of its own: the checks compiled from descriptors
(:mod:`tooldeck._paramcheck`), the checks compiled from raw schemas
(:mod:`tooldeck._validation.fastcheck`) and the explanations of violations
(:mod:`tooldeck._validation.explain`) must all agree with ``jsonschema`` on these rules
(bools are not numbers, ``1.0`` is an integer, enum equality keeps
``True != 1``). They share this one definition, which imports nothing of
tooldeck and so sits below all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "TYPE_TESTS",
    "Checker",
    "conjunction",
    "enum_test",
    "is_integer",
    "is_number",
    "json_equal",
    "json_type_name",
    "show_json",
]

Checker = Callable[[Any], bool]
"""Returns True when a value is valid; never raises."""


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema defines it: ``1 == 1.0`` but ``True != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple | dict) or isinstance(b, list | tuple | dict):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def is_number(v: Any) -> bool:
    """A JSON number: an int or a float, never a bool."""
    return isinstance(v, int | float) and not isinstance(v, bool)


def is_integer(v: Any) -> bool:
    """A JSON Schema integer: ``1`` and ``1.0`` alike, never ``True``."""
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


TYPE_TESTS: dict[str, Checker] = {
    "string": lambda v: isinstance(v, str),
    "integer": is_integer,
    "number": is_number,
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}
"""The test for each JSON Schema type name."""


def enum_test(options: tuple[Any, ...]) -> Checker:
    """The ``enum`` check: a frozenset lookup for strings, :func:`json_equal` otherwise."""
    if all(isinstance(o, str) for o in options):
        allowed = frozenset(options)
        return lambda v: isinstance(v, str) and v in allowed
    return lambda v: any(json_equal(o, v) for o in options)


def conjunction(tests: list[Checker]) -> Checker:
    """All of ``tests``, without a generator per call for the usual one or two."""
    if not tests:
        return lambda v: True
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda v: first(v) and second(v)
    checks = tuple(tests)

    def every(v: Any) -> bool:  # a loop: cheaper than all() over a generator
        for test in checks:  # noqa: SIM110 - see above
            if not test(v):
                return False
        return True

    return every


def show_json(value: Any, limit: int = 60) -> str:
    """A value as a manifest or a model writes it (``null``, ``true``, ``"text"``), cut short.

    Messages quote values this way so a YAML author never reads Python's
    ``None``/``True``/``'text'`` for what they wrote as ``null``/``true``/``text``.
    """
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_type_name(value: Any) -> str:
    """The JSON type a value has: string, integer, number, boolean, null, array, object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
