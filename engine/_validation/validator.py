"""jsonschema's Draft 2020-12 validator, extended to run on RE2 with bounded keywords.

Raw ``schema=`` fragments, and any call whose compiled check fails, are
validated by full jsonschema. Stock jsonschema is unsafe on what a model
sends (Python's re, quadratic keywords), so this module builds tooldeck's own
validator class from it, with the keyword functions below replaced, and
refuses at registration the schemas that could still reach a slow path
(:func:`schema_problem`). A module of its own because it is the one place
tooldeck extends jsonschema; the checks compiled from descriptors
(:mod:`tooldeck._paramcheck`) use it for fragments, and the explanations
(:mod:`tooldeck._validation.explain`) read the errors it yields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator

from .._regex import PatternError, check_declared, clip, compile_pattern
from .explain import MAX_VIOLATIONS, json_preview
from .fastcheck import fast_check
from .formats import FORMAT_CHECKER
from .jsontypes import Checker

__all__ = ["safe_checker", "schema_problem", "schema_validator"]

# Stock jsonschema evaluates ``pattern`` and ``patternProperties`` (also inside
# ``additionalProperties``) with Python's re, checks ``uniqueItems`` of
# unsortable items pairwise and ``unevaluatedItems``/``unevaluatedProperties``
# against lists: super-linear on what a model sends. The keyword functions
# below are the same checks in linear time on RE2. ``unevaluatedProperties``
# next to ``patternProperties`` and nested ``$schema`` (which would switch to
# a stock validator class) are refused at registration (:func:`schema_problem`).
#
# ``items`` and the property keywords also skip, with a compiled check
# (:func:`tooldeck._validation.fastcheck.fast_check`), the values that are plainly valid, so
# explaining one wrong item among 300,000 costs milliseconds instead of
# 300,000 jsonschema descents.


def _regex_or_error(pattern: Any) -> Any:
    """The compiled pattern, or a ValidationError naming why the schema's pattern is unusable."""
    try:
        return compile_pattern(pattern)
    except PatternError as exc:
        return jsonschema.ValidationError(
            f"the schema's pattern {clip(str(pattern))!r} cannot be used: {exc.reason}"
        )


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "string"):
        return
    regex = _regex_or_error(pattern)
    if isinstance(regex, jsonschema.ValidationError):
        yield regex
    elif not regex.search(instance):
        yield jsonschema.ValidationError(
            f"{json_preview(instance)} does not match {clip(pattern)!r}"
        )


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        regex = _regex_or_error(pattern)
        if isinstance(regex, jsonschema.ValidationError):
            yield regex
            continue
        keys = [k for k in instance if isinstance(k, str) and regex.search(k)]
        yield from _descend_each(validator, instance, keys, subschema, schema_path=pattern)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's ``additionalProperties``, with ``patternProperties`` matched by RE2."""
    if not validator.is_type(instance, "object"):
        return
    extras = _extra_keys(instance, schema)
    if validator.is_type(extra, "object"):
        yield from _descend_each(validator, instance, extras, extra)
    elif not extra and extras:
        names = ", ".join(repr(key) for key in sorted(extras, key=str)[:MAX_VIOLATIONS])
        more = f" and {len(extras) - MAX_VIOLATIONS:,} more" if len(extras) > MAX_VIOLATIONS else ""
        yield jsonschema.ValidationError(
            f"Additional properties are not allowed ({names}{more} unexpected)"
        )


def _extra_keys(instance: Mapping[Any, Any], schema: Mapping[str, Any]) -> list[Any]:
    known = schema.get("properties", {})
    searches = []
    for pattern in schema.get("patternProperties", {}):
        regex = _regex_or_error(pattern)
        if not isinstance(regex, jsonschema.ValidationError):
            searches.append(regex.search)
    return [
        key
        for key in instance
        if key not in known and not (isinstance(key, str) and any(s(key) for s in searches))
    ]


def _items(validator: Any, items: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's 2020-12 ``items``, skipping the items a compiled check accepts."""
    if not validator.is_type(instance, "array"):
        return
    prefix = len(schema.get("prefixItems", []))
    extra = len(instance) - prefix
    if extra <= 0:
        return
    if items is False:
        noun = "items" if prefix != 1 else "item"
        yield jsonschema.ValidationError(
            f"Expected at most {prefix} {noun} but found {extra} extra: "
            f"{json_preview(instance[prefix:])}"
        )
        return
    yield from _descend_each(validator, instance, range(prefix, len(instance)), items)


def _descend_each(
    validator: Any,
    instance: Any,
    keys: Iterable[Any],
    subschema: Any,
    schema_path: Any = None,
) -> Iterator[Any]:
    """``descend`` into ``instance[key]`` for each key, except where the fast check says valid."""
    fast = fast_check(subschema) if validator.format_checker is FORMAT_CHECKER else None
    if fast is not None:  # lazily: the caller may stop after the first violations
        keys = (key for key in keys if not fast(instance[key]))
    for key in keys:
        yield from validator.descend(instance[key], subschema, path=key, schema_path=schema_path)


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``uniqueItems`` by hashing (stock jsonschema compares unsortable items pairwise)."""
    if unique and validator.is_type(instance, "array") and not _all_unique(instance):
        yield jsonschema.ValidationError(f"{json_preview(instance)} has non-unique elements")


def _all_unique(items: Sequence[Any]) -> bool:
    try:
        keys = [_equality_key(item) for item in items]
    except TypeError:  # a Python value JSON has no equality for: compare pairwise
        return not any(
            _json_equal(first, second)
            for index, first in enumerate(items)
            for second in items[index + 1 :]
        )
    return len(set(keys)) == len(keys)


def _json_equal(first: Any, second: Any) -> bool:
    """Equal as JSON Schema means it: ``True`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(first, bool) or isinstance(second, bool):
        return isinstance(first, bool) and isinstance(second, bool) and first == second
    return bool(first == second)


def _equality_key(value: Any) -> Any:
    """A hashable key equal exactly when JSON Schema calls values equal (1 == 1.0, True != 1)."""
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, list | tuple):
        return ("array", tuple(_equality_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _equality_key(v)) for k, v in value.items()))
    raise TypeError(type(value).__name__)


def _unevaluated_items(validator: Any, uneval: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """jsonschema's ``unevaluatedItems`` with a set of indexes, not a list (quadratic)."""
    if not validator.is_type(instance, "array"):
        return
    evaluated = set(_evaluated_indexes(validator, instance, schema))
    rest = [item for index, item in enumerate(instance) if index not in evaluated]
    if rest:
        yield jsonschema.ValidationError(
            f"Unevaluated items are not allowed ({len(rest):,} unexpected: {json_preview(rest)})"
        )


def _unevaluated_properties(
    validator: Any, uneval: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    """jsonschema's ``unevaluatedProperties`` with a set of keys, not a list (quadratic)."""
    if not validator.is_type(instance, "object"):
        return
    evaluated = set(_evaluated_keys(validator, instance, schema))
    rest = []
    for key in instance:
        if key not in evaluated:
            for _ in validator.descend(instance[key], uneval, path=key, schema_path=key):
                rest.append(key)
                break
    if not rest:
        return
    names = ", ".join(repr(key) for key in sorted(rest, key=str)[:MAX_VIOLATIONS])
    more = f" and {len(rest) - MAX_VIOLATIONS:,} more" if len(rest) > MAX_VIOLATIONS else ""
    verb = "are not allowed" if uneval is False else "are not valid under the given schema"
    yield jsonschema.ValidationError(f"Unevaluated properties {verb} ({names}{more})")


# Finding what was evaluated is jsonschema's own (private) work; re-doing it would be a
# second implementation to keep in step. It is imported guarded: should a release move it,
# the stock unevaluated* keywords (correct, quadratic on huge arrays) are used instead of
# failing at import. CI runs the suite on the lowest and the latest jsonschema admitted.
try:
    from jsonschema._utils import (
        find_evaluated_item_indexes_by_schema as _evaluated_indexes,
    )
    from jsonschema._utils import (
        find_evaluated_property_keys_by_schema as _evaluated_keys,
    )
except ImportError:  # pragma: no cover - depends on the jsonschema release
    _UNEVALUATED: dict[str, Callable[..., Any]] = {}
else:
    _UNEVALUATED = {
        "unevaluatedItems": _unevaluated_items,
        "unevaluatedProperties": _unevaluated_properties,
    }

_Validator: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "items": _items,
        "uniqueItems": _unique_items,
        **_UNEVALUATED,
    },
)
"""Draft 2020-12, linear and on RE2. Not registered with jsonschema (no
``version=``), so other users of jsonschema in the process are unaffected."""


def schema_validator(schema: Mapping[str, Any]) -> Validator:
    """A full jsonschema validator with tooldeck's asserted formats and RE2 patterns.

    The root ``$schema`` is dropped: jsonschema would otherwise hand a ``$ref``
    to the root to the stock validator class named there (Python's re).
    """
    if "$schema" in schema:
        schema = {k: v for k, v in schema.items() if k != "$schema"}
    validator: Validator = _Validator(schema, format_checker=FORMAT_CHECKER)
    return validator


def safe_checker(validator: Validator) -> Checker:
    """``validator.is_valid`` that answers False instead of raising (then explain says why)."""
    is_valid = validator.is_valid

    def check(value: Any) -> bool:
        try:
            return bool(is_valid(value))
        except Exception:
            return False

    return check


_SCHEMA_FORMATS = jsonschema.FormatChecker(formats=())
_SCHEMA_FORMATS.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)


@_SCHEMA_FORMATS.checks("regex", raises=PatternError)
def _is_re2_pattern(value: object) -> bool:
    """``format: regex`` in the meta-schema (every ``pattern`` value): RE2, not Python's re."""
    return not isinstance(value, str) or bool(compile_pattern(value))


@cache
def _meta_validator() -> Validator:
    validator: Validator = _Validator(
        Draft202012Validator.META_SCHEMA, format_checker=_SCHEMA_FORMATS
    )
    return validator


_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose values are instances, not schemas: never searched for patterns."""


def schema_problem(schema: Mapping[str, Any], *, embedded: bool = False) -> str | None:
    """Why ``schema`` cannot validate model arguments safely, or None.

    Checked at registration, so calls never meet it: a pattern RE2 cannot
    compile (said in RE2's words), a ``$schema`` below the top (``embedded``:
    anywhere, for a fragment that becomes part of a tool's schema),
    ``unevaluatedProperties`` next to ``patternProperties`` (jsonschema
    evaluates that pair with Python's re), or anything the Draft 2020-12
    meta-schema rejects. The answer reads after the schema's name:
    ``f"schema {problem}"``.
    """
    try:
        found = _Keywords()
        found.scan(schema, root=not embedded)
        problem = found.problem()
        if problem is None:
            error = next(iter(_meta_validator().iter_errors(dict(schema))), None)
            problem = None if error is None else f"is not a valid JSON Schema: {error.message}"
    except RecursionError:
        return "cannot be used: it is nested too deeply"
    except Exception as exc:
        return f"could not be checked ({type(exc).__name__})"
    return problem


class _Keywords:
    """What :func:`schema_problem` looks for, collected in one walk."""

    def __init__(self) -> None:
        self.bad_pattern: str | None = None
        self.nested_schema = False
        self.pattern_properties = False
        self.unevaluated = False

    def scan(self, value: Any, *, root: bool = False) -> None:
        if isinstance(value, list):
            for item in value:
                self.scan(item)
            return
        if not isinstance(value, Mapping):
            return
        if "$schema" in value and not root:
            self.nested_schema = True
        if isinstance(value.get("pattern"), str):
            self.check(value["pattern"])
        if isinstance(value.get("patternProperties"), Mapping):
            self.pattern_properties = True
            for pattern in value["patternProperties"]:
                self.check(pattern)
        if "unevaluatedProperties" in value:
            self.unevaluated = True
        for key, item in value.items():
            if key not in _DATA_KEYWORDS:
                self.scan(item)

    def check(self, pattern: Any) -> None:
        if self.bad_pattern is not None:
            return
        try:
            check_declared(pattern)
        except PatternError as exc:
            self.bad_pattern = (
                f"cannot be used: its pattern {clip(str(pattern))!r} is not supported: {exc.reason}"
            )

    def problem(self) -> str | None:
        if self.bad_pattern is not None:
            return self.bad_pattern
        if self.nested_schema:
            return (
                "cannot be used: $schema may only open a tool's whole input schema (every "
                "schema is validated as JSON Schema 2020-12)"
            )
        if self.pattern_properties and self.unevaluated:
            return (
                "cannot be used: unevaluatedProperties together with patternProperties is "
                "not supported (patterns run on RE2); use additionalProperties"
            )
        return None
