"""Argument validation: a fast yes/no check compiled from descriptors, words on failure.

Python ``jsonschema`` costs several times a bare function call, too much for
the call path. So each tool gets a boolean checker compiled once from its
descriptors (closures over the exact JSON Schema semantics ``jsonschema``
implements: bools are not numbers, ``1.0`` is an integer, enum equality keeps
``True != 1``). Only when that check fails, or for raw ``schema=`` fragments,
does full ``jsonschema`` run, to explain every violation with its JSON path
in words a model can act on. The two are differential-tested with hypothesis.

Everything here faces untrusted input, so it is bounded: patterns run on RE2
(:mod:`engine.regex`, linear time) in the compiled checks, the asserted
formats and jsonschema alike; JSON text is parsed without NaN, infinities,
integers past 4,300 digits or lone surrogates; and an explanation describes
the first :data:`MAX_VIOLATIONS` violations and counts at most
:data:`COUNT_LIMIT` more, whatever the size of the arguments.
"""

from __future__ import annotations

import ipaddress
import json
import math
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime, time
from functools import cache
from typing import Any, NoReturn

import jsonschema
import jsonschema._utils
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator

from engine.model import ParamDescriptor
from engine.regex import PatternError, check_declared, clip, compile_pattern

__all__ = [
    "COUNT_LIMIT",
    "FORMAT_CHECKER",
    "MAX_INT_DIGITS",
    "MAX_VIOLATIONS",
    "Checker",
    "JsonProblem",
    "check_fragment",
    "compile_checker",
    "compile_object_checker",
    "decode_short_json",
    "describe_errors",
    "json_equal",
    "lone_surrogate",
    "parse_json",
    "safe_checker",
    "schema_problem",
    "schema_validator",
    "value_problem",
]

Checker = Callable[[Any], bool]
"""Returns True when a value is valid; never raises."""

FORMAT_CHECKER = jsonschema.FormatChecker(formats=())
"""Formats tooldeck asserts (jsonschema only annotates them by default)."""

# RE2 like every pattern that meets model input: with Python's re, the email
# shape below backtracks quadratically ("a@" + "." * 50_000 + " " takes minutes).
_DATE = compile_pattern(r"\d{4}-\d{2}-\d{2}")
_DATETIME = compile_pattern(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})",
)
_TIME = compile_pattern(r"\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?")
_EMAIL = compile_pattern(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_URI = compile_pattern(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")
_UUID = compile_pattern(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


@FORMAT_CHECKER.checks("date", raises=ValueError)
def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_DATE.fullmatch(value)) and bool(date.fromisoformat(value))


@FORMAT_CHECKER.checks("date-time", raises=ValueError)
def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_DATETIME.fullmatch(value)) and bool(datetime.fromisoformat(value.upper()))


@FORMAT_CHECKER.checks("time", raises=ValueError)
def _is_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    return bool(_TIME.fullmatch(value)) and bool(time.fromisoformat(value.rstrip("Zz")))


@FORMAT_CHECKER.checks("uuid", raises=ValueError)
def _is_uuid(value: object) -> bool:
    return not isinstance(value, str) or (bool(_UUID.fullmatch(value)) and bool(uuid.UUID(value)))


@FORMAT_CHECKER.checks("email")
def _is_email(value: object) -> bool:
    return not isinstance(value, str) or bool(_EMAIL.fullmatch(value))


@FORMAT_CHECKER.checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_URI.fullmatch(value))


@FORMAT_CHECKER.checks("ipv4", raises=ValueError)
def _is_ipv4(value: object) -> bool:
    return not isinstance(value, str) or bool(ipaddress.IPv4Address(value))


@FORMAT_CHECKER.checks("ipv6", raises=ValueError)
def _is_ipv6(value: object) -> bool:
    return not isinstance(value, str) or ("%" not in value and bool(ipaddress.IPv6Address(value)))


# ----------------------------------------------- jsonschema, bounded and on RE2
# Stock jsonschema evaluates ``pattern`` and ``patternProperties`` (also inside
# ``additionalProperties``) with Python's re, checks ``uniqueItems`` of
# unsortable items pairwise and ``unevaluatedItems``/``unevaluatedProperties``
# against lists: super-linear on what a model sends. The keyword functions
# below are the same checks in linear time on RE2. ``unevaluatedProperties``
# next to ``patternProperties`` and nested ``$schema`` (which would switch to
# a stock validator class) are refused at registration (:func:`schema_problem`).
#
# ``items`` and the property keywords also skip, with a compiled check, the
# values that are plainly valid, so explaining one wrong item among 300,000
# costs milliseconds instead of 300,000 jsonschema descents.


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
        yield jsonschema.ValidationError(f"{_short(instance)} does not match {clip(pattern)!r}")


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
            f"Expected at most {prefix} {noun} but found {extra} extra: {_short(instance[prefix:])}"
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
    fast = _fast_check(subschema) if validator.format_checker is FORMAT_CHECKER else None
    if fast is not None:  # lazily: the caller may stop after the first violations
        keys = (key for key in keys if not fast(instance[key]))
    for key in keys:
        yield from validator.descend(instance[key], subschema, path=key, schema_path=schema_path)


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """``uniqueItems`` by hashing (stock jsonschema compares unsortable items pairwise)."""
    if unique and validator.is_type(instance, "array") and not _all_unique(instance):
        yield jsonschema.ValidationError(f"{_short(instance)} has non-unique elements")


def _all_unique(items: Sequence[Any]) -> bool:
    try:
        keys = [_equality_key(item) for item in items]
    except TypeError:  # a Python value JSON has no equality for: the stock check
        return bool(jsonschema._utils.uniq(items))
    return len(set(keys)) == len(keys)


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
            f"Unevaluated items are not allowed ({len(rest):,} unexpected: {_short(rest)})"
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


_evaluated_indexes: Callable[..., Any] = jsonschema._utils.find_evaluated_item_indexes_by_schema
_evaluated_keys: Callable[..., Any] = jsonschema._utils.find_evaluated_property_keys_by_schema

_Validator: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "items": _items,
        "uniqueItems": _unique_items,
        "unevaluatedItems": _unevaluated_items,
        "unevaluatedProperties": _unevaluated_properties,
    },
)
"""Draft 2020-12, linear and on RE2. Not registered with jsonschema (no
``version=``), so other users of jsonschema in the process are unaffected."""


# A compiled yes/no for the simple schemas descriptors produce, used only to
# skip values jsonschema would accept anyway; None means "ask jsonschema".
_ANNOTATIONS = frozenset(
    {"description", "title", "default", "examples", "$comment", "deprecated", "readOnly"}
)
_FAST_CACHE: dict[int, tuple[Any, Checker | None]] = {}
_FAST_CACHE_SIZE = 512


def _fast_check(schema: Any) -> Checker | None:
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
    return _conjunction(tests)


def _conjunction(tests: list[Checker]) -> Checker:
    """All of ``tests``, without a generator per call for the usual one or two."""
    if not tests:
        return lambda v: True
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda v: first(v) and second(v)
    checks = tuple(tests)
    return lambda v: all(test(v) for test in checks)


def _subset_type(value: Any, schema: Any) -> Checker | None:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(n in _TYPE_TESTS for n in names):
        return None
    if len(names) == 1:
        return _TYPE_TESTS[names[0]]
    alternatives = tuple(_TYPE_TESTS[n] for n in names)
    return lambda v: any(test(v) for test in alternatives)


def _subset_bound(keyword: str) -> Callable[[Any, Any], Checker | None]:
    def build(limit: Any, schema: Any) -> Checker | None:
        if not _is_number(limit):
            return None
        compare: Checker = {
            "minimum": lambda v: v >= limit,
            "maximum": lambda v: v <= limit,
            "exclusiveMinimum": lambda v: v > limit,
            "exclusiveMaximum": lambda v: v < limit,
        }[keyword]
        return lambda v: not _is_number(v) or compare(v)

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


def _subset_items(value: Any, schema: Any) -> Checker | None:
    inner = _compile_subset(value)
    if inner is None:
        return None
    return lambda v: not isinstance(v, list) or all(inner(x) for x in v)


def _subset_properties(value: Any, schema: Any) -> Checker | None:
    if not isinstance(value, dict):
        return None
    inner: dict[str, Checker] = {}
    for name, sub in value.items():
        check = _compile_subset(sub)
        if check is None:
            return None
        inner[name] = check
    return lambda v: (
        not isinstance(v, dict) or all(check(v[name]) for name, check in inner.items() if name in v)
    )


def _subset_additional(value: Any, schema: Any) -> Checker | None:
    known = schema.get("properties", {})
    if value is False:
        return lambda v: not isinstance(v, dict) or all(k in known for k in v)
    inner = _compile_subset(value)
    if inner is None:
        return None
    return lambda v: (
        not isinstance(v, dict) or all(inner(x) for k, x in v.items() if k not in known)
    )


def _subset_required(value: Any, schema: Any) -> Checker | None:
    if not isinstance(value, list):
        return None
    names = tuple(value)
    return lambda v: not isinstance(v, dict) or all(name in v for name in names)


def _subset_pattern(value: Any, schema: Any) -> Checker | None:
    search = compile_pattern(value).search
    return lambda v: not isinstance(v, str) or search(v)


def _subset_format(value: Any, schema: Any) -> Checker | None:
    if value not in FORMAT_CHECKER.checkers:
        return lambda v: True
    conforms = FORMAT_CHECKER.conforms
    return lambda v: conforms(v, value)


_SUBSET: dict[str, Callable[[Any, Any], Checker | None]] = {
    "type": _subset_type,
    "enum": lambda value, schema: _enum_test(tuple(value)) if isinstance(value, list) else None,
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


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_integer(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    return isinstance(v, int) or (isinstance(v, float) and v.is_integer())


_TYPE_TESTS: dict[str, Checker] = {
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def check_fragment(fragment: Mapping[str, Any], defs: Mapping[str, Any]) -> str | None:
    """Why a raw ``schema=`` fragment is unusable (invalid schema, dangling $ref), or None."""
    problem = schema_problem(fragment, embedded=True)
    if problem is not None:
        return f"schema {problem}"
    for ref in _refs(fragment):
        if not ref.startswith("#/$defs/") or ref.removeprefix("#/$defs/").split("/")[0] not in defs:
            return f"schema $ref {ref!r} does not point into its $defs"
    return None


def _refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        for item in value.values():
            found.extend(_refs(item))
        return found
    if isinstance(value, list):
        return [ref for item in value for ref in _refs(item)]
    return []


def compile_checker(
    param: ParamDescriptor,
    *,
    root_defs: Mapping[str, Any] | None = None,
) -> Checker:
    """A fast boolean check for one parameter's value."""
    if param.schema is not None:
        fragment = dict(param.schema)
        defs = {**(root_defs or {}), **fragment.pop("$defs", {})}
        if defs:
            fragment["$defs"] = defs
        return safe_checker(schema_validator(fragment))
    tests: list[Checker] = []
    types = param.types
    if len(types) == 1:
        tests.append(_TYPE_TESTS[types[0]])
    elif types:
        alternatives = tuple(_TYPE_TESTS[t] for t in types)
        tests.append(lambda v: any(test(v) for test in alternatives))
    if param.enum is not None:
        tests.append(_enum_test(param.enum))
    tests.extend(_string_tests(param))
    tests.extend(_number_tests(param))
    if param.items is not None or param.min_items is not None or param.max_items is not None:
        tests.append(_array_test(param, root_defs))
    if param.properties is not None:
        inner = compile_object_checker(param.properties, root_defs=root_defs, nested=True)
        tests.append(lambda v: not isinstance(v, dict) or inner(v))
    if not tests:
        return lambda v: True
    if len(tests) == 1:
        return tests[0]
    if len(tests) == 2:
        first, second = tests
        return lambda v: first(v) and second(v)
    all_tests = tuple(tests)
    return lambda v: all(test(v) for test in all_tests)


def compile_object_checker(
    params: Sequence[ParamDescriptor],
    *,
    root_defs: Mapping[str, Any] | None = None,
    nested: bool = False,
) -> Checker:
    """Check a whole arguments object: known keys only, required present, each valid."""
    visible = [p for p in params if nested or p.injected is None]
    checks = {p.name: compile_checker(p, root_defs=root_defs) for p in visible}
    required = frozenset(p.name for p in visible if p.required)
    get = checks.get

    def check(args: Any) -> bool:
        if not isinstance(args, dict):
            return False
        try:  # free in CPython 3.11 unless raised; odd Python values must not escape
            for key, value in args.items():
                test = get(key)
                if test is None or not test(value):
                    return False
        except Exception:
            return False  # explain() says what is wrong
        return required.issubset(args.keys()) if required else True

    return check


def _enum_test(options: tuple[Any, ...]) -> Checker:
    if all(isinstance(o, str) for o in options):
        allowed = frozenset(options)
        return lambda v: isinstance(v, str) and v in allowed
    return lambda v: any(json_equal(o, v) for o in options)


def _string_tests(param: ParamDescriptor) -> list[Checker]:
    tests: list[Checker] = []
    lo, hi = param.min_length, param.max_length
    if lo is not None or hi is not None:
        low = lo or 0
        high = hi if hi is not None else float("inf")
        tests.append(lambda v: not isinstance(v, str) or low <= len(v) <= high)
    if param.pattern is not None:
        search = compile_pattern(param.pattern).search
        tests.append(lambda v: not isinstance(v, str) or search(v))
    if param.format is not None and param.format in FORMAT_CHECKER.checkers:
        conforms, fmt = FORMAT_CHECKER.conforms, param.format
        tests.append(lambda v: not isinstance(v, str) or conforms(v, fmt))
    return tests


def _number_tests(param: ParamDescriptor) -> list[Checker]:
    lo, hi = param.minimum, param.maximum
    if lo is None and hi is None:
        return []
    low = lo if lo is not None else float("-inf")
    high = hi if hi is not None else float("inf")
    return [lambda v: not _is_number(v) or low <= v <= high]


def _array_test(param: ParamDescriptor, root_defs: Mapping[str, Any] | None) -> Checker:
    item = compile_checker(param.items, root_defs=root_defs) if param.items else None
    low = param.min_items or 0
    high = param.max_items if param.max_items is not None else float("inf")

    def check(v: Any) -> bool:
        if not isinstance(v, list):
            return True
        if not low <= len(v) <= high:
            return False
        return item is None or all(item(x) for x in v)

    return check


MAX_VIOLATIONS = 10
"""Violations an explanation describes one by one."""

COUNT_LIMIT = 1_000
"""Further violations counted before an explanation says "at least"."""

_MAX_LINE = 300
"""Characters per described violation."""


def describe_errors(
    validator: Validator,
    instance: Any,
    *,
    descriptions: Mapping[str, str],
) -> list[str]:
    """The first violations as ``$.path: what is wrong`` (sorted by path), then how many more.

    jsonschema finds violations lazily, so only the first :data:`MAX_VIOLATIONS`
    are explained and at most :data:`COUNT_LIMIT` more are counted: a
    300,000-element array of wrong items costs milliseconds and a few KB of
    text, not 300,000 messages. Never raises: whatever stops jsonschema
    (recursion, an odd Python value) becomes a line of its own.
    """
    shown: list[jsonschema.ValidationError] = []
    more = 0
    exhausted = False
    failure = None
    try:
        for error in validator.iter_errors(instance):
            if len(shown) < MAX_VIOLATIONS:
                shown.append(error)
            elif more < COUNT_LIMIT:
                more += 1
            else:
                break
        else:
            exhausted = True
    except RecursionError:
        failure = "the arguments are nested too deeply to check every value"
    except Exception as exc:
        failure = f"some values could not be checked ({type(exc).__name__})"
    shown.sort(key=lambda e: list(map(str, e.path)))
    lines = [_describe(error, descriptions) for error in shown]
    if more:
        lines.append(_more(more, exact=exhausted))
    if failure:
        lines.append(failure)
    return lines


def _more(count: int, *, exact: bool) -> str:
    noun = "violation" if count == 1 else "violations"
    return f"and {count:,} more {noun}" if exact else f"and at least {count:,} more {noun}"


def _describe(error: jsonschema.ValidationError, descriptions: Mapping[str, str]) -> str:
    """One violation in one line of at most :data:`_MAX_LINE` characters; never raises."""
    try:
        line = _explain(error, descriptions)
    except Exception:
        try:
            line = f"{error.json_path}: {error.message}"
        except Exception:
            line = "a value does not match the tool's schema"
    return clip(" ".join(line.split()), _MAX_LINE)


def _explain(error: jsonschema.ValidationError, descriptions: Mapping[str, str]) -> str:
    path = error.json_path
    kw: Any = error.validator
    inst: Any = error.instance
    val: Any = error.validator_value
    schema: Any = error.schema
    if kw == "required" and isinstance(inst, dict):
        missing = [name for name in val if name not in inst]
        name = missing[0] if missing else "?"
        hint = descriptions.get(name) if path == "$" else None
        where = "" if path == "$" else f" in {path}"
        return f"missing required argument {name!r}{where}" + (f" ({hint})" if hint else "")
    if kw == "additionalProperties" and isinstance(inst, dict):
        known = list(schema.get("properties", {}))
        extra = sorted((k for k in inst if k not in known), key=str)
        where = "" if path == "$" else f" in {path}"
        expected = ", ".join(known) if known else "no arguments"
        named = ", ".join(map(repr, extra[:MAX_VIOLATIONS]))
        if len(extra) > MAX_VIOLATIONS:
            named += f" and {len(extra) - MAX_VIOLATIONS:,} more"
        return f"unexpected argument {named}{where}; expected: {expected}"
    if kw == "type":
        want = " or ".join(val) if isinstance(val, list) else val
        return f"{path}: expected {want}, got {_json_type(inst)} {_short(inst)}"
    if kw == "enum":
        return f"{path}: {_short(inst)} is not one of {', '.join(map(_short, val))}"
    if kw == "pattern":
        return f"{path}: {_short(inst)} does not match the pattern {clip(val)}"
    if kw == "format":
        return f"{path}: {_short(inst)} is not a valid {val}"
    if kw in ("minimum", "maximum"):
        word = "less than the minimum" if kw == "minimum" else "greater than the maximum"
        return f"{path}: {_short(inst)} is {word} of {val}"
    if kw in ("minLength", "maxLength", "minItems", "maxItems"):
        unit = "characters" if "Length" in kw else "items"
        bound = "at least" if kw.startswith("min") else "at most"
        return f"{path}: must have {bound} {val} {unit}, got {len(inst)}"
    return f"{path}: {error.message}"


def _json_type(value: Any) -> str:
    for name in ("boolean", "integer", "number", "string", "array", "object", "null"):
        if _TYPE_TESTS[name](value):
            return name
    return type(value).__name__


def _short(value: Any, limit: int = 60) -> str:
    """``value`` as JSON in at most ``limit`` characters, never serialising all of it.

    A 300,000-element array or a 1 MB string costs what its first ``limit``
    characters cost; integers too long to print are described, not printed.
    """
    parts: list[str] = []
    _preview(value, parts, limit + 1)
    text = "".join(parts)
    if not text.isascii():  # a lone surrogate would break the message downstream
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 3] + "..."


_PRINTABLE_INT = 10**60


def _preview(value: Any, out: list[str], budget: int) -> int:
    """Append JSON for ``value`` to ``out`` until ``budget`` characters; the budget left."""
    if budget <= 0:
        return budget
    if isinstance(value, str):
        text = json.dumps(value[:budget], ensure_ascii=False)
    elif value is None or isinstance(value, bool):
        text = json.dumps(value)
    elif isinstance(value, int):
        text = str(value) if -_PRINTABLE_INT < value < _PRINTABLE_INT else _big_int(value)
    elif isinstance(value, float):
        text = json.dumps(value)
    elif isinstance(value, list | tuple | dict):
        return _preview_container(value, out, budget)
    else:
        text = _opaque(value)
    out.append(text)
    return budget - len(text)


def _preview_container(value: Any, out: list[str], budget: int) -> int:
    is_dict = isinstance(value, dict)
    out.append("{" if is_dict else "[")
    budget -= 1
    items = value.items() if is_dict else value
    for index, item in enumerate(items):
        if budget <= 0:
            return budget
        if index:
            out.append(", ")
            budget -= 2
        if is_dict:
            budget = _preview(str(item[0]), out, budget)
            out.append(": ")
            budget = _preview(item[1], out, budget - 2)
        else:
            budget = _preview(item, out, budget)
    out.append("}" if is_dict else "]")
    return budget - 1


def _big_int(value: int) -> str:
    digits = math.floor(value.bit_length() * math.log10(2)) + 1
    return f"<integer of about {digits:,} digits>"


def _opaque(value: Any) -> str:
    try:
        import reprlib

        return reprlib.repr(value)
    except Exception:
        return f"<{type(value).__name__}>"


# ------------------------------------------------------------- untrusted JSON
# The text a model sends is parsed by json's C scanner with three hooks that
# cost nothing on ordinary input: NaN/Infinity (not JSON) are refused when
# seen, a float literal that overflows to infinity is refused, and integers
# are bounded only when the text is long enough to hold one over the limit.

MAX_INT_DIGITS = 4_300
"""Longest integer literal accepted (Python's own default limit for int(str))."""

_INT_LIMIT = 10**MAX_INT_DIGITS


class JsonProblem(ValueError):
    """Text that is not acceptable JSON arguments; the message says why, for a model."""


def _no_constant(name: str) -> NoReturn:
    raise JsonProblem(f"arguments contain {name}, which is not valid JSON; send a number (or null)")


def _finite_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf - inf is nan
        raise JsonProblem(
            f"the number {clip(text, 40)} in the arguments is too large (it would be "
            "infinite); send a smaller number, or a string"
        )
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise JsonProblem(
            f"an integer in the arguments has {len(text.lstrip('-')):,} digits, more than "
            f"{MAX_INT_DIGITS:,}; send it as a string"
        )
    return int(text)


_FAST = json.JSONDecoder(parse_float=_finite_float, parse_constant=_no_constant)
_STRICT = json.JSONDecoder(
    parse_float=_finite_float, parse_constant=_no_constant, parse_int=_bounded_int
)

decode_short_json: Callable[[str], Any] = _FAST.decode
"""The cheapest safe parse, for texts of at most :data:`MAX_INT_DIGITS` characters
(no integer in them can be longer). Raises ValueError or RecursionError and does
not look for lone surrogates (see :func:`lone_surrogate`): callers that need
words for a model use :func:`parse_json`."""


def parse_json(data: str | bytes | bytearray) -> Any:
    """JSON arguments as Python values; :class:`JsonProblem` with a model-readable reason."""
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonProblem(
                f"arguments are not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset "
                f"{exc.start}); send UTF-8 JSON"
            ) from None
        text = text.removeprefix("\ufeff")
    else:
        text = data
    decode = _FAST.decode if len(text) <= MAX_INT_DIGITS else _STRICT.decode
    try:
        value = decode(text)
    except JsonProblem:
        raise
    except json.JSONDecodeError as exc:
        raise JsonProblem(
            f"arguments are not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno} (char {exc.pos}); send a JSON object"
        ) from None
    except RecursionError:
        raise JsonProblem("arguments are nested too deeply; send a flatter JSON object") from None
    except ValueError:  # int() under a lower sys.set_int_max_str_digits
        raise JsonProblem(
            "a number in the arguments has too many digits; send it as a string"
        ) from None
    except Exception as exc:  # MemoryError and anything else: a result, never a raise
        raise JsonProblem(f"arguments could not be parsed ({type(exc).__name__})") from None
    if lone_surrogate(text, value):
        raise JsonProblem(_SURROGATE)
    return value


_SURROGATE = (
    "arguments contain a lone UTF-16 surrogate (such as \\ud800 without its pair), "
    "which is not text; send valid Unicode"
)


def lone_surrogate(text: str, value: Any) -> bool:
    """Whether ``value``, parsed from ``text``, holds a string with a lone surrogate.

    Such a string parses, then fails when anything encodes it (a file name, a
    log line, the model's reply). It can come in raw (only in non-ASCII text)
    or as a ``\\ud800`` escape (only where the text has ``\\u``), so ordinary
    ASCII input costs one substring search.
    """
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return True
    return "\\u" in text and _has_surrogate(value)


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return not _encodable(value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(item) for item in value)
    return False


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def value_problem(value: Any) -> str | None:
    """Why Python arguments (a mapping passed directly) are not JSON a model could send.

    The same rules as :func:`parse_json`: no NaN or infinities, no integers
    past :data:`MAX_INT_DIGITS` digits, no lone surrogates, string keys only;
    a cycle or extreme depth is "nested too deeply". Other Python types are
    left to validation and conversion.
    """
    try:
        return _problem(value)
    except RecursionError:
        return "arguments are nested too deeply; send a flatter JSON object"


def _problem(value: Any) -> str | None:
    kind = type(value)
    if kind is str:
        return None if value.isascii() or _encodable(value) else _SURROGATE
    if kind is int or kind is bool or value is None:
        return None if kind is not int or -_INT_LIMIT < value < _INT_LIMIT else _HUGE_INT
    if kind is dict:
        return _mapping_problem(value)
    if kind is list:
        return _items_problem(value)
    return _other_problem(value)


def _items_problem(items: Sequence[Any]) -> str | None:
    for item in items:
        if type(item) is not int or not -_INT_LIMIT < item < _INT_LIMIT:
            problem = _problem(item)
            if problem:
                return problem
    return None


def _mapping_problem(mapping: Mapping[Any, Any]) -> str | None:
    for key, item in mapping.items():
        if type(key) is not str and not isinstance(key, str):
            return f"argument names must be strings, got {type(key).__name__} {_short(key)}"
        problem = _problem(key) or _problem(item)
        if problem:
            return problem
    return None


def _other_problem(value: Any) -> str | None:
    """Subclasses and other Python types: numpy floats are floats, tuples are arrays."""
    if isinstance(value, float):
        if value - value == 0.0:
            return None
        return f"arguments contain {value}, which is not valid JSON; send a finite number"
    if isinstance(value, str):
        return None if _encodable(value) else _SURROGATE
    if isinstance(value, int):
        return None if -_INT_LIMIT < value < _INT_LIMIT else _HUGE_INT
    if isinstance(value, Mapping):
        return _mapping_problem(value)
    if isinstance(value, list | tuple):
        return _items_problem(value)
    return None


_HUGE_INT = f"an integer in the arguments has more than {MAX_INT_DIGITS:,} digits"
