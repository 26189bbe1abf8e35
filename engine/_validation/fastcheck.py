"""Compiled yes/no checks for the simple raw schemas, to skip what jsonschema would accept.

Explaining one wrong item among 300,000 must not cost 300,000 jsonschema
descents. The bounded validator (:mod:`tooldeck._validation.validator`) asks
:func:`fast_check` for a subschema's compiled check and descends only into
the values it rejects. The check covers the keywords descriptors produce
(types, enums, bounds, sizes, patterns on RE2, formats, nested items and
properties) with the exact semantics of :mod:`tooldeck._validation.jsontypes`; for
anything else it answers None, meaning "ask jsonschema". A module of its own
because it compiles raw schemas, where :mod:`tooldeck._paramcheck` compiles
descriptors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._regex import PatternError, compile_pattern
from .formats import FORMATS, conforms
from .jsontypes import TYPE_TESTS, Checker, conjunction, enum_test, is_number, json_equal

__all__ = ["fast_check"]

# A compiled yes/no for the simple schemas descriptors produce, used only to
# skip values jsonschema would accept anyway; None means "ask jsonschema".
_ANNOTATIONS = frozenset(
    {"description", "title", "default", "examples", "$comment", "deprecated", "readOnly"}
)
_FAST_CACHE: dict[int, tuple[Any, Checker | None]] = {}
_FAST_CACHE_SIZE = 512


def fast_check(schema: Any) -> Checker | None:
    """The compiled check for ``schema``, cached by identity (the entry keeps it alive)."""
    entry = _FAST_CACHE.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry[1]
    try:
        check = _compile_subset(schema)
    except (PatternError, RecursionError, TypeError, ValueError):
        check = None
    if len(_FAST_CACHE) >= _FAST_CACHE_SIZE:
        _FAST_CACHE.clear()
    _FAST_CACHE[id(schema)] = (schema, check)
    return check


def _compile_subset(schema: Any) -> Checker | None:
    if schema is True:
        return lambda v: True
    if not isinstance(schema, dict) or "prefixItems" in schema or "patternProperties" in schema:
        return None
    tests: list[Checker] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        build = _SUBSET.get(keyword)
        test = None if build is None else build(value, schema)
        if test is None:
            return None
        tests.append(test)
    return conjunction(tests)


def _subset_type(value: Any, schema: Any) -> Checker | None:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(n in TYPE_TESTS for n in names):
        return None
    if len(names) == 1:
        return TYPE_TESTS[names[0]]
    alternatives = tuple(TYPE_TESTS[n] for n in names)
    return lambda v: any(test(v) for test in alternatives)


def _subset_bound(keyword: str) -> Callable[[Any, Any], Checker | None]:
    def build(limit: Any, schema: Any) -> Checker | None:
        if not is_number(limit):
            return None
        compare: Checker = {
            "minimum": lambda v: v >= limit,
            "maximum": lambda v: v <= limit,
            "exclusiveMinimum": lambda v: v > limit,
            "exclusiveMaximum": lambda v: v < limit,
        }[keyword]
        return lambda v: not is_number(v) or compare(v)

    return build


def _subset_size(keyword: str) -> Callable[[Any, Any], Checker | None]:
    wanted: Any = str if "Length" in keyword else list

    def build(limit: Any, schema: Any) -> Checker | None:
        if not isinstance(limit, int) or isinstance(limit, bool):
            return None
        if keyword.startswith("min"):
            return lambda v: not isinstance(v, wanted) or len(v) >= limit
        return lambda v: not isinstance(v, wanted) or len(v) <= limit

    return build


# The checks below loop in a function rather than call all() over a generator:
# they run on every call of an attached tool, and a generator costs a frame each.


def _subset_items(value: Any, schema: Any) -> Checker | None:
    inner = _compile_subset(value)
    if inner is None:
        return None

    def items(v: Any) -> bool:
        if isinstance(v, list):
            for x in v:
                if not inner(x):
                    return False
        return True

    return items


def _subset_properties(value: Any, schema: Any) -> Checker | None:
    if not isinstance(value, dict):
        return None
    inner: list[tuple[str, Checker]] = []
    for name, sub in value.items():
        check = _compile_subset(sub)
        if check is None:
            return None
        inner.append((name, check))
    pairs = tuple(inner)

    def properties(v: Any) -> bool:
        if isinstance(v, dict):
            for name, check in pairs:
                if name in v and not check(v[name]):
                    return False
        return True

    return properties


def _subset_additional(value: Any, schema: Any) -> Checker | None:
    known = schema.get("properties", {})
    if value is False:

        def closed(v: Any) -> bool:
            if isinstance(v, dict):
                for k in v:
                    if k not in known:
                        return False
            return True

        return closed
    inner = _compile_subset(value)
    if inner is None:
        return None

    def additional(v: Any) -> bool:
        if isinstance(v, dict):
            for k, x in v.items():
                if k not in known and not inner(x):
                    return False
        return True

    return additional


def _subset_required(value: Any, schema: Any) -> Checker | None:
    if not isinstance(value, list):
        return None
    names = tuple(value)

    def required(v: Any) -> bool:
        if isinstance(v, dict):
            for name in names:
                if name not in v:
                    return False
        return True

    return required


def _subset_pattern(value: Any, schema: Any) -> Checker | None:
    search = compile_pattern(value).search
    return lambda v: not isinstance(v, str) or search(v)


def _subset_format(value: Any, schema: Any) -> Checker | None:
    if value not in FORMATS:
        return lambda v: True
    return lambda v: conforms(v, value)


_SUBSET: dict[str, Callable[[Any, Any], Checker | None]] = {
    "type": _subset_type,
    "enum": lambda value, schema: enum_test(tuple(value)) if isinstance(value, list) else None,
    "const": lambda value, schema: lambda v: json_equal(v, value),
    "minimum": _subset_bound("minimum"),
    "maximum": _subset_bound("maximum"),
    "exclusiveMinimum": _subset_bound("exclusiveMinimum"),
    "exclusiveMaximum": _subset_bound("exclusiveMaximum"),
    "minLength": _subset_size("minLength"),
    "maxLength": _subset_size("maxLength"),
    "minItems": _subset_size("minItems"),
    "maxItems": _subset_size("maxItems"),
    "pattern": _subset_pattern,
    "format": _subset_format,
    "items": _subset_items,
    "properties": _subset_properties,
    "additionalProperties": _subset_additional,
    "required": _subset_required,
}
