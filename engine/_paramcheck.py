"""Argument validation: a fast yes/no check compiled from descriptors, words on failure.

Python ``jsonschema`` costs several times a bare function call, too much for
the call path. So each tool gets a boolean checker compiled once from its
descriptors (closures over the exact JSON Schema semantics ``jsonschema``
implements: bools are not numbers, ``1.0`` is an integer, enum equality keeps
``True != 1``). Only when that check fails, or for raw ``schema=`` fragments,
does full ``jsonschema`` run, to explain every violation with its JSON path
in words a model can act on. The two are differential-tested with hypothesis.

Everything here faces untrusted input, so it is bounded: patterns run on RE2
(:mod:`tooldeck._regex`, linear time) in the compiled checks, the asserted
formats and jsonschema alike; JSON text is parsed without NaN, infinities,
integers past 4,300 digits or lone surrogates; and an explanation describes
the first :data:`~tooldeck._validation.explain.MAX_VIOLATIONS` violations and counts at
most :data:`~tooldeck._validation.explain.COUNT_LIMIT` more, whatever the size of the
arguments.

This module compiles the checks from descriptors. The other jobs live in
modules of their own, listed in import order (each imports only those above
it):

- :mod:`tooldeck._validation.jsontypes`: JSON Schema's types and equality (:func:`json_equal`);
- :mod:`tooldeck._validation.formats`: the asserted formats (``FORMAT_CHECKER``);
- :mod:`tooldeck._validation.explain`: violations in words, capped (``describe_errors``);
- :mod:`tooldeck._validation.jsonparse`: untrusted JSON text parsed (``parse_json``);
- :mod:`tooldeck._validation.fastcheck`: compiled checks for simple raw schemas;
- :mod:`tooldeck._validation.validator`: jsonschema on RE2 with bounded keywords;
- :mod:`tooldeck._paramcheck`: this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._params import ParamDescriptor
from ._regex import compile_pattern
from ._validation import (
    FORMATS,
    TYPE_TESTS,
    Checker,
    conforms,
    conjunction,
    enum_test,
    is_number,
    json_equal,
)

__all__ = [
    "check_fragment",
    "compile_checker",
    "compile_object_checker",
    "json_equal",  # defined in _validation.jsontypes; the meta-schema checker imports it here
]


def check_fragment(fragment: Mapping[str, Any], defs: Mapping[str, Any]) -> str | None:
    """Why a raw ``schema=`` fragment is unusable (invalid schema, dangling $ref), or None."""
    from ._validation import schema_problem

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
        from ._validation import safe_checker, schema_validator

        return safe_checker(schema_validator(fragment))
    tests: list[Checker] = []
    types = param.types
    if len(types) == 1:
        tests.append(TYPE_TESTS[types[0]])
    elif types:
        alternatives = tuple(TYPE_TESTS[t] for t in types)
        tests.append(lambda v: any(test(v) for test in alternatives))
    if param.enum is not None:
        tests.append(enum_test(param.enum))
    tests.extend(_string_tests(param))
    tests.extend(_number_tests(param))
    if param.items is not None or param.min_items is not None or param.max_items is not None:
        tests.append(_array_test(param, root_defs))
    if param.properties is not None:
        inner = compile_object_checker(param.properties, root_defs=root_defs, nested=True)
        tests.append(lambda v: not isinstance(v, dict) or inner(v))
    return conjunction(tests)


def compile_object_checker(
    params: Sequence[ParamDescriptor],
    *,
    root_defs: Mapping[str, Any] | None = None,
    nested: bool = False,
    open_keys: bool = False,
) -> Checker:
    """Check a whole arguments object: known keys only, required present, each valid.

    ``open_keys`` accepts keys no parameter declares (with any value), as an
    object schema with ``additionalProperties: true`` does.
    """
    visible = [p for p in params if nested or not p.hidden]
    checks = {p.name: compile_checker(p, root_defs=root_defs) for p in visible}
    required = frozenset(p.name for p in visible if p.required)
    get = checks.get

    def check(args: Any) -> bool:
        if not isinstance(args, dict):
            return False
        try:  # free in CPython 3.11 unless raised; odd Python values must not escape
            for key, value in args.items():
                test = get(key)
                if test is None:
                    if open_keys:
                        continue
                    return False
                if not test(value):
                    return False
        except Exception:
            return False  # explain() says what is wrong
        return required.issubset(args.keys()) if required else True

    return check


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
    if param.format is not None and param.format in FORMATS:
        fmt = param.format
        tests.append(lambda v: not isinstance(v, str) or conforms(v, fmt))
    return tests


def _number_tests(param: ParamDescriptor) -> list[Checker]:
    lo, hi = param.minimum, param.maximum
    if lo is None and hi is None:
        return []
    low = lo if lo is not None else float("-inf")
    high = hi if hi is not None else float("inf")
    return [lambda v: not is_number(v) or low <= v <= high]


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
