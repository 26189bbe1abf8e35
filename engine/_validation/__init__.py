"""Checking JSON values against JSON Schema, and saying why one fails.

``jsonparse``: untrusted JSON text -> values, or a reason (the first gate of a call);
``jsontypes``: JSON's types and equality on Python values; ``formats``: string formats on
RE2; ``fastcheck``: compiled yes/no checks for simple schemas; ``validator``: jsonschema's
Draft 2020-12 validator on RE2 with bounded keywords; ``explain``: violations in words a
model can act on; ``nulls``: nulls that mean "not given".
"""

import typing

from .._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .explain import describe_errors
    from .fastcheck import fast_check
    from .formats import FORMAT_CHECKER, FORMATS, conforms
    from .jsonparse import (
        MAX_INT_DIGITS,
        JsonProblem,
        decode_short_json,
        lone_surrogate,
        parse_arguments,
        parse_json,
    )
    from .jsontypes import (
        TYPE_TESTS,
        Checker,
        conjunction,
        enum_test,
        is_number,
        json_equal,
        json_type_name,
        show_json,
    )
    from .nulls import NullPlan, null_plan, optional_non_null
    from .validator import safe_checker, schema_problem, schema_validator

__all__ = [
    "FORMATS",
    "FORMAT_CHECKER",
    "MAX_INT_DIGITS",
    "TYPE_TESTS",
    "Checker",
    "JsonProblem",
    "NullPlan",
    "conforms",
    "conjunction",
    "decode_short_json",
    "describe_errors",
    "enum_test",
    "fast_check",
    "is_number",
    "json_equal",
    "json_type_name",
    "lone_surrogate",
    "null_plan",
    "optional_non_null",
    "parse_arguments",
    "parse_json",
    "safe_checker",
    "schema_problem",
    "schema_validator",
    "show_json",
]

_EXPORTS: dict[str, str] = {
    "Checker": ".jsontypes",
    "FORMATS": ".formats",
    "FORMAT_CHECKER": ".formats",
    "JsonProblem": ".jsonparse",
    "MAX_INT_DIGITS": ".jsonparse",
    "NullPlan": ".nulls",
    "TYPE_TESTS": ".jsontypes",
    "conforms": ".formats",
    "conjunction": ".jsontypes",
    "decode_short_json": ".jsonparse",
    "describe_errors": ".explain",
    "enum_test": ".jsontypes",
    "fast_check": ".fastcheck",
    "is_number": ".jsontypes",
    "json_equal": ".jsontypes",
    "json_type_name": ".jsontypes",
    "lone_surrogate": ".jsonparse",
    "null_plan": ".nulls",
    "optional_non_null": ".nulls",
    "parse_arguments": ".jsonparse",
    "parse_json": ".jsonparse",
    "safe_checker": ".validator",
    "schema_problem": ".validator",
    "schema_validator": ".validator",
    "show_json": ".jsontypes",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
