"""Argument validation: a fast yes/no check compiled from descriptors, words on failure.

Python ``jsonschema`` costs several times a bare function call, too much for
the call path. So each tool gets a boolean checker compiled once from its
descriptors (closures over the exact JSON Schema semantics ``jsonschema``
implements: bools are not numbers, ``1.0`` is an integer, enum equality keeps
``True != 1``). Only when that check fails, or for raw ``schema=`` fragments,
does full ``jsonschema`` run, to explain every violation with its JSON path
in words a model can act on. The two are differential-tested with hypothesis.
"""

from __future__ import annotations

import ipaddress
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator

from engine.model import ParamDescriptor

__all__ = [
    "FORMAT_CHECKER",
    "Checker",
    "check_fragment",
    "compile_checker",
    "compile_object_checker",
    "describe_errors",
    "json_equal",
    "schema_validator",
]

Checker = Callable[[Any], bool]
"""Returns True when a value is valid; never raises."""

FORMAT_CHECKER = jsonschema.FormatChecker(formats=())
"""Formats tooldeck asserts (jsonschema only annotates them by default)."""

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
)
_TIME = re.compile(r"^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


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


def schema_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A full jsonschema validator with tooldeck's asserted formats."""
    return Draft202012Validator(schema, format_checker=FORMAT_CHECKER)


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
    try:
        Draft202012Validator.check_schema(dict(fragment))
    except jsonschema.SchemaError as exc:
        return f"schema is not valid JSON Schema: {exc.message}"
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
        return schema_validator(fragment).is_valid
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
        for key, value in args.items():
            test = get(key)
            if test is None or not test(value):
                return False
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
        search = re.compile(param.pattern).search
        tests.append(lambda v: not isinstance(v, str) or search(v) is not None)
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


def describe_errors(
    validator: Draft202012Validator,
    instance: Any,
    *,
    descriptions: Mapping[str, str],
) -> list[str]:
    """Every violation as ``$.path: what is wrong``, sorted by path."""
    lines = []
    for error in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.path))):
        lines.append(_explain(error, descriptions))
    return lines


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
        extra = sorted(k for k in inst if k not in known)
        where = "" if path == "$" else f" in {path}"
        expected = ", ".join(known) if known else "no arguments"
        return f"unexpected argument {', '.join(map(repr, extra))}{where}; expected: {expected}"
    if kw == "type":
        want = " or ".join(val) if isinstance(val, list) else val
        return f"{path}: expected {want}, got {_json_type(inst)} {_short(inst)}"
    if kw == "enum":
        return f"{path}: {_short(inst)} is not one of {', '.join(map(_short, val))}"
    if kw == "pattern":
        return f"{path}: {_short(inst)} does not match the pattern {val}"
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
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
